"""The math answer grammar on the host: what it accepts, what it refuses (without evaluating anything), the forms."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spade.kinds.math.extract import extract_answer
from spade.kinds.math.grammar import MAX_CHARS, MAX_DEPTH, Refused, form_problem, parse_answer, parse_form

X = parse_form("expression in x")


@pytest.mark.parametrize("text, tree", [
    ("2x^2", ("mul", ("int", "2"), ("pow", ("var", "x"), ("int", "2")))),
    ("-x**2", ("neg", ("pow", ("var", "x"), ("int", "2")))),
    ("2^3^2", ("pow", ("int", "2"), ("pow", ("int", "3"), ("int", "2")))),
    ("\\frac{3}{4}", ("div", ("int", "3"), ("int", "4"))),
    ("$\\sqrt{2}$", ("sqrt", ("int", "2"))),
    ("3(x + 1)", ("mul", ("int", "3"), ("add", ("var", "x"), ("int", "1")))),
    ("5!", ("fact", ("int", "5"))),
    ("1.25", ("dec", "1.25")),
])
def test_the_grammar_builds_the_expected_tree(text, tree):
    assert parse_answer(text, X) == [tree]


@pytest.mark.parametrize("text", [
    "__import__('os').system('id')", "lambda: 1", "x.__class__", "().__class__.__bases__", "exec('1')",
    "open('/etc/passwd')", "x if x else x", "[x for x in y]", "'1'", "x; y", "x[0]", "Symbol('x')", "\\input{x}",
    "E**x", "pi", "a", "", "   ", "(", "1 +", "1 2", "x = = 1",
])
def test_text_that_is_not_in_the_grammar_is_refused(text):
    with pytest.raises(Refused):
        parse_answer(text, X)


def test_bounds_refuse_long_deep_and_wide_answers():
    with pytest.raises(Refused, match="characters"):
        parse_answer("1" * (MAX_CHARS + 1), X)
    with pytest.raises(Refused, match="nested"):
        parse_answer("(" * (MAX_DEPTH + 1) + "x" + ")" * (MAX_DEPTH + 1), X)
    with pytest.raises(Refused, match="nested"):
        parse_answer("-" * (MAX_DEPTH + 1) + "x", X)
    with pytest.raises(Refused, match="digits"):
        parse_answer("9" * 41, X)
    with pytest.raises(Refused, match="tokens"):
        parse_answer("+".join(["x"] * 200), X)
    assert parse_answer("(" * MAX_DEPTH + "x" + ")" * MAX_DEPTH, X) == [("var", "x")]


def test_sets_are_items_and_a_set_is_refused_where_one_value_is_asked():
    roots = parse_form("numbers in x")
    assert parse_answer("x = 2, x = -3", roots) == [("int", "2"), ("neg", ("int", "3"))]
    assert parse_answer("x = 2 or x = -3", roots) == parse_answer("{2, -3}", roots)
    with pytest.raises(Refused, match="one value"):
        parse_answer("{2, 3}", parse_form("number"))
    with pytest.raises(Refused, match="unknown name"):
        parse_answer("y = 2", roots)
    surds = parse_form("constants in x")
    assert parse_answer("x = 1 \\pm \\sqrt{2}", surds) == parse_answer("x = 1 + sqrt(2), x = 1 - sqrt(2)", surds)
    assert parse_answer("45,360", parse_form("number")) == [("int", "45360")]


@pytest.mark.parametrize("form, text, ok", [
    ("number", "3/4", True), ("number", "-3/4", True), ("number", "0.75", True), ("number", "6/8", False),
    ("number", "3/4 + 1", False), ("number", "4/1", False),
    ("constant", "(3 + sqrt(5))/2", True),
    ("polynomial in x", "x^2 + 2x + 1", True), ("polynomial in x", "-2*x^2 + 3*x/2 - 1/3", True),
    ("polynomial in x", "(x + 1)^2", False), ("polynomial in x", "x^2 + x + x", False),
    ("polynomial in x", "x*x", False), ("polynomial in x", "x - (x - 1)", False),
    ("polynomial in x, y", "x**2*y - 3*x*y + y", True), ("expression in n", "3*2^(n-1)", True),
])
def test_forms(form, text, ok):
    f = parse_form(form)
    assert all(form_problem(node, f) is None for node in parse_answer(text, f)) is ok


def test_an_unknown_answer_form_is_refused_with_the_known_ones():
    with pytest.raises(ValueError, match="number, numbers"):
        parse_form("def f(x):")
    with pytest.raises(ValueError, match="names no variables"):
        parse_form("polynomial")


@pytest.mark.parametrize("completion, answer", [
    ("So x = 3.\nAnswer: x = 3", "x = 3"), ("thus \\boxed{\\frac{3}{4}}.", "\\frac{3}{4}"),
    ("**Final Answer:** 42", "42"), ("42", "42"), ("I am not sure.\nMaybe later", ""),
    ("\\boxed{1} then \\boxed{2}", "2"), ("\\boxed{unclosed", ""),
])
def test_extraction_takes_the_last_boxed_or_answer_line(completion, answer):
    assert extract_answer(completion) == answer


def test_extraction_of_a_megabyte_is_bounded():
    huge = "Answer: " + "1" * 1_000_000
    assert len(extract_answer(huge)) <= MAX_CHARS + 1
    assert extract_answer("answer" + "*" * 1_000_000 + "x") == ""
    assert len(extract_answer("1 = " * 250_000, prefilled=True, form=parse_form("number"))) <= MAX_CHARS + 1
    assert len(extract_answer("2" * 1_000_000, prefilled=True, form=parse_form("number"))) <= MAX_CHARS + 1


@pytest.mark.parametrize("completion, form, answer", [
    ("7\n\nThe answer is -7, which is a fraction in lowest terms.", "number", "7"),  # the committed line, not chatter
    ("1\n\nThe answer is one number: an integer.", "number", "1"),
    ("Answer: 5\nAnswer: 6", "number", "5"),  # "Answer: Answer: 5" after the prefill
    ("Halve it, then add.\nAnswer: 3/4", "number", "3/4"),  # a server that cannot prefill works first
    ("(x + 1)^2\nAnswer: x^2 + 2x + 1", "polynomial in x", "x^2 + 2x + 1"),  # not of the form: not the answer
    ("6/8\nso \\boxed{3/4}", "number", "3/4"),  # not in lowest terms
    ("1 + 1 = 2\nThe answer is 3.", "number", "2"),  # an equation chain states its last side
    ("3 * 4 = 12.\n", "number", "12."),
    ("2 * 3 = 6 ways.", "number", "6"),  # a count's unit after the number
    ("12 different outfits", "number", "12"),
    ("6 ways to choose them\nAnswer: 7", "number", "7"),  # more than three words: not an answer line
    ("sqrt(2) meters", "polynomial in x", "sqrt(2) meters"),  # words are dropped only where one value is asked
    ("2 = 1 + 1", "number", "1 + 1"),  # the stated result is what is judged (here: not a number)
    ("x = 5\nThe answer is 4.", "numbers in x", "x = 5"),  # a label, not a chain
    ("2x + 6 = 8", "polynomial in x", "2x + 6 = 8"),  # a chain only where the form is one value
])
def test_after_the_prefill_the_first_line_is_the_answer_when_it_has_the_form(completion, form, answer):
    assert extract_answer(completion, prefilled=True, form=parse_form(form)) == answer


def test_without_the_prefill_the_last_answer_line_still_wins():
    assert extract_answer("7\nAnswer: 8", prefilled=False, form=parse_form("number")) == "8"
    assert extract_answer("7\nThe answer is 8.", prefilled=True) == "8."  # no form: the old rule


ALPHABET = "0123456789.+-*/^()!,={}[]xyn sqrt\\frac{}_'\"\n\t$#@;:<>|&%~`?"


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet=ALPHABET, max_size=200))
def test_any_text_is_parsed_or_refused_never_an_other_error(text):
    for form in (X, parse_form("numbers in x"), parse_form("polynomial in x, y")):
        try:
            items = parse_answer(text, form)
        except Refused:
            continue
        for node in items:
            form_problem(node, form)


def test_importing_the_kind_and_its_families_does_not_import_sympy():
    code = ("import sys\nfrom spade.registry import FAMILIES, KINDS\nKINDS.names(); FAMILIES.names()\n"
            "import spade.kinds.math\nassert 'sympy' not in sys.modules, 'sympy imported on the host'\n")
    root = str(Path(__file__).resolve().parents[3])
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=root,
                          env={**os.environ, "PYTHONPATH": root})
    assert done.returncode == 0, done.stderr

"""parse_untrusted: every way Python's parser can fail on code we did not write is a SyntaxError."""

import ast

import pytest

from spade.pycode import MAX_AST_DEPTH, ast_depth, parse_untrusted


@pytest.mark.parametrize(
    "source, fragment",
    [
        ("def f(x):\n    return x" + "+0" * 200_000 + "\n", "nested too deeply"),  # RecursionError in the parser
        ("x = " + "-" * 20_000 + "1\n", "nested too deeply"),  # MemoryError in the parser
        ("def f(x):\n    return x" + "+0" * 1_000 + "\n", f"more than {MAX_AST_DEPTH} levels"),  # parses; unwalkable
        ("x = 1\x00\n", "null bytes"),
        ("def f(:\n", "invalid syntax"),
    ],
)
def test_code_that_cannot_be_parsed_or_walked_is_a_syntax_error(source, fragment):
    with pytest.raises(SyntaxError) as info:
        parse_untrusted(source)
    assert fragment in str(info.value.msg)


def test_ordinary_code_parses_and_its_tree_can_be_unparsed_and_compiled():
    source = "def f(xs):\n    return [[x + (1 if x else 2) for x in row] for row in xs]\n"
    tree = parse_untrusted(source)
    compile(tree, "<t>", "exec")
    assert ast.unparse(tree).startswith("def f(xs)")


def test_a_tree_at_the_depth_bound_still_unparses():
    depth_source = "def f(x):\n    return x" + "+0" * (MAX_AST_DEPTH - 8) + "\n"
    tree = parse_untrusted(depth_source)
    assert ast_depth(tree) <= MAX_AST_DEPTH
    ast.unparse(tree)
    compile(tree, "<t>", "exec")

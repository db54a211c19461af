"""Composed seed variants (docs/method.md#seed-variants-and-composition): a seed task followed, or preceded, by
one step from another family.

In: a seed's signature, read as types. Out: the `Transform`s that fit it and, for a chosen one, the composed
reference (the seed's function kept under a private name and called from the new entry point), the new
return annotation and the sentence the description gains. An output transform rewrites the seed's result; an
input transform rewrites one argument before the seed sees it. Every transform is total over the type it fits,
and one that changes a list's length is offered only to one-parameter seeds, so no index argument can go stale.
Whether a step changes any answer is settled by execution (spade.commands.variants), not here.
"""

from __future__ import annotations

import ast
import random
from collections.abc import Callable
from dataclasses import dataclass
from string import Template
from typing import Any

from spade.validate.types import Ann, UnsupportedAnnotation, parse_annotation

Fits = Callable[[Ann], bool]


@dataclass(frozen=True, slots=True)
class Transform:
    """One composable step. `code` is an expression in `$r`, the seed's result (output transforms), or in `$p`,
    the argument it rewrites (input transforms)."""

    key: str
    family: str  # the registered procedural family whose domain the step comes from
    where: str  # "output" or "input"
    fits: Fits  # applied to the return annotation (output) or to the parameter's annotation (input)
    code: str
    sentence: str  # appended to the description; `$p` is the parameter's (renamed) name
    returns: str | None = None  # the new return annotation ($v: the seed's dict value type); None keeps the seed's
    bite: Callable[[Any, random.Random], Any] | None = None  # input only: an argument the step is sure to change
    sole: bool = False  # input only: the step changes the argument's length, which another parameter may index


def _is(kind: str) -> Fits:
    return lambda a: a.kind == kind


def _list_of(*kinds: str) -> Fits:
    """A list whose elements are one of `kinds`; no kinds means any list."""
    return lambda a: a.kind == "list" and (not kinds or (len(a.args) == 1 and a.args[0].kind in kinds))


def _str_keyed_dict(a: Ann) -> bool:
    return a.kind == "dict" and len(a.args) == 2 and a.args[0].kind == "str"


def _with_repeats(value: list, rng: random.Random) -> list:
    return value + [rng.choice(value) for _ in range(2)] if value else value


def _unsorted(value: list, rng: random.Random) -> list:
    return sorted(value, reverse=True) if len(set(map(repr, value))) > 1 else value


def _mixed_case(value: str, rng: random.Random) -> str:
    return "".join(c.upper() if rng.random() < 0.5 else c for c in value)


SORTABLE = ("int", "float", "str")

TRANSFORMS: tuple[Transform, ...] = (
    Transform("mod_7", "gcd_lcm", "output", _is("int"), "$r % 7",
              "Then, instead of that value, return it modulo 7: a number from 0 to 6, also when the value is "
              "negative (as Python's % gives)."),
    # Lossy steps (a digit sum, say) leave the seed's own mutants alive and fail the kill ratio; these keep enough.
    Transform("to_binary", "digits", "output", _is("int"), "format($r, 'b')",
              "Then, instead of that value, return it written in base 2 as a string of 0s and 1s, with a leading '-' "
              "when it is negative (e.g. 6 gives '110', -5 gives '-101', 0 gives '0').", returns="str"),
    Transform("collatz_step", "recursion_numbers", "output", _is("int"), "$r // 2 if $r % 2 == 0 else 3 * $r + 1",
              "Then, instead of that value, apply one Collatz step to it: return half of it if it is even, "
              "otherwise three times it plus one."),
    Transform("sort_desc", "sorting", "output", _list_of(*SORTABLE), "sorted($r, reverse=True)",
              "Then, instead of that list, return its elements sorted from largest to smallest."),
    Transform("reverse_list", "list_transform", "output", _list_of(), "$r[::-1]",
              "Then, instead of that list, return it in reverse order."),
    Transform("even_positions", "rotate_list", "output", _list_of(), "$r[::2]",
              "Then, instead of that list, return only its elements at even positions (0, 2, 4, ...), in order."),
    Transform("running_sum", "list_transform", "output", _list_of("int"), "[sum($r[:i + 1]) for i in range(len($r))]",
              "Then, instead of that list, return its running sums: element i is the sum of its elements 0 through i."),
    Transform("list_sum", "list_aggregate", "output", _list_of("int"), "sum($r)",
              "Then, instead of that list, return the sum of its elements (0 when it is empty).", returns="int"),
    Transform("reverse_str", "string_transform", "output", _is("str"), "$r[::-1]",
              "Then, instead of that string, return it reversed."),
    Transform("upper", "string_transform", "output", _is("str"), "$r.upper()",
              "Then, instead of that string, return it in uppercase."),
    Transform("char_counts", "char_frequency", "output", _is("str"), "{c: $r.count(c) for c in dict.fromkeys($r)}",
              "Then, instead of that string, return a dictionary mapping each of its characters to the number of "
              "times it appears.", returns="dict[str, int]"),
    Transform("sorted_items", "dict_ops", "output", _str_keyed_dict, "[[k, $r[k]] for k in sorted($r)]",
              "Then, instead of that dictionary, return its entries as a list of [key, value] pairs sorted by key.",
              returns="list[tuple[str, $v]]"),
    Transform("dedupe_arg", "list_transform", "input", _list_of(*SORTABLE), "list(dict.fromkeys($p))",
              "One change: repeated values are first removed from $p, keeping the first occurrence of each in "
              "order, and everything above applies to that shorter list.", bite=_with_repeats, sole=True),
    Transform("sort_arg", "sorting", "input", _list_of(*SORTABLE), "sorted($p)",
              "One change: $p is first sorted from smallest to largest, and everything above applies to that "
              "sorted list.", bite=_unsorted),
    Transform("rotate_arg", "rotate_list", "input", _list_of(), "$p[1:] + $p[:1]",
              "One change: $p is first rotated left by one position (its first element moves to the end), and "
              "everything above applies to that rotated list."),
    Transform("lower_arg", "string_transform", "input", _is("str"), "$p.lower()",
              "One change: $p is first converted to lowercase, and everything above applies to that lowercase "
              "string.", bite=_mixed_case),
    Transform("reverse_arg", "string_transform", "input", _is("str"), "$p[::-1]",
              "One change: $p is first reversed, and everything above applies to that reversed string."),
)


@dataclass(frozen=True, slots=True)
class Choice:
    """A transform bound to a seed: `arg` is the index of the parameter an input transform rewrites."""

    transform: Transform
    arg: int | None = None


def fitting(signature: str) -> list[Choice]:
    """Every transform whose types fit the signature, output transforms first, in declaration order.

    Signatures with *args, **kwargs or keyword-only parameters, or annotations outside JSON, get none."""
    fn = _function(signature)
    a = fn.args
    if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs:
        return []
    try:
        ret = parse_annotation(fn.returns)
        params = [parse_annotation(p.annotation) for p in a.args]
    except (UnsupportedAnnotation, SyntaxError):
        return []
    out = [Choice(t) for t in TRANSFORMS if t.where == "output" and fn.returns is not None and t.fits(ret)]
    return out + [Choice(t, i) for t in TRANSFORMS if t.where == "input" and not (t.sole and len(params) > 1)
                  for i, p in enumerate(params) if a.args[i].annotation is not None and t.fits(p)]


def pick(choices: list[Choice], rng: random.Random, index: int) -> Choice | None:
    """The index-th choice in an order shuffled by `rng`, so consecutive indices get different transforms."""
    if not choices:
        return None
    order = list(choices)
    rng.shuffle(order)
    return order[index % len(order)]


def composed_reference(seed_reference: str, seed_name: str, signature: str, choice: Choice) -> str:
    """The seed's reference (already renamed, its entry point called `seed_name`) plus the composed entry point."""
    fn = _function(signature)
    args = [p.arg for p in fn.args.args]
    call = f"{seed_name}({', '.join(args)})"
    t = choice.transform
    if t.where == "output":
        var = "result" if "result" not in args else "seed_result"
        body = f"    {var} = {call}\n    return {Template(t.code).substitute(r=var)}\n"
    else:
        p = args[choice.arg]
        body = f"    {p} = {Template(t.code).substitute(p=p)}\n    return {call}\n"
    return f"{seed_reference.rstrip()}\n\n\n{signature.rstrip(':')}:\n{body}"


def composed_signature(signature: str, choice: Choice) -> str:
    """The signature with the transform's return annotation, if it has one."""
    if choice.transform.returns is None:
        return signature
    fn = _function(signature)
    ret = fn.returns
    pair = isinstance(ret, ast.Subscript) and isinstance(ret.slice, ast.Tuple) and len(ret.slice.elts) == 2
    returns = Template(choice.transform.returns).substitute(v=ast.unparse(ret.slice.elts[1]) if pair else "Any")
    fn.returns = ast.parse(returns, mode="eval").body
    return ast.unparse(fn).split("\n")[0]


def sentence(signature: str, choice: Choice) -> str:
    fn = _function(signature)
    p = fn.args.args[choice.arg].arg if choice.arg is not None else ""
    return Template(choice.transform.sentence).substitute(p=p)


def private_name(reference: str, base: str) -> str:
    """`_seed_<base>`, lengthened until no name in the reference uses it."""
    used = {n.id for n in ast.walk(ast.parse(reference)) if isinstance(n, ast.Name)}
    used |= {n.name for n in ast.walk(ast.parse(reference)) if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    name = f"_seed_{base}"
    while name in used:
        name += "_"
    return name


def _function(signature: str) -> ast.FunctionDef:
    fn = ast.parse(signature.strip().rstrip(":") + ":\n    pass\n").body[0]
    if not isinstance(fn, ast.FunctionDef):
        raise ValueError(f"signature {signature!r} is not one function definition")
    return fn

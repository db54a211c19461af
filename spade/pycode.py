"""Parse Python source we did not write (task references, graded completions) on the host without tracebacks.

In: source text. Out: an `ast.Module`, or SyntaxError for everything that stops it: bad syntax, and also the
parser's RecursionError / MemoryError on deep expressions ("x" + "+0" * 5000) and trees deeper than
MAX_AST_DEPTH, which ast.unparse and compile could not walk back (they recurse once per level). `longest_parse`
finds the longest parseable run of a completion's lines in a bounded number of parses (a `ParseBudget`).
"""

from __future__ import annotations

import ast

from spade.untrusted import MAX_ANSWER_BYTES, over

MAX_AST_DEPTH = 100  # far beyond any real function; ast.unparse and compile recurse a few frames per level


def parse_untrusted(source: str) -> ast.Module:
    """`ast.parse(source)`, with every way it can fail or leave an unwalkable tree raised as SyntaxError."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        raise
    except (RecursionError, MemoryError):
        raise SyntaxError("expressions nested too deeply for Python's parser") from None
    except ValueError as exc:  # e.g. source code string cannot contain null bytes
        raise SyntaxError(str(exc)) from None
    if ast_depth(tree) > MAX_AST_DEPTH:
        raise SyntaxError(f"code nested more than {MAX_AST_DEPTH} levels deep")
    return tree


def ast_depth(tree: ast.AST) -> int:
    """The depth of the deepest node, counted without recursion."""
    deepest, stack = 0, [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        if depth <= MAX_AST_DEPTH:  # past the bound the exact depth no longer matters
            stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return deepest


class ParseBudget:
    """What one extraction may still parse: a number of spans and a number of bytes in all (each span at most
    MAX_ANSWER_BYTES). The parser's time is linear in the bytes, so this bounds an extractor's host time on any
    completion, degenerate ones included, to a few hundred milliseconds."""

    def __init__(self, parses: int = 24, total_bytes: int = 4 * MAX_ANSWER_BYTES) -> None:
        self.left, self.bytes_left = parses, total_bytes

    def parse(self, source: str) -> ast.Module:
        """`parse_untrusted(source)`, counted; SyntaxError also once the budget is spent or the span too long."""
        size = len(source.encode("utf-8", "surrogatepass"))
        if self.left <= 0 or size > min(self.bytes_left, MAX_ANSWER_BYTES):
            self.left = 0
            raise SyntaxError("parse budget spent")
        self.left, self.bytes_left = self.left - 1, self.bytes_left - size
        return parse_untrusted(source)


def longest_parse(lines: list[str], start: int, budget: ParseBudget) -> tuple[str, ast.Module] | None:
    """The longest run of `lines` from `start` (and within MAX_ANSWER_BYTES) that parses, found by cutting before
    the line each SyntaxError names (a cut-off last line, prose after the code) rather than by trying every end:
    a few parses, not one per line. None when no run parses within the budget."""
    end, size = start, 0
    while end < len(lines) and size + len(lines[end]) < MAX_ANSWER_BYTES:  # characters: a first, cheap cut
        size += len(lines[end]) + 1
        end += 1
    while end > start and budget.left > 0:
        chunk = "\n".join(lines[start:end])
        if over(chunk, MAX_ANSWER_BYTES):  # characters of several bytes each: cut by a quarter and try again
            end = start + (end - start) * 3 // 4
            continue
        try:
            return chunk, budget.parse(chunk)
        except SyntaxError as exc:
            bad = exc.lineno if isinstance(exc.lineno, int) and exc.lineno > 0 else end - start
            end = min(start + bad - 1, end - 1)  # the lines before the one the parser stopped on
    return None

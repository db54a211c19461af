"""Parse Python source we did not write (task references, graded completions) on the host without tracebacks.

In: source text. Out: an `ast.Module`, or SyntaxError for everything that stops it: bad syntax, and also the
parser's RecursionError / MemoryError on deep expressions ("x" + "+0" * 5000) and trees deeper than
MAX_AST_DEPTH, which ast.unparse and compile could not walk back (they recurse once per level).
"""

from __future__ import annotations

import ast

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

"""The math kind's answer grammar: text -> a small tree of tuples. Nothing is evaluated and nothing is Python.

Runs inside the sandbox (the judge places this file beside itself and imports it) and in host tests; it imports only
the standard library. In: an answer, a reference or an expected value as text, and the task's answer form. Out: a
tree per item, or `Refused` (a format failure) naming why. `form_problem` then says whether a tree has the form the
task asks for (an expanded polynomial, a number in lowest terms...); values are the judge's business.

  answer  := item | '{' items '}' | '[' items ']' | items        (several items only where the form is a set)
  item    := [NAME '='] expr                                       (NAME: the form's variables, e.g. "x = 3")
  expr    := ['+'|'-'] term (('+'|'-') term)*
  term    := unary (('*' | '/' | juxtaposition) unary)*            ("2x", "3(x+1)", "x y")
  unary   := ('+'|'-') unary | power
  power   := postfix [('^'|'**') unary]                            (right-associative)
  postfix := atom '!'*
  atom    := INTEGER | DECIMAL | VARIABLE | 'sqrt' '(' expr ')' | '(' expr ')'

Names are single letters the form allows (a run such as "xy" is x*y when every letter is allowed) or `sqrt`; any
other name, quote, underscore, dot outside a number, bracket or backslash is refused, so no text can reach an
evaluator. Bounds: characters, tokens, nesting depth, digits per number, items per set. Common LaTeX (\\frac, \\sqrt,
\\cdot, \\left/\\right, ^{...}, $...$) and Unicode minus/times are rewritten first, within the same bounds.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

MAX_CHARS = 1000
MAX_TOKENS = 300
MAX_DEPTH = 24
MAX_DIGITS = 40
MAX_ITEMS = 12
FUNCTIONS = ("sqrt",)
FORMS = ("number", "numbers", "constant", "constants", "polynomial", "expression")
"""number: an integer, a decimal or a fraction a/b in lowest terms. constant: any expression without variables
(e.g. (3 + sqrt(5))/2). polynomial: expanded, like terms combined (3*x^2 - x/2 + 1). expression: any expression in
the form's variables. The plural forms are sets of the singular, compared as sets."""


class Refused(ValueError):
    """The text is not in the grammar (or past a bound): a format failure, never evaluated."""


@dataclass(frozen=True, slots=True)
class Form:
    """What an answer must look like: the form, and the variables it may use (or name, as in "x = 3")."""

    name: str
    variables: tuple[str, ...] = ()

    @property
    def is_set(self) -> bool:
        return self.name in ("numbers", "constants")

    @property
    def item(self) -> str:
        """The form of one item of a set (the form itself otherwise)."""
        return {"numbers": "number", "constants": "constant"}.get(self.name, self.name)

    @property
    def spec(self) -> str:
        return f"{self.name} in {', '.join(self.variables)}" if self.variables else self.name


_SPEC = re.compile(r"^\s*([a-z]+)(?:\s+in\s+([A-Za-z](?:\s*,\s*[A-Za-z])*))?\s*$")


def parse_form(spec: str) -> Form:
    """A form from its spec, e.g. "number", "numbers in x", "polynomial in x, y"; ValueError naming the fix."""
    m = _SPEC.match(spec) if isinstance(spec, str) and len(spec) <= 100 else None
    if m is None or m.group(1) not in FORMS:
        raise ValueError(f"answer form {spec!r:.80} is not one of {', '.join(FORMS)}, optionally followed by "
                         "'in' and single-letter variables, e.g. 'polynomial in x, y'")
    variables = tuple(v.strip() for v in m.group(2).split(",")) if m.group(2) else ()
    if m.group(1) in ("polynomial", "expression") and not variables:
        raise ValueError(f"answer form {spec!r} names no variables; write e.g. '{m.group(1)} in x'")
    return Form(m.group(1), variables)


# ---------------------------------------------------------------------------------------------------------- text

_LATEX_SIMPLE = (("\\pm", "\u00b1"), ("+/-", "\u00b1"), ("\\left", ""), ("\\right", ""), ("\\cdot", "*"),
                 ("\\times", "*"), ("\\dfrac", "\\frac"), ("\\tfrac", "\\frac"), ("\\{", "{"), ("\\}", "}"),
                 ("\\,", ""), ("\\;", ""), ("\\!", ""), ("\\ ", ""), ("\u2212", "-"), ("\u00d7", "*"),
                 ("\u00b7", "*"), ("\u22c5", "*"), ("\u00b2", "^2"), ("\u00b3", "^3"))
_FRAC = re.compile(r"\\frac\{([^{}]*)\}\{([^{}]*)\}")
_SQRT = re.compile(r"\\sqrt\{([^{}]*)\}")
_POWER_GROUP = re.compile(r"\^\{([^{}]*)\}")
_WRAPPERS = (("$$", "$$"), ("$", "$"), ("\\(", "\\)"), ("\\[", "\\]"))
_THOUSANDS = re.compile(r"^[+-]?\d{1,3}(?:,\d{3})+$")
_CONJUNCTION = re.compile(r"\s+(?:or|and)\s+")
_LABEL = re.compile(r"^\s*[A-Za-z]\s*(?:_\s*\{?\s*[A-Za-z0-9]+\s*\}?|\(\s*[A-Za-z]\s*\))\s*=")


def normalize(text: str) -> str:
    """Common LaTeX and Unicode rewritten to the grammar's ASCII; a label such as "a_n =" dropped."""
    s = text.strip()
    for start, end in _WRAPPERS:
        if len(s) >= len(start) + len(end) and s.startswith(start) and s.endswith(end):
            s = s[len(start):len(s) - len(end)].strip()
    for old, new in _LATEX_SIMPLE:
        s = s.replace(old, new)
    for _ in range(MAX_DEPTH):  # innermost groups first; each pass removes one level
        rewritten = _POWER_GROUP.sub(r"^(\1)", _SQRT.sub(r"sqrt(\1)", _FRAC.sub(r"((\1)/(\2))", s)))
        if rewritten == s:
            break
        s = rewritten
    s = _CONJUNCTION.sub(", ", _LABEL.sub("", s, count=1))  # "x = 2 or x = 3" is a set of two
    return s.rstrip().rstrip(".").strip()


# -------------------------------------------------------------------------------------------------------- tokens

_TOKEN = re.compile(r"\s*(?:(\d+\.\d*|\.\d+)|(\d+)|([A-Za-z]+)|(\*\*|[-+*/^()!,={}\[\]]))")


def tokenize(text: str, variables: tuple[str, ...]) -> list[tuple[str, str]]:
    """(kind, text) pairs: dec, int, var, func, op. Refused on anything else or past a bound."""
    tokens: list[tuple[str, str]] = []
    pos, end = 0, len(text.rstrip())
    while pos < end:
        m = _TOKEN.match(text, pos)
        if m is None:
            raise Refused(f"unexpected character {text[pos]!r} at {pos}")
        pos = m.end()
        dec, integer, name, op = m.groups()
        if dec is not None or integer is not None:
            digits = dec or integer or ""
            if len(digits.replace(".", "")) > MAX_DIGITS:
                raise Refused(f"a number has more than {MAX_DIGITS} digits")
            tokens.append(("dec" if dec is not None else "int", digits))
        elif name is not None:
            tokens.extend(_name_tokens(name, variables))
        else:
            tokens.append(("op", op or ""))
        if len(tokens) > MAX_TOKENS:
            raise Refused(f"more than {MAX_TOKENS} tokens")
    return tokens


def _name_tokens(name: str, variables: tuple[str, ...]) -> list[tuple[str, str]]:
    if name in FUNCTIONS:
        return [("func", name)]
    if all(letter in variables for letter in name):
        return [("var", letter) for letter in name]
    raise Refused(f"unknown name {name[:20]!r}; allowed: {', '.join(variables + FUNCTIONS)}")


# -------------------------------------------------------------------------------------------------------- parser

Node = tuple  # ("int", "12") ("dec", "1.5") ("var", "x") ("neg", a) ("add"|"sub"|"mul"|"div"|"pow", a, b)
#               ("fact", a) ("sqrt", a)


def parse_answer(text: str, form: Form) -> list[Node]:
    """The items of an answer (one unless the form is a set). Refused when it is not in the grammar."""
    if not isinstance(text, str) or not text.strip():
        raise Refused("the answer is empty")
    if len(text) > MAX_CHARS:
        raise Refused(f"the answer has {len(text)} characters; at most {MAX_CHARS}")
    text = normalize(text)
    if not form.is_set and _THOUSANDS.match(text):
        text = text.replace(",", "")  # 45,360 is one number where one is asked
    if form.is_set and text.count("\u00b1") == 1 and "," not in text:
        text = f"{text.replace(chr(0xb1), '+')}, {text.replace(chr(0xb1), '-')}"  # 1 ± sqrt(2): two items
    tokens = tokenize(text, form.variables)
    if not tokens:
        raise Refused("the answer is empty")
    if tokens[0] == ("op", "{") and tokens[-1] == ("op", "}") or tokens[0] == ("op", "[") and tokens[-1] == ("op", "]"):
        if not form.is_set:
            raise Refused("a set was given where one value is asked")
        tokens = tokens[1:-1]
        if not tokens:
            return []
    parser = _Parser(tokens, form.variables)
    items = [parser.item()]
    while parser.peek() == ("op", ","):
        parser.take()
        items.append(parser.item())
        if len(items) > MAX_ITEMS:
            raise Refused(f"more than {MAX_ITEMS} items")
    if parser.peek() is not None:
        raise Refused(f"unexpected {parser.peek()[1]!r} after the answer")  # type: ignore[index]
    if len(items) > 1 and not form.is_set:
        raise Refused("several values were given where one is asked")
    return items


class _Parser:
    def __init__(self, tokens: list[tuple[str, str]], variables: tuple[str, ...]) -> None:
        self.tokens, self.pos, self.depth, self.variables = tokens, 0, 0, variables

    def peek(self, ahead: int = 0) -> tuple[str, str] | None:
        i = self.pos + ahead
        return self.tokens[i] if i < len(self.tokens) else None

    def take(self) -> tuple[str, str]:
        token = self.peek()
        if token is None:
            raise Refused("the answer ends too early")
        self.pos += 1
        return token

    def expect(self, op: str) -> None:
        token = self.take()
        if token != ("op", op):
            raise Refused(f"expected {op!r}, found {token[1]!r}")

    def nest(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise Refused(f"nested more than {MAX_DEPTH} levels deep")

    def item(self) -> Node:
        if self.peek() is not None and self.peek()[0] == "var" and self.peek(1) == ("op", "="):  # type: ignore[index]
            self.pos += 2  # "x = 3": the name is the unknown, the value follows
        return self.expr()

    def expr(self) -> Node:
        node = self.term()
        while self.peek() in (("op", "+"), ("op", "-")):
            op = self.take()[1]
            node = ("add" if op == "+" else "sub", node, self.term())
        return node

    def term(self) -> Node:
        node = self.unary()
        while True:
            token = self.peek()
            if token in (("op", "*"), ("op", "/")):
                self.take()
                node = ("mul" if token == ("op", "*") else "div", node, self.unary())
            elif token is not None and (token[0] in ("var", "func") or token == ("op", "(")):
                node = ("mul", node, self.unary())  # juxtaposition: 2x, 3(x + 1), x y
            else:
                return node

    def unary(self) -> Node:
        token = self.peek()
        if token in (("op", "-"), ("op", "+")):
            self.take()
            self.nest()
            inner = self.unary()
            self.depth -= 1
            return ("neg", inner) if token == ("op", "-") else inner
        return self.power()

    def power(self) -> Node:
        base = self.postfix()
        if self.peek() in (("op", "^"), ("op", "**")):
            self.take()
            self.nest()
            exponent = self.unary()
            self.depth -= 1
            return ("pow", base, exponent)
        return base

    def postfix(self) -> Node:
        node = self.atom()
        while self.peek() == ("op", "!"):
            self.take()
            node = ("fact", node)
        return node

    def atom(self) -> Node:
        kind, text = self.take()
        if kind in ("int", "dec", "var"):
            return (kind, text)
        if kind == "func" or (kind, text) == ("op", "("):
            if kind == "func":
                self.expect("(")
            self.nest()
            inner = self.expr()
            self.depth -= 1
            self.expect(")")
            return ("sqrt", inner) if kind == "func" else inner
        raise Refused(f"unexpected {text!r}")


# --------------------------------------------------------------------------------------------------------- forms

def form_problem(node: Node, form: Form) -> str | None:
    """Why one item does not have the form's (item) shape, or None when it does."""
    shape = form.item
    if shape == "number":
        return _number_problem(node)
    if shape == "constant":
        return "it uses a variable; give a value" if _variables(node) else None
    if shape == "polynomial":
        return _polynomial_problem(node)
    return None


def _number_problem(node: Node) -> str | None:
    if node[0] == "neg":
        node = node[1]
    if node[0] in ("int", "dec"):
        return None
    if node[0] == "div":
        top, bottom = node[1], node[2]
        if top[0] == "neg":
            top = top[1]
        if top[0] == "int" and bottom[0] == "int":
            p, q = int(top[1]), int(bottom[1])
            if q >= 2 and math.gcd(p, q) == 1:
                return None
            return "the fraction is not in lowest terms"
    return "it is not a single number; give an integer, a decimal or a fraction a/b in lowest terms"


def _variables(node: Node) -> set[str]:
    found, stack = set(), [node]
    while stack:
        n = stack.pop()
        if n[0] == "var":
            found.add(n[1])
        elif n[0] not in ("int", "dec"):
            stack.extend(n[1:])
    return found


def _polynomial_problem(node: Node) -> str | None:
    """Expanded, like terms combined: a sum of monomials (sign, one coefficient, each variable once with a
    non-negative integer power, at most a whole-number divisor), no two with the same variables and powers."""
    seen: set[tuple[tuple[str, int], ...]] = set()
    for monomial in _sum_terms(node):
        if monomial is None:
            return "it is not expanded: a sum stands inside parentheses"
        signature = _monomial(monomial)
        if signature is None:
            return "it is not expanded: a term is not a number times powers of variables"
        if signature in seen:
            return "like terms are not combined"
        seen.add(signature)
    return None


def _sum_terms(node: Node) -> list[Node | None]:
    terms: list[Node | None] = []
    while node[0] in ("add", "sub"):
        right = node[2]
        terms.append(None if right[0] in ("add", "sub") else right)
        node = node[1]
    terms.append(node)
    return terms[::-1]


def _monomial(node: Node) -> tuple[tuple[str, int], ...] | None:
    powers: dict[str, int] = {}
    coefficients = divisors = signs = 0
    stack = [node]
    while stack:
        n = stack.pop()
        if n[0] == "neg":  # -2*x^2 parses as (-2)*x^2
            signs += 1
            stack.append(n[1])
        elif n[0] == "mul":
            stack.extend((n[1], n[2]))
        elif n[0] == "div":
            if n[2][0] != "int" or int(n[2][1]) < 2:
                return None
            divisors += 1
            stack.append(n[1])
        elif n[0] in ("int", "dec"):
            coefficients += 1
        elif n[0] == "var" or n[0] == "pow" and n[1][0] == "var" and n[2][0] == "int":
            name, power = (n[1], 1) if n[0] == "var" else (n[1][1], int(n[2][1]))
            if name in powers or power < 1:
                return None
            powers[name] = power
        else:
            return None
    if coefficients > 1 or divisors > 1 or signs > 1:
        return None
    return tuple(sorted(powers.items()))

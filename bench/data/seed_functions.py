"""The seed file of the seed-task lever (`generation.seeds`, bench/efficacy.py): 32 small Python function tasks
written for SPADE in the shape a user's task file has (string and list utilities), none a HumanEval problem.

Run `python bench/data/seed_functions.py bench/data/seed_functions.jsonl` to rebuild the JSONL: the expected
values come from running each reference here, on inputs written beside it (the first two are public).
"""

import json
import sys
from typing import Any

T: list[tuple[str, str, str, str, list[list[Any]], list[str]]] = []


def task(name: str, desc: str, sig: str, ref: str, inputs: list[list[Any]], tags: list[str]) -> None:
    T.append((name, desc, sig, ref, inputs, tags))


task(
    'count_vowels',
    'Count the vowels (a, e, i, o, u, upper or lower case) in the string s.',
    'def count_vowels(s: str) -> int:',
    """\
def count_vowels(s: str) -> int:
    return sum(1 for c in s.lower() if c in 'aeiou')
""",
    [['hello'], [''], ['AEIOU xyz'], ['rhythm'], ['Banana'], ['Queueing'], ['sky']],
    ['string'],
)

task(
    'capitalize_words',
    'Return s with the first letter of every space-separated word in upper case and the rest unchanged.',
    'def capitalize_words(s: str) -> str:',
    """\
def capitalize_words(s: str) -> str:
    return ' '.join(w[:1].upper() + w[1:] for w in s.split(' '))
""",
    [['hello world'], [''], ['a b c'], ['already Upper'], ['x'], ['two  spaces'], ['mIxEd case']],
    ['string'],
)

task(
    'run_length',
    "Encode s by runs: each run of equal characters becomes the character followed by the run's length.",
    'def run_length(s: str) -> str:',
    """\
def run_length(s: str) -> str:
    out = []
    i = 0
    while i < len(s):
        j = i
        while j < len(s) and s[j] == s[i]:
            j += 1
        out.append(s[i] + str(j - i))
        i = j
    return ''.join(out)
""",
    [['aaab'], [''], ['abc'], ['zzzzzz'], ['aabbaa'], ['x'], ['1112']],
    ['string'],
)

task(
    'second_largest',
    'Return the second largest distinct value in xs, or None when xs has fewer than two distinct values.',
    'def second_largest(xs: list) -> int:',
    """\
def second_largest(xs: list) -> int:
    values = sorted(set(xs), reverse=True)
    return values[1] if len(values) > 1 else None
""",
    [[[3, 1, 2]], [[]], [[5, 5, 5]], [[1, 9, 9, 4]], [[-1, -7]], [[10]], [[2, 8, 8, 6, 7]]],
    ['list'],
)

task(
    'rotate_left',
    'Rotate the list xs left by k positions (k may exceed the length); an empty list stays empty.',
    'def rotate_left(xs: list, k: int) -> list:',
    """\
def rotate_left(xs: list, k: int) -> list:
    if not xs:
        return []
    k %= len(xs)
    return xs[k:] + xs[:k]
""",
    [[[1, 2, 3, 4], 1], [[], 3], [[1, 2, 3], 3], [[5, 6], 5], [[9], 0], [[1, 2, 3, 4, 5], 2], [[7, 8, 9], 4]],
    ['list'],
)

task(
    'chunk',
    'Split xs into consecutive pieces of length n (the last may be shorter) and return the list of '
    'pieces.',
    'def chunk(xs: list, n: int) -> list:',
    """\
def chunk(xs: list, n: int) -> list:
    return [xs[i:i + n] for i in range(0, len(xs), n)]
""",
    [[[1, 2, 3, 4, 5], 2], [[], 3], [[1, 2, 3], 3], [[4, 5, 6], 1], [[1, 2], 5], [[0, 0, 0, 0], 2]],
    ['list'],
)

task(
    'is_descending',
    'Return True when every element of xs is greater than or equal to the next one.',
    'def is_descending(xs: list) -> bool:',
    """\
def is_descending(xs: list) -> bool:
    return all(a >= b for a, b in zip(xs, xs[1:]))
""",
    [[[5, 3, 1]], [[]], [[1, 2]], [[4, 4, 2]], [[7]], [[3, 1, 2]], [[0, -1, -1]]],
    ['list'],
)

task(
    'digit_sum',
    'Return the sum of the decimal digits of n, ignoring its sign.',
    'def digit_sum(n: int) -> int:',
    """\
def digit_sum(n: int) -> int:
    return sum(int(d) for d in str(abs(n)))
""",
    [[123], [0], [-45], [9999], [7], [1001], [-808]],
    ['math'],
)

task(
    'interleave',
    'Alternate the elements of a and b (a first); when one list runs out, append the rest of the other.',
    'def interleave(a: list, b: list) -> list:',
    """\
def interleave(a: list, b: list) -> list:
    out = []
    for i in range(max(len(a), len(b))):
        if i < len(a):
            out.append(a[i])
        if i < len(b):
            out.append(b[i])
    return out
""",
    [[[1, 2, 3], [4, 5, 6]], [[], [1]], [[1, 2, 3], []], [[1], [2, 3, 4]], [[], []], [[0, 0], [1]]],
    ['list'],
)

task(
    'count_words',
    'Count the words in s, where words are separated by any amount of whitespace.',
    'def count_words(s: str) -> int:',
    """\
def count_words(s: str) -> int:
    return len(s.split())
""",
    [['hello world'], [''], ['   '], ['one'], [' a  b   c '], ['tab\tseparated words']],
    ['string'],
)

task(
    'longest_word',
    'Return the longest space-separated word of s (the first one on a tie), or an empty string when there'
    ' is none.',
    'def longest_word(s: str) -> str:',
    """\
def longest_word(s: str) -> str:
    best = ''
    for w in s.split():
        if len(w) > len(best):
            best = w
    return best
""",
    [['the quick brown fox'], [''], ['a bb cc'], ['single'], ['ab cd ef'], ['x yyy zz yyy']],
    ['string'],
)

task(
    'swap_pairs',
    'Swap each pair of neighbouring elements of xs (positions 0 and 1, 2 and 3, ...); an odd last element'
    ' stays.',
    'def swap_pairs(xs: list) -> list:',
    """\
def swap_pairs(xs: list) -> list:
    out = list(xs)
    for i in range(0, len(out) - 1, 2):
        out[i], out[i + 1] = out[i + 1], out[i]
    return out
""",
    [[[1, 2, 3, 4]], [[]], [[1, 2, 3]], [[9]], [[5, 6]], [[1, 1, 2, 2, 3]]],
    ['list'],
)

task(
    'gcd_all',
    'Return the greatest common divisor of all the integers in xs (0 for an empty list).',
    'def gcd_all(xs: list) -> int:',
    """\
def gcd_all(xs: list) -> int:
    from math import gcd
    g = 0
    for x in xs:
        g = gcd(g, x)
    return g
""",
    [[[12, 18, 24]], [[]], [[7]], [[5, 10, 3]], [[0, 8]], [[100, 75, 50]]],
    ['math'],
)

task(
    'camel_to_snake',
    'Convert a CamelCase or camelCase name to snake_case: an underscore before every upper-case letter '
    'except at the start, all lower case.',
    'def camel_to_snake(name: str) -> str:',
    """\
def camel_to_snake(name: str) -> str:
    out = []
    for i, c in enumerate(name):
        if c.isupper() and i > 0:
            out.append('_')
        out.append(c.lower())
    return ''.join(out)
""",
    [['HelloWorld'], [''], ['camelCase'], ['x'], ['ABC'], ['already_snake'], ['getHTTPCode']],
    ['string'],
)

task(
    'count_greater',
    'Count the elements of xs that are strictly greater than t.',
    'def count_greater(xs: list, t: int) -> int:',
    """\
def count_greater(xs: list, t: int) -> int:
    return sum(1 for x in xs if x > t)
""",
    [[[1, 5, 3, 7], 3], [[], 0], [[2, 2, 2], 2], [[-1, -2], -3], [[10, 20], 100], [[4, 5, 6], 4]],
    ['list'],
)

task(
    'middle',
    'Return the middle character of s when its length is odd, the middle two when it is even (empty for '
    'an empty string).',
    'def middle(s: str) -> str:',
    """\
def middle(s: str) -> str:
    if not s:
        return ''
    m = len(s) // 2
    return s[m] if len(s) % 2 else s[m - 1:m + 1]
""",
    [['abc'], ['abcd'], [''], ['x'], ['middle'], ['testing']],
    ['string'],
)

task(
    'sum_even_squares',
    'Return the sum of the squares of the even numbers in xs.',
    'def sum_even_squares(xs: list) -> int:',
    """\
def sum_even_squares(xs: list) -> int:
    return sum(x * x for x in xs if x % 2 == 0)
""",
    [[[1, 2, 3, 4]], [[]], [[1, 3, 5]], [[-2, 0, 2]], [[10]], [[6, 7, 8]]],
    ['math', 'list'],
)

task(
    'alternating_sum',
    'Return xs[0] - xs[1] + xs[2] - xs[3] + ... (0 for an empty list).',
    'def alternating_sum(xs: list) -> int:',
    """\
def alternating_sum(xs: list) -> int:
    return sum(x if i % 2 == 0 else -x for i, x in enumerate(xs))
""",
    [[[1, 2, 3, 4]], [[]], [[5]], [[10, 3]], [[1, 1, 1, 1, 1]], [[-2, -4, 6]]],
    ['math', 'list'],
)

task(
    'first_repeat',
    'Return the first character of s, scanning left to right, that has already appeared earlier in s; an '
    'empty string when no character repeats.',
    'def first_repeat(s: str) -> str:',
    """\
def first_repeat(s: str) -> str:
    seen = set()
    for c in s:
        if c in seen:
            return c
        seen.add(c)
    return ''
""",
    [['abca'], ['abcd'], [''], ['abba'], ['xyzzy'], ['aa']],
    ['string'],
)

task(
    'pad_left',
    'Return s padded on the left with the character c until it is at least n characters long.',
    'def pad_left(s: str, n: int, c: str) -> str:',
    """\
def pad_left(s: str, n: int, c: str) -> str:
    return c * max(0, n - len(s)) + s
""",
    [['7', 3, '0'], ['abc', 2, '*'], ['', 4, '-'], ['hi', 5, ' '], ['xy', 2, '.']],
    ['string'],
)

task(
    'index_of_min',
    'Return the index of the smallest element of xs (the first one on a tie), or -1 for an empty list.',
    'def index_of_min(xs: list) -> int:',
    """\
def index_of_min(xs: list) -> int:
    if not xs:
        return -1
    return xs.index(min(xs))
""",
    [[[3, 1, 2]], [[]], [[5, 5]], [[-1, -9, 0, -9]], [[7]], [[4, 3, 2, 1]]],
    ['list'],
)

task(
    'merge_sorted',
    'Merge two lists that are each sorted in ascending order into one sorted list.',
    'def merge_sorted(a: list, b: list) -> list:',
    """\
def merge_sorted(a: list, b: list) -> list:
    i = j = 0
    out = []
    while i < len(a) and j < len(b):
        if a[i] <= b[j]:
            out.append(a[i]); i += 1
        else:
            out.append(b[j]); j += 1
    return out + a[i:] + b[j:]
""",
    [[[1, 3, 5], [2, 4, 6]], [[], [1, 2]], [[1, 2], []], [[1, 1], [1]], [[], []], [[0, 10], [5]]],
    ['list', 'sorting'],
)

task(
    'count_char',
    'Count how many times the character c occurs in s, ignoring case.',
    'def count_char(s: str, c: str) -> int:',
    """\
def count_char(s: str, c: str) -> int:
    return s.lower().count(c.lower())
""",
    [['Banana', 'a'], ['', 'x'], ['AaAa', 'A'], ['hello', 'z'], ['Mississippi', 'S']],
    ['string'],
)

task(
    'reverse_words',
    'Return the words of s (separated by single spaces) in reverse order, joined by single spaces.',
    'def reverse_words(s: str) -> str:',
    """\
def reverse_words(s: str) -> str:
    return ' '.join(reversed(s.split()))
""",
    [['hello world'], [''], ['one'], ['a b c d'], ['the end is near']],
    ['string'],
)

task(
    'product',
    'Return the product of the integers in xs (1 for an empty list).',
    'def product(xs: list) -> int:',
    """\
def product(xs: list) -> int:
    p = 1
    for x in xs:
        p *= x
    return p
""",
    [[[1, 2, 3, 4]], [[]], [[0, 5]], [[-2, 3]], [[7]], [[-1, -1, -1]]],
    ['math', 'list'],
)

task(
    'clamp_all',
    'Clamp every element of xs into the range lo..hi (both included).',
    'def clamp_all(xs: list, lo: int, hi: int) -> list:',
    """\
def clamp_all(xs: list, lo: int, hi: int) -> list:
    return [min(max(x, lo), hi) for x in xs]
""",
    [[[1, 5, 10], 2, 8], [[], 0, 1], [[-5, 0, 5], -1, 1], [[3, 3], 3, 3], [[100], 0, 50]],
    ['list'],
)

task(
    'is_power_of_two',
    'Return True when n is a positive power of two (1, 2, 4, 8, ...).',
    'def is_power_of_two(n: int) -> bool:',
    """\
def is_power_of_two(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0
""",
    [[1], [0], [16], [18], [-4], [1024], [3]],
    ['math'],
)

task(
    'to_binary',
    'Return the binary representation of the non-negative integer n as a string of 0s and 1s, without a '
    'prefix.',
    'def to_binary(n: int) -> str:',
    """\
def to_binary(n: int) -> str:
    return bin(n)[2:]
""",
    [[5], [0], [1], [255], [8], [1000]],
    ['math', 'string'],
)

task(
    'count_pairs_sum',
    'Count the pairs of positions i < j with xs[i] + xs[j] == target.',
    'def count_pairs_sum(xs: list, target: int) -> int:',
    """\
def count_pairs_sum(xs: list, target: int) -> int:
    n = 0
    for i in range(len(xs)):
        for j in range(i + 1, len(xs)):
            if xs[i] + xs[j] == target:
                n += 1
    return n
""",
    [[[1, 2, 3, 4], 5], [[], 0], [[1, 1, 1], 2], [[0, 0], 1], [[5, -5, 0, 0], 0]],
    ['list'],
)

task(
    'word_lengths',
    'Return the length of every space-separated word of s, in order.',
    'def word_lengths(s: str) -> list:',
    """\
def word_lengths(s: str) -> list:
    return [len(w) for w in s.split()]
""",
    [['hello world'], [''], ['a bb ccc'], ['  spaced   out '], ['one']],
    ['string', 'list'],
)

task(
    'dedupe_adjacent',
    'Remove elements equal to the element just before them, keeping the first of each run.',
    'def dedupe_adjacent(xs: list) -> list:',
    """\
def dedupe_adjacent(xs: list) -> list:
    out = []
    for x in xs:
        if not out or out[-1] != x:
            out.append(x)
    return out
""",
    [[[1, 1, 2, 2, 1]], [[]], [[3]], [[4, 4, 4]], [[1, 2, 3]], [[0, 0, 1, 0, 0]]],
    ['list'],
)

task(
    'char_histogram',
    'Return a dictionary mapping each character of s to the number of times it occurs.',
    'def char_histogram(s: str) -> dict:',
    """\
def char_histogram(s: str) -> dict:
    out = {}
    for c in s:
        out[c] = out.get(c, 0) + 1
    return out
""",
    [['hello'], [''], ['aaa'], ['abcabc'], ['xy']],
    ['string'],
)


def main(out: str) -> None:
    rows = []
    for name, desc, sig, ref, inputs, tags in T:
        namespace: dict[str, Any] = {}
        exec(ref, namespace)  # our own references, written above
        f = namespace[name]
        cases = [{"input": i, "expected": f(*json.loads(json.dumps(i)))} for i in inputs]
        rows.append({"task_id": f"seed-{name}", "kind": "python_function", "description": desc, "signature": sig,
                     "entry_point": name, "difficulty": 0.3, "tags": tags, "reference_solution": ref,
                     "test_cases": cases[:2], "hidden_test_cases": cases[2:]})
    with open(out, "w") as fh:
        for r in rows:
            fh.write(json.dumps(r) + "\n")
    print(len(rows), "tasks ->", out)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "bench/data/seed_functions.jsonl")

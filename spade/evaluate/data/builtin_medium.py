"""Definitions of the builtin set's medium tasks on lists, strings, dicts and arithmetic.

Same entry shape as builtin_easy. Expected values come from running each reference in the sandbox.
"""

from __future__ import annotations

from typing import Any

TASKS: list[dict[str, Any]] = [
    dict(
        name="fizzbuzz", difficulty=0.35, tags=["string", "math"],
        description=(
            "Return a list of strings for the numbers 1..n: 'FizzBuzz' for multiples of 15, 'Fizz' for "
            "multiples of 3, 'Buzz' for multiples of 5, otherwise the number itself as a string."
        ),
        signature="def fizzbuzz(n: int) -> list[str]:",
        reference=(
            "def fizzbuzz(n: int) -> list[str]:\n    out = []\n    for i in range(1, n + 1):\n"
            "        if i % 15 == 0:\n            out.append('FizzBuzz')\n        elif i % 3 == 0:\n"
            "            out.append('Fizz')\n        elif i % 5 == 0:\n            out.append('Buzz')\n"
            "        else:\n            out.append(str(i))\n    return out\n"
        ),
        public=[[5], [0], [15]],
        hidden=[[1], [3], [10], [16], [30]],
    ),
    dict(
        name="gcd", difficulty=0.3, tags=["math"],
        description="Return the greatest common divisor of the non-negative integers a and b (gcd(0, 0) is 0).",
        signature="def gcd(a: int, b: int) -> int:",
        reference="def gcd(a: int, b: int) -> int:\n    while b:\n        a, b = b, a % b\n    return a\n",
        public=[[12, 18], [7, 5], [0, 9]],
        hidden=[[0, 0], [100, 10], [17, 17], [270, 192], [1, 1000000]],
    ),
    dict(
        name="flatten", difficulty=0.4, tags=["list", "recursion"],
        description="Flatten arbitrarily nested lists of integers into one flat list, keeping left-to-right order.",
        signature="def flatten(nested: list) -> list[int]:",
        reference=(
            "def flatten(nested: list) -> list[int]:\n    out = []\n    for x in nested:\n"
            "        if isinstance(x, list):\n            out.extend(flatten(x))\n        else:\n"
            "            out.append(x)\n    return out\n"
        ),
        public=[[[1, [2, 3], 4]], [[]], [[[[[5]]]]]],
        hidden=[[[[], [[]], []]], [[1, 2, 3]], [[[1, [2, [3, [4]]]], 5]], [[[0], 0, [[0]]]], [[[-1, [-2]], [], 3]]],
    ),
    dict(
        name="is_prime", difficulty=0.3, tags=["math"],
        description="Return True if n is a prime number (integers below 2 are not prime).",
        signature="def is_prime(n: int) -> bool:",
        reference=(
            "def is_prime(n: int) -> bool:\n    if n < 2:\n        return False\n    i = 2\n"
            "    while i * i <= n:\n        if n % i == 0:\n            return False\n        i += 1\n"
            "    return True\n"
        ),
        public=[[7], [1], [10]],
        hidden=[[2], [-7], [97], [7919], [91]],
    ),
    dict(
        name="fibonacci", difficulty=0.3, tags=["math", "dp"],
        description="Return the n-th Fibonacci number, where fibonacci(0) is 0 and fibonacci(1) is 1.",
        signature="def fibonacci(n: int) -> int:",
        reference=(
            "def fibonacci(n: int) -> int:\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n"
            "    return a\n"
        ),
        public=[[0], [1], [10]],
        hidden=[[2], [3], [20], [50], [7]],
    ),
    dict(
        name="char_frequency", difficulty=0.3, tags=["string", "dict"],
        description="Return a dict mapping each character of s to the number of times it occurs in s.",
        signature="def char_frequency(s: str) -> dict[str, int]:",
        reference=(
            "def char_frequency(s: str) -> dict[str, int]:\n    counts = {}\n    for ch in s:\n"
            "        counts[ch] = counts.get(ch, 0) + 1\n    return counts\n"
        ),
        public=[["hello"], [""], ["aaa"]],
        hidden=[["abcabc"], ["a b"], ["Aa"], ["mississippi"], ["112233!"]],
    ),
    dict(
        name="is_anagram", difficulty=0.3, tags=["string", "sorting"],
        description="Return True if a and b contain the same letters, ignoring case and spaces.",
        signature="def is_anagram(a: str, b: str) -> bool:",
        reference=(
            "def is_anagram(a: str, b: str) -> bool:\n"
            "    def norm(s: str) -> list[str]:\n        return sorted(s.replace(' ', '').lower())\n"
            "    return norm(a) == norm(b)\n"
        ),
        public=[["listen", "silent"], ["hello", "world"], ["", ""]],
        hidden=[["Dormitory", "dirty room"], ["aab", "abb"], ["a", "A"], ["abc", "abcd"], ["The eyes", "They see"]],
    ),
    dict(
        name="run_length_encode", difficulty=0.4, tags=["string"],
        description=(
            "Run-length encode s: each maximal run of one character becomes the character followed by the "
            "run length, e.g. 'aaab' -> 'a3b1'. The empty string encodes to ''."
        ),
        signature="def run_length_encode(s: str) -> str:",
        reference=(
            "def run_length_encode(s: str) -> str:\n    out = []\n    i = 0\n    while i < len(s):\n"
            "        j = i\n        while j < len(s) and s[j] == s[i]:\n            j += 1\n"
            "        out.append(s[i] + str(j - i))\n        i = j\n    return ''.join(out)\n"
        ),
        public=[["aaab"], [""], ["abc"]],
        hidden=[["a"], ["aaaaaaaaaaaa"], ["aabbaa"], ["  x"], ["zzzZZ"]],
    ),
    dict(
        name="second_largest", difficulty=0.35, tags=["list", "sorting"],
        description=(
            "Return the second largest distinct value in nums, or None if there are fewer "
            "than two distinct values."
        ),
        signature="def second_largest(nums: list[int]) -> int | None:",
        reference=(
            "def second_largest(nums: list[int]) -> int | None:\n    values = sorted(set(nums))\n"
            "    return values[-2] if len(values) >= 2 else None\n"
        ),
        public=[[[3, 1, 2]], [[5, 5]], [[]]],
        hidden=[[[1]], [[4, 4, 3]], [[-1, -2, -3]], [[10, 9, 10, 9]], [[0, 100, 50, 100]]],
    ),
    dict(
        name="chunk", difficulty=0.35, tags=["list"],
        description=(
            "Split items into consecutive chunks of length size (size >= 1); the last chunk may be shorter."
        ),
        signature="def chunk(items: list[int], size: int) -> list[list[int]]:",
        reference=(
            "def chunk(items: list[int], size: int) -> list[list[int]]:\n"
            "    return [items[i:i + size] for i in range(0, len(items), size)]\n"
        ),
        public=[[[1, 2, 3, 4, 5], 2], [[], 3], [[1, 2, 3], 3]],
        hidden=[[[1, 2, 3], 1], [[1, 2, 3], 5], [[9, 8, 7, 6], 2], [[0], 1], [[1, 2, 3, 4, 5, 6, 7], 3]],
    ),
    dict(
        name="to_binary", difficulty=0.3, tags=["math", "string"],
        description="Return the binary representation of the non-negative integer n without a prefix, e.g. 5 -> '101'.",
        signature="def to_binary(n: int) -> str:",
        reference=(
            "def to_binary(n: int) -> str:\n    if n == 0:\n        return '0'\n    bits = ''\n"
            "    while n:\n        bits = str(n % 2) + bits\n        n //= 2\n    return bits\n"
        ),
        public=[[5], [0], [8]],
        hidden=[[1], [2], [255], [1024], [1023]],
    ),
    dict(
        name="rotate_right", difficulty=0.35, tags=["list"],
        description=(
            "Rotate items to the right by k positions (k >= 0, possibly larger than the length) and return "
            "the new list; an empty list stays empty."
        ),
        signature="def rotate_right(items: list[int], k: int) -> list[int]:",
        reference=(
            "def rotate_right(items: list[int], k: int) -> list[int]:\n    if not items:\n        return []\n"
            "    k %= len(items)\n    return items[-k:] + items[:-k] if k else list(items)\n"
        ),
        public=[[[1, 2, 3, 4, 5], 2], [[], 3], [[1, 2, 3], 0]],
        hidden=[[[1, 2, 3], 3], [[1, 2, 3], 4], [[7], 100], [[1, 2], 1], [[5, 6, 7, 8], 7]],
    ),
    dict(
        name="caesar_shift", difficulty=0.4, tags=["string"],
        description=(
            "Shift every ASCII letter of s forward by k places in the alphabet, wrapping around and keeping "
            "its case; other characters are unchanged. k may be negative or larger than 26."
        ),
        signature="def caesar_shift(s: str, k: int) -> str:",
        reference=(
            "def caesar_shift(s: str, k: int) -> str:\n    out = []\n    for ch in s:\n"
            "        if 'a' <= ch <= 'z':\n            out.append(chr((ord(ch) - 97 + k) % 26 + 97))\n"
            "        elif 'A' <= ch <= 'Z':\n            out.append(chr((ord(ch) - 65 + k) % 26 + 65))\n"
            "        else:\n            out.append(ch)\n    return ''.join(out)\n"
        ),
        public=[["abc", 1], ["xyz", 3], ["Hello, World!", 13]],
        hidden=[["", 5], ["abc", -1], ["Zebra", 26], ["Python 3", 53], ["aAzZ", -27]],
    ),
    dict(
        name="transpose", difficulty=0.35, tags=["list", "matrix"],
        description="Return the transpose of a rectangular matrix given as a list of rows (an empty matrix gives []).",
        signature="def transpose(matrix: list[list[int]]) -> list[list[int]]:",
        reference=(
            "def transpose(matrix: list[list[int]]) -> list[list[int]]:\n"
            "    return [list(col) for col in zip(*matrix)]\n"
        ),
        public=[[[[1, 2], [3, 4]]], [[]], [[[1, 2, 3]]]],
        hidden=[[[[1], [2], [3]]], [[[5]]], [[[1, 2, 3], [4, 5, 6]]], [[[0, 0], [0, 0], [1, 1]]], [[[-1, 2]]]],
    ),
    dict(
        name="running_sum", difficulty=0.25, tags=["list", "math"],
        description="Return the running totals of nums: element i is nums[0] + ... + nums[i].",
        signature="def running_sum(nums: list[int]) -> list[int]:",
        reference=(
            "def running_sum(nums: list[int]) -> list[int]:\n    out = []\n    total = 0\n    for n in nums:\n"
            "        total += n\n        out.append(total)\n    return out\n"
        ),
        public=[[[1, 2, 3]], [[]], [[5]]],
        hidden=[[[1, -1, 1, -1]], [[0, 0, 0]], [[10, 20, 30, 40]], [[-5, -5]], [[3, 1, 4, 1, 5]]],
    ),
    dict(
        name="longest_word", difficulty=0.3, tags=["string"],
        description=(
            "Return the longest whitespace-separated word in s; on a tie return the first one, and return '' "
            "when s has no words."
        ),
        signature="def longest_word(s: str) -> str:",
        reference=(
            "def longest_word(s: str) -> str:\n    best = ''\n    for w in s.split():\n"
            "        if len(w) > len(best):\n            best = w\n    return best\n"
        ),
        public=[["the quick brown fox"], [""], ["hi"]],
        hidden=[["ab cd"], ["a bb ccc dd"], ["   "], ["supercalifragilistic is long"], ["one three five"]],
    ),
    dict(
        name="snake_to_camel", difficulty=0.35, tags=["string"],
        description=(
            "Convert a snake_case identifier to camelCase: drop the underscores and capitalise the first "
            "letter of every word after the first, e.g. 'max_value_seen' -> 'maxValueSeen'."
        ),
        signature="def snake_to_camel(name: str) -> str:",
        reference=(
            "def snake_to_camel(name: str) -> str:\n    parts = name.split('_')\n"
            "    return parts[0] + ''.join(p[:1].upper() + p[1:] for p in parts[1:])\n"
        ),
        public=[["max_value_seen"], ["word"], ["a_b"]],
        hidden=[[""], ["get_http_response"], ["x_1_y"], ["already_Camel"], ["two__underscores"]],
    ),
    dict(
        name="median", difficulty=0.35, tags=["list", "math", "sorting"],
        description=(
            "Return the median of the non-empty list nums as a float: the middle value after sorting, or the "
            "mean of the two middle values when the length is even."
        ),
        signature="def median(nums: list[int]) -> float:",
        reference=(
            "def median(nums: list[int]) -> float:\n    s = sorted(nums)\n    mid = len(s) // 2\n"
            "    if len(s) % 2:\n        return float(s[mid])\n    return (s[mid - 1] + s[mid]) / 2\n"
        ),
        public=[[[3, 1, 2]], [[4, 1, 3, 2]], [[7]]],
        hidden=[[[1, 2]], [[5, 5, 5, 5]], [[-3, -1, -2]], [[10, 0, 0, 10, 5]], [[1, 100]]],
    ),
    dict(
        name="digital_root", difficulty=0.3, tags=["math"],
        description=(
            "Repeatedly sum the decimal digits of the non-negative integer n until one digit "
            "remains; return it."
        ),
        signature="def digital_root(n: int) -> int:",
        reference=(
            "def digital_root(n: int) -> int:\n    while n >= 10:\n        n = sum(int(d) for d in str(n))\n"
            "    return n\n"
        ),
        public=[[16], [0], [942]],
        hidden=[[9], [10], [99999999], [132189], [493193]],
    ),
    dict(
        name="invert_dict", difficulty=0.3, tags=["dict"],
        description=(
            "Return a dict mapping each value of d to the sorted list of keys that map to it "
            "(values are strings)."
        ),
        signature="def invert_dict(d: dict[str, str]) -> dict[str, list[str]]:",
        reference=(
            "def invert_dict(d: dict[str, str]) -> dict[str, list[str]]:\n    out = {}\n"
            "    for k, v in d.items():\n        out.setdefault(v, []).append(k)\n"
            "    return {v: sorted(ks) for v, ks in out.items()}\n"
        ),
        public=[[{"a": "x", "b": "y", "c": "x"}], [{}], [{"k": "v"}]],
        hidden=[[{"b": "1", "a": "1"}], [{"p": "q", "q": "p"}], [{"z": "same", "y": "same", "x": "same"}],
                [{"one": "1", "two": "2", "uno": "1"}], [{"": ""}]],
    ),
    dict(
        name="merge_counts", difficulty=0.35, tags=["dict"],
        description=(
            "Return a new dict holding every key of a and b, with the values of keys present "
            "in both added together."
        ),
        signature="def merge_counts(a: dict[str, int], b: dict[str, int]) -> dict[str, int]:",
        reference=(
            "def merge_counts(a: dict[str, int], b: dict[str, int]) -> dict[str, int]:\n    out = dict(a)\n"
            "    for k, v in b.items():\n        out[k] = out.get(k, 0) + v\n    return out\n"
        ),
        public=[[{"a": 1}, {"a": 2, "b": 3}], [{}, {}], [{"x": 5}, {}]],
        hidden=[[{}, {"y": 1}], [{"a": 1, "b": 2}, {"c": 3}], [{"a": -1}, {"a": 1}], [{"k": 10}, {"k": 10, "j": 0}],
                [{"p": 1, "q": 2}, {"q": 3, "p": 4}]],
    ),
    dict(
        name="is_power_of_two", difficulty=0.3, tags=["math"],
        description="Return True if n is a positive integer power of two (1, 2, 4, 8, ...).",
        signature="def is_power_of_two(n: int) -> bool:",
        reference="def is_power_of_two(n: int) -> bool:\n    return n > 0 and n & (n - 1) == 0\n",
        public=[[8], [6], [1]],
        hidden=[[0], [-4], [1024], [1023], [2]],
    ),
    dict(
        name="pairs_with_sum", difficulty=0.4, tags=["list", "hash_map"],
        description="Count the index pairs i < j with nums[i] + nums[j] == target.",
        signature="def pairs_with_sum(nums: list[int], target: int) -> int:",
        reference=(
            "def pairs_with_sum(nums: list[int], target: int) -> int:\n    seen = {}\n    count = 0\n"
            "    for n in nums:\n        count += seen.get(target - n, 0)\n        seen[n] = seen.get(n, 0) + 1\n"
            "    return count\n"
        ),
        public=[[[1, 2, 3, 4], 5], [[], 0], [[1, 1, 1], 2]],
        hidden=[[[5], 10], [[0, 0, 0, 0], 0], [[-1, 1, 2, -2], 0], [[3, 3, 3], 7], [[2, 4, 6, 8, 10], 12]],
    ),
    dict(
        name="count_primes_below", difficulty=0.45, tags=["math"],
        description="Return how many prime numbers are strictly less than n.",
        signature="def count_primes_below(n: int) -> int:",
        reference=(
            "def count_primes_below(n: int) -> int:\n    if n < 3:\n        return 0\n    sieve = [True] * n\n"
            "    sieve[0] = sieve[1] = False\n    for i in range(2, int(n ** 0.5) + 1):\n        if sieve[i]:\n"
            "            sieve[i * i::i] = [False] * len(range(i * i, n, i))\n    return sum(sieve)\n"
        ),
        public=[[10], [0], [2]],
        hidden=[[3], [1], [100], [1000], [30]],
    ),
]

"""Definitions of the builtin set's easy tasks: one-idea functions a 135M model can sometimes solve.

Each entry: name, difficulty, tags, description, signature, reference, public and hidden argument lists.
Expected values are not written here: build_builtin computes them by running the reference in the sandbox.
"""

from __future__ import annotations

from typing import Any

TASKS: list[dict[str, Any]] = [
    dict(
        name="sum_evens", difficulty=0.1, tags=["list", "math"],
        description="Return the sum of the even numbers in nums (0 when there are none).",
        signature="def sum_evens(nums: list[int]) -> int:",
        reference="def sum_evens(nums: list[int]) -> int:\n    return sum(n for n in nums if n % 2 == 0)\n",
        public=[[[1, 2, 3, 4]], [[]], [[5, 7, 9]]],
        hidden=[[[-2, -3, 4]], [[0]], [[10, 20, 30]], [[1]], [[2, 2, 2, 1]]],
    ),
    dict(
        name="reverse_words", difficulty=0.15, tags=["string"],
        description="Split s on whitespace and return its words in reverse order, joined by single spaces.",
        signature="def reverse_words(s: str) -> str:",
        reference="def reverse_words(s: str) -> str:\n    return ' '.join(reversed(s.split()))\n",
        public=[["hello world"], ["one"], ["a b c"]],
        hidden=[[""], ["  padded   words  here "], ["x y"], ["the quick brown fox"], ["tab\tseparated words"]],
    ),
    dict(
        name="count_vowels", difficulty=0.1, tags=["string"],
        description="Count the vowels (a, e, i, o, u, in either case) in s.",
        signature="def count_vowels(s: str) -> int:",
        reference="def count_vowels(s: str) -> int:\n    return sum(ch in 'aeiouAEIOU' for ch in s)\n",
        public=[["hello"], [""], ["AEIOU"]],
        hidden=[["rhythm"], ["Programming Language"], ["y"], ["aaa bbb"], ["Queue"]],
    ),
    dict(
        name="clamp", difficulty=0.1, tags=["math"],
        description="Return x limited to the closed range [lo, hi]: lo if x < lo, hi if x > hi, else x.",
        signature="def clamp(x: int, lo: int, hi: int) -> int:",
        reference="def clamp(x: int, lo: int, hi: int) -> int:\n    return max(lo, min(x, hi))\n",
        public=[[5, 0, 10], [-3, 0, 10], [42, 0, 10]],
        hidden=[[0, 0, 10], [10, 0, 10], [-5, -10, -1], [7, 7, 7], [100, -100, 99]],
    ),
    dict(
        name="is_palindrome", difficulty=0.1, tags=["string"],
        description="Return True if s reads the same forwards and backwards (exact characters, case-sensitive).",
        signature="def is_palindrome(s: str) -> bool:",
        reference="def is_palindrome(s: str) -> bool:\n    return s == s[::-1]\n",
        public=[["racecar"], ["hello"], [""]],
        hidden=[["a"], ["Aa"], ["abba"], ["abca"], ["noon noon"]],
    ),
    dict(
        name="largest", difficulty=0.1, tags=["list"],
        description="Return the largest number in the non-empty list nums.",
        signature="def largest(nums: list[int]) -> int:",
        reference="def largest(nums: list[int]) -> int:\n    return max(nums)\n",
        public=[[[3, 1, 2]], [[-5]], [[7, 7, 3]]],
        hidden=[[[-3, -1, -2]], [[0, 0]], [[1, 100, 50]], [[9, 8, 7, 6]], [[-1, 1]]],
    ),
    dict(
        name="factorial", difficulty=0.15, tags=["math"],
        description="Return n! for a non-negative integer n (0! is 1).",
        signature="def factorial(n: int) -> int:",
        reference=(
            "def factorial(n: int) -> int:\n    result = 1\n    for i in range(2, n + 1):\n"
            "        result *= i\n    return result\n"
        ),
        public=[[5], [0], [1]],
        hidden=[[2], [3], [10], [20], [12]],
    ),
    dict(
        name="celsius_to_fahrenheit", difficulty=0.1, tags=["math"],
        description="Convert a temperature from degrees Celsius to degrees Fahrenheit (F = C * 9 / 5 + 32).",
        signature="def celsius_to_fahrenheit(c: float) -> float:",
        reference="def celsius_to_fahrenheit(c: float) -> float:\n    return c * 9 / 5 + 32\n",
        public=[[0.0], [100.0], [-40.0]],
        hidden=[[37.0], [-273.15], [25.5], [1.0], [-10.0]],
    ),
    dict(
        name="count_occurrences", difficulty=0.1, tags=["list"],
        description="Return how many elements of items are equal to target.",
        signature="def count_occurrences(items: list[int], target: int) -> int:",
        reference=(
            "def count_occurrences(items: list[int], target: int) -> int:\n"
            "    return sum(1 for x in items if x == target)\n"
        ),
        public=[[[1, 2, 1, 3], 1], [[], 5], [[4, 4, 4], 4]],
        hidden=[[[1, 2, 3], 9], [[0, 0, 1], 0], [[-1, 1, -1], -1], [[7], 7], [[2, 3, 2, 3, 2], 3]],
    ),
    dict(
        name="is_even", difficulty=0.05, tags=["math"],
        description="Return True if the integer n is even, False otherwise.",
        signature="def is_even(n: int) -> bool:",
        reference="def is_even(n: int) -> bool:\n    return n % 2 == 0\n",
        public=[[4], [7], [0]],
        hidden=[[-2], [-3], [1], [1000001], [123456]],
    ),
    dict(
        name="square_all", difficulty=0.1, tags=["list", "math"],
        description="Return a new list with the square of each number in nums, in the same order.",
        signature="def square_all(nums: list[int]) -> list[int]:",
        reference="def square_all(nums: list[int]) -> list[int]:\n    return [n * n for n in nums]\n",
        public=[[[1, 2, 3]], [[]], [[-4]]],
        hidden=[[[0]], [[-1, 1]], [[10, -10, 5]], [[7, 8]], [[100]]],
    ),
    dict(
        name="shout", difficulty=0.05, tags=["string"],
        description="Return s in upper case followed by one exclamation mark.",
        signature="def shout(s: str) -> str:",
        reference="def shout(s: str) -> str:\n    return s.upper() + '!'\n",
        public=[["hello"], [""], ["Hi There"]],
        hidden=[["ALREADY"], ["mixed 123"], ["a"], ["what?"], ["snake_case"]],
    ),
    dict(
        name="average", difficulty=0.15, tags=["list", "math"],
        description="Return the arithmetic mean of nums as a float, or 0.0 for an empty list.",
        signature="def average(nums: list[float]) -> float:",
        reference=(
            "def average(nums: list[float]) -> float:\n    if not nums:\n        return 0.0\n"
            "    return sum(nums) / len(nums)\n"
        ),
        public=[[[1.0, 2.0, 3.0]], [[]], [[5.0]]],
        hidden=[[[1.0, 2.0]], [[-1.0, 1.0]], [[0.5, 0.25, 0.25]], [[10.0, 20.0, 30.0, 40.0]], [[-3.0]]],
    ),
    dict(
        name="min_max", difficulty=0.15, tags=["list"],
        description="Return [smallest, largest] of the non-empty list nums.",
        signature="def min_max(nums: list[int]) -> list[int]:",
        reference="def min_max(nums: list[int]) -> list[int]:\n    return [min(nums), max(nums)]\n",
        public=[[[3, 1, 2]], [[5]], [[-1, -7, 4]]],
        hidden=[[[0, 0, 0]], [[9, 8]], [[1, 2, 3, 4, 5]], [[-10, 10]], [[42, -42, 0]]],
    ),
    dict(
        name="count_words", difficulty=0.1, tags=["string"],
        description="Return the number of whitespace-separated words in s.",
        signature="def count_words(s: str) -> int:",
        reference="def count_words(s: str) -> int:\n    return len(s.split())\n",
        public=[["hello world"], [""], ["one"]],
        hidden=[["   "], ["  a  b   c "], ["line\nbreak here"], ["x"], ["many many many words"]],
    ),
    dict(
        name="filter_positive", difficulty=0.1, tags=["list"],
        description="Return the numbers of nums that are strictly greater than zero, keeping their order.",
        signature="def filter_positive(nums: list[int]) -> list[int]:",
        reference="def filter_positive(nums: list[int]) -> list[int]:\n    return [n for n in nums if n > 0]\n",
        public=[[[1, -2, 3]], [[]], [[0, -1]]],
        hidden=[[[5]], [[-5, 0, 5]], [[2, 2, -2]], [[10, 20]], [[-1, -2, -3]]],
    ),
    dict(
        name="repeat_string", difficulty=0.05, tags=["string"],
        description="Return s repeated n times (the empty string when n is 0).",
        signature="def repeat_string(s: str, n: int) -> str:",
        reference="def repeat_string(s: str, n: int) -> str:\n    return s * n\n",
        public=[["ab", 3], ["x", 0], ["", 5]],
        hidden=[["hi", 1], ["-", 10], ["abc", 2], ["z", 4], [" ", 3]],
    ),
    dict(
        name="last_element", difficulty=0.1, tags=["list"],
        description="Return the last element of items, or None when items is empty.",
        signature="def last_element(items: list[int]) -> int | None:",
        reference=(
            "def last_element(items: list[int]) -> int | None:\n"
            "    return items[-1] if items else None\n"
        ),
        public=[[[1, 2, 3]], [[]], [[9]]],
        hidden=[[[0]], [[5, 4]], [[-1, -2, -3]], [[7, 7, 7, 0]], [[100, 200]]],
    ),
    dict(
        name="is_sorted", difficulty=0.15, tags=["list", "sorting"],
        description="Return True if nums is in non-decreasing order (equal neighbours allowed).",
        signature="def is_sorted(nums: list[int]) -> bool:",
        reference=(
            "def is_sorted(nums: list[int]) -> bool:\n"
            "    return all(a <= b for a, b in zip(nums, nums[1:]))\n"
        ),
        public=[[[1, 2, 3]], [[3, 1]], [[]]],
        hidden=[[[5]], [[1, 1, 2]], [[2, 2, 1]], [[-3, -2, 0, 9]], [[1, 3, 2, 4]]],
    ),
    dict(
        name="sum_digits", difficulty=0.15, tags=["math"],
        description="Return the sum of the decimal digits of n; a negative n has the same digits as -n.",
        signature="def sum_digits(n: int) -> int:",
        reference="def sum_digits(n: int) -> int:\n    return sum(int(d) for d in str(abs(n)))\n",
        public=[[123], [0], [-45]],
        hidden=[[9], [1000], [99999], [-1], [406]],
    ),
    dict(
        name="count_uppercase", difficulty=0.1, tags=["string"],
        description="Return how many characters of s are upper-case letters.",
        signature="def count_uppercase(s: str) -> int:",
        reference="def count_uppercase(s: str) -> int:\n    return sum(ch.isupper() for ch in s)\n",
        public=[["Hello World"], [""], ["abc"]],
        hidden=[["ABC"], ["a1B2C3"], ["HTTP Request"], ["!!!"], ["x Y z"]],
    ),
    dict(
        name="remove_duplicates", difficulty=0.2, tags=["list"],
        description="Return the elements of items without repeats, keeping the first occurrence of each in order.",
        signature="def remove_duplicates(items: list[int]) -> list[int]:",
        reference=(
            "def remove_duplicates(items: list[int]) -> list[int]:\n    seen = set()\n    out = []\n"
            "    for x in items:\n        if x not in seen:\n            seen.add(x)\n            out.append(x)\n"
            "    return out\n"
        ),
        public=[[[1, 2, 1, 3]], [[]], [[5, 5, 5]]],
        hidden=[[[3, 2, 1, 2, 3]], [[0]], [[-1, 1, -1, 1]], [[4, 5, 6]], [[9, 8, 9, 7, 8]]],
    ),
    dict(
        name="double_values", difficulty=0.15, tags=["dict"],
        description="Return a new dict with the same keys as d and every value multiplied by 2.",
        signature="def double_values(d: dict[str, int]) -> dict[str, int]:",
        reference=(
            "def double_values(d: dict[str, int]) -> dict[str, int]:\n"
            "    return {k: v * 2 for k, v in d.items()}\n"
        ),
        public=[[{"a": 1, "b": 2}], [{}], [{"x": -3}]],
        hidden=[[{"z": 0}], [{"k": 100, "m": -100}], [{"one": 1}], [{"a": 5, "b": 6, "c": 7}], [{"q": 21}]],
    ),
    dict(
        name="sign", difficulty=0.1, tags=["math"],
        description="Return -1 if n is negative, 0 if n is zero and 1 if n is positive.",
        signature="def sign(n: int) -> int:",
        reference="def sign(n: int) -> int:\n    return (n > 0) - (n < 0)\n",
        public=[[5], [0], [-3]],
        hidden=[[1], [-1], [1000000], [-999], [42]],
    ),
    dict(
        name="list_product", difficulty=0.1, tags=["list", "math"],
        description="Return the product of the numbers in nums (1 for an empty list).",
        signature="def list_product(nums: list[int]) -> int:",
        reference=(
            "def list_product(nums: list[int]) -> int:\n    result = 1\n    for n in nums:\n"
            "        result *= n\n    return result\n"
        ),
        public=[[[2, 3, 4]], [[]], [[5]]],
        hidden=[[[0, 5, 7]], [[-1, 2]], [[-2, -3]], [[1, 1, 1]], [[10, 10, 10]]],
    ),
    dict(
        name="count_negatives", difficulty=0.1, tags=["list"],
        description="Return how many numbers in nums are strictly less than zero.",
        signature="def count_negatives(nums: list[int]) -> int:",
        reference="def count_negatives(nums: list[int]) -> int:\n    return sum(1 for n in nums if n < 0)\n",
        public=[[[-1, 2, -3]], [[]], [[0, 1]]],
        hidden=[[[-5]], [[0]], [[-1, -1, -1]], [[3, -3, 0, -2]], [[100]]],
    ),
    dict(
        name="join_with_commas", difficulty=0.1, tags=["string", "list"],
        description="Return the strings in items joined by a comma and a space, e.g. ['a', 'b'] -> 'a, b'.",
        signature="def join_with_commas(items: list[str]) -> str:",
        reference="def join_with_commas(items: list[str]) -> str:\n    return ', '.join(items)\n",
        public=[[["a", "b", "c"]], [[]], [["solo"]]],
        hidden=[[["x", "y"]], [["", ""]], [["apple", "banana", "cherry", "date"]], [["1"]], [["a b", "c"]]],
    ),
    dict(
        name="is_leap_year", difficulty=0.2, tags=["math"],
        description=(
            "Return True if year is a Gregorian leap year: divisible by 4, except years divisible by 100 "
            "that are not divisible by 400."
        ),
        signature="def is_leap_year(year: int) -> bool:",
        reference=(
            "def is_leap_year(year: int) -> bool:\n"
            "    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)\n"
        ),
        public=[[2024], [2023], [2000]],
        hidden=[[1900], [2100], [1600], [4], [2022]],
    ),
]

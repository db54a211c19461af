"""Definitions of the builtin set's algorithmic tasks: searching, sorting, dynamic programming and parsing.

Same entry shape as builtin_easy. Expected values come from running each reference in the sandbox.
"""

from __future__ import annotations

from typing import Any

TASKS: list[dict[str, Any]] = [
    dict(
        name="binary_search", difficulty=0.4, tags=["searching", "list"],
        description="Return the index of target in the strictly increasing list nums, or -1 if it is absent.",
        signature="def binary_search(nums: list[int], target: int) -> int:",
        reference=(
            "def binary_search(nums: list[int], target: int) -> int:\n    lo, hi = 0, len(nums) - 1\n"
            "    while lo <= hi:\n        mid = (lo + hi) // 2\n        if nums[mid] == target:\n"
            "            return mid\n        if nums[mid] < target:\n            lo = mid + 1\n        else:\n"
            "            hi = mid - 1\n    return -1\n"
        ),
        public=[[[1, 3, 5, 7], 5], [[], 1], [[2, 4], 3]],
        hidden=[[[1], 1], [[1], 0], [[-5, -2, 0, 8, 13], 13], [[-5, -2, 0, 8, 13], -5], [[10, 20, 30], 40]],
    ),
    dict(
        name="merge_sorted", difficulty=0.4, tags=["sorting", "list"],
        description="Merge two non-decreasing lists a and b into one non-decreasing list (duplicates kept).",
        signature="def merge_sorted(a: list[int], b: list[int]) -> list[int]:",
        reference=(
            "def merge_sorted(a: list[int], b: list[int]) -> list[int]:\n    i = j = 0\n    out = []\n"
            "    while i < len(a) and j < len(b):\n        if a[i] <= b[j]:\n            out.append(a[i])\n"
            "            i += 1\n        else:\n            out.append(b[j])\n            j += 1\n"
            "    return out + a[i:] + b[j:]\n"
        ),
        public=[[[1, 3, 5], [2, 4, 6]], [[], []], [[1, 2], []]],
        hidden=[[[], [7]], [[1, 1], [1]], [[-3, 0], [-4, 10]], [[5, 6, 7], [1, 2, 3]], [[2], [1, 2, 3]]],
    ),
    dict(
        name="roman_to_int", difficulty=0.45, tags=["parsing", "string"],
        description=(
            "Convert a valid Roman numeral (I, V, X, L, C, D, M with subtractive pairs like IV and CM) "
            "to an integer."
        ),
        signature="def roman_to_int(s: str) -> int:",
        reference=(
            "def roman_to_int(s: str) -> int:\n"
            "    values = {'I': 1, 'V': 5, 'X': 10, 'L': 50, 'C': 100, 'D': 500, 'M': 1000}\n    total = 0\n"
            "    for i, ch in enumerate(s):\n        v = values[ch]\n"
            "        if i + 1 < len(s) and values[s[i + 1]] > v:\n            total -= v\n        else:\n"
            "            total += v\n    return total\n"
        ),
        public=[["III"], ["IV"], ["MCMXCIV"]],
        hidden=[["I"], ["IX"], ["LVIII"], ["MMXXIV"], ["CDXLIV"]],
    ),
    dict(
        name="balanced_brackets", difficulty=0.45, tags=["string", "stack", "parsing"],
        description=(
            "Return True if the brackets (), [] and {} in s are balanced and properly nested; other "
            "characters are ignored."
        ),
        signature="def balanced_brackets(s: str) -> bool:",
        reference=(
            "def balanced_brackets(s: str) -> bool:\n    pairs = {')': '(', ']': '[', '}': '{'}\n    stack = []\n"
            "    for ch in s:\n        if ch in '([{':\n            stack.append(ch)\n        elif ch in pairs:\n"
            "            if not stack or stack.pop() != pairs[ch]:\n                return False\n"
            "    return not stack\n"
        ),
        public=[["([]{})"], ["(]"], [""]],
        hidden=[["(("], ["))"], ["a(b[c]d)e"], ["{[()()]}"], ["([)]"]],
    ),
    dict(
        name="two_sum", difficulty=0.45, tags=["list", "hash_map", "searching"],
        description=(
            "Return [i, j] with i < j and nums[i] + nums[j] == target, choosing the pair with the smallest j "
            "(then the smallest i); return [] if no pair exists."
        ),
        signature="def two_sum(nums: list[int], target: int) -> list[int]:",
        reference=(
            "def two_sum(nums: list[int], target: int) -> list[int]:\n    first = {}\n"
            "    for j, n in enumerate(nums):\n        if target - n in first:\n"
            "            return [first[target - n], j]\n        first.setdefault(n, j)\n    return []\n"
        ),
        public=[[[2, 7, 11, 15], 9], [[1, 2], 5], [[3, 3], 6]],
        hidden=[[[], 0], [[5], 10], [[1, 4, 2, 3], 5], [[0, -1, 1, 0], 0], [[3, 2, 4], 6]],
    ),
    dict(
        name="parse_key_values", difficulty=0.45, tags=["parsing", "dict", "string"],
        description=(
            "Parse text like 'a=1; b=2' into {'a': 1, 'b': 2}: pairs are separated by ';', keys and "
            "integer values by '=', surrounding spaces are stripped and empty segments are skipped."
        ),
        signature="def parse_key_values(text: str) -> dict[str, int]:",
        reference=(
            "def parse_key_values(text: str) -> dict[str, int]:\n    out = {}\n    for part in text.split(';'):\n"
            "        if not part.strip():\n            continue\n        key, value = part.split('=', 1)\n"
            "        out[key.strip()] = int(value.strip())\n    return out\n"
        ),
        public=[["a=1; b=2"], [""], ["x=-5"]],
        hidden=[[";;"], ["  k = 10 ;"], ["a=1;a=2"], ["alpha=0;beta=100;gamma=-3"], ["z=7;;y=8;"]],
    ),
    dict(
        name="max_subarray_sum", difficulty=0.5, tags=["dp", "list"],
        description="Return the largest sum of a non-empty contiguous sub-list of the non-empty list nums.",
        signature="def max_subarray_sum(nums: list[int]) -> int:",
        reference=(
            "def max_subarray_sum(nums: list[int]) -> int:\n    best = current = nums[0]\n"
            "    for n in nums[1:]:\n        current = max(n, current + n)\n        best = max(best, current)\n"
            "    return best\n"
        ),
        public=[[[-2, 1, -3, 4, -1, 2, 1, -5, 4]], [[1]], [[-3, -1, -2]]],
        hidden=[[[5, 4, -1, 7, 8]], [[0]], [[-1]], [[2, -1, 2]], [[1, 2, 3, -100, 4, 5]]],
    ),
    dict(
        name="climb_stairs", difficulty=0.4, tags=["dp", "math"],
        description=(
            "Return the number of distinct ways to climb n stairs taking 1 or 2 steps at a "
            "time (1 way for n = 0)."
        ),
        signature="def climb_stairs(n: int) -> int:",
        reference=(
            "def climb_stairs(n: int) -> int:\n    a, b = 1, 1\n    for _ in range(n):\n        a, b = b, a + b\n"
            "    return a\n"
        ),
        public=[[2], [3], [0]],
        hidden=[[1], [4], [5], [10], [30]],
    ),
    dict(
        name="valid_ipv4", difficulty=0.5, tags=["parsing", "string"],
        description=(
            "Return True if s is a dotted IPv4 address: four decimal parts 0-255, digits only, and no "
            "leading zeros (a single '0' is allowed)."
        ),
        signature="def valid_ipv4(s: str) -> bool:",
        reference=(
            "def valid_ipv4(s: str) -> bool:\n    parts = s.split('.')\n    if len(parts) != 4:\n"
            "        return False\n    for p in parts:\n        if not p or not p.isdigit() or not p.isascii():\n"
            "            return False\n        if len(p) > 1 and p[0] == '0':\n            return False\n"
            "        if int(p) > 255:\n            return False\n    return True\n"
        ),
        public=[["192.168.0.1"], ["256.1.1.1"], ["1.2.3"]],
        hidden=[["0.0.0.0"], ["01.2.3.4"], ["1.2.3.4.5"], ["a.b.c.d"], ["255.255.255.255"]],
    ),
    dict(
        name="parse_duration", difficulty=0.5, tags=["parsing", "string"],
        description=(
            "Convert a duration like '1h30m15s' to seconds. Units are h, m and s, each optional but in that "
            "order, each preceded by a non-negative integer; the empty string is 0."
        ),
        signature="def parse_duration(text: str) -> int:",
        reference=(
            "def parse_duration(text: str) -> int:\n    scale = {'h': 3600, 'm': 60, 's': 1}\n    total = 0\n"
            "    number = ''\n    for ch in text:\n        if ch.isdigit():\n            number += ch\n"
            "        else:\n            total += int(number) * scale[ch]\n            number = ''\n"
            "    return total\n"
        ),
        public=[["1h30m15s"], [""], ["45s"]],
        hidden=[["2h"], ["10m"], ["1h1s"], ["0h0m0s"], ["100m"]],
    ),
    dict(
        name="longest_common_prefix", difficulty=0.4, tags=["string"],
        description="Return the longest string that is a prefix of every string in words ('' for an empty list).",
        signature="def longest_common_prefix(words: list[str]) -> str:",
        reference=(
            "def longest_common_prefix(words: list[str]) -> str:\n    if not words:\n        return ''\n"
            "    prefix = words[0]\n    for w in words[1:]:\n        while not w.startswith(prefix):\n"
            "            prefix = prefix[:-1]\n    return prefix\n"
        ),
        public=[[["flower", "flow", "flight"]], [[]], [["dog", "car"]]],
        hidden=[[["alone"]], [["", "abc"]], [["same", "same"]], [["interview", "internet", "interval"]], [["ab", "a"]]],
    ),
    dict(
        name="min_coins", difficulty=0.6, tags=["dp"],
        description=(
            "Return the fewest coins (unlimited supply of each denomination in coins) that sum to amount, "
            "or -1 if it cannot be done; amount 0 needs 0 coins."
        ),
        signature="def min_coins(coins: list[int], amount: int) -> int:",
        reference=(
            "def min_coins(coins: list[int], amount: int) -> int:\n    inf = amount + 1\n"
            "    best = [0] + [inf] * amount\n    for a in range(1, amount + 1):\n        for c in coins:\n"
            "            if c <= a and best[a - c] + 1 < best[a]:\n                best[a] = best[a - c] + 1\n"
            "    return best[amount] if best[amount] < inf else -1\n"
        ),
        public=[[[1, 2, 5], 11], [[2], 3], [[1], 0]],
        hidden=[[[3, 7], 14], [[5, 10], 1], [[1, 3, 4], 6], [[2, 5, 10, 1], 27], [[186, 419, 83, 408], 6249]],
    ),
    dict(
        name="lcs_length", difficulty=0.6, tags=["dp", "string"],
        description="Return the length of the longest common subsequence of the strings a and b.",
        signature="def lcs_length(a: str, b: str) -> int:",
        reference=(
            "def lcs_length(a: str, b: str) -> int:\n    prev = [0] * (len(b) + 1)\n    for ca in a:\n"
            "        cur = [0]\n        for j, cb in enumerate(b):\n"
            "            cur.append(prev[j] + 1 if ca == cb else max(prev[j + 1], cur[j]))\n        prev = cur\n"
            "    return prev[-1]\n"
        ),
        public=[["abcde", "ace"], ["abc", "def"], ["", "abc"]],
        hidden=[["abc", "abc"], ["AGGTAB", "GXTXAYB"], ["a", "a"], ["abcdef", "fbdamn"], ["aaaa", "aa"]],
    ),
    dict(
        name="edit_distance", difficulty=0.65, tags=["dp", "string"],
        description=(
            "Return the minimum number of single-character inserts, deletes and "
            "substitutions turning a into b."
        ),
        signature="def edit_distance(a: str, b: str) -> int:",
        reference=(
            "def edit_distance(a: str, b: str) -> int:\n    prev = list(range(len(b) + 1))\n"
            "    for i, ca in enumerate(a, 1):\n        cur = [i]\n        for j, cb in enumerate(b, 1):\n"
            "            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))\n"
            "        prev = cur\n    return prev[-1]\n"
        ),
        public=[["kitten", "sitting"], ["", "abc"], ["same", "same"]],
        hidden=[["abc", ""], ["horse", "ros"], ["intention", "execution"], ["a", "b"], ["ab", "ba"]],
    ),
    dict(
        name="grid_paths", difficulty=0.5, tags=["dp", "math"],
        description=(
            "Return the number of paths from the top-left to the bottom-right cell of a rows x cols grid "
            "moving only right or down (rows, cols >= 1)."
        ),
        signature="def grid_paths(rows: int, cols: int) -> int:",
        reference=(
            "def grid_paths(rows: int, cols: int) -> int:\n    row = [1] * cols\n    for _ in range(rows - 1):\n"
            "        for j in range(1, cols):\n            row[j] += row[j - 1]\n    return row[-1]\n"
        ),
        public=[[3, 7], [1, 1], [2, 2]],
        hidden=[[3, 2], [1, 10], [10, 1], [5, 5], [10, 10]],
    ),
    dict(
        name="eval_rpn", difficulty=0.55, tags=["parsing", "stack"],
        description=(
            "Evaluate an expression in reverse Polish notation given as tokens (integers and '+', '-', '*', "
            "'/'); division truncates toward zero."
        ),
        signature="def eval_rpn(tokens: list[str]) -> int:",
        reference=(
            "def eval_rpn(tokens: list[str]) -> int:\n    stack = []\n    for t in tokens:\n"
            "        if t in ('+', '-', '*', '/'):\n            b = stack.pop()\n            a = stack.pop()\n"
            "            if t == '+':\n                stack.append(a + b)\n            elif t == '-':\n"
            "                stack.append(a - b)\n            elif t == '*':\n                stack.append(a * b)\n"
            "            else:\n                stack.append(int(a / b))\n        else:\n"
            "            stack.append(int(t))\n    return stack[-1]\n"
        ),
        public=[[["2", "1", "+", "3", "*"]], [["4", "13", "5", "/", "+"]], [["7"]]],
        hidden=[[["-7", "2", "/"]], [["3", "4", "-"]],
                [["10", "6", "9", "3", "+", "-11", "*", "/", "*", "17", "+", "5", "+"]],
                [["0", "5", "*"]], [["-3", "-4", "*"]]],
    ),
    dict(
        name="merge_intervals", difficulty=0.55, tags=["sorting", "list"],
        description=(
            "Merge overlapping closed intervals [start, end] (touching ones too) and return them sorted by start."
        ),
        signature="def merge_intervals(intervals: list[list[int]]) -> list[list[int]]:",
        reference=(
            "def merge_intervals(intervals: list[list[int]]) -> list[list[int]]:\n    out = []\n"
            "    for start, end in sorted(intervals):\n        if out and start <= out[-1][1]:\n"
            "            out[-1][1] = max(out[-1][1], end)\n        else:\n            out.append([start, end])\n"
            "    return out\n"
        ),
        public=[[[[1, 3], [2, 6], [8, 10]]], [[]], [[[1, 4], [4, 5]]]],
        hidden=[[[[5, 6], [1, 2]]], [[[1, 10], [2, 3], [4, 5]]], [[[0, 0]]], [[[3, 5], [1, 2], [2, 3]]],
                [[[-5, -1], [-2, 0], [10, 12]]]],
    ),
    dict(
        name="top_k_words", difficulty=0.55, tags=["sorting", "dict", "string"],
        description=(
            "Return the k most frequent strings in words, most frequent first, breaking ties alphabetically; "
            "return fewer when there are fewer distinct words."
        ),
        signature="def top_k_words(words: list[str], k: int) -> list[str]:",
        reference=(
            "def top_k_words(words: list[str], k: int) -> list[str]:\n    counts = {}\n    for w in words:\n"
            "        counts[w] = counts.get(w, 0) + 1\n"
            "    return sorted(counts, key=lambda w: (-counts[w], w))[:k]\n"
        ),
        public=[[["a", "b", "a", "c", "b", "a"], 2], [[], 3], [["x"], 1]],
        hidden=[[["b", "a"], 2], [["b", "a", "c"], 1], [["dog", "cat", "dog", "cat", "emu"], 5],
                [["z", "z", "y"], 0], [["p", "q", "q", "p", "r", "r", "r"], 2]],
    ),
    dict(
        name="spiral_order", difficulty=0.6, tags=["matrix", "list"],
        description="Return the elements of a rectangular matrix in clockwise spiral order starting at the top-left.",
        signature="def spiral_order(matrix: list[list[int]]) -> list[int]:",
        reference=(
            "def spiral_order(matrix: list[list[int]]) -> list[int]:\n    out = []\n"
            "    rows = [list(r) for r in matrix]\n    while rows:\n        out.extend(rows.pop(0))\n"
            "        rows = [list(r) for r in zip(*rows)][::-1]\n    return out\n"
        ),
        public=[[[[1, 2, 3], [4, 5, 6], [7, 8, 9]]], [[]], [[[1]]]],
        hidden=[[[[1, 2], [3, 4]]], [[[1, 2, 3, 4]]], [[[1], [2], [3]]],
                [[[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]],
                [[[1, 2], [3, 4], [5, 6]]]],
    ),
    dict(
        name="kth_smallest", difficulty=0.4, tags=["sorting", "searching"],
        description=(
            "Return the k-th smallest element (1-based, duplicates counted) of nums, where 1 "
            "<= k <= len(nums)."
        ),
        signature="def kth_smallest(nums: list[int], k: int) -> int:",
        reference="def kth_smallest(nums: list[int], k: int) -> int:\n    return sorted(nums)[k - 1]\n",
        public=[[[3, 1, 2], 1], [[5, 5, 1], 3], [[7], 1]],
        hidden=[[[3, 1, 2], 3], [[4, 4, 4, 1], 2], [[-1, -5, 0], 2], [[9, 8, 7, 6, 5], 4], [[2, 1], 2]],
    ),
]

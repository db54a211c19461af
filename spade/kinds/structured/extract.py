"""Take the document out of a completion: the first fenced block tagged with the task's format (or untagged),
else the first fenced block, else (no fences at all) the whole completion (for JSON, from its first '{' or '[' to the last '}' or
']'). A truncated block (no closing fence) runs to the end. Linear in the completion's length; nothing is parsed
here: the document is untrusted and is parsed only inside the sandbox.
"""

from __future__ import annotations

from spade.untrusted import MAX_COMPLETION_BYTES, clip

FENCE = "```"
_TAGS = {"json": ("json", "jsonc", "javascript"), "yaml": ("yaml", "yml")}


def extract_document(completion: str, fmt: str, prefill: str) -> str:
    """`prefill`: what the completion continues (the fence, perhaps the mapping's opening); a completion that
    opens its document itself (a chat server cannot prefill, and its own fence is dropped) continues only the
    fence."""
    completion = clip(completion, MAX_COMPLETION_BYTES)
    fence, newline, opening = prefill.partition("\n")
    if opening and _squeezed(completion[:4 * len(opening) + 64]).startswith(_squeezed(opening)):
        prefill = fence + newline
    text = (prefill + completion).replace("\r\n", "\n")
    segments = text.split(FENCE)
    blocks = []  # (tag, body) of every fenced segment
    for segment in segments[1::2]:
        first, newline, rest = segment.partition("\n")
        tag = first.strip().lower()
        if newline and (not tag or tag.isidentifier() or tag.isalnum()):
            blocks.append((tag, rest))
        else:
            blocks.append(("", segment))
    for tag, body in blocks:
        if (tag in _TAGS.get(fmt, ()) or not tag) and body.strip():
            return body.strip("\n")
    for _, body in blocks:
        if body.strip():
            return body.strip("\n")
    if blocks:
        return ""  # fences, all empty
    bare = text.strip()
    if fmt == "json":
        starts = [i for i in (bare.find("{"), bare.find("[")) if i >= 0]
        end = max(bare.rfind("}"), bare.rfind("]"))
        return bare[min(starts): end + 1] if starts and end > min(starts) else ""
    return bare


def _squeezed(text: str) -> str:
    """Without whitespace: a completion that repeats the prefilled opening (`{"jobs":`) does so in its own layout."""
    return "".join(text.split())

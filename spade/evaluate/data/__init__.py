"""The builtin evaluation set: task definitions (by topic) and the JSONL that build_builtin writes from them."""

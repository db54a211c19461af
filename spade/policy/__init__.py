"""Policy stage: the embedded model's files, prompts, sampling, code extraction and pass@k."""

"""The loop with both the proposer and the policy behind a real OpenAI-compatible server (llama.cpp on loopback)."""

import json
import sqlite3

import pytest

from tests.pipeline.conftest import spade

pytestmark = pytest.mark.slow


def test_one_iteration_with_llm_proposer_and_openai_policy(tmp_path):
    pytest.importorskip("llama_cpp", reason="llama-cpp-python[server] is installed by .ci/run")
    from spade.serving.llama_server import LocalLlamaServer

    with LocalLlamaServer(threads=2) as server:
        config = tmp_path / "server.yaml"
        config.write_text(
            f"sampling: {{backend: openai, base_url: '{server.base_url}', sampling_n: 2, max_new_tokens: 96}}\n"
            "generation: {proposer: llm, tasks_per_iteration: 3, max_attempts: 1, proposer_max_tokens: 256}\n"
            "selfplay: {enabled: false}\n"  # the LLM proposer replaces self-play's own
            "training: {update_method: sft_export}\n"
            "eval: {every: 1, limit: 2}\n"
        )
        run_dir = tmp_path / "run"
        done = spade("run", "--config", str(config), "--run-dir", str(run_dir), "--iterations", "1", timeout=1200)
    assert done.returncode == 0, done.stderr[-3000:]
    with sqlite3.connect(run_dir / "spade.sqlite") as db:
        metrics = dict(db.execute("SELECT name, value FROM metrics"))
        rejected = db.execute("SELECT COUNT(*) FROM rejections").fetchone()[0]
        accepted = db.execute("SELECT COUNT(*) FROM tasks").fetchone()[0]
        models = {m for (m,) in db.execute("SELECT DISTINCT model FROM candidates")}
    # Every proposal is accounted for: accepted, rejected at parse time, or rejected by validation/dedup.
    assert metrics["proposer/requested"] == 3
    assert accepted + rejected == 3
    assert 0.0 <= metrics["generator_parse_failure_rate"] <= 1.0
    assert all(m.startswith("openai:") for m in models)
    print(json.dumps({"accepted": accepted, "rejected": rejected,
                      "parse_failure_rate": metrics["generator_parse_failure_rate"]}))

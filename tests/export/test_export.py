"""`spade export`: each format reads the real run database and writes what its trainer expects."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from spade.errors import ConfigError, StoreError
from spade.export import export_command, export_run
from spade.groundtruth import ground_truth, task_from_ground_truth
from spade.store import RunStore

from .conftest import COUNT_VOWELS, SUM_EVENS


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _hidden_lines(task) -> list[str]:
    return [f"{task.entry_point}({', '.join(repr(a) for a in c.args)}) == {c.expected!r}"
            for c in task.hidden_test_cases]


def test_sft_keeps_only_passing_answers_as_fenced_assistant_messages(run_dir: Path, tmp_path: Path) -> None:
    path, n = export_run(run_dir, "sft", tmp_path / "sft.jsonl")
    rows = _jsonl(path)
    assert n == len(rows) == 1
    roles = [m["role"] for m in rows[0]["messages"]]
    assert roles == ["system", "user", "assistant"]
    answer = rows[0]["messages"][2]["content"]
    assert answer.startswith("```python\ndef sum_evens") and answer.endswith("\n```")
    assert "Done." not in answer  # trailing prose is not taught


def test_dpo_pairs_a_passing_answer_with_each_failing_one_of_the_same_task(run_dir: Path, tmp_path: Path) -> None:
    rows = _jsonl(export_run(run_dir, "dpo", tmp_path / "dpo.jsonl")[0])
    assert len(rows) == 2  # sum_evens: 1 pass x 2 distinct failures; count_vowels has no pass
    for row in rows:
        assert [m["role"] for m in row["prompt"]] == ["system", "user"]
        assert "sum_evens" in row["prompt"][1]["content"]
        assert "n % 2 == 0" in row["chosen"][0]["content"]
        assert "n % 2 == 0" not in row["rejected"][0]["content"]
    assert {row["rejected"][0]["content"] for row in rows} == {
        "```python\ndef sum_evens(nums):\n    return sum(nums)\n```", "```python\nI cannot do that.",
    }


def test_grpo_lists_every_task_prompt_with_its_id_and_ground_truth(run_dir: Path, tmp_path: Path) -> None:
    rows = _jsonl(export_run(run_dir, "grpo", tmp_path / "grpo.jsonl")[0])
    assert [r["task_id"] for r in rows] == [SUM_EVENS.task_id, COUNT_VOWELS.task_id]
    assert all([m["role"] for m in r["prompt"]] == ["system", "user"] for r in rows)
    assert task_from_ground_truth(rows[0]["ground_truth"]).hidden_test_cases == SUM_EVENS.hidden_test_cases
    assert not any(line in json.dumps(rows[0]["prompt"]) for line in _hidden_lines(SUM_EVENS))


def test_verl_parquet_carries_hidden_tests_only_as_ground_truth(run_dir: Path) -> None:
    import pyarrow.parquet as pq

    path, n = export_run(run_dir, "verl")
    assert path == run_dir / "exports" / "verl.parquet" and n == 2
    rows = pq.read_table(str(path)).to_pylist()
    assert set(rows[0]) == {"data_source", "prompt", "ability", "reward_model", "extra_info"}
    assert rows[1]["extra_info"] == {"task_id": COUNT_VOWELS.task_id, "split": "train", "index": 1}
    assert rows[0]["reward_model"]["style"] == "rule"
    rebuilt = task_from_ground_truth(rows[0]["reward_model"]["ground_truth"])
    assert rebuilt.hidden_test_cases == SUM_EVENS.hidden_test_cases and rebuilt.test_cases == SUM_EVENS.test_cases
    prompt_text = json.dumps(rows[0]["prompt"])
    assert not any(line in prompt_text for line in _hidden_lines(SUM_EVENS))


def test_openrlhf_input_is_chat_messages_for_its_chat_template_option(run_dir: Path, tmp_path: Path) -> None:
    rows = _jsonl(export_run(run_dir, "openrlhf", tmp_path / "o.jsonl")[0])
    assert len(rows) == 2
    assert [m["role"] for m in rows[0]["input"]] == ["system", "user"]
    assert rows[0]["label"] == ground_truth(SUM_EVENS)
    assert not any(line in json.dumps(rows[0]["input"]) for line in _hidden_lines(SUM_EVENS))


def test_openrlhf_input_rendered_with_a_named_tokenizer_ends_inside_the_fence(run_dir: Path, tmp_path: Path) -> None:
    rows = _jsonl(export_run(run_dir, "openrlhf", tmp_path / "o.jsonl", tokenizer="embedded")[0])
    assert rows[0]["input"].endswith("```python\n") and "<|im_start|>" in rows[0]["input"]
    assert not any(line in rows[0]["input"] for line in _hidden_lines(SUM_EVENS))


def test_a_tokenizer_that_is_not_a_directory_is_named_in_one_line(run_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="--tokenizer Qwen/Qwen2.5-Coder-7B: not a directory"):
        export_run(run_dir, "openrlhf", tokenizer="Qwen/Qwen2.5-Coder-7B")
    with pytest.raises(ConfigError, match="no tokenizer could be loaded"):
        export_run(run_dir, "openrlhf", tokenizer=str(tmp_path))
    with pytest.raises(ConfigError, match="does not apply to --format sft"):
        export_run(run_dir, "sft", tokenizer="embedded")


def test_verl_export_can_carry_verls_code_ground_truth(run_dir: Path, tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    path, _ = export_run(run_dir, "verl", tmp_path / "v.parquet", verl_code=True)
    truth = json.loads(pq.read_table(str(path)).to_pylist()[0]["reward_model"]["ground_truth"])
    assert truth["fn_name"] == "sum_evens" and truth["spade_ground_truth"] == 1


def test_export_command_reports_rows_and_exits_zero(run_dir: Path, tmp_path: Path, capsys) -> None:
    assert export_command(run_dir, "grpo", tmp_path / "g.jsonl") == 0
    assert f"wrote 2 grpo rows to {tmp_path / 'g.jsonl'}" in capsys.readouterr().out


def test_an_empty_run_exports_nothing_and_exits_one(tmp_path: Path, capsys) -> None:
    RunStore(tmp_path / "empty", create=True).close()
    assert export_command(tmp_path / "empty", "sft") == 1
    assert "no passing samples" in capsys.readouterr().out
    assert not (tmp_path / "empty" / "exports").exists()


def test_an_unknown_format_names_the_choices(run_dir: Path) -> None:
    with pytest.raises(ConfigError, match="'csv' is unknown; choose one of sft, dpo, grpo, verl, openrlhf"):
        export_run(run_dir, "csv")


def test_a_directory_without_a_run_is_a_store_error(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="is not a SPADE run directory"):
        export_run(tmp_path, "sft")

"""Self-play's proposer role through the environment API: an outside trainer's model gets proposer prompts, its
proposals are judged by execution and deduplicated, admitted ones become tasks any process grades by id, and the
solver's reported answers reward them. Real sandbox, real SQLite."""

from __future__ import annotations

import json
import multiprocessing
from pathlib import Path

import pytest

from spade.config import load_config
from spade.env import Environment
from spade.errors import ConfigError
from spade.export import export_run
from spade.store import RunStore
from spade.store.proposals import final_proposals

VALID = ('```python\ndef f(xs):\n    """Triple the items above one."""\n    return [x * 3 for x in xs if x > 1]\n\n'
         'print(f([1, 2, 3]))\nprint(f([4, 0]))\nprint(f([]))\n```')
RENAMED = ('```python\ndef f(ys):\n    """Triple the items above one."""\n    return [y * 3 for y in ys if y > 1]\n\n'
           'print(f([1, 2, 3]))\nprint(f([5]))\n```')
INVALID = {
    "syntax": "```python\ndef f(x:\n    return (\n```",
    "raises": "```python\ndef f(x):\n    return x // 0\n\nprint(f(1))\nprint(f(2))\n```",
    "non_deterministic": "```python\ndef f(s):\n    return hash(s) % 1000\n\nprint(f('a'))\nprint(f('bc'))\n```",
    "oversized": "```python\ndef f(" + "(" * 1_000_000,
}


@pytest.fixture
def env(tmp_path: Path):
    cfg = load_config(None, {"generation.families": ["list_transform"], "generation.tasks_per_iteration": 2,
                             "evolution.replay_ratio": 0.0, "executor.workers": 2})
    with Environment.open(tmp_path / "run", cfg) as e:
        yield e


def test_proposer_prompts_come_in_the_mix_modes_at_the_controllers_difficulty(env: Environment) -> None:
    prompts = env.propose(6)
    assert len(prompts) == 6 and {p.mode for p in prompts} <= {"deduction", "abduction", "induction"}
    assert all(p.task.difficulty == env.config.evolution.initial_difficulty for p in prompts)
    row = prompts[0].row()
    assert row["role"] == "proposer" and row["task_id"] == prompts[0].task.task_id
    assert row["prompt"][0]["role"] == "system" and "function f" in row["prompt"][-1]["content"]
    assert {p.mode for p in env.propose(3, mode="abduction")} == {"abduction"}
    with pytest.raises(ConfigError, match="propose mode = 'sorting'"):
        env.propose(1, mode="sorting")
    with pytest.raises(ConfigError, match="not a proposer prompt"):
        env.submit_proposals(['{"mode": "x"}'], [VALID])


def test_proposals_are_judged_by_execution_and_rewarded_by_the_solvers_reported_answers(env: Environment) -> None:
    sp = env.config.selfplay
    prompt = env.propose(1, mode="deduction")[0]
    first = env.submit_proposals([prompt.row()["proposer_prompt"]], [VALID], model="trl-proposer",
                                 checkpoint="step-7")[0]
    assert first.valid and first.reason == "ok" and first.pending and first.reward == 0.0
    assert first.drawn is not None and first.drawn.origin == "generated" and first.drawn.task.kind == "code_reasoning"
    task_id = first.task_id
    assert task_id is not None and env.task(task_id).params["mode"] == "deduction"

    names = list(INVALID)
    judged = env.submit_proposals([prompt] * (len(names) + 2), [RENAMED, *INVALID.values(), None],
                                  model="trl-proposer", checkpoint="step-7")
    duplicate, rest = judged[0], dict(zip([*names, "not_text"], judged[1:]))
    assert duplicate.valid and duplicate.reason.startswith("duplicate_") and duplicate.task_id is None
    assert duplicate.reward == pytest.approx(-sp.duplicate_penalty * duplicate.similarity) and duplicate.reward < 0
    assert {name: v.reason for name, v in rest.items()} == {
        "syntax": "no_function", "raises": "reference_exception", "non_deterministic": "nondeterministic",
        "oversized": "no_function", "not_text": "no_function"}
    for name, verdict in rest.items():
        assert not verdict.valid and verdict.task_id is None and verdict.reward == -sp.invalid_penalty, name

    query = env.task(task_id).test_cases[0]
    call = f"f({', '.join(repr(a) for a in query.args)})"
    answers = [f"```python\nassert {call} == {query.expected!r}\n```", "```python\nassert f([]) == 'no'\n```"]
    with Environment.open(env.run_dir) as solver_side:  # another opener grades the stored task by id
        graded, report = solver_side.step([task_id, task_id], answers, model="trl-solver")
    assert [g.passed for g in graded] == [True, False]
    assert report.metrics["selfplay/mean_learnability"] == 0.5
    assert report.metrics["selfplay/pass_rate/source/proposer"] == 0.5
    assert report.metrics["selfplay/proposals"] == 7 and report.metrics["selfplay/proposer_validity"] == 2 / 7
    assert report.metrics["selfplay/near_duplicate_rate"] == 0.5
    assert "selfplay_deduction" in env.difficulties()  # the controller now tracks the proposals' family

    env.report(env.score([task_id], answers[:1]))  # a later report does not move a reward already set
    with RunStore(env.run_dir, read_only=True) as store:
        rows = {p.proposal_id: p for p in final_proposals(store)}
        assert len(rows) == 7 and {p.model for p in rows.values()} == {"trl-proposer"}
        assert {p.checkpoint for p in rows.values()} == {"step-7"}
        [admitted] = [p for p in rows.values() if p.task_id == task_id]
        assert (admitted.solve_rate, admitted.learnability, admitted.reward) == (0.5, 0.5, 0.5)
        assert admitted.completion.startswith("xs):") and admitted.proposal_id == first.proposal_id
        assert store.query("SELECT COUNT(*) FROM rejections WHERE reason LIKE 'duplicate_%'")[0][0] == 1
    assert env.propose(1)[0].task.params["examples"][0].startswith("def f(xs):")  # the run's proposals are examples
    path, n = export_run(env.run_dir, "proposer")  # the proposer's RFT data: the rewarded proposal alone
    [row] = [json.loads(line) for line in path.read_text().splitlines()]
    assert n == 1 and row["messages"][:-1] == prompt.messages()
    assert row["messages"][-1] == {"role": "assistant", "content": prompt.prefill + admitted.completion}


def _submit(env: Environment, prompt_json: str, completion: str) -> tuple[str | None, str]:
    verdict = env.submit_proposals([prompt_json], [completion], model="worker")[0]
    return verdict.task_id, verdict.reason


def test_a_reward_worker_in_another_process_submits_from_the_row_and_dedup_spans_processes(env: Environment) -> None:
    row = env.propose(1, mode="abduction")[0].row()
    with multiprocessing.get_context("spawn").Pool(1) as pool:  # the env travels pickled, as to trainers' workers
        task_id, reason = pool.apply(_submit, (env, row["proposer_prompt"], VALID))
    assert reason == "ok" and task_id is not None and env.task(task_id).params["mode"] == "abduction"
    again = env.submit_proposals([row["proposer_prompt"]], [RENAMED])[0]
    assert again.reason.startswith("duplicate_") and again.task_id is None


PRIME = ("```python\ndef f(n):\n    if n < 2:\n        return False\n    k = 2\n    while k * k <= n:\n"
         "        if n % k == 0:\n            return False\n        k += 1\n    return True\n\n"
         "print(f(7))\nprint(f(8))\nprint(f(13))\nprint(f(1))\n```")


def test_a_proposal_that_answers_an_evaluation_task_is_refused_by_behaviour(env: Environment) -> None:
    """An induction proposal whose f is primality: its reference gives builtin/is_prime's expected values, so
    solving it is solving an evaluation task. Proposals were judged without the behaviour screen (the loop's and
    the environment's), so it was admitted."""
    from spade.dedup.behaviour import REASON

    prompt = env.propose(1, mode="induction")[0]
    got = env.submit_proposals([prompt], [PRIME])[0]
    assert not got.valid and got.reason == REASON and got.task_id is None
    # Predicting its values or inverting it trains on the evaluation task's program and outputs too: refused alike.
    for mode in ("deduction", "abduction"):
        shown = env.submit_proposals([env.propose(1, mode=mode)[0]], [PRIME])[0]
        assert (shown.valid, shown.reason) == (False, REASON), mode


def test_reports_steer_the_mix_and_draws_follow_its_kinds(tmp_path: Path) -> None:
    """Through spade.env the mix was read, never steered: reports now move it as the loop does, and draws weight
    the procedural kinds by it. Python functions solved half the time (learnability 0.5) against code-reasoning
    tasks never solved (0): python_function's weight rises to the cap, code_reasoning's falls to the floor."""
    from spade.selfplay.mix import MIN_OBSERVED

    cfg = load_config(None, {"selfplay.enabled": True, "generation.kinds": {"python_function": 1.0,
                                                                            "code_reasoning": 1.0},
                             "generation.tasks_per_iteration": 8, "evolution.replay_ratio": 0.0,
                             "executor.workers": 2, "eval.suite": "heldout"})
    with Environment.open(tmp_path / "run", cfg) as env:
        drawn: dict[str, list] = {"python_function": [], "code_reasoning": []}
        for _ in range(6):
            if all(len(v) >= MIN_OBSERVED for v in drawn.values()):
                break
            for d in env.draw(8):
                drawn[d.task.kind].append(d.task)
        assert all(len(v) >= MIN_OBSERVED for v in drawn.values())
        ids, answers = [], []
        for task in drawn["python_function"]:
            ids += [task.task_id] * 2
            answers += [f"```python\n{task.reference_solution}\n```", "```python\ndef nothing():\n    pass\n```"]
        for task in drawn["code_reasoning"]:
            ids += [task.task_id] * 2
            answers += ["no idea", "```python\nNone\n```"]
        _, report = env.step(ids, answers, model="m")
        sp = env.config.selfplay
        store = RunStore(tmp_path / "run")
        state = store.state_after(store.last_iteration()).selfplay
        store.close()
        kinds = state["mix"]["kind_weights"]
        assert kinds["python_function"] > kinds["code_reasoning"] >= sp.min_share / (sp.min_share + sp.max_share) - 1e-9
        assert report.metrics["selfplay/kind_weight/python_function"] == kinds["python_function"]
        assert env._kinds(env._store()) == kinds  # what the next draw weights the kinds by


UPPER = ('```python\ndef f(s):\n    """Shout it backwards."""\n    return s[::-1].upper() + "!"\n\n'
         'print(f("ab"))\nprint(f("x y"))\nprint(f(""))\n```')


def test_every_league_every_th_draw_brings_back_past_proposals_the_solver_fails(tmp_path: Path) -> None:
    from spade.store.proposals import selfplay_summary

    cfg = load_config(None, {"generation.families": ["list_transform"], "generation.tasks_per_iteration": 2,
                             "evolution.replay_ratio": 0.0, "executor.workers": 2, "selfplay.enabled": True,
                             "selfplay.league_every": 1, "selfplay.league_share": 0.5})
    with Environment.open(tmp_path / "run", cfg) as env:
        assert [d.origin for d in env.draw()] == ["generated", "generated"]  # draw 0: the rule never consults
        prompt = env.propose(1, mode="deduction")[0]
        [past] = env.submit_proposals([prompt], [VALID], checkpoint="step-1")
        assert past.task_id is not None
        env.report(env.score([past.task_id], ["```python\nassert f([]) == 'no'\n```"]))  # the solver fails it
        drawn = env.draw()  # due, but the newest proposal is step-1's own: not a past one
        assert past.task_id not in {d.task.task_id for d in drawn} and len(drawn) == 2
        [now] = env.submit_proposals([prompt], [UPPER], checkpoint="step-2")
        assert now.valid and now.task_id is not None
        drawn = env.draw()
        assert [(d.task.task_id, d.origin) for d in drawn if d.task.task_id == past.task_id] == [
            (past.task_id, "replay")]
        assert len(drawn) == 2 and sum(d.origin == "generated" for d in drawn) == 1  # the supply fills the rest
        with RunStore(env.run_dir, read_only=True) as store:
            assert store.query("SELECT ref, model FROM audit WHERE kind = 'league'") == [(past.task_id, "step-1")]
            summary = selfplay_summary(store)
        assert summary is not None and (summary.league_tasks, summary.league_consults) == (1, 1)
        query = env.task(past.task_id).test_cases[0]
        solved = f"```python\nassert f({', '.join(repr(a) for a in query.args)}) == {query.expected!r}\n```"
        assert env.step([past.task_id], [solved])[0][0].passed  # solved now
        assert past.task_id not in {d.task.task_id for d in env.draw()}  # its last pass rate is 1: not failing


def test_with_complete_inputs_a_proposal_without_calls_becomes_a_task_through_the_api(tmp_path: Path) -> None:
    cfg = load_config(None, {"generation.families": ["list_transform"], "generation.tasks_per_iteration": 2,
                             "executor.workers": 2, "selfplay.complete_inputs": True})
    no_calls = "```python\ndef f(xs):\n    return [x + 1 for x in xs][::-1]\n```"
    with Environment.open(tmp_path / "run", cfg) as env:
        prompt = env.propose(1, mode="induction")[0]
        verdict = env.submit_proposals([prompt], [no_calls], model="trl-proposer")[0]
        assert verdict.valid and verdict.reason == "ok" and verdict.task_id is not None
        task = env.task(verdict.task_id)
        assert task.provenance["inputs_added"] >= 2 and all(isinstance(c.args[0], list) for c in task.all_tests)


def test_a_proposal_calling_f_past_the_codecs_depth_is_judged_not_raised(env: Environment) -> None:
    deep = "[" * 65 + "3" + "]" * 65  # 65 levels: one past spade.untrusted.MAX_VALUE_DEPTH, the codec's depth
    proposal = (f"```python\ndef f(x):\n    \"\"\"Count the brackets.\"\"\"\n    return str(x).count('[')\n\n"
                f"print(f({deep}))\nprint(f([1]))\nprint(f([[2]]))\nprint(f([]))\n```")
    prompt = env.propose(1, mode="abduction")[0]
    (result,) = env.submit_proposals([prompt.row()["proposer_prompt"]], [proposal])
    assert result.reason
    if result.drawn is not None:
        assert all(len(repr(t.args)) < 100 for t in result.drawn.task.test_cases)


def test_escapes_that_decode_to_lone_surrogates_never_reach_a_stored_task(env: Environment) -> None:
    def is_text(text: str) -> bool:
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            return False
        return True

    escaped_doc = VALID.replace("Triple the items above one.", "Triple the items \\ud800 above one.")
    chr_output = ('```python\ndef f(n):\n    """Spell a code point."""\n    return chr(0xd800 + n % 2) + str(n)\n\n'
                  'print(f(1))\nprint(f(2))\nprint(f(3))\n```')
    escaped_input = ('```python\ndef f(s):\n    """Measure it."""\n    return len(s) * 2\n\n'
                     'print(f("\\udfff"))\nprint(f("ab"))\nprint(f("abc"))\n```')
    prompt = env.propose(1, mode="deduction")[0].row()["proposer_prompt"]
    doc, output, given = env.submit_proposals([prompt] * 3, [escaped_doc, chr_output, escaped_input])
    assert doc.valid and doc.drawn is not None and is_text(doc.drawn.task.description)
    assert "\ufffd" in doc.drawn.task.description
    assert not output.valid and output.drawn is None
    assert given.drawn is None or all(is_text(json.dumps(t.args, ensure_ascii=False)) for t in given.drawn.task.all_tests)
    for p in (doc, given):
        if p.drawn is not None:
            stored = env.task(p.drawn.task.task_id)
            assert is_text(stored.description) and all(is_text(repr(t.expected)) for t in stored.all_tests)


def test_a_drawn_code_reasoning_task_shows_its_query_without_the_answer(env: Environment) -> None:
    prompt = env.propose(1, mode="deduction")[0].row()["proposer_prompt"]
    (verdict,) = env.submit_proposals([prompt], [VALID])
    assert verdict.drawn is not None
    shown = verdict.drawn.shown()
    assert shown["test_cases"] == [{"input": list(verdict.drawn.task.test_cases[0].args)}]
    assert "reference_solution" not in shown and "hidden_test_cases" not in shown
    python = env.draw(1)[0].shown()  # a Python function task's prompt shows its public examples
    assert all(set(t) == {"input", "expected"} for t in python["test_cases"])


def test_one_call_judges_a_bounded_number_of_proposals(env: Environment) -> None:
    from spade.env.environment import MAX_PROPOSALS

    prompt = env.propose(1, mode="deduction")[0].row()["proposer_prompt"]
    with pytest.raises(ConfigError, match=f"over the {MAX_PROPOSALS} one call judges; split them"):
        env.submit_proposals([prompt] * (MAX_PROPOSALS + 1), [VALID] * (MAX_PROPOSALS + 1))

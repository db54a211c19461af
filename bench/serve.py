"""Benchmark: program jobs through `spade serve` (HTTP, SandboxFusion's /run_code) vs the in-process pool, one run.

Workload: --jobs small stdin->stdout programs (~80% correct, ~10% wrong output, ~10% raising), each with its own
input so every answer can be matched to its request. Both sides get the same number of sandbox workers; the
in-process side submits every job at once (its threads leave no gap between jobs), the service side is driven by --clients concurrent HTTP clients
(keep-alive connections, as verl's reward workers do). Rounds alternate A/B; prints jobs/s per side per round,
the service/in-process ratio per round and its median, client-side p50/p99 latency, and checks that every answer
came back once, with its own output, and no status but 200. Then an overload burst (more clients than slots plus
queue) counts 429s and checks that nothing else failed.
Then the trainer-load case: verl's own SandboxFusion client (verl 0.9.1's sandbox_fusion module, installed
--no-deps in the venv's verl-client folder) as 4 reward workers, each with verl's default 64-slot semaphore, 40
cases each (160 requests) against a service at its defaults (workers and slots sized to the host): counts the
answers that were not the right verdict (lost), and the 429s and 504s the service gave.
Last, the Ray-vs-local ratio: the same jobs on the local pool and on a Ray pool (executor.backend ray, a local
Ray instance with one actor per worker), alternating rounds.
Run: .venv/bin/python bench/serve.py [--jobs 300] [--rounds 3] [--workers 2] [--clients 4] [--no-ray]
     .venv/bin/python bench/serve.py --only-verl   (just the trainer-load case)
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from machine import cpu_model  # noqa: E402

from spade.config import ExecutorConfig  # noqa: E402
from spade.sandbox import ProgramJob, SandboxPool  # noqa: E402

PROGRAMS = {
    "correct": "import sys\na, b = map(int, sys.stdin.read().split())\nprint(a * b + 1)\n",
    "wrong": "import sys\na, b = map(int, sys.stdin.read().split())\nprint(a + b)\n",
    "raising": "import sys\na, b = map(int, sys.stdin.read().split())\nraise ValueError(a)\n",
}


def workload(n: int, seed: int = 0) -> list[tuple[str, str, str]]:
    """(code, stdin, the stdout it must produce) per job."""
    rng = random.Random(seed)
    jobs = []
    for i in range(n):
        kind = rng.choices(list(PROGRAMS), weights=(8, 1, 1))[0]
        a, b = i, rng.randint(1, 999)
        out = {"correct": f"{a * b + 1}\n", "wrong": f"{a + b}\n", "raising": ""}[kind]
        jobs.append((PROGRAMS[kind], f"{a} {b}\n", out))
    return jobs


def in_process(pool: SandboxPool, jobs: list[tuple[str, str, str]]) -> tuple[float, int]:
    """Every job submitted at once: the pool's own threads keep each worker busy with no gap between jobs."""
    started = time.perf_counter()
    futures = [pool.submit_program(ProgramJob(code, stdin.encode(), time_limit_s=5.0)) for code, stdin, _ in jobs]
    runs = [f.result() for f in futures]
    seconds = time.perf_counter() - started
    bad = sum(run.stdout.decode() != out for run, (_, _, out) in zip(runs, jobs))
    return len(jobs) / seconds, bad


def through_service(host: str, port: int, jobs: list[tuple[str, str, str]], clients: int
                    ) -> tuple[float, list[float], list[int], int]:
    """jobs/s, latencies, HTTP statuses, and answers that were not the job's own output."""
    latencies: list[float] = []
    statuses: list[int] = []
    bad = [0]
    lock = threading.Lock()
    queue = list(enumerate(jobs))

    def client() -> None:
        conn = http.client.HTTPConnection(host, port, timeout=60)
        while True:
            with lock:
                if not queue:
                    break
                _, (code, stdin, out) = queue.pop()
            body = json.dumps({"code": code, "stdin": stdin, "language": "python", "run_timeout": 5,
                               "compile_timeout": 5, "memory_limit_MB": -1, "files": {}, "fetch_files": []})
            t = time.perf_counter()
            conn.request("POST", "/run_code", body=body, headers={"Content-Type": "application/json"})
            resp = conn.getresponse()
            raw = resp.read()
            with lock:
                latencies.append(time.perf_counter() - t)
                statuses.append(resp.status)
                if resp.status == 200 and json.loads(raw)["run_result"]["stdout"] != out:
                    bad[0] += 1
        conn.close()

    started = time.perf_counter()
    threads = [threading.Thread(target=client) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return len(jobs) / (time.perf_counter() - started), latencies, statuses, bad[0]


def start_service(workers: int, queue_limit: int | None, concurrency: int = 0) -> tuple[subprocess.Popen, str, int]:
    """A `spade serve` on a free port; None for queue_limit keeps the service's default."""
    cfg = Path(tempfile.mkdtemp(prefix="spade-bench-serve-")) / "serve.yaml"
    serve = {"concurrency": concurrency} | ({} if queue_limit is None else {"queue_limit": queue_limit})
    cfg.write_text(json.dumps({"executor": {"workers": workers}, "serve": serve}))
    proc = subprocess.Popen([sys.executable, "-m", "spade", "serve", "--port", "0", "--config", str(cfg)],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=ROOT,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    line = proc.stdout.readline()
    if "listening on" not in line:
        raise SystemExit(f"spade serve did not start: {line!r}")
    hostport = line.split("http://", 1)[1].split()[0]
    host, port = hostport.rsplit(":", 1)
    return proc, host, int(port)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--jobs", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--no-ray", dest="ray", action="store_false", help="skip the Ray-vs-local comparison")
    parser.add_argument("--only-verl", action="store_true", help="run only the trainer-load case")
    args = parser.parse_args()
    if args.only_verl:
        print(f"CPU: {cpu_model()} x{os.cpu_count()}", flush=True)
        verl_load()
        return
    jobs = workload(args.jobs)
    print(f"{args.jobs} program jobs, {args.workers} sandbox workers, {args.clients} HTTP clients, "
          f"CPU: {cpu_model()} x{os.cpu_count()}", flush=True)
    pool = SandboxPool(ExecutorConfig(workers=args.workers))
    proc, host, port = start_service(args.workers, queue_limit=4 * args.clients)
    ratios, all_latencies, all_statuses, lost = [], [], [], 0
    try:
        in_process(pool, jobs[:20])  # warm both
        through_service(host, port, jobs[:20], args.clients)
        for r in range(args.rounds):
            local, local_bad = in_process(pool, jobs)
            served, latencies, statuses, bad = through_service(host, port, jobs, args.clients)
            all_latencies += latencies
            all_statuses += statuses
            lost += bad + local_bad + (len(jobs) - len(statuses))
            ratios.append(served / local)
            print(f"round {r + 1}: in-process {local:.1f} jobs/s, service {served:.1f} jobs/s, "
                  f"ratio {served / local:.2f}", flush=True)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(60)
        pool.close()
    print(f"service / in-process: median {statistics.median(ratios):.2f} (rounds {min(ratios):.2f}-{max(ratios):.2f})")
    print(f"service latency: p50 {pct(all_latencies, 0.5) * 1000:.1f} ms, p99 {pct(all_latencies, 0.99) * 1000:.1f} ms")
    others = sorted(set(all_statuses) - {200})
    print(f"answers: {len(all_statuses)} of {args.rounds * len(jobs)}, statuses other than 200: {others or 'none'}, "
          f"lost or wrong: {lost}")
    overload(args, jobs)
    verl_load()
    if args.ray:
        ray_vs_local(args, jobs)


def ray_vs_local(args: argparse.Namespace, jobs: list[tuple[str, str, str]]) -> None:
    """The same jobs on the local pool and on a Ray pool (a local Ray instance, one actor per worker)."""
    import ray

    from spade.sandbox.backend import open_pool

    ray.init(num_cpus=args.workers, include_dashboard=False, log_to_driver=False)
    local = SandboxPool(ExecutorConfig(workers=args.workers))
    remote = open_pool(ExecutorConfig(workers=args.workers, backend="ray"))
    ratios, lost = [], 0
    try:
        in_process(local, jobs[:20])
        in_process(remote, jobs[:20])
        for r in range(args.rounds):
            local_rate, local_bad = in_process(local, jobs)
            ray_rate, ray_bad = in_process(remote, jobs)
            lost += local_bad + ray_bad
            ratios.append(ray_rate / local_rate)
            print(f"round {r + 1}: local {local_rate:.1f} jobs/s, ray {ray_rate:.1f} jobs/s, "
                  f"ratio {ray_rate / local_rate:.2f}", flush=True)
    finally:
        remote.close()
        local.close()
        ray.shutdown()
    print(f"ray / local: median {statistics.median(ratios):.2f} (rounds {min(ratios):.2f}-{max(ratios):.2f}), "
          f"wrong answers: {lost}")


def overload(args: argparse.Namespace, jobs: list[tuple[str, str, str]]) -> None:
    """One slot, one queue place, 4x the clients: expect 429s and nothing else but 200s."""
    proc, host, port = start_service(args.workers, queue_limit=1, concurrency=1)
    try:
        sleepy = [("import time, sys\ntime.sleep(0.05)\nprint(sys.stdin.read().strip())\n", f"{i}\n", f"{i}\n")
                  for i in range(min(len(jobs), 120))]
        _, latencies, statuses, bad = through_service(host, port, sleepy, 4 * args.clients)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(60)
    counts = {s: statuses.count(s) for s in sorted(set(statuses))}
    print(f"overload (1 slot, queue 1, {4 * args.clients} clients, {len(sleepy)} jobs): statuses {counts}, "
          f"wrong answers among 200s: {bad}")


def verl_load(reward_workers: int = 4, cases: int = 40, semaphore_slots: int = 64) -> None:
    """verl's own client as `reward_workers` reward workers, each with its own semaphore, against a service at its
    defaults (0 workers: one per CPU, slots = workers)."""
    verl = _verl_client()
    if verl is None:
        print("trainer load: skipped (verl's client is not in the venv's verl-client folder: "
              "pip install --no-deps --target <venv>/verl-client verl==0.9.1)")
        return
    proc, host, port = start_service(0, queue_limit=None)
    code = "import sys, time\na, b = map(int, sys.stdin.read().split())\ntime.sleep(0.02)\nprint(a * b + 1)\n"
    io = {"inputs": [f"{i} 3\n" for i in range(cases)], "outputs": [f"{3 * i + 1}\n" for i in range(cases)]}
    results: dict[int, list] = {}
    try:
        url = f"http://{host}:{port}/run_code"

        def reward_worker(k: int) -> None:
            semaphore = threading.Semaphore(semaphore_slots)
            results[k] = verl.utils.check_correctness(url, io, code, timeout=10, concurrent_semaphore=semaphore)[0]

        started = time.perf_counter()
        threads = [threading.Thread(target=reward_worker, args=(k,)) for k in range(reward_workers)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        seconds = time.perf_counter() - started
        conn = http.client.HTTPConnection(host, port, timeout=30)
        conn.request("GET", "/v1/status")
        status = json.loads(conn.getresponse().read())
        conn.close()
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(60)
    answers = [r for k in sorted(results) for r in results[k]]
    lost = sum(r is not True for r in answers) + reward_workers * cases - len(answers)
    counts = {key.split()[1]: n for key, n in status["requests"].items() if key.startswith("/run_code")}
    print(f"trainer load (verl's client, {reward_workers} reward workers x {semaphore_slots}-slot semaphore, "
          f"{reward_workers * cases} requests, {status['workers']} sandbox workers, {status['concurrency']} slots): "
          f"lost {lost}, HTTP statuses {dict(sorted(counts.items()))}, {seconds:.1f} s")


def _verl_client() -> object | None:
    """verl's sandbox_fusion module loaded by path (its package root would import torch), or None."""
    import importlib.util

    folder = Path(sys.prefix) / "verl-client" / "verl" / "utils" / "reward_score" / "sandbox_fusion"
    if not (folder / "utils.py").is_file():
        return None
    spec = importlib.util.spec_from_file_location("_verl_sandbox_fusion", folder / "__init__.py",
                                                  submodule_search_locations=[str(folder)])
    module = importlib.util.module_from_spec(spec)
    sys.modules["_verl_sandbox_fusion"] = module
    spec.loader.exec_module(module)
    return module


if __name__ == "__main__":
    main()

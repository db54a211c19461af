"""The service's counters, exposed as Prometheus text at GET /metrics and as JSON in GET /v1/status.

in: one `observe` per finished request (route, HTTP status, seconds, verdict). out: request counts by route and
status, verdict counts, latency sums and histogram buckets. Updated on the event loop only.
"""

from __future__ import annotations

import time
from collections import Counter

BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)


class Metrics:
    def __init__(self) -> None:
        self.started = time.time()
        self.requests: Counter[tuple[str, int]] = Counter()
        self.verdicts: Counter[str] = Counter()
        self.latency_sum: Counter[str] = Counter()
        self.latency_buckets: dict[str, list[int]] = {}

    def observe(self, route: str, status: int, seconds: float, verdict: str | None = None) -> None:
        self.requests[(route, status)] += 1
        if verdict is not None:
            self.verdicts[verdict] += 1
        self.latency_sum[route] += seconds
        buckets = self.latency_buckets.setdefault(route, [0] * (len(BUCKETS) + 1))
        for i, bound in enumerate(BUCKETS):
            if seconds <= bound:
                buckets[i] += 1
        buckets[-1] += 1  # +Inf

    def snapshot(self) -> dict:
        return {"uptime_s": round(time.time() - self.started, 3),
                "requests": {f"{route} {status}": n for (route, status), n in sorted(self.requests.items())},
                "verdicts": dict(sorted(self.verdicts.items()))}

    def prometheus(self, gauges: dict[str, float]) -> str:
        lines = ["# TYPE spade_requests_total counter"]
        for (route, status), n in sorted(self.requests.items()):
            lines.append(f'spade_requests_total{{route="{route}",status="{status}"}} {n}')
        lines.append("# TYPE spade_verdicts_total counter")
        for verdict, n in sorted(self.verdicts.items()):
            lines.append(f'spade_verdicts_total{{verdict="{verdict}"}} {n}')
        lines.append("# TYPE spade_request_seconds histogram")
        for route, buckets in sorted(self.latency_buckets.items()):
            for bound, n in zip((*map(str, BUCKETS), "+Inf"), buckets):
                lines.append(f'spade_request_seconds_bucket{{route="{route}",le="{bound}"}} {n}')
            lines.append(f'spade_request_seconds_sum{{route="{route}"}} {self.latency_sum[route]:.6f}')
            lines.append(f'spade_request_seconds_count{{route="{route}"}} {buckets[-1]}')
        for name, value in sorted(gauges.items()):
            lines += [f"# TYPE spade_{name} gauge", f"spade_{name} {value}"]
        lines.append(f"spade_uptime_seconds {time.time() - self.started:.3f}")
        return "\n".join(lines) + "\n"

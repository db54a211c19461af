"""`spade serve`: SPADE's sandbox and grading as an HTTP service.

runcode.py: SandboxFusion's /run_code (request, response, verdicts). grading.py: SPADE's own grading endpoint.
admission.py: bounded concurrency and queue (429/504/503). guard.py: auth, body limit, logs, metrics per request.
metrics.py: counters (Prometheus text). app.py: the routes. command.py: the CLI command, signals, auth defaults.
FastAPI and uvicorn are imported only here (the `service` extra).
"""

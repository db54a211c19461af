"""`spade serve`: SPADE's sandbox and grading as an HTTP service.

runcode.py: SandboxFusion's /run_code (request, response, verdicts). grading.py: SPADE's own grading endpoint.
openrlhf.py: OpenRLHF's remote reward. work.py: what one grading request may ask, the pool narrowed to it.
admission.py: weighted slots and a deadline queue (429/504/503). guard.py: auth, body limit and read deadline, the
buffered-bytes budget, logs, metrics per request. connections.py: header deadline, connection cap, descriptors.
metrics.py: counters (Prometheus text). app.py: the routes. command.py: the CLI command, signals, auth defaults.
FastAPI and uvicorn are imported only here (the `service` extra).
"""

"""Self-play proper (docs/selfplay.md): the policy proposes code-reasoning tasks and solves them; the proposer is
rewarded by learnability and trained; past proposals the solver fails return as a league; a collapse of output
diversity raises the temperature; the task mix follows measured learnability. Enabled by `selfplay.enabled`.

proposal.py (parsing a proposal), reward.py (its reward), mix.py (the mix rule), league.py (the league rule),
diversity.py (the collapse signal), engine.py (the iteration's part, called by spade.pipeline).
"""

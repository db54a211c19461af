"""The run database's tables. Bump SCHEMA_VERSION on any change and add the step from the previous version to
MIGRATIONS; a run opened for writing is brought up to date (and says so), one opened read-only is read as it is."""

SCHEMA_VERSION = 3

MIGRATIONS: dict[int, tuple[str, ...]] = {
    # 1 -> 2: the reward's memory term (runs made before it had none: 0).
    1: ("ALTER TABLE rewards ADD COLUMN memory_penalty REAL NOT NULL DEFAULT 0",),
    # 2 -> 3: self-play's proposals (which weights proposed what, with its reward; spade.selfplay).
    2: ("""CREATE TABLE IF NOT EXISTS proposals (
    proposal_id TEXT PRIMARY KEY, iteration INTEGER NOT NULL, checkpoint TEXT, model TEXT NOT NULL,
    mode TEXT NOT NULL, task_id TEXT, valid INTEGER NOT NULL, reason TEXT NOT NULL, similarity REAL NOT NULL,
    solve_rate REAL, learnability REAL NOT NULL, reward REAL NOT NULL, prompt TEXT NOT NULL, completion TEXT NOT NULL);""",),
}
"""Statements that take a database from the key's version to the next one."""
READABLE_VERSIONS = frozenset({"1", "2", "3"})
"""Versions the read-only views can read without migrating (no reader selects a column newer than these)."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS iterations (
    iteration INTEGER PRIMARY KEY, started_at REAL NOT NULL, finished_at REAL NOT NULL, state TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tasks (
    task_id TEXT PRIMARY KEY, iteration INTEGER NOT NULL, family TEXT, difficulty REAL NOT NULL, json TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS task_uses (
    iteration INTEGER NOT NULL, task_id TEXT NOT NULL REFERENCES tasks(task_id), origin TEXT NOT NULL,
    PRIMARY KEY (iteration, task_id));
CREATE TABLE IF NOT EXISTS rejections (
    id INTEGER PRIMARY KEY AUTOINCREMENT, iteration INTEGER NOT NULL, draft_id TEXT NOT NULL, family TEXT,
    difficulty REAL, reason TEXT NOT NULL, detail TEXT);
CREATE TABLE IF NOT EXISTS candidates (
    candidate_id TEXT PRIMARY KEY, iteration INTEGER NOT NULL, task_id TEXT NOT NULL REFERENCES tasks(task_id),
    completion TEXT NOT NULL, code TEXT NOT NULL, model TEXT NOT NULL, prompt_hash TEXT NOT NULL,
    prompt_variant INTEGER NOT NULL, new_tokens INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS executions (
    candidate_id TEXT PRIMARY KEY REFERENCES candidates(candidate_id), status TEXT NOT NULL, score REAL NOT NULL,
    public_score REAL NOT NULL, hidden_score REAL NOT NULL, cpu_time_s REAL NOT NULL, peak_memory_kb INTEGER NOT NULL,
    wall_time_s REAL NOT NULL, json TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS rewards (
    candidate_id TEXT PRIMARY KEY REFERENCES candidates(candidate_id), total REAL NOT NULL, pass_fraction REAL NOT NULL,
    difficulty_bonus REAL NOT NULL, efficiency_penalty REAL NOT NULL, interference_penalty REAL NOT NULL,
    format_penalty REAL NOT NULL, hardcoding_suspected INTEGER NOT NULL, memory_penalty REAL NOT NULL);
CREATE TABLE IF NOT EXISTS decisions (
    iteration INTEGER NOT NULL, step INTEGER NOT NULL, family TEXT NOT NULL, old_difficulty REAL NOT NULL,
    new_difficulty REAL NOT NULL, window_mean REAL NOT NULL, window_size INTEGER NOT NULL, streak INTEGER NOT NULL,
    reason TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS metrics (
    iteration INTEGER NOT NULL, name TEXT NOT NULL, value REAL NOT NULL, PRIMARY KEY (iteration, name));
CREATE TABLE IF NOT EXISTS updates (iteration INTEGER PRIMARY KEY, json TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS evals (iteration INTEGER NOT NULL, suite TEXT NOT NULL, json TEXT NOT NULL,
    PRIMARY KEY (iteration, suite));
CREATE TABLE IF NOT EXISTS audit (
    id INTEGER PRIMARY KEY AUTOINCREMENT, iteration INTEGER NOT NULL, kind TEXT NOT NULL, ref TEXT NOT NULL,
    model TEXT NOT NULL, prompt_hash TEXT NOT NULL, result TEXT NOT NULL, at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS proposals (
    proposal_id TEXT PRIMARY KEY, iteration INTEGER NOT NULL, checkpoint TEXT, model TEXT NOT NULL,
    mode TEXT NOT NULL, task_id TEXT, valid INTEGER NOT NULL, reason TEXT NOT NULL, similarity REAL NOT NULL,
    solve_rate REAL, learnability REAL NOT NULL, reward REAL NOT NULL, prompt TEXT NOT NULL, completion TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS candidates_task ON candidates(task_id);
CREATE INDEX IF NOT EXISTS candidates_iteration ON candidates(iteration);
"""

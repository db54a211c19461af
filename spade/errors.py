"""One error per boundary. Untrusted code failing is never an error: it is an `ExecResult`.

Each class says where it is raised and where it is caught. The CLI catches `SpadeError`
and prints its message as one line, exiting with the error's `exit_code` (the codes below, documented in
`spade --help` and README); anything else is our bug and keeps its traceback.
"""

EXIT_OK = 0
EXIT_FAILED = 1  # the command ran and its answer is "no": a candidate failed, a task or check was rejected
EXIT_INPUT = 2  # usage or input error: bad arguments, config, task file, run directory
EXIT_INFRA = 3  # the machine or a service failed: sandbox, model backend, disk, a locked database
EXIT_SIGINT = 130  # interrupted by Ctrl-C (128 + SIGINT)
EXIT_SIGTERM = 143  # terminated by SIGTERM (128 + SIGTERM)


class SpadeError(Exception):
    """Base of every error SPADE raises on purpose. Caught by `spade.cli`, printed as one line.

    `exit_code` is the class's kind of failure; one raise may override it (a store that is locked, not merely
    missing, is infrastructure)."""

    exit_code = EXIT_INPUT

    def __init__(self, message: str, *, exit_code: int | None = None):
        super().__init__(message)
        if exit_code is not None:
            self.exit_code = exit_code


class ConfigError(SpadeError):
    """A config file or override is invalid. Raised by `spade.config.load_config`."""


class TaskFormatError(SpadeError):
    """A task, samples or solution file does not fit the schema. Raised by `spade.taskio` and `spade.jsonfile`."""


class ValidationError(SpadeError):
    """A task cannot be validated at all (not: the task was rejected, which is data)."""


class SandboxError(SpadeError):
    """The sandbox infrastructure failed or the host cannot meet the isolation level.

    Raised by `spade.sandbox`; never raised because a candidate misbehaved.
    """

    exit_code = EXIT_INFRA


class ModelError(SpadeError):
    """A policy or proposer backend cannot load or answer. Raised by `spade.policy`."""

    exit_code = EXIT_INFRA


class StoreError(SpadeError):
    """The run directory or database is missing, unwritable, locked, full or from an incompatible run.

    Raised by `spade.store` and `spade.rundir.layout`; a locked, full or failing medium raises it with EXIT_INFRA.
    `reason` is the medium's failure alone (e.g. "database is locked"), for callers that retry on some of them.
    """

    reason: str = ""


class TrainingError(SpadeError):
    """An update cannot run (bad data, diverged loss). Raised by `spade.train`."""

    exit_code = EXIT_INFRA

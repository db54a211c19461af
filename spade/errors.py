"""One error per boundary. Untrusted code failing is never an error: it is an `ExecResult`.

Each class says where it is raised and where it is caught. The CLI catches `SpadeError`
and prints its message as one line; anything else is our bug and keeps its traceback.
"""


class SpadeError(Exception):
    """Base of every error SPADE raises on purpose. Caught by `spade.cli`, printed as one line."""


class ConfigError(SpadeError):
    """A config file or override is invalid. Raised by `spade.config.load_config`."""


class TaskFormatError(SpadeError):
    """A task file or task record does not fit the schema. Raised by `spade.tasks.io`."""


class ValidationError(SpadeError):
    """A task cannot be validated at all (not: the task was rejected, which is data)."""


class SandboxError(SpadeError):
    """The sandbox infrastructure failed or the host cannot meet the isolation level.

    Raised by `spade.sandbox`; never raised because a candidate misbehaved.
    """


class ModelError(SpadeError):
    """A policy or proposer backend cannot load or answer. Raised by `spade.policy`."""


class StoreError(SpadeError):
    """The run database is missing, locked or from an incompatible run. Raised by `spade.store`."""


class TrainingError(SpadeError):
    """An update cannot run (bad data, diverged loss). Raised by `spade.train`."""

import pytest

from spade.config import ExecutorConfig
from spade.sandbox import SandboxPool


@pytest.fixture(scope="package")
def pool():
    with SandboxPool(ExecutorConfig(workers=2)) as p:
        yield p

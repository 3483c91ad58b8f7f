"""The subgraph's tests run its compiled mappings: build them first (a no-op when current)."""

import pytest
from subgraph_support import ensure_built


@pytest.fixture(scope="session", autouse=True)
def subgraph_built():
    ensure_built()

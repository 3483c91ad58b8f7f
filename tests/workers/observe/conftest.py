"""The observability tests' services: a real anvil (8820-8829) with the protocol deployed, an
embedded Redis (16445-16449), and one real node (prefork Celery workers, concurrency 2) whose
handlers (observe_handlers) do real work: CartPole rollouts and content-store writes."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from observe_support import PASSWORD, REDIS_PORTS, start_anvil  # noqa: E402

from tests.workers.deployed_chain import deployed_chain, node_folders  # noqa: E402
from workers.node.processes import redis_service  # noqa: E402

anvil, w3, admin, deployment_file, contracts = deployed_chain(start_anvil, "observe-test")
invoke, node = node_folders(PASSWORD)


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory):
    service = redis_service.start_embedded(tmp_path_factory.mktemp("redis"), ports=REDIS_PORTS, databases=32)
    yield service
    service.stop()

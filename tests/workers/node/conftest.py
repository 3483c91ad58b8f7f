"""A real embedded Redis and one real node (Celery worker processes for sampler, trainer and
validator, started by the Supervisor) shared by this folder's tests. Small retry/visibility
settings keep the folder fast; no eager mode anywhere. Helpers the tests import are in
node_support.py."""
import pytest
from node_support import HERE, PORTS, ROLES

from tests.waiting import wait_ready
from workers.node.config import NodeConfig
from workers.node.processes import redis_service
from workers.node.processes.supervisor import Supervisor
from workers.node.queues.celery_app import create_app
from workers.node.queues.tasks import make_enqueue


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory):
    service = redis_service.start_embedded(tmp_path_factory.mktemp("redis"), ports=PORTS)
    yield service
    service.stop()
    assert service.process.poll() is not None


@pytest.fixture(scope="session")
def rclient(redis_server):
    client = redis_server.client()
    yield client
    client.close()


@pytest.fixture(scope="session")
def config(redis_server):
    return NodeConfig(redis_url=redis_server.url, node_name="testnode",
                      handler_modules=("node_handlers",), rate_per_s=10, burst=5,
                      retry_backoff=1, retry_backoff_max=2, retry_jitter=False, max_retries=3,
                      soft_time_limit=4, time_limit=5, lease_s=1.5, visibility_timeout=8,
                      restore_interval=1)


@pytest.fixture(scope="session")
def app(config):
    return create_app(config)


@pytest.fixture(scope="session")
def node(config, app, tmp_path_factory):
    sup = Supervisor(config, tmp_path_factory.mktemp("node"), ROLES, concurrency=2,
                     env={"PYTHONPATH": str(HERE)})
    sup.start()
    try:
        for queue in ("sample", "train", "validate", "sample.claim"):
            wait_ready(app, queue)
        yield sup
    finally:
        sup.stop()
        assert not any(c.alive() for c in sup.children.values())


@pytest.fixture(scope="session")
def enqueue(app, node):
    return make_enqueue(app)

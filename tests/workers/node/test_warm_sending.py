"""warm_sending: a process pays its first send_task's one-time costs before its first event (the
node's queues declared on the broker); a broker that is down then is only logged."""
import dataclasses
import logging

import redis

from tests.ports import dead_port
from workers.node.queues.celery_app import QUEUES, create_app, warm_sending
from workers.node.queues.tasks import make_enqueue


def test_the_nodes_queues_are_declared_before_the_first_event(config, redis_server):
    fresh = dataclasses.replace(config, redis_url=redis_server.url.rsplit("/", 1)[0] + "/9")
    client = redis.Redis.from_url(fresh.redis_url)
    client.flushdb()
    warm_sending(create_app(fresh))
    # kombu's Redis transport keeps an exchange's bindings as "routing_key SEP pattern SEP queue"
    bound = {member.decode().split("\x06\x16")[-1] for member in client.smembers("_kombu.binding.chain")}
    assert bound == set(QUEUES)


def test_a_broker_down_at_start_is_logged_and_the_watcher_still_gets_its_sink(config, caplog):
    with dead_port() as port, caplog.at_level(logging.WARNING, logger="workers.node.queues.tasks"):
        down = dataclasses.replace(config, redis_url=f"redis://127.0.0.1:{port}/0")
        app = create_app(down)
        app.conf.broker_connection_timeout = 1
        enqueue = make_enqueue(app)
    assert callable(enqueue)
    assert "could not prepare sending to the node's Redis" in caplog.text

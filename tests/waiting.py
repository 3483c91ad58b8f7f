"""Waiting in tests on real processes: a condition polled until it holds, a Celery worker's ping."""
import time


def wait_for(predicate, timeout, interval=0.05):
    """predicate()'s first truthy value within `timeout` s (polled every `interval` s); else AssertionError."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"condition not met within {timeout} s")


def wait_ready(app, queue, timeout=60.0, interval=0.05):
    """Round trip of a ping task through the worker on `queue`."""
    from workers.node.queues.celery_app import PING

    return app.send_task(PING, kwargs={"queue": queue, "sent_at": time.time()}).get(timeout=timeout, interval=interval)

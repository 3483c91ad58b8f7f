"""The log formatter and its context (the Celery-free part; the real workers' lines are checked in
test_prefork_metrics.py and test_task_metrics.py)."""
import json
import logging
import threading

import pytest

from workers.node.observe import logs


def record(msg="hello %s", args=("world",), exc_info=None):
    return logging.LogRecord("workers.x", logging.WARNING, __file__, 1, msg, args, exc_info)


def test_a_json_line_has_the_context_and_nulls_where_unknown():
    fmt = logs.JsonFormatter(process="sampler")
    line = json.loads(fmt.format(record()))
    assert (line["task_id"], line["round"], line["role"], line["event"]) == (None, None, None, None)
    with logs.event_context("PhaseStarted", {"taskId": 7, "round": "2", "phase": 1}, role="trainer"):
        inner = json.loads(fmt.format(record()))
        with logs.context(task_id=8):  # nested: replaced, then restored
            assert json.loads(fmt.format(record()))["task_id"] == 8
        assert logs.current()["task_id"] == 7
    assert (inner["task_id"], inner["round"], inner["role"], inner["event"]) == (7, 2, "trainer", "PhaseStarted")
    assert inner["msg"] == "hello world" and inner["level"] == "WARNING" and inner["process"] == "sampler"
    assert inner["ts"].endswith("Z") and logs.current()["task_id"] is None


def test_an_exception_is_one_field_of_one_line():
    try:
        raise ValueError("bad")
    except ValueError:
        import sys

        text = logs.JsonFormatter().format(record(exc_info=sys.exc_info()))
    assert "\n" not in text and json.loads(text)["exc"].endswith("ValueError: bad")


def test_context_does_not_leak_across_threads():
    seen = {}
    with logs.context(task_id=1, round=0, role="sampler"):
        t = threading.Thread(target=lambda: seen.update(logs.current()))
        t.start()
        t.join()
    assert seen["task_id"] is None


def test_text_format_and_a_bad_format(monkeypatch):
    with logs.context(task_id=3, round=1, role="validator"):
        assert logs.formatter("text").format(record()).endswith("hello world [task=3 round=1 role=validator]")
    monkeypatch.setenv(logs.FORMAT_ENV, "xml")
    with pytest.raises(ValueError, match=r"log format must be one of \('json', 'text'\), got 'xml'"):
        logs.formatter()


def test_the_supervisor_refuses_a_bad_log_format(tmp_path):
    from workers.node.config import NodeConfig
    from workers.node.processes.supervisor import Supervisor

    with pytest.raises(ValueError, match="log format must be one of"):
        Supervisor(NodeConfig(redis_url="redis://x"), tmp_path, ("sampler",), log_format="xml")

"""Structured logs: one JSON object a line, with the task id, round and role of the work the line
belongs to (null where a line belongs to none, e.g. Celery's own start-up lines).

The context lives in contextvars, set by the Celery task wrapper (tasks.py, from the event's
taskId/round and the handler's role) and by the watcher for each event it delivers; so lines from
the handlers, the sender, the store and the roles' code carry them with no change there.

    {"ts": "2026-11-30T10:31:06.123Z", "level": "INFO", "logger": "workers.node.handlers.table",
     "process": "sampler", "pid": 4242, "task_id": 3, "round": 1, "role": "sampler",
     "event": "PhaseStarted", "msg": "...", "exc": "Traceback ..."}

DECENTRL_LOG_FORMAT=text (the supervisor passes the node's setting to its children) keeps
plain text lines, with the same context appended as `[task=3 round=1 role=sampler]`.
"""
from __future__ import annotations

import contextvars
import datetime
import json
import logging
import os
from contextlib import contextmanager

FORMAT_ENV = "DECENTRL_LOG_FORMAT"
PROCESS_ENV = "DECENTRL_PROCESS"
FORMATS = ("json", "text")
FIELDS = ("task_id", "round", "role", "event")

_context: dict[str, contextvars.ContextVar] = {name: contextvars.ContextVar(name, default=None) for name in FIELDS}


def current() -> dict:
    """The log context of this thread of work: {task_id, round, role, event}, None where unknown."""
    return {name: var.get() for name, var in _context.items()}


def _int_or_none(value):
    try:
        return None if value is None else int(value)
    except (TypeError, ValueError):
        return None


@contextmanager
def context(*, task_id=None, round=None, role=None, event=None):  # noqa: A002 - the field's name
    """Set the log context for the block (values given as None stay unknown)."""
    values = {"task_id": _int_or_none(task_id), "round": _int_or_none(round), "role": role, "event": event}
    tokens = [(_context[name], _context[name].set(value)) for name, value in values.items()]
    try:
        yield
    finally:
        for var, token in reversed(tokens):
            var.reset(token)


def event_context(event_name: str, args: dict, role: str | None = None):
    """context() for a chain event: its taskId and round when it has them."""
    args = args or {}
    return context(task_id=args.get("taskId"), round=args.get("round"), role=role, event=event_name)


class JsonFormatter(logging.Formatter):
    """One JSON object per record: time, level, logger, process, the context, message, exception."""

    def __init__(self, process: str | None = None):
        super().__init__()
        self.process = process or os.environ.get(PROCESS_ENV)

    def format(self, record: logging.LogRecord) -> str:
        line = {
            "ts": datetime.datetime.fromtimestamp(record.created, datetime.UTC)
                  .isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "level": record.levelname,
            "logger": record.name,
            "process": self.process,
            "pid": record.process,
            **current(),
            "msg": record.getMessage(),
        }
        if record.exc_info:
            line["exc"] = self.formatException(record.exc_info)
        return json.dumps(line, default=str)


class TextFormatter(logging.Formatter):
    """Plain lines with the context appended (for operators who prefer reading to parsing)."""

    def __init__(self):
        super().__init__("[%(asctime)s: %(levelname)s/%(processName)s] %(name)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        ctx = current()
        suffix = f" [task={ctx['task_id']} round={ctx['round']} role={ctx['role']}]" if any(ctx.values()) else ""
        return super().format(record) + suffix


def formatter(fmt: str | None = None) -> logging.Formatter:
    fmt = fmt or os.environ.get(FORMAT_ENV) or "json"
    if fmt not in FORMATS:
        raise ValueError(f"log format must be one of {FORMATS}, got {fmt!r} (set {FORMAT_ENV})")
    return JsonFormatter() if fmt == "json" else TextFormatter()


def use_on(logger: logging.Logger, fmt: str | None = None) -> None:
    """Give every handler of `logger` the node's formatter (Celery's after_setup_logger hook)."""
    chosen = formatter(fmt)
    for handler in logger.handlers:
        handler.setFormatter(chosen)


def configure(level: int | str = logging.INFO, fmt: str | None = None) -> None:
    """The root logger of a plain process (the watcher): one stderr handler with the formatter."""
    root = logging.getLogger()
    root.handlers[:] = []
    handler = logging.StreamHandler()
    handler.setFormatter(formatter(fmt))
    root.addHandler(handler)
    root.setLevel(level)

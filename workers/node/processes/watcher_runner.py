"""`python -m workers.node.processes.watcher_runner module:callable [--roles a,b]`: run the chain layer's
watcher with an enqueue(event) sink for this node (config from DECENTRL_NODE_CONFIG)."""
from __future__ import annotations

import argparse
import importlib


def load(path: str):
    module, _, name = path.partition(":")
    if not module or not name:
        raise ValueError(f"expected 'module:callable', got {path!r}")
    target = importlib.import_module(module)
    for part in name.split("."):
        target = getattr(target, part)
    if not callable(target):
        raise TypeError(f"{path} is not callable")
    return target


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("entry", help="module:callable taking enqueue(event)")
    parser.add_argument("--roles", default="", help="comma-separated roles this node runs")
    opts = parser.parse_args(argv)
    from workers.node.observe import logs

    logs.configure()  # JSON lines (or DECENTRL_LOG_FORMAT=text) with each event's task id and round
    from workers.node.config import NodeConfig
    from workers.node.queues.celery_app import create_app
    from workers.node.queues.tasks import make_enqueue

    app = create_app(NodeConfig.from_env())
    roles = [r for r in opts.roles.split(",") if r] or None
    load(opts.entry)(make_enqueue(app, roles=roles))


if __name__ == "__main__":
    main()

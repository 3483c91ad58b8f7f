"""`celery -A workers.node.worker worker -Q <queue>`: the app built from DECENTRL_NODE_CONFIG."""
import importlib
import logging

from celery.signals import worker_init

from workers.node.celery_app import create_app
from workers.node.config import NodeConfig

config = NodeConfig.from_env()
app = create_app(config)


@worker_init.connect
def warm(**_) -> None:
    """Before the worker takes its first message, let each handler module load what it computes
    with (its `warm()`: torch, gymnasium, the node's context), so that the first event a node
    handles is not seconds late. A failure here is only logged: the handler reports it properly."""
    for name in config.handler_modules:
        module = importlib.import_module(name)
        try:
            getattr(module, "warm", lambda: None)()
        except Exception as exc:  # noqa: BLE001 - see the docstring
            logging.getLogger(__name__).warning("warming %s failed: %s: %s", name, type(exc).__name__, exc)

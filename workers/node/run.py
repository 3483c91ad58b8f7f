"""Running a node: its NodeConfig with the protocol's handlers, and its processes under a
Supervisor (what the CLI's `node start`, the local network and the demo use).

    from workers.node.config import NodeSettings
    from workers.node.run import node_config, supervisor

    config = node_config(redis_url="redis://127.0.0.1:16401/3", node_name="sampler1",
                         extra=node_extra(rpc_url=..., ws_url=..., deployment="deployments/x.json",
                                          node_dir=node_dir, store_dir=shared_store_dir))
    sup = supervisor(config, roles=("sampler",))   # + env={"DECENTRL_KEYSTORE_PASSWORD": ...}
    sup.start()  ...  sup.check()  ...  sup.stop()

`node_config` is NodeConfig with handler_modules=HANDLER_MODULES; `supervisor` starts one Celery
worker per role, the claim lane, and the watcher (WATCHER). Each node needs its own Redis db (or
server): Celery's queue names are not namespaced. The node's account is the (single) keystore in
node_dir/keystore, unlocked with $DECENTRL_KEYSTORE_PASSWORD; it must hold ETH for gas and stake
for its roles (`decentrl node stake`) before it can claim or be drawn. What a node computed each
round is in node_dir/secrets.sqlite (`Secrets.notes`)."""
from __future__ import annotations

from workers.node.config import NodeConfig
from workers.node.handlers.table import HANDLER_MODULES

WATCHER = "workers.node.queues.watch:watch"
"""The watcher process's body (module:callable, as workers.node.processes.watcher_runner takes it)."""


def node_config(redis_url: str, node_name: str, extra: dict, **settings) -> NodeConfig:
    """A NodeConfig whose workers load the protocol's handlers (settings: any other NodeConfig field)."""
    return NodeConfig(redis_url=redis_url, node_name=node_name, handler_modules=HANDLER_MODULES,
                      extra=extra, **settings)


def supervisor(config: NodeConfig, roles, **kwargs):
    """A Supervisor for one node: a Celery worker per role, the claim lane and the chain watcher."""
    from workers.node.processes.supervisor import Supervisor

    return Supervisor(config, config.extra["node_dir"], tuple(roles), watcher=WATCHER, **kwargs)

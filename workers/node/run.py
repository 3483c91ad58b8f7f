"""Running a node: its NodeConfig with the protocol's handlers, its processes under a Supervisor,
and `run_node`, the whole of `decentrl node start` once its options are parsed (the CLI command
parses them, claims the node's folder, asks for the password and calls it). A local network
builds the same configs and supervisors and runs its own loop (workers.localnet.network).

    from workers.node.config import NodeSettings
    from workers.node.run import node_config, supervisor

    config = node_config(redis_url="redis://127.0.0.1:16401/3", node_name="sampler1",
                         settings=NodeSettings(rpc_url=..., ws_url=..., deployment="deployments/x.json",
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

import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path

from workers.node.config import NodeConfig, NodeSettings
from workers.node.handlers.table import HANDLER_MODULES

WATCHER = "workers.node.queues.watch:watch"
"""The watcher process's body (module:callable, as workers.node.processes.watcher_runner takes it)."""
RELAY_BRIDGE = "workers.node.handlers.relay_bridge"
"""A validator's relay bridge over IPFS pubsub (`--attest-relay ipfs`), run as `python -m`."""


class StartError(RuntimeError):
    """The node cannot start as asked; the message says what to change."""


def node_config(redis_url: str, node_name: str, settings: NodeSettings, **fields) -> NodeConfig:
    """A NodeConfig whose workers load the protocol's handlers (fields: any other NodeConfig field)."""
    return NodeConfig(redis_url=redis_url, node_name=node_name, handler_modules=HANDLER_MODULES, settings=settings,
                      **fields)


def supervisor(config: NodeConfig, roles, **kwargs):
    """A Supervisor for one node: a Celery worker per role, the claim lane and the chain watcher;
    a validator whose attestation relay is "ipfs" also runs its relay bridge ("relay")."""
    from workers.node.handlers.relay import IPFS
    from workers.node.processes.supervisor import Supervisor

    services = {"relay": RELAY_BRIDGE} if "validator" in roles and config.settings.attest_relay == IPFS else {}
    return Supervisor(config, config.settings.node_dir, tuple(roles), watcher=WATCHER, services=services, **kwargs)


def _echo(message: str, err: bool = False) -> None:
    print(message, file=sys.stderr if err else sys.stdout, flush=True)


def _send(sender, call, what: str):
    return sender.send(call)


def run_node(deployment, settings: NodeSettings, roles: tuple[str, ...], account, password: str, *,
             concurrency: int = 1, metrics_port: int = 0, health_interval_s: float = 60.0, log_format: str = "json",
             claim_burst: int = NodeConfig.burst, ipfs_peers: tuple[str, ...] = (), send: Callable = _send,
             echo: Callable[..., None] = _echo) -> None:
    """Runs the node of `account` (unlocked with `password`, which its workers get too) in this
    process until SIGTERM or SIGINT: its Redis ($REDIS_URL, else an embedded one in node_dir/redis;
    RedisUnavailable when neither can be had), a validator's BLS key registered if the chain lacks
    it, then its processes under a Supervisor with the health check and the metrics server
    (run_supervisor); everything it started is stopped when it returns. `deployment` is the loaded
    record of settings.deployment. `send(sender, call, what)` sends the registration (the CLI's
    names a revert to the operator); `echo(message, err=False)` says what happens. `ipfs_peers`:
    the other operators' IPFS swarm multiaddrs, which its IPFS node is kept connected to
    (workers.storage.swarm_peers)."""
    from workers.chain.keystore import PASSWORD_ENV
    from workers.chain.view import ChainView
    from workers.node.observe.health import HealthChecker
    from workers.node.processes.redis_service import redis_for_node
    from workers.protocol import Role

    service = redis_for_node(settings.node_dir)
    holder = {"service": service}  # the health check may restart an embedded Redis
    try:
        view = ChainView(deployment)
        if "validator" in roles:
            _register_at_start(deployment, view, settings, account, service, send, echo)
        for role in (r for r in roles if r != "validator"):  # (the validator's line is _register_at_start's)
            if view.stake(account.address, Role[role.upper()]).staked == 0:
                echo(f"{role}: not staked yet (`decentrl node stake --role {role}`): it takes no work until then",
                     err=True)
        if "validator" in roles:
            turn_blocks = settings.keeper_turn_blocks
            echo(f"keeper calls: {f'in turns of {turn_blocks} blocks' if turn_blocks else 'sent at once (no turns)'}")
        ws_url, confirmations = settings.ws_url, settings.confirmations
        echo(f"events: {'websocket ' + ws_url if ws_url else 'polling ' + settings.rpc_url} (polls every "
             f"{settings.poll_interval:g} s{' while the websocket is down' if ws_url else ''}), "
             f"{confirmations} confirmation{'s' if confirmations != 1 else ''}")
        config = node_config(service.url, f"node-{account.address[2:10].lower()}", settings, burst=claim_burst)
        sup = supervisor(config, roles, concurrency=concurrency, env={PASSWORD_ENV: password}, log_format=log_format)
        checker = HealthChecker(sup, settings.rpc_url, str(settings.deployment), account.address,
                                str(settings.store_dir), ipfs_api=settings.ipfs_api, interval_s=health_interval_s,
                                metrics_port=metrics_port or None, restart_redis=lambda: restart_redis(holder))
        swarm = None
        if ipfs_peers:
            from workers.storage.swarm_peers import SwarmPeers

            swarm = SwarmPeers(settings.ipfs_api, ipfs_peers)
            echo(f"IPFS peers: keeping {len(ipfs_peers)} connected (dialed again every {swarm.interval_s:g} s)")
        run_supervisor(settings.node_dir, sup, roles, service, checker=checker, metrics_port=metrics_port, echo=echo,
                       swarm=swarm)
    finally:
        holder["service"].stop()


def _register_at_start(deployment, view, settings: NodeSettings, account, service, send, echo) -> None:
    """A validator registers its BLS key if the chain lacks it (an account that staked before
    nodes registered keys); one that is not a staked validator yet is told how to become one."""
    from workers.chain.sender import TxSender
    from workers.node.handlers.relay import register_bls_key
    from workers.node.observe.metrics import OBSERVER
    from workers.protocol import Role

    if view.stake(account.address, Role.VALIDATOR).staked == 0:
        echo("validator: not staked yet (`decentrl node stake --role validator`); its BLS key is registered then",
             err=True)
        return
    sender = TxSender(deployment.w3, account, service.client(), max_fee_per_gas=settings.max_fee_per_gas,
                      observer=OBSERVER)
    echo(register_bls_key(deployment, account, lambda call: send(sender, call, "registerBlsKey")), err=True)


def restart_redis(holder: dict) -> bool:
    """Restart the node's embedded Redis (holder["service"]) on its port (its append-only file keeps
    the queued events); an external Redis is the operator's to restart."""
    from workers.node.processes.redis_service import RedisUnavailable, start_embedded

    old = holder["service"]
    if not old.embedded:
        return False
    old.stop()
    port = int(old.url.rsplit(":", 1)[1].split("/")[0])
    try:
        holder["service"] = start_embedded(old.data_dir, ports=[port])
    except RedisUnavailable:
        return False
    return True


def run_supervisor(node_dir: Path, supervisor, roles, service, checker=None, metrics_port: int = 0,
                   echo: Callable[..., None] = _echo, swarm=None) -> None:
    """Starts the supervisor (and the metrics server on 127.0.0.1:metrics_port unless 0), records
    its children in NODE_DIR/node.json for `node status`, restarts dead children (one in a crash
    loop after growing waits: workers.node.processes.supervisor) and runs the health check
    (`checker`) every checker.interval_s, and dials the IPFS peers `swarm` (SwarmPeers) is not
    connected to every swarm.interval_s, until SIGTERM/SIGINT; then stops them all."""
    from workers.node.processes.redis_service import redacted
    from workers.node.processes.state import clear_node_state, write_node_state

    stopping = []
    old = {s: signal.signal(s, lambda *_: stopping.append(True)) for s in (signal.SIGTERM, signal.SIGINT)}
    server = None
    try:
        if metrics_port:  # before any child: a port in use stops the node before it starts
            from workers.node.observe import metrics

            try:
                server, _ = metrics.serve(node_dir, metrics_port)
            except OSError as exc:
                raise StartError(f"cannot serve metrics on 127.0.0.1:{metrics_port}: {exc.strerror}; choose another "
                                 "--metrics-port (0: none)") from None
        supervisor.start()

        def record():
            write_node_state(node_dir, supervisor, roles, metrics_port)

        record()
        where = f"; metrics on http://127.0.0.1:{metrics_port}/metrics" if metrics_port else ""
        echo(f"node running: roles {','.join(roles)}, Redis {redacted(service.url)}; logs in {Path(node_dir) / 'logs'}"
             f"{where}")
        while not stopping:
            if swarm is not None and swarm.due():
                for peer, outcome in swarm.dial().items():
                    echo(f"IPFS peer {peer}: {outcome}", err=outcome != "connected")
            time.sleep(1.0)
            if stopping:
                break
            restarted = supervisor.check()
            if checker is not None and checker.due():
                restarted = checker.check()["actions"] or restarted
            if restarted:
                record()
    finally:
        supervisor.stop()
        if server is not None:
            server.shutdown()
            server.server_close()
        clear_node_state(node_dir)
        for s, h in old.items():
            signal.signal(s, h)
        echo("node stopped")

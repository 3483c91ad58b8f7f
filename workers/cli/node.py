"""`decentrl node ...`: keystore, stake, processes, status."""

from __future__ import annotations

import os
import time
from pathlib import Path

import click

from workers.cli.common import ROLE_NAMES, fmt_drl, keystore_password, parse_drl, Context, send, role_of
from workers.cli.group import cli
from workers.rl.config import DEVICES
from workers.node.config import NodeConfig
from workers.node.handlers.keeper_turns import LOCAL_TURN_BLOCKS, REMOTE_TURN_BLOCKS, default_turn_blocks
from workers.roles.aggregation import AGGREGATE_WAIT_S, ATTEST_FALLBACK_S, MIN_AGGREGATE_SIGNERS


@cli.group()
def node():
    """Run a node: keystore, stake, processes, status."""


@node.command("init")
@click.option("--import-key", "import_key", is_flag=True,
              help="Import an existing private key (prompted for) instead of creating a new one.")
@click.option("--scrypt-n", type=int, default=None, hidden=True, help="Lower scrypt cost (tests only).")
@click.pass_obj
def node_init(obj: Context, import_key, scrypt_n):
    """Create (or import) the node's encrypted keystore in NODE_DIR/keystore."""
    from workers.chain.keystore import KeystoreError, create_keystore, list_keystores

    held = list_keystores(obj.node_dir)
    if held:  # every command signs with the folder's one account
        raise click.ClickException(f"{obj.node_dir} already holds the keystore of {held[0].stem}: a node folder "
                                   "has one account; give another one a folder of its own (--node-dir or "
                                   "$DECENTRL_NODE_DIR)")
    key = None
    if import_key:
        key = click.prompt("Private key (hex)", hide_input=True, err=True).strip()
        try:
            bytes.fromhex(key.removeprefix("0x"))
            if len(key.removeprefix("0x")) != 64:
                raise ValueError
        except ValueError:
            raise click.ClickException("a private key is 32 bytes of hex (64 hex digits)") from None
        from eth_account import Account

        try:
            Account.from_key(key)
        except ValueError:  # 0, or not below the curve's order
            raise click.ClickException("that is not a private key: it must be between 1 and the secp256k1 "
                                       "curve order") from None
    password = keystore_password("New keystore password", confirm=True)
    try:
        path = create_keystore(obj.node_dir, password, key, scrypt_n=scrypt_n)
    except KeystoreError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"account {path.stem}")
    click.echo(f"keystore {path}")


@node.command("stake")
@click.option("--role", type=click.Choice(ROLE_NAMES), required=True)
@click.option("--amount", required=True, help="DRL to stake (decimals allowed).")
@click.pass_obj
def node_stake(obj: Context, role, amount):
    """Approve and stake AMOUNT DRL for ROLE from the node's account."""
    wei = parse_drl(amount, "--amount")
    dep = obj.deployment
    account = obj.account()
    balance = dep.token.functions.balanceOf(account.address).call()
    if balance < wei:
        raise click.ClickException(f"insufficient funds: {account.address} holds {fmt_drl(balance)}, "
                                   f"staking needs {fmt_drl(wei)}")
    if obj.w3.eth.get_balance(account.address) == 0:
        raise click.ClickException(f"insufficient funds: {account.address} has no ETH for gas")
    sender, service = obj.sender(account)
    try:
        allowance = dep.token.functions.allowance(account.address, dep.stakes.address).call()
        if allowance < wei:
            send(sender, dep.token.functions.approve(dep.stakes.address, wei), "approve")
        receipt = send(sender, dep.stakes.functions.stake(role_of(role), wei), "stake")
        registered = _register_bls_key(obj, account, sender) if role == "validator" else None
    finally:
        service.stop()
    view = obj.view()
    info = view.stake(account.address, role_of(role))
    click.echo(f"staked {fmt_drl(wei)} as {role} (tx {receipt['transactionHash'].to_0x_hex()}); "
               f"{role} stake now {fmt_drl(info.staked)}, available {fmt_drl(info.available)}")
    if registered is not None:
        click.echo(registered)
    e = view.eligibility(account.address, role_of(role))
    click.echo(f"eligible for {role}" if e.eligible else f"not eligible for {role} yet: {e.reason}")


def _register_bls_key(obj: Context, account, sender) -> str:
    """Registers the validator's BLS key (derived from its account key) unless the chain holds it;
    says which (the key itself is never shown)."""
    from workers.node.handlers.relay import registration_call

    call = registration_call(obj.deployment, account)
    if call is None:
        return "BLS key registered already (validator votes can be aggregated)"
    receipt = send(sender, call, "registerBlsKey")
    return f"registered the node's BLS key (tx {receipt['transactionHash'].to_0x_hex()}): its validator votes can be aggregated"


@node.command("status")
@click.option("--address", default=None, help="Which keystore account (when the node has several).")
@click.pass_obj
def node_status(obj: Context, address):
    """Account, stake per role, reputation, claimable rewards, eligibility, processes, health of each
    service, key metrics, and why no work arrives. The node's processes and health are shown
    even when the chain cannot be read (exit status 1 then)."""
    account = obj.address(address)
    click.echo(f"account     {account}")
    try:
        view, chain_error = _echo_chain_status(obj, account), ""
    except (click.ClickException, OSError) as exc:  # the RPC down, a wrong deployment
        view, chain_error = None, exc.message if isinstance(exc, click.ClickException) else str(exc)
        click.echo(f"chain       cannot be read: {chain_error}")
    from workers.node.processes.state import leftover_children, pid_alive, read_node_state

    state = read_node_state(obj.node_dir)
    running = state if state and pid_alive(state.get("pid")) else None
    if running:
        click.echo(f"processes   node running (pid {state['pid']}, roles {','.join(state.get('roles', []))})")
        for name, child in sorted(state.get("children", {}).items()):
            alive = "running" if pid_alive(child.get("pid")) else "stopped"
            restarts = child.get("restarts", 0)
            again = f", restarted {restarts} time{'s' if restarts != 1 else ''}" if restarts else ""
            click.echo(f"  {name:<10} pid {child.get('pid')} {alive}{again}  log {child.get('log')}")
    else:
        left = leftover_children(obj.node_dir)
        shown = f" (but processes of its last run still are: {', '.join(f'{n} {p}' for n, p in left)})" if left else ""
        click.echo(f"processes   not running{shown}")
    from workers.cli.node_health import echo_health, echo_metrics, echo_why_idle, node_roles

    echo_health(obj.node_dir, running)
    echo_metrics(obj.node_dir)
    if view is None:
        echo_why_idle(None, account, node_roles(None, account, running), running, obj.node_dir, chain_error)
        raise click.exceptions.Exit(1)
    echo_why_idle(view, account, node_roles(view, account, running), running, obj.node_dir)


def _echo_chain_status(obj: Context, account: str):
    """What the chain says of the account (network, balances, reputation, stakes); its ChainView."""
    from workers.protocol import Role

    view = obj.view()
    dep = obj.deployment
    click.echo(f"network     {dep.network} (chain {dep.chain_id}), registry {dep.addresses['TaskRegistry']}")
    click.echo(f"balance     {fmt_drl(dep.token.functions.balanceOf(account).call())}, "
               f"{obj.w3.eth.get_balance(account) / 1e18:.4f} ETH")
    score = view.score(account)
    threshold = dep.reputation.functions.threshold().call()
    click.echo(f"reputation  {score} (threshold {threshold}){'' if score >= threshold else '  BELOW THRESHOLD'}")
    click.echo(f"claimable   {fmt_drl(view.claimable(account))}")
    paused = dep.stakes.functions.isNodePaused(account).call()
    click.echo(f"paused      {'yes' if paused else 'no'}")
    click.echo("stakes:")
    for role in Role:
        s = view.stake(account, role)
        e = view.eligibility(account, role)
        verdict = "eligible" if e.eligible else f"not eligible: {e.reason}"
        click.echo(f"  {role.name.lower():<10} staked {fmt_drl(s.staked)}, locked {fmt_drl(s.locked)}, "
                   f"unbonding {fmt_drl(s.unbonding)}, min {fmt_drl(e.required_stake)} -> {verdict}")
    return view


def _websocket_url(ctx, param, value):
    if value is not None and not value.lower().startswith(("ws://", "wss://")):
        raise click.BadParameter(f"{value!r} is not a websocket URL: give ws://HOST:PORT or wss://...")
    return value


LOCAL_POLL_S, REMOTE_POLL_S = 0.05, 2.0
"""The watcher's default polling interval: a chain on this machine (a local node, anvil) answers a
look in a millisecond; any other endpoint is someone's RPC service, which two requests every
0.05 s (3.5 million a day) would rate-limit, and whose chain makes a block every few seconds."""


def default_poll_interval(rpc_url: str) -> float:
    from workers.chain.rpc import is_local_url

    return LOCAL_POLL_S if is_local_url(rpc_url) else REMOTE_POLL_S


LOCAL_CONFIRMATIONS, REMOTE_CONFIRMATIONS = 0, 2
"""The watcher's default confirmation depth: a chain on this machine is not reorganised; a public
chain can replace its last block or two, and the watcher does not handle a reorganisation deeper
than its depth (an event of a replaced block would be acted on, one of its replacement missed)."""


def default_confirmations(rpc_url: str) -> int:
    from workers.chain.rpc import is_local_url

    return LOCAL_CONFIRMATIONS if is_local_url(rpc_url) else REMOTE_CONFIRMATIONS


@node.command("start")
@click.option("--roles", default="sampler,trainer,validator", show_default=True,
              help="Comma-separated roles this node runs (one Celery worker each).")
@click.option("--concurrency", type=click.IntRange(min=1), default=1, show_default=True,
              help="Processes per Celery worker.")
@click.option("--ws", "ws_url", default=None, callback=_websocket_url,
              help="Websocket RPC for the watcher, ws:// or wss:// (default: HTTP polling).")
@click.option("--poll-interval", type=click.FloatRange(min=0.01), default=None,
              help="Seconds between the watcher's looks at the chain while it polls (no --ws, or the websocket "
                   f"down); default {LOCAL_POLL_S:g} for an RPC on this machine, {REMOTE_POLL_S:g} for any other.")
@click.option("--confirmations", type=click.IntRange(0, 256), default=None,
              help="Blocks that must sit on a block before the node acts on its events (0: at once; a public "
                   f"chain can reorganise its last few blocks); default {LOCAL_CONFIRMATIONS} for an RPC on this "
                   f"machine, {REMOTE_CONFIRMATIONS} for any other.")
@click.option("--ipfs-api", default=lambda: os.environ.get("DECENTRL_IPFS_API"),
              help="IPFS RPC API multiaddr ($DECENTRL_IPFS_API); default: the embedded store (--store-dir).")
@click.option("--retention-days", type=click.FloatRange(min=0, min_open=True), default=7.0, show_default=True,
              help="Days the node's store keeps intermediate results (rollouts, checkpoints) it did not pin.")
@click.option("--metrics-port", type=click.IntRange(0, 65535), default=9400, show_default=True,
              help="Serve Prometheus metrics on http://127.0.0.1:PORT/metrics (0: do not serve).")
@click.option("--health-interval", type=click.FloatRange(min=1), default=60.0, show_default=True,
              help="Seconds between health checks (chain, Redis, store, workers; restarts what failed).")
@click.option("--log-format", type=click.Choice(("json", "text")), default="json", show_default=True,
              help="The processes' log lines in NODE_DIR/logs: JSON objects with task id, round, role; or text.")
@click.option("--attest-relay", default=lambda: os.environ.get("DECENTRL_ATTEST_RELAY"),
              help="Redis URL where the task's validators exchange BLS signatures to aggregate their votes "
                   "($DECENTRL_ATTEST_RELAY; default: the node's own Redis; 'off': always attest alone).")
@click.option("--aggregate-wait", type=click.FloatRange(min=0), default=AGGREGATE_WAIT_S, show_default=True,
              help="Seconds a round's aggregator waits for the other validators' signatures.")
@click.option("--attest-fallback", type=click.FloatRange(min=0), default=ATTEST_FALLBACK_S, show_default=True,
              help="Seconds after posting its signature before a validator no aggregate covered attests alone "
                   "(capped at half the time left in the Attest phase).")
@click.option("--aggregate-min-signers", type=click.IntRange(min=2), default=MIN_AGGREGATE_SIGNERS, show_default=True,
              help="Aggregate a round's votes only when at least this many validators can join; with fewer, "
                   "each attests alone (an aggregate costs about as much gas as three single votes).")
@click.option("--trainer-device", type=click.Choice(DEVICES), default="auto", show_default=True,
              help="Where the trainer's PPO update runs (auto: CUDA when torch sees a GPU). A CPU update is "
                   "re-executed by validators bit for bit, a CUDA one within a tolerance; small policies train "
                   "faster on the CPU.")
@click.option("--claim-burst", type=click.IntRange(min=1), default=NodeConfig.burst, show_default=True,
              help=f"New tasks the node may claim at once before its claims slow to the rate of "
                   f"{NodeConfig.rate_per_s:g} a second (a token bucket shared by its workers).")
@click.option("--keeper-turn-blocks", type=click.IntRange(min=0), default=None,
              help="Blocks each turn lasts when the validator pool takes turns at the calls any of them may send "
                   "(a draw, failing an unfilled task), so that about one sends instead of all; default "
                   f"{LOCAL_TURN_BLOCKS} (no turns) for an RPC on this machine, {REMOTE_TURN_BLOCKS} for any other.")
@click.pass_obj
def node_start(obj: Context, roles, trainer_device, **options):
    """Start the chain watcher and one Celery worker per role; runs until Ctrl-C (or SIGTERM).

    Redis is $REDIS_URL (give this node its own database) or an embedded server in NODE_DIR/redis.
    Metrics are served on 127.0.0.1 (--metrics-port); health is checked every --health-interval s
    and written to NODE_DIR/health.json (`decentrl node status` shows it)."""
    names = tuple(dict.fromkeys(r.strip() for r in roles.split(",") if r.strip()))
    bad = [r for r in names if r not in ROLE_NAMES]
    if bad or not names:
        raise click.UsageError(f"--roles: choose from {', '.join(ROLE_NAMES)} (got {roles!r})")
    if trainer_device == "cuda" and "trainer" in names:
        import torch

        if not torch.cuda.is_available():
            raise click.UsageError("--trainer-device cuda: torch sees no CUDA device on this machine "
                                   f"(torch {torch.__version__}); use auto or cpu")
    obj.deployment  # noqa: B018 - wrong network or missing record: fail before starting anything
    if options["ipfs_api"]:  # each of the node's processes would fail on a bad one, again and again
        from workers.storage.store import check_ipfs_api

        try:
            check_ipfs_api(options["ipfs_api"])
        except ValueError as exc:
            raise click.UsageError(f"--ipfs-api: {exc}") from None
    from workers.node.processes.state import NodeRunning, claim_node_dir

    try:
        lock = claim_node_dir(obj.node_dir)  # before anything is started or written
    except NodeRunning as exc:
        raise click.ClickException(str(exc)) from None
    try:
        _start(obj, names, trainer_device=trainer_device, **options)
    finally:
        os.close(lock)


def _start(obj: Context, names, *, concurrency, ws_url, poll_interval, confirmations, ipfs_api, retention_days,
           metrics_port, health_interval, log_format, attest_relay, aggregate_wait, attest_fallback,
           aggregate_min_signers, trainer_device, claim_burst, keeper_turn_blocks):
    """node start once its folder is its own (node_start)."""
    from workers.chain.keystore import PASSWORD_ENV

    password = keystore_password("Keystore password")
    os.environ[PASSWORD_ENV] = password  # checked now; the workers read it from their environment
    account = obj.account()
    from workers.node.handlers.context import node_extra
    from workers.node.run import node_config, supervisor
    from workers.node.observe.health import HealthChecker
    from workers.node.processes.redis_service import RedisUnavailable, redis_for_node

    try:
        service = redis_for_node(obj.node_dir)
    except RedisUnavailable as exc:
        raise click.ClickException(str(exc)) from None
    holder = {"service": service}  # the health check may restart an embedded Redis
    try:
        if "validator" in names:
            _register_at_start(obj, account, service)
        view = obj.view()
        for role in (r for r in names if r != "validator"):  # (the validator's line is _register_at_start's)
            if view.stake(account.address, role_of(role)).staked == 0:
                click.echo(f"{role}: not staked yet (`decentrl node stake --role {role}`): it takes no work until then",
                           err=True)
        poll_interval = poll_interval or default_poll_interval(obj.rpc)
        confirmations = default_confirmations(obj.rpc) if confirmations is None else confirmations
        keeper_turn_blocks = default_turn_blocks(obj.rpc) if keeper_turn_blocks is None else keeper_turn_blocks
        if "validator" in names:
            turns = f"in turns of {keeper_turn_blocks} blocks" if keeper_turn_blocks else "sent at once (no turns)"
            click.echo(f"keeper calls: {turns}")
        click.echo(f"events: {'websocket ' + ws_url if ws_url else 'polling ' + obj.rpc} (polls every "
                   f"{poll_interval:g} s{' while the websocket is down' if ws_url else ''}), "
                   f"{confirmations} confirmation{'s' if confirmations != 1 else ''}")
        extra = node_extra(rpc_url=obj.rpc, ws_url=ws_url, poll_interval=poll_interval, confirmations=confirmations,
                           deployment=obj.deployment_file(), node_dir=obj.node_dir,
                           store_dir=obj.store_dir, ipfs_api=ipfs_api, address=account.address,
                           retention_s=retention_days * 24 * 3600, attest_relay=attest_relay or None,
                           aggregate_wait_s=aggregate_wait, attest_fallback_s=attest_fallback,
                           aggregate_min_signers=aggregate_min_signers, trainer_device=trainer_device,
                           keeper_turn_blocks=keeper_turn_blocks, max_fee_per_gas=obj.max_fee_per_gas)
        config = node_config(service.url, f"node-{account.address[2:10].lower()}", extra, burst=claim_burst)
        sup = supervisor(config, names, concurrency=concurrency, env={PASSWORD_ENV: password}, log_format=log_format)
        checker = HealthChecker(sup, obj.rpc, str(obj.deployment_file()), account.address, str(obj.store_dir),
                                ipfs_api=ipfs_api, interval_s=health_interval, metrics_port=metrics_port or None,
                                restart_redis=lambda: _restart_redis(holder))
        run_supervisor(obj.node_dir, sup, names, service, checker=checker, metrics_port=metrics_port)
    finally:
        holder["service"].stop()


def _register_at_start(obj: Context, account, service) -> None:
    """A validator registers its BLS key if the chain lacks it (an account that staked before
    nodes registered keys); one that is not a staked validator yet is told how to become one."""
    from workers.chain.sender import TxSender
    from workers.protocol import Role

    if obj.view().stake(account.address, Role.VALIDATOR).staked == 0:
        click.echo("validator: not staked yet (`decentrl node stake --role validator`); its BLS key is registered "
                   "then", err=True)
        return
    from workers.node.observe.metrics import OBSERVER

    sender = TxSender(obj.w3, account, service.client(), max_fee_per_gas=obj.max_fee_per_gas, observer=OBSERVER)
    click.echo(_register_bls_key(obj, account, sender), err=True)


def _restart_redis(holder: dict) -> bool:
    """Restart the node's embedded Redis on its port (its append-only file keeps the queued
    events); an external Redis is the operator's to restart."""
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


def run_supervisor(node_dir: Path, supervisor, roles, service, checker=None, metrics_port: int = 0) -> None:
    """Starts the supervisor (and the metrics server on 127.0.0.1:metrics_port unless 0), records
    its children in NODE_DIR/node.json for `node status`, restarts dead children (one in a crash
    loop after growing waits: workers.node.processes.supervisor) and runs the health check (`checker`)
    every checker.interval_s, until SIGTERM/SIGINT; then stops them all."""
    import signal

    stopping = []
    old = {s: signal.signal(s, lambda *_: stopping.append(True)) for s in (signal.SIGTERM, signal.SIGINT)}
    from workers.node.processes.redis_service import redacted
    from workers.node.processes.state import clear_node_state, write_node_state

    server = None
    try:
        if metrics_port:  # before any child: a port in use stops the node before it starts
            from workers.node.observe import metrics

            try:
                server, _ = metrics.serve(node_dir, metrics_port)
            except OSError as exc:
                raise click.ClickException(f"cannot serve metrics on 127.0.0.1:{metrics_port}: {exc.strerror}; "
                                           "choose another --metrics-port (0: none)") from None
        supervisor.start()

        def record():
            write_node_state(node_dir, supervisor, roles, metrics_port)

        record()
        where = f"; metrics on http://127.0.0.1:{metrics_port}/metrics" if metrics_port else ""
        click.echo(f"node running: roles {','.join(roles)}, Redis {redacted(service.url)}; logs in {Path(node_dir) / 'logs'}"
                   f"{where}")
        while not stopping:
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
        click.echo("node stopped")

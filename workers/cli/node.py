"""`decentrl node ...`: keystore, stake, processes, status."""

from __future__ import annotations

import os

import click

from workers.chain.stalls import LOCAL_NUDGE_AFTER_S
from workers.cli.common import ROLE_NAMES, Context, fmt_drl, keystore_password, parse_drl, role_of, send
from workers.cli.group import cli
from workers.node.config import (
    LOCAL_CONFIRMATIONS,
    LOCAL_POLL_S,
    REMOTE_CONFIRMATIONS,
    REMOTE_POLL_S,
    NodeConfig,
    NodeSettings,
    default_confirmations,
    default_poll_interval,
)
from workers.node.handlers.keeper_turns import LOCAL_TURN_BLOCKS, REMOTE_TURN_BLOCKS, default_turn_blocks
from workers.rl.config import DEVICES
from workers.roles.aggregation import AGGREGATE_WAIT_S, ATTEST_FALLBACK_S, MIN_AGGREGATE_SIGNERS


@cli.group()
def node():
    """Run a node: keystore, stake, processes, status."""


def _price(ctx, param, value):
    """A price in DRL per 1,000 steps (0 allowed: any bounty) -> wei per 1,000 steps; None: not given."""
    if value is None:
        return None
    from decimal import Decimal, InvalidOperation

    try:
        amount = Decimal(str(value))
    except InvalidOperation:
        amount = None
    if amount is None or not amount.is_finite() or amount < 0 or amount * 10**18 != int(amount * 10**18):
        raise click.BadParameter(f"{value!r}: give DRL per 1,000 steps, >= 0 with at most 18 decimals (0: any bounty)")
    return int(amount * 10**18)


def price_options(command):
    """--price-sampler/--price-trainer/--price-validator and --feasibility-margin (workers.node.market)."""
    what = {"sampler": "rolled out", "trainer": "consumed by its update",
            "validator": "re-executed (only flags draws: a validator cannot decline one)"}
    for role in ("validator", "trainer", "sampler"):
        command = click.option(f"--price-{role}", f"price_{role}", metavar="DRL", default=None, callback=_price,
                               help=f"{role.capitalize()} price in DRL per 1,000 environment steps {what[role]}: "
                                    "a slot is taken only when its share of the bounty a round covers it (default: "
                                    "NODE_DIR/prices.json, else 0 = any bounty).")(command)
    return click.option("--feasibility-margin", type=click.FloatRange(0, 1, min_open=True), default=None,
                        help="Take a slot only when its round's work is estimated at most this fraction of the "
                             "task's window at the node's measured speed (default: NODE_DIR/prices.json, else "
                             "0.5).")(command)


def _prices(node_dir, given: dict) -> dict:
    """The file's prices with the options given on the command line over them."""
    from workers.node.market import prices

    try:
        held = prices.load(node_dir)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    return {**held, **{k: v for k, v in given.items() if v is not None}}


@node.command("init")
@click.option("--import-key", "import_key", is_flag=True,
              help="Import an existing private key (prompted for) instead of creating a new one.")
@click.option("--scrypt-n", type=int, default=None, hidden=True, help="Lower scrypt cost (tests only).")
@price_options
@click.pass_obj
def node_init(obj: Context, import_key, scrypt_n, price_sampler, price_trainer, price_validator, feasibility_margin):
    """Create (or import) the node's encrypted keystore in NODE_DIR/keystore, and write its prices
    to NODE_DIR/prices.json (`node start` options override them)."""
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
    from workers.node.market import prices

    chosen = _prices(obj.node_dir, dict(sampler=price_sampler, trainer=price_trainer, validator=price_validator,
                                        feasibility_margin=feasibility_margin))
    click.echo(f"prices {prices.save(obj.node_dir, chosen)}")


@node.command("stake")
@click.option("--role", type=click.Choice(ROLE_NAMES), required=True)
@click.option("--amount", required=True, metavar="DRL", help="DRL to stake (decimals allowed).")
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
        registered = None
        if role == "validator":
            from workers.node.handlers.relay import register_bls_key

            registered = register_bls_key(dep, account, lambda call: send(sender, call, "registerBlsKey"))
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
    from workers.cli.node_market import echo_market

    echo_market(obj.node_dir)
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
@click.option("--ipfs-peer", "ipfs_peers", multiple=True, metavar="MULTIADDR",
              default=lambda: os.environ.get("DECENTRL_IPFS_PEERS", "").split(),
              help="Another operator's IPFS swarm multiaddr, /ip4/ADDRESS/tcp/PORT/p2p/PEER_ID (repeatable; "
                   "$DECENTRL_IPFS_PEERS, space-separated): the node keeps its IPFS node connected to each, "
                   "dialing again every few seconds one that is not (a host that comes back). With --ipfs-api.")
@click.option("--ipfs-timeout", type=click.FloatRange(min=0, min_open=True), default=NodeSettings.ipfs_timeout_s,
              show_default=True,
              help="Seconds each call to the IPFS node may take. A fetch of content no reachable peer gives in "
                   "that time is tried again; content not fetched in 3 tries is missing data (the round "
                   "rejects its submission), so a round's phase windows must fit 3 such timeouts.")
@click.option("--retention-days", type=click.FloatRange(min=0, min_open=True), default=7.0, show_default=True,
              help="Days the node's store keeps intermediate results (rollouts, checkpoints) it did not pin.")
@click.option("--metrics-port", type=click.IntRange(0, 65535), default=9400, show_default=True,
              help="Serve Prometheus metrics on http://127.0.0.1:PORT/metrics (0: do not serve).")
@click.option("--health-interval", type=click.FloatRange(min=1), default=60.0, show_default=True,
              help="Seconds between health checks (chain, Redis, store, workers; restarts what failed).")
@click.option("--log-format", type=click.Choice(("json", "text")), default="json", show_default=True,
              help="The processes' log lines in NODE_DIR/logs: JSON objects with task id, round, role; or text.")
@click.option("--attest-relay", default=lambda: os.environ.get("DECENTRL_ATTEST_RELAY"),
              help="Where the task's validators exchange BLS signatures to aggregate their votes "
                   "($DECENTRL_ATTEST_RELAY): 'ipfs' (peer to peer over the --ipfs-api node's pubsub), a Redis "
                   "URL they all reach, or 'off' (always attest alone); default: the node's own Redis.")
@click.option("--aggregate-wait", type=click.FloatRange(min=0), default=AGGREGATE_WAIT_S, show_default=True,
              help="Seconds a round's aggregator waits for the other validators' signatures.")
@click.option("--attest-fallback", type=click.FloatRange(min=0), default=ATTEST_FALLBACK_S, show_default=True,
              help="Seconds after posting its signature before a validator no aggregate covered attests alone "
                   "(capped at half the time left in the AttestReveal phase).")
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
@click.option("--nudge-after", type=click.FloatRange(min=0), default=None,
              help="Seconds the chain's head may stand still while the node waits for a block it needs (a draw's "
                   "seed block) before it mines one with an empty transaction: for chains that mine only on "
                   f"transactions (0: never); default {LOCAL_NUDGE_AFTER_S:g} for an RPC on this machine, "
                   "0 for any other.")
@click.option("--kernel-check/--skip-kernel-check", default=True, show_default=True,
              help="First run three tiny rounds (~1 s) and compare their bits with the network's reference: on a "
                   "machine whose float kernels give other bits, validators would reject, and slash, honest work, "
                   "so the node refuses to start. Skip it only where every node of your tasks computes on "
                   "kernels like this machine's (one machine, or identical hosts of a private network).")
@price_options
@click.pass_obj
def node_start(obj: Context, roles, concurrency, ws_url, poll_interval, confirmations, ipfs_api, ipfs_peers,
               ipfs_timeout, retention_days,
               metrics_port, health_interval, log_format, attest_relay, aggregate_wait, attest_fallback,
               aggregate_min_signers, trainer_device, claim_burst, keeper_turn_blocks, nudge_after, kernel_check,
               price_sampler, price_trainer, price_validator, feasibility_margin):
    """Start the chain watcher and one Celery worker per role; runs until Ctrl-C (or SIGTERM).

    Redis is $REDIS_URL (give this node its own database) or an embedded server in NODE_DIR/redis.
    Metrics are served on 127.0.0.1 (--metrics-port); health is checked every --health-interval s
    and written to NODE_DIR/health.json (`decentrl node status` shows it). The node itself runs in
    workers.node.run.run_node."""
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
    if ipfs_api:  # each of the node's processes would fail on a bad one, again and again
        from workers.storage.store import check_ipfs_api

        try:
            check_ipfs_api(ipfs_api)
        except ValueError as exc:
            raise click.UsageError(f"--ipfs-api: {exc}") from None
    if ipfs_peers:
        from workers.storage.swarm_peers import peer_id_of

        if not ipfs_api:
            raise click.UsageError("--ipfs-peer needs --ipfs-api: the peers are dialed from that IPFS node")
        for peer in ipfs_peers:
            try:
                peer_id_of(peer)
            except ValueError as exc:
                raise click.UsageError(f"--ipfs-peer: {exc}") from None
    if kernel_check:  # before the node claims any work that validators would reject
        from workers.roles.kernel_check import KernelMismatch, check

        try:
            check()
        except KernelMismatch as exc:
            raise click.ClickException(str(exc)) from None
    from workers.chain.keystore import PASSWORD_ENV
    from workers.node.processes.redis_service import RedisUnavailable
    from workers.node.processes.state import NodeRunning, claim_node_dir
    from workers.node.run import StartError, run_node

    try:
        lock = claim_node_dir(obj.node_dir)  # before anything is started or written
    except NodeRunning as exc:
        raise click.ClickException(str(exc)) from None
    try:
        chosen = _prices(obj.node_dir, dict(sampler=price_sampler, trainer=price_trainer, validator=price_validator,
                                            feasibility_margin=feasibility_margin))
        password = keystore_password("Keystore password")
        os.environ[PASSWORD_ENV] = password  # checked now; the workers read it from their environment
        account = obj.account()
        rpc = obj.rpc
        try:
            settings = NodeSettings(
                rpc_url=rpc, ws_url=ws_url, deployment=obj.deployment_file(), node_dir=obj.node_dir,
                store_dir=obj.store_dir, ipfs_api=ipfs_api, ipfs_timeout_s=ipfs_timeout, address=account.address,
                poll_interval=poll_interval or default_poll_interval(rpc),
                confirmations=default_confirmations(rpc) if confirmations is None else confirmations,
                keeper_turn_blocks=default_turn_blocks(rpc) if keeper_turn_blocks is None else keeper_turn_blocks,
                retention_s=retention_days * 24 * 3600, attest_relay=attest_relay or None,
                aggregate_wait_s=aggregate_wait, attest_fallback_s=attest_fallback,
                aggregate_min_signers=aggregate_min_signers, trainer_device=trainer_device,
                max_fee_per_gas=obj.max_fee_per_gas, nudge_after_s=nudge_after, price_sampler=chosen["sampler"],
                price_trainer=chosen["trainer"], price_validator=chosen["validator"],
                feasibility_margin=chosen["feasibility_margin"])
        except ValueError as exc:
            raise click.UsageError(str(exc)) from None
        from workers.node.market import prices

        prices.save(obj.node_dir, chosen)  # what `node status` shows
        try:
            run_node(obj.deployment, settings, names, account, password, concurrency=concurrency,
                     metrics_port=metrics_port, health_interval_s=health_interval, log_format=log_format,
                     claim_burst=claim_burst, ipfs_peers=tuple(ipfs_peers), send=send, echo=click.echo)
        except (RedisUnavailable, StartError) as exc:
            raise click.ClickException(str(exc)) from None
    finally:
        os.close(lock)

"""`decentrl node ...`: keystore, stake, processes, status."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import click

from workers.cli.common import ROLE_NAMES, NODE_STATE, fmt_drl, parse_drl, Context, send, role_of
from workers.cli.group import cli


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
    from workers.chain.keystore import PASSWORD_ENV, KeystoreError, create_keystore

    key = None
    if import_key:
        key = click.prompt("Private key (hex)", hide_input=True, err=True).strip()
        try:
            bytes.fromhex(key.removeprefix("0x"))
            if len(key.removeprefix("0x")) != 64:
                raise ValueError
        except ValueError:
            raise click.ClickException("a private key is 32 bytes of hex (64 hex digits)") from None
    password = os.environ.get(PASSWORD_ENV) or click.prompt("New keystore password", hide_input=True,
                                                            confirmation_prompt=True, err=True)
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
    wei = parse_drl(amount)
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
    finally:
        service.stop()
    view = obj.view()
    info = view.stake(account.address, role_of(role))
    click.echo(f"staked {fmt_drl(wei)} as {role} (tx {receipt['transactionHash'].to_0x_hex()}); "
               f"{role} stake now {fmt_drl(info.staked)}, available {fmt_drl(info.available)}")
    e = view.eligibility(account.address, role_of(role))
    click.echo(f"eligible for {role}" if e.eligible else f"not eligible for {role} yet: {e.reason}")


def node_state_path(node_dir: Path) -> Path:
    return Path(node_dir) / NODE_STATE


def read_node_state(node_dir: Path) -> dict | None:
    path = node_state_path(node_dir)
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def pid_alive(pid: int | None) -> bool:
    if not pid:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@node.command("status")
@click.option("--address", default=None, help="Which keystore account (when the node has several).")
@click.pass_obj
def node_status(obj: Context, address):
    """Account, stake per role, reputation, claimable rewards, eligibility, processes."""
    from workers.protocol import Role

    account = obj.address(address)
    view = obj.view()
    dep = obj.deployment
    click.echo(f"account     {account}")
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
    state = read_node_state(obj.node_dir)
    if state and pid_alive(state.get("pid")):
        click.echo(f"processes   node running (pid {state['pid']}, roles {','.join(state.get('roles', []))})")
        for name, child in sorted(state.get("children", {}).items()):
            alive = "running" if pid_alive(child.get("pid")) else "stopped"
            click.echo(f"  {name:<10} pid {child.get('pid')} {alive}  log {child.get('log')}")
    else:
        click.echo("processes   not running")


@node.command("start")
@click.option("--roles", default="sampler,trainer,validator", show_default=True,
              help="Comma-separated roles this node runs (one Celery worker each).")
@click.option("--concurrency", type=int, default=1, show_default=True, help="Processes per Celery worker.")
@click.option("--ws", "ws_url", default=None, help="Websocket RPC for the watcher (default: HTTP polling).")
@click.option("--ipfs-api", default=lambda: os.environ.get("DECENTRL_IPFS_API"),
              help="IPFS RPC API multiaddr ($DECENTRL_IPFS_API); default: the embedded store (--store-dir).")
@click.option("--retention-days", type=click.FloatRange(min=0, min_open=True), default=7.0, show_default=True,
              help="Days the node's store keeps intermediate results (rollouts, checkpoints) it did not pin.")
@click.pass_obj
def node_start(obj: Context, roles, concurrency, ws_url, ipfs_api, retention_days):
    """Start the chain watcher and one Celery worker per role; runs until Ctrl-C (or SIGTERM).

    Redis is $REDIS_URL (give this node its own database) or an embedded server in NODE_DIR/redis."""
    from workers.chain.keystore import PASSWORD_ENV

    names = tuple(dict.fromkeys(r.strip() for r in roles.split(",") if r.strip()))
    bad = [r for r in names if r not in ROLE_NAMES]
    if bad or not names:
        raise click.UsageError(f"--roles: choose from {', '.join(ROLE_NAMES)} (got {roles!r})")
    obj.deployment  # noqa: B018 - wrong network or missing record: fail before starting anything
    password = os.environ.get(PASSWORD_ENV) or click.prompt("Keystore password", hide_input=True, err=True)
    os.environ[PASSWORD_ENV] = password  # checked now; the workers read it from their environment
    account = obj.account()
    from workers.node.context import node_extra
    from workers.node.handlers import node_config, supervisor
    from workers.node.redis_service import RedisUnavailable, redis_for_node

    try:
        service = redis_for_node(obj.node_dir)
    except RedisUnavailable as exc:
        raise click.ClickException(str(exc)) from None
    try:
        extra = node_extra(rpc_url=obj.rpc, ws_url=ws_url, deployment=obj.deployment_file(), node_dir=obj.node_dir,
                           store_dir=obj.store_dir, ipfs_api=ipfs_api, address=account.address,
                           retention_s=retention_days * 24 * 3600)
        config = node_config(service.url, f"node-{account.address[2:10].lower()}", extra)
        sup = supervisor(config, names, concurrency=concurrency, env={PASSWORD_ENV: password})
        run_supervisor(obj.node_dir, sup, names, service)
    finally:
        service.stop()


def run_supervisor(node_dir: Path, supervisor, roles, service) -> None:
    """Starts the supervisor, records its children in NODE_DIR/node.json for `node status`, and
    restarts dead children until SIGTERM/SIGINT; then stops them all."""
    import signal

    stopping = []
    old = {s: signal.signal(s, lambda *_: stopping.append(True)) for s in (signal.SIGTERM, signal.SIGINT)}
    path = node_state_path(node_dir)
    try:
        supervisor.start()

        def record():
            state = {"pid": os.getpid(), "roles": list(roles), "redis": service.url,
                     "children": {n: {"pid": h["pid"], "log": h["log"]} for n, h in supervisor.health().items()}}
            path.write_text(json.dumps(state, indent=2))

        record()
        click.echo(f"node running: roles {','.join(roles)}, Redis {service.url}; logs in {Path(node_dir) / 'logs'}")
        while not stopping:
            time.sleep(1.0)
            if not stopping and supervisor.check():
                record()
    finally:
        supervisor.stop()
        path.unlink(missing_ok=True)
        for s, h in old.items():
            signal.signal(s, h)
        click.echo("node stopped")

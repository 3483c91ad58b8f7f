"""`decentrl`: the command line of a decentrl node and of a requester.

    decentrl node init [--import-key]          create (or import) the node's encrypted keystore
    decentrl node stake --role R --amount N     approve and stake N DRL for a role
    decentrl node start --roles sampler,...     the chain watcher + one Celery worker per role
    decentrl node status                        account, stakes, reputation, rewards, eligibility
    decentrl task submit SPEC --bounty N        publish a spec and create a task (EIP-712 signed)
             [--encrypt-inputs POLICY [--post-keys]]  ... with an encrypted initial policy
    decentrl task keys ID [--follow]            wrap the inputs' key for the assigned nodes, post it
    decentrl task status ID                     status, round, phase, deadlines, slots, verdicts
    decentrl task result ID -o DIR              download and verify the final policy
    decentrl demo                               the whole network on a local chain

Global options: --rpc URL (default http://127.0.0.1:8545), --deployment PATH or --network NAME
(deployments/<NAME>.json; default "development"), --node-dir (default $DECENTRL_NODE_DIR or
~/.decentrl). Keystore passwords are prompted for, or read from $DECENTRL_KEYSTORE_PASSWORD.

Only click is imported at start, so `decentrl --help` is instant: web3, torch and celery are
imported inside the commands that use them.
"""

from __future__ import annotations

import json
import os
import sys
import time
from decimal import Decimal, InvalidOperation
from pathlib import Path

import click

TOKEN = 10**18
DEFAULT_RPC = "http://127.0.0.1:8545"
DEFAULT_NETWORK = "development"
ROLE_NAMES = ("sampler", "trainer", "validator")
NODE_STATE = "node.json"


def default_node_dir() -> str:
    return os.environ.get("DECENTRL_NODE_DIR") or str(Path.home() / ".decentrl")


def fmt_drl(wei: int) -> str:
    return f"{Decimal(wei) / TOKEN:,.4f}".rstrip("0").rstrip(".") + " DRL"


def parse_drl(text: str) -> int:
    """'12.5' -> 12.5 * 10**18 wei; a UsageError for anything not a positive amount."""
    try:
        value = Decimal(str(text))
    except InvalidOperation:
        raise click.BadParameter(f"{text!r} is not a number of DRL") from None
    wei = int(value * TOKEN)
    if value <= 0 or wei != value * TOKEN:
        raise click.BadParameter(f"{text!r}: give a positive amount of DRL (at most 18 decimals)")
    return wei


class Context:
    """The global options, and the chain objects made from them on first use."""

    def __init__(self, rpc: str, deployment: str | None, network: str | None, node_dir: str,
                 store_dir: str | None = None):
        self.rpc = rpc
        self.deployment_path = deployment
        self.network = network or DEFAULT_NETWORK
        self.node_dir = Path(node_dir).expanduser()
        self.store_dir = Path(store_dir).expanduser() if store_dir else self.node_dir / "store"
        self._w3 = self._dep = None

    def deployment_file(self) -> Path:
        from workers.chain.deployment import deployments_dir

        return Path(self.deployment_path) if self.deployment_path else deployments_dir() / f"{self.network}.json"

    @property
    def w3(self):
        if self._w3 is None:
            from workers.chain.rpc import http_w3

            w3 = http_w3(self.rpc)
            try:
                w3.eth.chain_id
            except Exception as exc:  # requests' ConnectionError and friends
                raise click.ClickException(f"cannot reach the RPC at {self.rpc}: {type(exc).__name__}") from None
            self._w3 = w3
        return self._w3

    @property
    def deployment(self):
        if self._dep is None:
            from workers.chain.deployment import DeploymentError, load_deployment

            try:
                self._dep = load_deployment(self.w3, network=self.network, path=self.deployment_path)
            except DeploymentError as exc:
                raise click.ClickException(str(exc)) from None
        return self._dep

    def view(self):
        from workers.chain.view import ChainView

        return ChainView(self.deployment)

    def keystore_path(self, address: str | None = None) -> Path:
        from workers.chain.keystore import KeystoreError, find_keystore

        try:
            return find_keystore(self.node_dir, address)
        except KeystoreError as exc:
            raise click.ClickException(str(exc)) from None

    def address(self, address: str | None = None) -> str:
        """The node's address, read from its keystore's file name (no password needed)."""
        return self.keystore_path(address).stem

    def account(self, address: str | None = None):
        """The node's signing account: the keystore decrypted with the prompted password."""
        from workers.chain.keystore import PASSWORD_ENV, KeystoreError, load_account

        path = self.keystore_path(address)
        password = os.environ.get(PASSWORD_ENV) or click.prompt(f"Password for {path.stem}", hide_input=True,
                                                                err=True)
        try:
            return load_account(path, password)
        except KeystoreError as exc:
            raise click.ClickException(str(exc)) from None

    def sender(self, account):
        """A TxSender for `account` on the node's Redis (REDIS_URL, else an embedded server that
        the caller stops: returned as the second value)."""
        from workers.chain.sender import TxSender
        from workers.node.redis_service import RedisUnavailable, redis_for_node

        try:
            service = redis_for_node(self.node_dir / "cli")
        except RedisUnavailable as exc:
            raise click.ClickException(str(exc)) from None
        return TxSender(self.w3, account, service.client()), service


def send(sender, call, what: str):
    """Sends `call`, turning a decoded revert into a ClickException that names it."""
    from workers.chain.errors import ChainError, TxReverted

    try:
        return sender.send(call)
    except TxReverted as exc:
        where = f" (tx {exc.tx_hash})" if exc.tx_hash else ""
        raise click.ClickException(f"{what} reverted: {exc.error.message}{where}") from None
    except ChainError as exc:
        raise click.ClickException(f"{what} failed: {exc}") from None


def role_of(name: str):
    from workers.protocol import Role

    return Role[name.upper()]


# -- the group ---------------------------------------------------------------------------------------


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--rpc", default=lambda: os.environ.get("DECENTRL_RPC", DEFAULT_RPC), show_default=DEFAULT_RPC,
              help="JSON-RPC endpoint of the chain ($DECENTRL_RPC).")
@click.option("--deployment", type=click.Path(dir_okay=False), default=None,
              help="Deployment record (JSON written by scripts/deploy.py).")
@click.option("--network", default=None,
              help=f"Read deployments/<NETWORK>.json instead (default {DEFAULT_NETWORK}).")
@click.option("--node-dir", default=default_node_dir, show_default="$DECENTRL_NODE_DIR or ~/.decentrl",
              help="The node's folder: keystore, logs, Redis and store data.")
@click.option("--store-dir", default=lambda: os.environ.get("DECENTRL_STORE_DIR"),
              show_default="$DECENTRL_STORE_DIR or NODE_DIR/store",
              help="The embedded content store (share one folder between the nodes of a machine).")
@click.pass_context
def cli(ctx, rpc, deployment, network, node_dir, store_dir):
    """decentrl: a decentralized reinforcement-learning network."""
    if deployment and network:
        raise click.UsageError("give --deployment or --network, not both")
    ctx.obj = Context(rpc, deployment, network, node_dir, store_dir)


# -- node --------------------------------------------------------------------------------------------


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


# -- task --------------------------------------------------------------------------------------------


@cli.group()
def task():
    """Submit a task and follow it."""


def load_spec(path: str):
    """The TaskSpec in a JSON file; a ClickException naming the bad field."""
    from workers.spec import SpecError, parse

    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise click.ClickException(f"cannot read spec {path}: {exc.strerror}") from None
    try:
        return parse(data)
    except SpecError as exc:
        raise click.ClickException(f"bad spec {path}: {exc}") from None


def open_node_store(store_dir: Path, ipfs_api: str | None):
    from workers.storage import StorageError, open_store

    try:
        return open_store(ipfs_api, store_dir)
    except StorageError as exc:
        raise click.ClickException(str(exc)) from None


def create_task(dep, store, requester, sender, task_spec, **params):
    """Publishes the spec's canonical bytes to `store`, has `requester` (a LocalAccount) sign the
    EIP-712 CreateTask request and, when its allowance is short, an EIP-2612 permit for the bounty;
    `sender` (the requester's or a relayer's TxSender) sends createTaskWithSig. Returns (task id,
    TaskParams, receipt); a revert raises ClickException with the decoded error."""
    from workers.protocol import NO_PERMIT, TaskParams, sign_create_task, sign_permit

    cid = store.put(task_spec.to_bytes(), pin=True)
    params = TaskParams(spec_cid=cid, spec_digest=task_spec.digest(), **params)
    registry, token, w3 = dep.registry, dep.token, dep.w3
    deadline = w3.eth.get_block("latest")["timestamp"] + 3600
    nonce = registry.functions.nonces(requester.address).call()
    signature = sign_create_task(requester.key, params, requester.address, nonce, deadline, dep.chain_id,
                                 registry.address)
    permit = NO_PERMIT
    if token.functions.allowance(requester.address, registry.address).call() < params.bounty:
        permit = sign_permit(requester.key, token.address, dep.chain_id, requester.address, registry.address,
                             params.bounty, token.functions.nonces(requester.address).call(), deadline)
    receipt = send(sender, registry.functions.createTaskWithSig(params.as_tuple(), requester.address, deadline,
                                                                signature, permit), "createTaskWithSig")
    from web3.logs import DISCARD

    task_id = registry.events.TaskCreated().process_receipt(receipt, errors=DISCARD)[0]["args"]["taskId"]
    return task_id, params, receipt


@task.command("submit")
@click.argument("spec", type=click.Path(exists=True, dir_okay=False))
@click.option("--bounty", required=True, help="Bounty in DRL, paid to the nodes that do the work.")
@click.option("--samplers", type=click.IntRange(1, 255), default=2, show_default=True)
@click.option("--validators", type=click.IntRange(1, 255), default=3, show_default=True)
@click.option("--rounds", type=click.IntRange(1, 65535), default=5, show_default=True)
@click.option("--claim-window", type=int, default=3600, show_default=True, help="Seconds.")
@click.option("--commit-window", type=int, default=600, show_default=True, help="Seconds.")
@click.option("--reveal-window", type=int, default=300, show_default=True, help="Seconds.")
@click.option("--attest-window", type=int, default=600, show_default=True, help="Seconds.")
@click.option("--relayer-dir", type=click.Path(file_okay=False), default=None,
              help="Node dir of a relayer that sends the signed request (pays the gas); default: "
                   "the requester sends it itself.")
@click.option("--ipfs-api", default=lambda: os.environ.get("DECENTRL_IPFS_API"),
              help="IPFS RPC API to publish the spec to; default: the embedded store (--store-dir).")
@click.option("--encrypt-inputs", "inputs_path", type=click.Path(exists=True, dir_okay=False), default=None,
              help="A policy (safetensors, the spec's architecture) for round 0, encrypted (AES-256-GCM) so "
                   "that only the task's assigned nodes can read it.")
@click.option("--post-keys", is_flag=True,
              help="With --encrypt-inputs: wait until every slot is filled, then post the keyring "
                   "(else run `decentrl task keys ID`).")
@click.pass_obj
def task_submit(obj: Context, spec, bounty, samplers, validators, rounds, claim_window, commit_window,
                reveal_window, attest_window, relayer_dir, ipfs_api, inputs_path, post_keys):
    """Publish SPEC (a task spec JSON file) and create a task with a bounty.

    The requester (NODE_DIR's keystore) signs the EIP-712 CreateTask request and an EIP-2612
    permit for the bounty; the relayer (or the requester itself) sends createTaskWithSig.
    With --encrypt-inputs only the ciphertext is published; the spec names it (SPECIFICATION 5.7)."""
    if post_keys and not inputs_path:
        raise click.UsageError("--post-keys needs --encrypt-inputs")
    task_spec = load_spec(spec)
    wei = parse_drl(bounty)
    dep = obj.deployment  # WrongNetwork: the RPC's chain is not the deployment's
    requester = obj.account()
    balance = dep.token.functions.balanceOf(requester.address).call()
    if balance < wei:
        raise click.ClickException(f"insufficient funds: requester {requester.address} holds {fmt_drl(balance)}, "
                                   f"the bounty is {fmt_drl(wei)}")
    relayer = requester
    if relayer_dir:
        relayer = Context(obj.rpc, obj.deployment_path, obj.network, relayer_dir, str(obj.store_dir)).account()
    if obj.w3.eth.get_balance(relayer.address) == 0:
        raise click.ClickException(f"insufficient funds: {relayer.address} has no ETH to send the transaction")

    store = open_node_store(obj.store_dir, ipfs_api)
    if inputs_path:
        task_spec = encrypt_inputs(task_spec, Path(inputs_path), requester, store)
    sender, service = obj.sender(relayer)
    try:
        task_id, params, receipt = create_task(
            dep, store, requester, sender, task_spec, bounty=wei, num_samplers=samplers,
            num_validators=validators, num_rounds=rounds, claim_window=claim_window, commit_window=commit_window,
            reveal_window=reveal_window, attest_window=attest_window)
    finally:
        service.stop()
    cid = params.spec_cid
    click.echo(f"spec {cid} (digest 0x{task_spec.digest().hex()})")
    click.echo(f"task {task_id} created: bounty {fmt_drl(wei)}, {samplers} samplers, {validators} validators, "
               f"{rounds} rounds (tx {receipt['transactionHash'].to_0x_hex()})")
    if inputs_path and post_keys:
        post_task_keys(obj, requester, task_id, store, wait_s=claim_window, follow=False)
    elif inputs_path:
        click.echo(f"once every slot is filled, post the inputs' keys: decentrl task keys {task_id} --follow")


def encrypt_inputs(task_spec, path: Path, requester, store):
    """The spec with an "inputs" descriptor: the policy in `path` checked against the spec's
    architecture, encrypted with the requester's data key, and only the ciphertext stored."""
    import dataclasses

    from workers.crypto import inputs
    from workers.node.encrypted_inputs import BadInputs, initial_bundle_of

    plaintext = path.read_bytes()
    try:
        initial_bundle_of(task_spec, 0, plaintext)
    except BadInputs as exc:
        raise click.ClickException(f"--encrypt-inputs {path}: {exc}") from None
    except Exception as exc:  # safetensors' parse errors: not a policy file at all
        raise click.ClickException(f"--encrypt-inputs {path}: not a policy safetensors file "
                                   f"({type(exc).__name__})") from None
    descriptor, ciphertext = inputs.encrypt(requester.key, plaintext, "initial_policy")
    cid = store.put(ciphertext, pin=True)
    if cid != descriptor.cid:
        raise click.ClickException(f"the store answered CID {cid} for the ciphertext, expected {descriptor.cid}")
    click.echo(f"encrypted inputs {cid} ({descriptor.algorithm}, {descriptor.size} bytes; plaintext not published)")
    return dataclasses.replace(task_spec, encrypted_inputs=descriptor)


KEYS_POLL_S = 1.0


def post_task_keys(obj: Context, requester, task_id: int, store, *, wait_s: float, follow: bool) -> None:
    """Waits (up to wait_s) until the task is active, posts its keyring for the assigned nodes;
    with `follow`, posts again whenever the assignment changes, until the task ends."""
    from workers.crypto.errors import CryptoError
    from workers.crypto.exchange import post_keyring
    from workers.protocol import Status
    from workers.spec import SpecError, parse
    from workers.storage import StorageError

    view, t = _task(obj, task_id)
    if t.requester != requester.address:
        raise click.ClickException(f"task {task_id}'s requester is {t.requester}, not {requester.address}")
    try:
        spec = parse(store.get(t.spec_cid), digest=t.spec_digest)
    except (StorageError, SpecError) as exc:
        raise click.ClickException(f"cannot read task {task_id}'s spec {t.spec_cid}: {exc}") from None
    if spec.encrypted_inputs is None:
        raise click.ClickException(f"task {task_id}'s spec has no encrypted inputs: there are no keys to post")
    deadline = time.monotonic() + wait_s
    while t.status in (Status.OPEN, Status.DRAWING):
        if time.monotonic() > deadline:
            raise click.ClickException(f"task {task_id} is still {t.status.name.lower()} after {wait_s:.0f} s: "
                                       f"its slots are not filled; run `decentrl task keys {task_id}` later")
        time.sleep(KEYS_POLL_S)
        t = view.task(task_id)
    sender, service = obj.sender(requester)
    try:
        while t.status == Status.ACTIVE:
            try:
                posted = post_keyring(obj.deployment, store, requester, lambda call: send(sender, call, "postKeyring"),
                                      task_id, spec.encrypted_inputs)
            except (CryptoError, StorageError) as exc:
                raise click.ClickException(f"task {task_id}: cannot post the keyring: {exc}") from None
            if posted.receipt is not None:
                click.echo(f"keyring {posted.cid} posted for {len(posted.nodes)} nodes of task {task_id} "
                           f"(tx {posted.receipt['transactionHash'].to_0x_hex()})")
            elif not follow:
                click.echo(f"keyring {posted.cid} already covers the {len(posted.nodes)} nodes of task {task_id}")
            if not follow:
                break
            time.sleep(KEYS_POLL_S)
            t = view.task(task_id)
    finally:
        service.stop()
    if t.status != Status.ACTIVE and not follow:
        raise click.ClickException(f"task {task_id} is {t.status.name.lower()}: no keys to post")


@task.command("keys")
@click.argument("task_id", type=int)
@click.option("--follow", is_flag=True, help="Keep posting after each assignment change until the task ends.")
@click.option("--wait", "wait_s", type=float, default=3600.0, show_default=True,
              help="Seconds to wait for every slot to be filled.")
@click.option("--ipfs-api", default=lambda: os.environ.get("DECENTRL_IPFS_API"),
              help="IPFS RPC API to publish the keyring to; default: the embedded store (--store-dir).")
@click.pass_obj
def task_keys(obj: Context, task_id, follow, wait_s, ipfs_api):
    """Wrap the task's encrypted-inputs key for each assigned node and post the keyring (requester only)."""
    store = open_node_store(obj.store_dir, ipfs_api)
    post_task_keys(obj, obj.account(), task_id, store, wait_s=wait_s, follow=follow)


def _task(obj: Context, task_id: int):
    from workers.chain.view import TaskNotFound

    view = obj.view()
    try:
        return view, view.task(task_id)
    except TaskNotFound as exc:
        raise click.ClickException(str(exc)) from None


@task.command("status")
@click.argument("task_id", type=int)
@click.pass_obj
def task_status(obj: Context, task_id):
    """Status, round, phase, deadline, slots and this round's verdicts."""
    from workers.protocol import Status

    view, t = _task(obj, task_id)
    now = obj.deployment.registry.functions.protocolTime().call()
    click.echo(f"task {task_id}: {t.status.name.lower()}, requester {t.requester}, bounty {fmt_drl(t.bounty)}")
    ran = t.status in (Status.ACTIVE, Status.COMPLETED, Status.FAILED)
    if t.status == Status.ACTIVE:
        left = t.phase_deadline - now
        click.echo(f"round {t.round + 1} of {t.num_rounds}, phase {t.phase.name.lower()}, deadline in {left} s")
    elif ran:
        click.echo(f"ended in round {t.round + 1} of {t.num_rounds}")
    else:
        click.echo(f"round 0 of {t.num_rounds} (rounds start once every slot is filled)")
    if t.status in (Status.OPEN, Status.DRAWING):
        click.echo(f"claim deadline in {t.claim_deadline - now} s")
    click.echo(f"spec {t.spec_cid}")
    if t.checkpoint_cid:
        click.echo(f"checkpoint {t.checkpoint_cid} (root 0x{bytes(t.checkpoint_root).hex()})")
    click.echo(f"slots: samplers {t.filled_samplers}/{t.num_samplers}, trainer {int(t.trainer_filled)}/1, "
               f"validators {t.filled_validators}/{t.num_validators}")
    for s in view.slots(task_id):
        click.echo(f"  {s.role.name.lower():<10}{s.slot}  {s.node or '(vacant)'}")
    if ran:
        subs = [s for s in view.submissions(task_id, t.round) if s.node]
        if subs:
            click.echo(f"round {t.round + 1} submissions:")
            for s in subs:
                click.echo(f"  {s.role.name.lower():<10}{s.slot}  {'revealed' if s.revealed else 'committed'}  "
                           f"verdict {s.verdict.name.lower()}")


@task.command("result")
@click.argument("task_id", type=int)
@click.option("-o", "--output", "out_dir", type=click.Path(file_okay=False), required=True)
@click.option("--ipfs-api", default=lambda: os.environ.get("DECENTRL_IPFS_API"),
              help="IPFS RPC API to fetch from; default: the embedded store (--store-dir).")
@click.pass_obj
def task_result(obj: Context, task_id, out_dir, ipfs_api):
    """Download the task's final checkpoint, verify it against the on-chain checkpointRoot, and
    write DIR/policy.safetensors and DIR/metadata.json."""
    from workers.protocol import Status
    from workers.storage import StorageError

    _, t = _task(obj, task_id)
    if not t.checkpoint_cid:
        raise click.ClickException(f"task {task_id} has no checkpoint yet (status {t.status.name.lower()})")
    if t.status != Status.COMPLETED:
        click.echo(f"note: task {task_id} is {t.status.name.lower()}; fetching its latest checkpoint", err=True)
    from workers.roles.trainer import CheckpointMismatch, verify_checkpoint

    store = open_node_store(obj.store_dir, ipfs_api)
    with click.progressbar(length=3, label="checkpoint", file=sys.stderr) as bar:
        try:
            bundle = store.get(t.checkpoint_cid)  # checked against its CID
        except StorageError as exc:
            raise click.ClickException(f"cannot fetch checkpoint {t.checkpoint_cid}: {exc}") from None
        bar.update(1)
        try:
            result = verify_checkpoint(bundle, t.checkpoint_root)
        except CheckpointMismatch as exc:
            raise click.ClickException(f"checkpoint {t.checkpoint_cid} does not verify: {exc}") from None
        bar.update(1)
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        (out / "policy.safetensors").write_bytes(result.policy_bytes)
        meta = {**result.meta, "cid": t.checkpoint_cid, "checkpoint_root": "0x" + result.root.hex(),
                "task_status": t.status.name.lower(), "spec_cid": t.spec_cid}
        (out / "metadata.json").write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")
        bar.update(1)
    click.echo(f"verified checkpoint of round {result.round + 1} against root 0x{result.root.hex()}")
    click.echo(f"wrote {out / 'policy.safetensors'} and {out / 'metadata.json'}")


# -- demo --------------------------------------------------------------------------------------------


@cli.command("demo")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default="reports/demo", show_default=True,
              help="Where the learning curve and the run's files go.")
@click.option("--keep", is_flag=True, help="Keep the temporary node folders.")
def demo(out_dir, keep):
    """A whole network on a local chain: deploy, 2 samplers, 1 trainer, 3 validators, a
    CartPole-v1 task, its rounds live, the evaluation, payouts and a learning curve."""
    from workers.demo import run

    sys.exit(run.main(out_dir=Path(out_dir), keep=keep))


def main(argv=None):
    cli.main(args=argv, prog_name="decentrl")


if __name__ == "__main__":
    main()

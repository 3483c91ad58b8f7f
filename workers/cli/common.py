"""What every `decentrl` command shares: the global options' Context, amounts in DRL, sending a
transaction with a readable revert."""

from __future__ import annotations

import os
from contextlib import contextmanager
from decimal import Decimal, InvalidOperation
from pathlib import Path

import click

from workers.amounts import TOKEN, fmt_drl  # noqa: F401 - the commands' amounts, shared with the explorer

DEFAULT_RPC = "http://127.0.0.1:8545"
DEFAULT_NETWORK = "development"
ROLE_NAMES = ("sampler", "trainer", "validator")


def default_node_dir() -> str:
    return os.environ.get("DECENTRL_NODE_DIR") or str(Path.home() / ".decentrl")


def parse_drl(text: str, name: str | None = None) -> int:
    """'12.5' -> 12.5 * 10**18 wei; a UsageError naming the option or argument `name` for
    anything not a positive amount."""
    try:
        value = Decimal(str(text))
    except InvalidOperation:
        value = None
    hint = f"'{name}'" if name else None
    if value is None or not value.is_finite():
        raise click.BadParameter(f"{text!r} is not a number of DRL", param_hint=hint)
    wei = int(value * TOKEN)
    if value <= 0 or wei != value * TOKEN:
        raise click.BadParameter(f"{text!r}: give a positive amount of DRL (at most 18 decimals)", param_hint=hint)
    return wei


def counted(n: int, noun: str) -> str:
    """'1 sampler', '2 samplers'."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def keystore_password(prompt: str, confirm: bool = False) -> str:
    """$DECENTRL_KEYSTORE_PASSWORD, else the password typed at a hidden prompt (on stderr). Set
    but empty is an error rather than a prompt: no keystore has an empty password, and a script
    that set the variable has nobody to answer a prompt."""
    from workers.chain.keystore import PASSWORD_ENV

    password = os.environ.get(PASSWORD_ENV)
    if password is None:
        return click.prompt(prompt, hide_input=True, confirmation_prompt=confirm, err=True)
    if not password:
        raise click.ClickException(f"${PASSWORD_ENV} is set but empty: set it to the keystore's password, or "
                                   "unset it to be asked for the password")
    return password


class Context:
    """The global options, and the chain objects made from them on first use."""

    def __init__(self, rpc: str, deployment: str | None, network: str | None, node_dir: str,
                 store_dir: str | None = None, max_fee_gwei: float | None = None):
        self.rpc = rpc
        self.max_fee_per_gas = None if max_fee_gwei is None else round(max_fee_gwei * 10**9)
        """Every transaction's fee cap in wei (TxSender's max_fee_per_gas); None: no cap."""
        self.deployment_path = deployment
        self.network = network or DEFAULT_NETWORK
        # absolute: the node's processes work in another folder than the one the command ran in
        self.node_dir = Path(node_dir).expanduser().absolute()
        self.store_dir = Path(store_dir).expanduser().absolute() if store_dir else self.node_dir / "store"
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
                _ = w3.eth.chain_id  # a first request: is the RPC reachable?
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
        from workers.chain.keystore import KeystoreError, load_account

        path = self.keystore_path(address)
        password = keystore_password(f"Password for {path.stem}")
        try:
            return load_account(path, password)
        except KeystoreError as exc:
            raise click.ClickException(str(exc)) from None

    def sender(self, account):
        """A TxSender for `account` on the node's Redis (REDIS_URL, else an embedded server that
        the caller stops: returned as the second value)."""
        from workers.chain.sender import TxSender
        from workers.node.processes.redis_service import RedisUnavailable, redis_for_node

        try:
            service = redis_for_node(self.node_dir / "cli")
        except RedisUnavailable as exc:
            raise click.ClickException(str(exc)) from None
        return TxSender(self.w3, account, service.client(), max_fee_per_gas=self.max_fee_per_gas), service


def send(sender, call, what: str, **tx):
    """Sends `call` (or a plain transaction: to=, value=), turning a decoded revert, a send the
    chain node refuses (no ETH for gas) and a Ctrl-C while it is mined into a ClickException that
    says what happened to it."""
    from web3.exceptions import Web3RPCError

    from workers.chain.errors import ChainError, FeeCapExceeded, TxReverted, gwei

    sent = None
    try:
        sent = sender.send(call, wait=False, **tx)
        return sender.wait(sent)
    except TxReverted as exc:
        where = f" (tx {exc.tx_hash})" if exc.tx_hash else ""
        raise click.ClickException(f"{what} reverted: {exc.error.message}{where}") from None
    except FeeCapExceeded as exc:  # a node sends it later; a command gives up
        raise click.ClickException(f"{what} not sent: the chain's base fee is {gwei(exc.base_fee)} gwei, above this "
                                   f"account's fee cap of {gwei(exc.cap)} gwei (--max-fee-gwei / "
                                   "$DECENTRL_MAX_FEE_GWEI): raise the cap, or run this again once fees fall") from None
    except ChainError as exc:
        raise click.ClickException(f"{what} failed: {exc}") from None
    except Web3RPCError as exc:
        message = (exc.rpc_response or {}).get("error", {}).get("message") or str(exc)
        hint = f"; {sender.address} needs ETH for its gas" if "insufficient funds" in message.lower() else ""
        raise click.ClickException(f"{what}: the chain node refused it: {message}{hint}") from None
    except KeyboardInterrupt:
        if sent is None:
            raise
        raise click.ClickException(f"interrupted: {what} was sent as {sent.tx_hash} (nonce {sent.nonce}) and may "
                                   "still be mined; check before doing it again") from None


@contextmanager
def writing(what: str):
    """An OSError while the block writes the command's output (a folder that cannot be made, a
    read-only or full disk) is an error that names it, not a traceback."""
    try:
        yield
    except OSError as exc:
        where = f" ({exc.filename})" if exc.filename else ""
        raise click.ClickException(f"cannot write {what}{where}: {exc.strerror or exc}") from None


TASK_ID = click.IntRange(0, 2**256 - 1)
"""A task id argument: a uint256 (a larger number is not an id, rather than an encoding error)."""


def role_of(name: str):
    from workers.protocol import Role

    return Role[name.upper()]


def send_as(obj: Context, account, call, what: str, **tx):
    """One transaction from `account` (its own nonce sequence on the node's Redis), as `send`."""
    sender, service = obj.sender(account)
    try:
        return send(sender, call, what, **tx)
    finally:
        service.stop()

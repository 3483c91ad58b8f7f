"""Submit a task as a requester wallet: it signs, another account relays.

    brownie run scripts/submit_task.py [main|signed] [SPEC_CID [SPEC_DIGEST [BOUNTY_DRL]]] --network NAME
    brownie run scripts/submit_task.py direct ...   # the requester sends approve + createTask itself

`main` (the default) and `signed`: the requester signs an EIP-712 CreateTask message and an
EIP-2612 permit for the bounty, so it needs DRL but no ETH; the relayer sends createTaskWithSig.

Accounts are loaded, never hard-coded: the requester is the encrypted brownie account
$DECENTRL_REQUESTER (default "requester"), the relayer $DECENTRL_RELAYER (default "relayer");
brownie asks for their passwords. On a development network a missing keystore falls back to a
fresh key funded from the deployer (said so on screen), and the relayer to accounts[1].

The spec comes from the arguments, else $DECENTRL_SPEC_CID / $DECENTRL_SPEC_DIGEST /
$DECENTRL_BOUNTY (in DRL). On a development network a missing spec is a sample one (digest
keccak256 of the CID's text, which no node can fetch); on a live network the CID and digest must
be given (`decentrl task spec` writes a spec, `decentrl task submit SPEC` stores and submits it):
nodes take only a task whose spec they can fetch and match to its digest.
Addresses come from deployments/<network>.json (scripts/deploy.py writes it). On a development
network, where every `brownie run` starts a fresh chain, a missing or stale record is replaced by
a fresh deployment.
"""

from __future__ import annotations

import functools
import os
import secrets
from dataclasses import dataclass

from brownie import RLToken, TaskFront, TaskRegistry, accounts, network, web3
from brownie._config import CONFIG
from brownie.exceptions import VirtualMachineError
from eth_utils import keccak

from scripts.actors import TOKEN, SignedTask, sign_task
from scripts.deploy import ScriptError, deploy, deploy_command, load_brownie_account, load_deployment, write_deployment
from workers.protocol import TaskParams

DEFAULT_SPEC_CID = "bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy"
DEFAULT_BOUNTY_DRL = 1_000

# What a revert means for someone submitting a task.
HINTS = {
    "ERC20InsufficientBalance": "the requester does not hold the bounty in DRL",
    "ERC20InsufficientAllowance": "the registry may not pull the bounty: approve it, or sign a valid permit",
    "InvalidSignature": "the signature does not match the requester, nonce, chain or task front",
    "SignatureExpired": "the signed deadline has passed: sign again",
    "InvalidSpec": "the spec CID must be 1-128 bytes and the digest non-zero",
    "InvalidBounty": "the bounty must be above zero",
    "BountyTooSmall": "the bounty is below the protocol's minimum for the task's shape (StateView.minBounty: "
                      "ProtocolConfig.minBountyPerSlotRound per slot and round)",
    "EnforcedPause": "the registry is paused by its guardian",
}


class SubmitError(ScriptError):
    """A task could not be submitted; the message says why and what to do."""


@dataclass
class Contracts:
    token: object
    registry: object
    front: object  # TaskFront: relays signed requests
    admin: str


def is_development() -> bool:
    return CONFIG.network_type == "development"


def load_contracts(network_name: str | None = None) -> Contracts:
    """The token, registry and task front of deployments/<network>.json, checked to exist on this chain."""
    record = load_deployment(network_name)  # FileNotFoundError says how to deploy
    addresses = record["contracts"]
    if record.get("chainId") != web3.eth.chain_id:
        raise SubmitError(f"deployment record is for chain {record.get('chainId')}, connected to {web3.eth.chain_id}")
    for name in ("RLToken", "TaskRegistry", "TaskFront"):
        if name not in addresses:
            raise SubmitError(f"the deployment record has no {name}: it was written for an older layout of the "
                              f"contracts; redeploy with `{deploy_command(network.show_active())}`")
        if len(web3.eth.get_code(addresses[name])) == 0:
            raise SubmitError(f"no contract at {name} {addresses[name]} on this chain: the deployment record "
                              f"is stale; redeploy with `{deploy_command(network.show_active())}`")
    return Contracts(RLToken.at(addresses["RLToken"]), TaskRegistry.at(addresses["TaskRegistry"]),
                     TaskFront.at(addresses["TaskFront"]), record["admin"])


def task_params(args: tuple, env=os.environ, development: bool = True) -> TaskParams:
    """TaskParams from [spec_cid, spec_digest, bounty_drl] arguments, else the environment, else
    (on a development network only) the sample spec."""
    cid = args[0] if len(args) > 0 else env.get("DECENTRL_SPEC_CID")
    digest = args[1] if len(args) > 1 else env.get("DECENTRL_SPEC_DIGEST")
    bounty = args[2] if len(args) > 2 else env.get("DECENTRL_BOUNTY", DEFAULT_BOUNTY_DRL)
    if not development and not (cid and digest):
        raise SubmitError("give the spec's CID and digest (arguments, or $DECENTRL_SPEC_CID and "
                          "$DECENTRL_SPEC_DIGEST): nodes take only a task whose spec they can fetch and match to its "
                          "digest; `decentrl task submit SPEC` stores a spec file and submits it")
    cid = cid or DEFAULT_SPEC_CID
    try:
        digest_bytes = keccak(text=cid) if not digest else bytes.fromhex(str(digest).removeprefix("0x"))
    except ValueError:
        digest_bytes = b""
    if len(digest_bytes) != 32:
        raise SubmitError(f"spec digest must be 32 bytes of hex, got {digest!r}")
    try:
        wei = int(float(bounty) * TOKEN)
    except ValueError:
        raise SubmitError(f"the bounty must be a number of DRL, got {bounty!r}") from None
    return TaskParams(spec_cid=cid, spec_digest=digest_bytes, bounty=wei)


def check_funds(contracts: Contracts, requester: str, bounty: int, need_allowance: bool = False) -> None:
    """Raises SubmitError when the requester cannot fund `bounty` (balance, and allowance if asked)."""
    balance = contracts.token.balanceOf(requester)
    if balance < bounty:
        raise SubmitError(f"requester {requester} holds {balance / TOKEN:,.4f} DRL; the bounty is "
                          f"{bounty / TOKEN:,.4f} DRL")
    allowance = contracts.token.allowance(requester, contracts.registry)
    if need_allowance and allowance < bounty:
        raise SubmitError(f"requester {requester} allows the registry {allowance / TOKEN:,.4f} DRL; the bounty is "
                          f"{bounty / TOKEN:,.4f} DRL: approve it first")


SENT_ERRORS = (VirtualMachineError, ValueError)
"""What a failed send raises: a revert on a development network; on a live one, brownie's
ValueError("Gas estimation failed: 'ErrorName: args'...") for a revert at the estimate, and the
node's ValueError for a sender without the ETH for gas."""


def explain(exc: Exception, what: str) -> SubmitError:
    """A SubmitError naming the revert (brownie's 'ErrorName: args') and what it means."""
    msg = getattr(exc, "revert_msg", None) or str(exc)
    if msg.startswith("Gas estimation failed: "):
        msg = msg.removeprefix("Gas estimation failed: ").split(". This transaction")[0].strip("'\"").strip()
    if "insufficient funds" in msg.lower():
        return SubmitError(f"{what} was not sent: its sender has too little ETH for gas ({msg})")
    hint = next((h for name, h in HINTS.items() if msg.startswith(name)), "see the revert above")
    return SubmitError(f"{what} reverted: {msg} ({hint})")


def submit_signed(contracts: Contracts, requester, relayer, params: TaskParams, permit: bool = True) -> int:
    """The requester signs (CreateTask, and a permit unless `permit` is False); the relayer sends
    createTaskWithSig. Returns the task id."""
    check_funds(contracts, requester.address, params.bounty, need_allowance=not permit)
    signed: SignedTask = sign_task(requester.private_key, requester.address, params, contracts.front,
                                   token=contracts.token if permit else None)
    try:
        tx = contracts.front.createTaskWithSig(*signed.args(), {"from": relayer})
    except SENT_ERRORS as exc:
        raise explain(exc, "createTaskWithSig") from None
    return tx.events["TaskCreated"]["taskId"]


def submit_direct(contracts: Contracts, requester, params: TaskParams) -> int:
    """The requester approves the bounty (when needed) and sends createTask itself."""
    check_funds(contracts, requester.address, params.bounty)
    try:
        if contracts.token.allowance(requester, contracts.registry) < params.bounty:
            contracts.token.approve(contracts.registry, params.bounty, {"from": requester})
        tx = contracts.registry.createTask(params.as_tuple(), {"from": requester})
    except SENT_ERRORS as exc:
        raise explain(exc, "createTask") from None
    return tx.events["TaskCreated"]["taskId"]


# ---------------------------------------------------------------- entry points


def _contracts() -> Contracts:
    if not is_development():
        return load_contracts()
    try:
        return load_contracts()
    except (FileNotFoundError, SubmitError) as exc:
        print(f"{exc}\n-> development network: deploying a fresh set first")
        write_deployment(deploy(accounts[0]))
        return load_contracts()


def _account(env_var: str, default_id: str, dev_fallback):
    account_id = os.environ.get(env_var, default_id)
    if account_id in accounts.load() or not is_development():
        return load_brownie_account(account_id, env_var)
    account = dev_fallback()
    print(f"no brownie account '{account_id}' (set {env_var} or `brownie accounts new {account_id}`): "
          f"development network, using {account.address} instead")
    return account


def _requester(contracts: Contracts, bounty: int):
    def fresh_funded():
        account = accounts.add(secrets.token_hex(32))
        admin = accounts.at(contracts.admin, force=True)
        contracts.token.transfer(account, bounty, {"from": admin})
        admin.transfer(account, 10**18)  # gas for `direct`; the signed path needs none
        return account

    return _account("DECENTRL_REQUESTER", "requester", fresh_funded)


def _user_errors(entry):
    """A script entry point whose ScriptError ends the run with its message, not a traceback."""
    @functools.wraps(entry)
    def run(*args):
        try:
            return entry(*args)
        except ScriptError as exc:
            raise SystemExit(f"Error: {exc}") from None
    return run


@_user_errors
def signed(*args):
    """createTaskWithSig: the requester signs, the relayer sends."""
    contracts = _contracts()
    params = task_params(args, development=is_development())
    requester = _requester(contracts, params.bounty)
    relayer = _account("DECENTRL_RELAYER", "relayer", lambda: accounts[1])
    print(f"network {network.show_active()}  registry {contracts.registry.address}")
    print(f"requester {requester.address} signs: spec {params.spec_cid} digest 0x{params.spec_digest.hex()} "
          f"bounty {params.bounty / TOKEN:,.4f} DRL; relayer {relayer.address} sends")
    task_id = submit_signed(contracts, requester, relayer, params)
    print(f"task id {task_id}")
    return task_id


@_user_errors
def direct(*args):
    """createTask sent by the requester itself (needs ETH for gas)."""
    contracts = _contracts()
    params = task_params(args, development=is_development())
    requester = _requester(contracts, params.bounty)
    task_id = submit_direct(contracts, requester, params)
    print(f"task id {task_id}")
    return task_id


def main(*args):
    return signed(*args)


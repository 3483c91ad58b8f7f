"""Deploy the decentrl protocol and write deployments/<network>.json.

    brownie run scripts/deploy.py                           # development network (anvil)
    brownie run scripts/deploy.py live --network NAME       # a live network: encrypted account, confirm
    brownie run scripts/deploy.py live ACCOUNT yes --network NAME   # unattended ($DECENTRL_DEPLOYER_PASSWORD)

Every later script and the workers read the addresses from deployments/<network>.json
($DECENTRL_DEPLOYMENTS_DIR replaces the deployments/ folder, e.g. for tests).
"""

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

from brownie import (
    AggregateAttest,
    DisputeManager,
    FaultProver,
    JuryLogic,
    KeyringBoard,
    ProtocolConfig,
    Reputation,
    RewardVault,
    RLToken,
    RoundLogic,
    SlotLogic,
    StakeManager,
    StateView,
    TaskFront,
    TaskRegistry,
    accounts,
    network,
    web3,
)
from brownie._config import CONFIG

from scripts import brownie_patches
from workers.chain.deployment import genesis_hash
from workers.chain.layout import GRANTS, LIBRARIES
from workers.protocol import Role

brownie_patches.install()

DEPLOYMENTS_DIR = Path(__file__).resolve().parent.parent / "deployments"


def deployments_dir() -> Path:
    """Where deployment records live: $DECENTRL_DEPLOYMENTS_DIR, else deployments/."""
    return Path(os.environ.get("DECENTRL_DEPLOYMENTS_DIR") or DEPLOYMENTS_DIR)


TOKEN = 10**18
CONTRACT_GAS = {
    "RLToken": 1_000_000, "StakeManager": 2_750_000, "Reputation": 1_150_000, "RewardVault": 1_100_000,
    "ProtocolConfig": 1_045_000, "RoundLogic": 2_780_000, "AggregateAttest": 1_430_000, "SlotLogic": 1_500_000,
    "TaskRegistry": 4_100_000, "TaskFront": 990_000, "KeyringBoard": 520_000, "JuryLogic": 1_860_000,
    "FaultProver": 850_000, "DisputeManager": 4_060_000, "StateView": 2_920_000,
}
"""Gas of each contract's deployment, with ~5% room (measured on anvil, prague; tests/scripts/
test_live_deploy.py checks a live deploy's stay under them)."""
WIRING_GAS = 450_000
"""The role grants, setTaskFront and setDisputeManager (seven transactions of ~52k gas each), with room."""
DEPLOY_GAS = sum(CONTRACT_GAS.values()) + WIRING_GAS
"""Gas of a whole deploy: a live deploy refuses to start without the ETH for what it has left to send."""


class ScriptError(RuntimeError):
    """A script run that cannot go on; the message says what to do (printed without a traceback)."""


class DeployError(ScriptError):
    """A deploy that must not start (or go on)."""


def load_brownie_account(account_id: str, env_var: str, password: str | None = None):
    """The encrypted brownie account `account_id` (its password asked for unless given); a
    missing keystore or a wrong password is a ScriptError naming `env_var`, which chooses it."""
    try:
        return accounts.load(account_id, password=password)
    except FileNotFoundError:
        raise ScriptError(f"no brownie account {account_id!r}: create it with `brownie accounts new {account_id}` "
                          f"(or `brownie accounts import {account_id} KEYSTORE.json`), or name another with "
                          f"${env_var}") from None
    except ValueError as exc:
        if "MAC mismatch" not in str(exc):
            raise
        raise ScriptError(f"wrong password for brownie account {account_id!r}") from None


DEFAULT_WINDOW_S = 24 * 3600
"""ProtocolConfig's dispute and vote windows as constructed."""
DEV_DISPUTE_WINDOW_S, DEV_VOTE_WINDOW_S = 3600, 600
"""A development deploy's windows: ProtocolConfig's least (1 h, 10 min)."""


def _duration(seconds: int) -> str:
    return f"{seconds // 3600} h" if seconds % 3600 == 0 else f"{seconds // 60} min"


@dataclass(frozen=True)
class DeployParams:
    """Protocol parameters fixed at deployment (all governable later except the supply)."""

    supply: int = 1_000_000_000 * TOKEN
    # by Role: Sampler, Trainer, Validator
    min_stakes: tuple = (100 * TOKEN, 500 * TOKEN, 200 * TOKEN)
    unbonding_period: int = 7 * 24 * 3600
    treasury: str | None = None  # default: the admin
    # Makes the DisputeManager the registry's (SPECIFICATION.md, "Disputes"): round pay is then held
    # for the dispute window and released by DisputeManager.releasePay, which every node sends for
    # its own pay (workers/node/handlers/dispute_handlers.py). False deploys the contract and its
    # grants but leaves pay credited at once and nothing disputable.
    activate_disputes: bool = True
    # ProtocolConfig's dispute and vote windows in seconds (None: its defaults, 1 day each; bounds
    # 1 h - 3 days and 10 min - 36 h). The development deploy shortens them.
    dispute_window: int | None = None
    vote_window: int | None = None

    def describe(self) -> str:
        stakes = zip(Role, self.min_stakes, strict=True)
        windows = (f"dispute window {_duration(self.dispute_window or DEFAULT_WINDOW_S)}, "
                   f"vote window {_duration(self.vote_window or DEFAULT_WINDOW_S)}")
        disputes = (f"active: pay held for the dispute window ({windows})" if self.activate_disputes
                    else "deployed, not active (pay credited at once, nothing disputable)")
        return "\n".join(
            [
                f"  token supply       {self.supply / TOKEN:,.0f} DRL",
                *(f"  min stake {r.name.lower():<9} {s / TOKEN:,.0f} DRL" for r, s in stakes),
                f"  unbonding period   {self.unbonding_period} s",
                f"  treasury           {self.treasury or '(admin)'}",
                f"  disputes           {disputes}",
                "  payout split       70% trainers / 20% samplers / 10% validators",
                "  reputation         start 70, threshold 60 of 100",
            ]
        )


DEVELOPMENT_PARAMS = DeployParams(dispute_window=DEV_DISPUTE_WINDOW_S, vote_window=DEV_VOTE_WINDOW_S)
"""`brownie run scripts/deploy.py` on a development network (and scripts/demo.py)."""


@dataclass
class Deployment:
    token: object
    stakes: object
    reputation: object
    vault: object
    config: object
    registry: object
    front: object
    keyrings: object
    disputes: object
    state: object  # StateView: every read of task and dispute state
    libraries: dict  # name -> the deployed logic libraries the cores are linked against
    admin: str
    params: DeployParams = field(default_factory=DeployParams)

    def contracts(self) -> dict:
        return {
            "RLToken": self.token,
            "StakeManager": self.stakes,
            "Reputation": self.reputation,
            "RewardVault": self.vault,
            "ProtocolConfig": self.config,
            **{name: self.libraries[name] for name in LIBRARIES["TaskRegistry"]},
            "TaskRegistry": self.registry,
            "TaskFront": self.front,
            "KeyringBoard": self.keyrings,
            **{name: self.libraries[name] for name in LIBRARIES["DisputeManager"]},
            "DisputeManager": self.disputes,
            "StateView": self.state,
        }

    def addresses(self) -> dict:
        return {name: c.address for name, c in self.contracts().items()}

    def start_blocks(self) -> dict:
        """{name: block of the contract's deployment}: where an indexer (the subgraph) starts, so
        that it sees the constructors' events (parameters, role grants, the mint)."""
        return {name: c.tx.block_number for name, c in self.contracts().items() if getattr(c, "tx", None) is not None}


def _write_json(path: Path, document: dict) -> None:
    """Writes `document` through a temporary file and a rename: a reader never sees half of it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    written = path.with_name(path.name + ".tmp")
    written.write_text(json.dumps(document, indent=2) + "\n")
    os.replace(written, path)


class Progress:
    """A live deploy's contracts so far, in deployments/<network>.partial.json after each one:
    a deploy that stopped (the RPC, the gas price, Ctrl-C) is taken up where it stopped when it is
    run again, on the same chain, by the same deployer, with the same parameters; the file goes
    once the record is written."""

    def __init__(self, path: Path, admin: str, params: DeployParams):
        self.path = Path(path)
        self.key = {"chainId": web3.eth.chain_id, "genesisHash": genesis_hash(web3), "admin": admin,
                    "params": repr(params)}
        self.addresses: dict[str, str] = {}
        if self.path.exists():
            try:
                saved = json.loads(self.path.read_text())
            except ValueError:
                saved = {}
            if saved.get("key") == self.key:
                self.addresses = dict(saved.get("contracts", {}))

    def contract(self, name: str, container, make):
        """The contract `name` deployed before (its code still there), else `make()`'s, recorded."""
        address = self.addresses.get(name)
        if address and web3.eth.get_code(address):
            print(f"  {name:<16}{address}  (deployed by the run that stopped: taken up)")
            return container.at(address)
        contract = make()
        self.addresses[name] = contract.address
        _write_json(self.path, {"key": self.key, "contracts": self.addresses})
        return contract

    def gas_left(self) -> int:
        """The gas of the contracts not yet deployed, and of the wiring (a grant already made is
        not sent again, but is counted: it is a small part)."""
        deployed = {name for name, address in self.addresses.items() if web3.eth.get_code(address)}
        return sum(gas for name, gas in CONTRACT_GAS.items() if name not in deployed) + WIRING_GAS

    def done(self) -> None:
        self.path.unlink(missing_ok=True)


def _just_deploy(name: str, container, make):
    return make()


def _grant(contract, role, account, tx) -> None:
    if not contract.hasRole(role, account):
        contract.grantRole(role, account, tx)


LIBRARY_CONTAINERS = {"RoundLogic": RoundLogic, "AggregateAttest": AggregateAttest, "SlotLogic": SlotLogic,
                      "JuryLogic": JuryLogic, "FaultProver": FaultProver}


def _deploy_libraries(step, core: str, tx) -> dict:
    """The core's logic libraries (workers.chain.layout), deployed before it: brownie links the
    latest deployment of each into the core."""
    return {name: step(name, container, lambda container=container: container.deploy(tx))
            for name, container in ((name, LIBRARY_CONTAINERS[name]) for name in LIBRARIES[core])}


def deploy(admin, params: DeployParams = DeployParams(), progress: Progress | None = None) -> Deployment:
    """Deploys every contract from `admin` and wires the roles between them; with `progress`, a
    contract deployed by an earlier run that stopped is taken up, and a role already granted is
    not granted again. Libraries are deployed before the contracts brownie links them into."""
    tx = {"from": admin}
    treasury = params.treasury or admin.address
    step = progress.contract if progress is not None else _just_deploy
    token = step("RLToken", RLToken, lambda: RLToken.deploy(admin, params.supply, tx))
    stakes = step("StakeManager", StakeManager,
                  lambda: StakeManager.deploy(token, admin, list(params.min_stakes), params.unbonding_period, tx))
    reputation = step("Reputation", Reputation, lambda: Reputation.deploy(admin, tx))
    vault = step("RewardVault", RewardVault, lambda: RewardVault.deploy(token, admin, tx))
    config = step("ProtocolConfig", ProtocolConfig, lambda: ProtocolConfig.deploy(admin, treasury, tx))
    libraries = _deploy_libraries(step, "TaskRegistry", tx)
    registry = step("TaskRegistry", TaskRegistry,
                    lambda: TaskRegistry.deploy(token, stakes, reputation, vault, config, admin, tx))
    # signed task creation (EIP-712 requests, permits) goes through the front
    front = step("TaskFront", TaskFront, lambda: TaskFront.deploy(registry, tx))
    # encrypted inputs' keyrings (SPECIFICATION 5.7)
    keyrings = step("KeyringBoard", KeyringBoard, lambda: KeyringBoard.deploy(registry, tx))
    libraries.update(_deploy_libraries(step, "DisputeManager", tx))
    disputes = step("DisputeManager", DisputeManager,
                    lambda: DisputeManager.deploy(token, registry, stakes, reputation, vault, config, tx))
    state = step("StateView", StateView, lambda: StateView.deploy(registry, disputes, tx))
    deployed = {"StakeManager": stakes, "Reputation": reputation, "RewardVault": vault, "TaskRegistry": registry,
                "DisputeManager": disputes}
    for contract, role, grantee in GRANTS:
        _grant(deployed[contract], getattr(deployed[contract], role)(), deployed[grantee], tx)
    if state.taskFront() != front.address:
        registry.setTaskFront(front, tx)
    if params.dispute_window is not None and config.disputeWindow() != params.dispute_window:
        config.setDisputeWindow(params.dispute_window, tx)
    if params.vote_window is not None and config.voteWindow() != params.vote_window:
        config.setVoteWindow(params.vote_window, tx)
    if params.activate_disputes and state.disputeManager() != disputes.address:
        registry.setDisputeManager(disputes, tx)
    return Deployment(token, stakes, reputation, vault, config, registry, front, keyrings, disputes, state,
                      libraries, admin.address, params)


def write_deployment(dep: Deployment, network_name: str | None = None) -> Path:
    """Writes deployments/<network>.json."""
    network_name = network_name or network.show_active()
    path = deployments_dir() / f"{network_name}.json"
    record = {
        "network": network_name,
        "chainId": web3.eth.chain_id,
        "genesisHash": genesis_hash(web3),
        "block": web3.eth.block_number,
        "admin": dep.admin,
        "contracts": dep.addresses(),
        "startBlocks": dep.start_blocks(),
        "params": {**asdict(dep.params), "min_stakes": [str(s) for s in dep.params.min_stakes],
                   "supply": str(dep.params.supply)},
        # Each contract's ABI beside its address, so that any client can bind it from this file alone.
        "abis": {name: c.abi for name, c in dep.contracts().items()},
    }
    _write_json(path, record)
    return path


def deploy_command(network_name: str) -> str:
    """The command that deploys to `network_name`: `live` unless it is a development network."""
    if CONFIG.network_type == "development" and network_name == network.show_active():
        return "brownie run scripts/deploy.py"
    return f"brownie run scripts/deploy.py live --network {network_name}"


def load_deployment(network_name: str | None = None) -> dict:
    """Reads deployments/<network>.json; the error says how to create it."""
    network_name = network_name or network.show_active()
    path = deployments_dir() / f"{network_name}.json"
    if not path.exists():
        raise FileNotFoundError(f"{path} not found: deploy first with `{deploy_command(network_name)}`")
    return json.loads(path.read_text())


def _print_addresses(dep: Deployment) -> None:
    for name, address in dep.addresses().items():
        print(f"  {name:<16}{address}")


def main():
    """Development deploy: the first unlocked anvil account is admin and treasury; disputes on, with
    ProtocolConfig's shortest windows (1 h to dispute a round, 10 min to vote)."""
    if CONFIG.network_type != "development":
        raise SystemExit(f"Error: scripts/deploy.py without `live` deploys from the RPC's first unlocked account, "
                         f"for development networks only; for {network.show_active()}: "
                         f"`{deploy_command(network.show_active())}`")
    dep = deploy(accounts[0], DEVELOPMENT_PARAMS)
    path = write_deployment(dep)
    print(f"Deployed to {network.show_active()} (chain {web3.eth.chain_id}); addresses in {path}")
    _print_addresses(dep)
    return dep


YES, NO = ("y", "yes", "true", "1"), ("", "n", "no", "false", "0")


def _yes(value) -> bool:
    """The `live` script's confirmation argument (brownie passes script arguments as strings)."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text not in YES + NO:
        raise DeployError(f"the confirmation argument is {value!r}: give `yes` to deploy without asking, or "
                          "leave it out to be asked")
    return text in YES


def _check_live_target() -> None:
    """The RPC is the chain the network is configured for, and no deployment of it is recorded yet."""
    configured, chain = CONFIG.active_network.get("chainid"), web3.eth.chain_id
    if configured is not None and int(configured) != chain:
        raise DeployError(f"network {network.show_active()} is configured for chain {configured}, but its RPC "
                          f"{CONFIG.active_network.get('host')} is chain {chain}: fix the network (`brownie networks "
                          f"modify {network.show_active()} ...`) before deploying")
    path = deployments_dir() / f"{network.show_active()}.json"
    if path.exists():
        try:
            record = json.loads(path.read_text())
            registry = record["contracts"]["TaskRegistry"] if record.get("chainId") == chain else None
        except (ValueError, KeyError, TypeError):
            registry = None
        if registry and web3.eth.get_code(registry):
            raise DeployError(f"{path} already records a deployment on this chain (TaskRegistry {registry} is "
                              "live), which operators and requesters use: a second deploy would replace it. To "
                              "deploy another set anyway, move that file away first")


def _check_funds(admin, progress: Progress) -> None:
    price, gas = web3.eth.gas_price, progress.gas_left()
    need, held = gas * price, web3.eth.get_balance(admin.address)
    if held < need:
        what = "a deploy takes" if gas == DEPLOY_GAS else "the rest of the deploy that stopped takes"
        raise DeployError(f"the deployer {admin.address} holds {held / 1e18:.4f} ETH; {what} about "
                          f"{gas:,} gas, {need / 1e18:.4f} ETH at the current {price / 1e9:.3g} gwei: fund it "
                          "first (nothing was sent)")


def live(account_id: str | None = None, assume_yes=False):
    """Live deploy: loads an encrypted brownie account, prints the parameters and asks to confirm
    before sending anything. The account is `account_id`, else $DECENTRL_DEPLOYER (default
    "deployer"); its password is asked for, or read from $DECENTRL_DEPLOYER_PASSWORD (for
    unattended runs, with `yes` as the second argument; never printed). Refuses, sending nothing,
    when the RPC is not the network's configured chain, a deployment of it is already recorded,
    or the account cannot pay for the deploy."""
    try:
        return _live(account_id, assume_yes)
    except ScriptError as exc:
        raise SystemExit(f"Error: {exc}") from None


def _live(account_id: str | None, assume_yes):
    account_id = account_id or os.environ.get("DECENTRL_DEPLOYER", "deployer")
    confirmed = _yes(assume_yes)
    _check_live_target()
    admin = load_brownie_account(account_id, "DECENTRL_DEPLOYER", os.environ.get("DECENTRL_DEPLOYER_PASSWORD"))
    params = DeployParams()
    print(f"Network   {network.show_active()} (chain {web3.eth.chain_id})")
    print(f"Deployer  {admin.address}  balance {web3.eth.get_balance(admin.address) / 1e18:.4f} ETH")
    print(params.describe())
    progress = Progress(deployments_dir() / f"{network.show_active()}.partial.json", admin.address, params)
    _check_funds(admin, progress)
    if not confirmed:
        try:
            answer = input("Deploy with these parameters? [y/N] ").strip().lower()
        except EOFError:
            print("\nAborted: no answer (stdin is closed): nothing was sent. To deploy unattended, pass `yes`: "
                  f"`brownie run scripts/deploy.py live {account_id} yes --network {network.show_active()}`")
            return None
        if answer not in ("y", "yes"):
            print("Aborted: nothing was sent.")
            return None
    dep = deploy(admin, params, progress)
    path = write_deployment(dep)
    progress.done()
    print(f"Deployed; addresses in {path}")
    _print_addresses(dep)
    return dep

"""Deploy the decentrl protocol and write deployments/<network>.json.

    brownie run scripts/deploy.py                       # development network (anvil)
    brownie run scripts/deploy.py live --network NAME   # a live network: encrypted account, confirm

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
    KeyringBoard,
    RLToken,
    Reputation,
    RewardVault,
    RoundLogic,
    StakeManager,
    TaskRegistry,
    accounts,
    network,
    web3,
)

from workers.chain.deployment import genesis_hash
from workers.protocol import Role

DEPLOYMENTS_DIR = Path(__file__).resolve().parent.parent / "deployments"


def deployments_dir() -> Path:
    """Where deployment records live: $DECENTRL_DEPLOYMENTS_DIR, else deployments/."""
    return Path(os.environ.get("DECENTRL_DEPLOYMENTS_DIR") or DEPLOYMENTS_DIR)
TOKEN = 10**18


@dataclass(frozen=True)
class DeployParams:
    """Protocol parameters fixed at deployment (all governable later except the supply)."""

    supply: int = 1_000_000_000 * TOKEN
    # by Role: Sampler, Trainer, Validator
    min_stakes: tuple = (100 * TOKEN, 500 * TOKEN, 200 * TOKEN)
    unbonding_period: int = 7 * 24 * 3600
    treasury: str | None = None  # default: the admin
    # Makes the DisputeManager the registry's (SPECIFICATION.md, "Disputes"): round pay is then held
    # for the dispute window and released by DisputeManager.releasePay. Off until the nodes run a
    # release keeper; the contract and its other grants are deployed either way.
    activate_disputes: bool = False

    def describe(self) -> str:
        return "\n".join(
            [
                f"  token supply       {self.supply / TOKEN:,.0f} DRL",
                *(f"  min stake {r.name.lower():<9}{s / TOKEN:,.0f} DRL" for r, s in zip(Role, self.min_stakes)),
                f"  unbonding period   {self.unbonding_period} s",
                f"  treasury           {self.treasury or '(admin)'}",
                f"  disputes           {'active (pay held for the dispute window)' if self.activate_disputes else 'deployed, not active'}",
                "  payout split       70% trainers / 20% samplers / 10% validators",
                "  reputation         start 70, threshold 60 of 100",
            ]
        )


@dataclass
class Deployment:
    token: object
    stakes: object
    reputation: object
    vault: object
    registry: object
    round_logic: object
    keyrings: object
    aggregate_attest: object
    disputes: object
    admin: str
    params: DeployParams = field(default_factory=DeployParams)

    def contracts(self) -> dict:
        return {
            "RLToken": self.token,
            "StakeManager": self.stakes,
            "Reputation": self.reputation,
            "RewardVault": self.vault,
            "TaskRegistry": self.registry,
            "RoundLogic": self.round_logic,
            "KeyringBoard": self.keyrings,
            "AggregateAttest": self.aggregate_attest,
            "DisputeManager": self.disputes,
        }

    def addresses(self) -> dict:
        return {name: c.address for name, c in self.contracts().items()}

    def start_blocks(self) -> dict:
        """{name: block of the contract's deployment}: where an indexer (the subgraph) starts, so
        that it sees the constructors' events (parameters, role grants, the mint)."""
        return {name: c.tx.block_number for name, c in self.contracts().items() if getattr(c, "tx", None) is not None}


def deploy(admin, params: DeployParams = DeployParams()) -> Deployment:
    """Deploys every contract from `admin` and wires the roles between them."""
    tx = {"from": admin}
    treasury = params.treasury or admin.address
    token = RLToken.deploy(admin, params.supply, tx)
    stakes = StakeManager.deploy(token, admin, list(params.min_stakes), params.unbonding_period, tx)
    reputation = Reputation.deploy(admin, tx)
    vault = RewardVault.deploy(token, admin, tx)
    round_logic = RoundLogic.deploy(tx)  # linked into TaskRegistry by brownie
    aggregate_attest = AggregateAttest.deploy(tx)  # likewise
    registry = TaskRegistry.deploy(token, stakes, reputation, vault, admin, treasury, tx)
    stakes.grantRole(stakes.PROTOCOL_ROLE(), registry, tx)
    reputation.grantRole(reputation.REPORTER_ROLE(), registry, tx)
    vault.grantRole(vault.ESCROW_ROLE(), registry, tx)
    keyrings = KeyringBoard.deploy(registry, tx)  # encrypted inputs' keyrings (SPECIFICATION 5.7)
    disputes = DisputeManager.deploy(token, registry, stakes, reputation, vault, admin, tx)
    stakes.grantRole(stakes.PROTOCOL_ROLE(), disputes, tx)
    reputation.grantRole(reputation.REPORTER_ROLE(), disputes, tx)
    if params.activate_disputes:
        registry.setDisputeManager(disputes, tx)
    return Deployment(token, stakes, reputation, vault, registry, round_logic, keyrings, aggregate_attest,
                      disputes, admin.address, params)


def write_deployment(dep: Deployment, network_name: str | None = None) -> Path:
    network_name = network_name or network.show_active()
    deployments_dir().mkdir(parents=True, exist_ok=True)
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
    }
    path.write_text(json.dumps(record, indent=2) + "\n")
    return path


def load_deployment(network_name: str | None = None) -> dict:
    """Reads deployments/<network>.json; the error says how to create it."""
    network_name = network_name or network.show_active()
    path = deployments_dir() / f"{network_name}.json"
    if not path.exists():
        raise FileNotFoundError(
            f"{path} not found: deploy first with `brownie run scripts/deploy.py --network {network_name}`"
        )
    return json.loads(path.read_text())


def main():
    """Development deploy: the first unlocked anvil account is admin and treasury."""
    dep = deploy(accounts[0])
    path = write_deployment(dep)
    print(f"Deployed to {network.show_active()} (chain {web3.eth.chain_id}); addresses in {path}")
    for name, address in dep.addresses().items():
        print(f"  {name:<13}{address}")
    return dep


def live(account_id: str | None = None, assume_yes: bool = False):
    """Live deploy: loads an encrypted brownie account, prints the parameters and asks to confirm
    before sending anything. The account is $DECENTRL_DEPLOYER (default "deployer"); its password
    is asked for, or read from $DECENTRL_DEPLOYER_PASSWORD (for unattended runs; never printed)."""
    account_id = account_id or os.environ.get("DECENTRL_DEPLOYER", "deployer")
    admin = accounts.load(account_id, password=os.environ.get("DECENTRL_DEPLOYER_PASSWORD"))
    params = DeployParams()
    print(f"Network   {network.show_active()} (chain {web3.eth.chain_id})")
    print(f"Deployer  {admin.address}  balance {web3.eth.get_balance(admin.address) / 1e18:.4f} ETH")
    print(params.describe())
    answer = "y" if assume_yes else input("Deploy with these parameters? [y/N] ").strip().lower()
    if answer != "y":
        print("Aborted: nothing was sent.")
        return None
    dep = deploy(admin, params)
    path = write_deployment(dep)
    print(f"Deployed; addresses in {path}")
    return dep

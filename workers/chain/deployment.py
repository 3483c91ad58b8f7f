"""A deployment: deployments/<network>.json (written by scripts/deploy.py) + the committed ABIs
-> web3 contract objects, after checking that the RPC is the chain the record was made on."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from eth_utils import to_checksum_address
from web3 import Web3

from workers.chain.abi import CONTRACTS, abi_document, load_abi

DEFAULT_DEPLOYMENTS_DIR = Path(__file__).resolve().parents[2] / "deployments"


class DeploymentError(Exception):
    """The deployment record is missing, malformed or for another chain."""


class WrongNetwork(DeploymentError):
    pass


def deployments_dir() -> Path:
    """$DECENTRL_DEPLOYMENTS_DIR, else the repository's deployments/ (as scripts/deploy.py)."""
    return Path(os.environ.get("DECENTRL_DEPLOYMENTS_DIR") or DEFAULT_DEPLOYMENTS_DIR)


def endpoint_of(w3) -> str:
    return getattr(w3.provider, "endpoint_uri", None) or type(w3.provider).__name__


@dataclass
class Deployment:
    """The protocol's contracts on one chain, as web3 contract objects."""

    w3: Web3
    network: str
    chain_id: int
    block: int  # the chain's block number right after the deploy: a safe start for event scans
    addresses: dict
    contracts: dict = field(repr=False)
    record: dict = field(repr=False, default_factory=dict)

    @property
    def registry(self):
        return self.contracts["TaskRegistry"]

    @property
    def stakes(self):
        return self.contracts["StakeManager"]

    @property
    def reputation(self):
        return self.contracts["Reputation"]

    @property
    def vault(self):
        return self.contracts["RewardVault"]

    @property
    def token(self):
        return self.contracts["RLToken"]

    @property
    def keyrings(self):
        """KeyringBoard: where requesters post the keyrings of encrypted inputs (SPECIFICATION 5.7)."""
        return self.contracts["KeyringBoard"]

    @property
    def disputes(self):
        """The DisputeManager."""
        return self.contracts["DisputeManager"]

    @property
    def config(self):
        """ProtocolConfig: role shares, slash rate, treasury, dispute windows and bond."""
        return self.contracts["ProtocolConfig"]

    @property
    def front(self):
        """TaskFront: task creation funded by a permit or relayed from a requester's signature."""
        return self.contracts["TaskFront"]

    @property
    def state(self):
        """StateView: every read of task and dispute state (the cores serve no struct views)."""
        return self.contracts["StateView"]

    def abi_versions(self) -> dict:
        return {name: abi_document(name)["abiHash"] for name in self.contracts}


def contracts_for(w3, addresses: dict) -> dict:
    """{name: contract} for every committed ABI whose contract has an address in `addresses`."""
    return {
        name: w3.eth.contract(address=to_checksum_address(addresses[name]), abi=load_abi(name), decode_tuples=True)
        for name in CONTRACTS
        if name in addresses
    }


def load_deployment(w3, network: str | None = None, path: str | Path | None = None,
                    *, check_code: bool = True) -> Deployment:
    """Reads deployments/<network>.json (or `path`) and binds the committed ABIs to its addresses.
    Raises DeploymentError if the file is missing or incomplete, WrongNetwork if the RPC's chain
    id differs from the record's, and DeploymentError if no code is at the registry address
    (a restarted dev chain)."""
    if path is None:
        if not network:
            raise DeploymentError("say which network's deployment to load (or give a file path)")
        path = deployments_dir() / f"{network}.json"
    path = Path(path)
    if not path.exists():
        raise DeploymentError(
            f"deployment record {path} not found: a network's operators publish its record (give its path "
            f"with --deployment, or put it in {deployments_dir()}); to deploy the protocol yourself: "
            f"`brownie run scripts/deploy.py` (a local chain) or `brownie run scripts/deploy.py live --network "
            f"{network or path.stem}`"
        )
    try:
        record = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise DeploymentError(f"deployment record {path} cannot be read as JSON: {exc}") from None
    if not isinstance(record, dict) or not isinstance(record.get("contracts", {}), dict):
        raise DeploymentError(f"deployment record {path} is not a deployment (an object with chainId and contracts)")
    missing = [name for name in CONTRACTS if name not in record.get("contracts", {})]
    if missing or "chainId" not in record:
        raise DeploymentError(f"deployment record {path} lacks {', '.join(missing) or 'chainId'}")
    rpc_chain = _chain_of(w3, record, path)
    try:
        contracts = contracts_for(w3, record["contracts"])
    except (TypeError, ValueError) as exc:
        raise DeploymentError(f"deployment record {path} has an address that is not one: {exc}") from None
    if check_code:
        _require_registry_code(w3, contracts["TaskRegistry"].address, path)
    return Deployment(
        w3=w3,
        network=record.get("network", network or path.stem),
        chain_id=rpc_chain,
        block=int(record.get("block", 0)),
        addresses={k: to_checksum_address(v) for k, v in record["contracts"].items()},
        contracts=contracts,
        record=record,
    )


def recheck_deployment(deployment: Deployment, path: str | Path) -> Deployment:
    """`deployment` again if `path` still holds its record and its RPC is still that chain with
    the registry's code (load_deployment's errors otherwise); a new load_deployment when the record
    changed. Binding the ABIs is what costs (~0.1 s of CPU), so a periodic check reuses them."""
    path = Path(path)
    try:
        record = json.loads(path.read_text())
    except (OSError, ValueError):
        record = None
    if record != deployment.record:
        return load_deployment(deployment.w3, path=path)
    _chain_of(deployment.w3, record, path)
    _require_registry_code(deployment.w3, deployment.registry.address, path)
    return deployment


def genesis_hash(w3) -> str:
    """The chain's block 0 hash (0x-hex): what tells apart two chains with one id (two local
    chains, or one restarted); a fork of a chain keeps it."""
    return "0x" + bytes(w3.eth.get_block(0)["hash"]).hex()


def _chain_of(w3, record: dict, path: Path) -> int:
    rpc_chain = w3.eth.chain_id
    if int(record["chainId"]) != rpc_chain:
        raise WrongNetwork(
            f"wrong network: deployment is for chain {record['chainId']}, "
            f"the RPC at {endpoint_of(w3)} is chain {rpc_chain} ({path})"
        )
    recorded = record.get("genesisHash")  # records written before it was recorded lack it
    if recorded is not None and str(recorded).lower() != genesis_hash(w3):
        raise WrongNetwork(
            f"wrong network: the RPC at {endpoint_of(w3)} is another chain with id {rpc_chain} (genesis block "
            f"{genesis_hash(w3)[:18]}.., the deployment's is {str(recorded)[:18]}..): point --rpc at the chain "
            f"{path} was deployed on, or deploy again (a restarted local chain is a new chain)"
        )
    return rpc_chain


def _require_registry_code(w3, registry: str, path: Path) -> None:
    if not w3.eth.get_code(registry):
        raise DeploymentError(
            f"no contract at TaskRegistry {registry} on the RPC at {endpoint_of(w3)}: "
            f"the chain was reset since {path} was written; deploy again"
        )

"""The committed, versioned ABIs in workers/chain/abi/ (written by tools/export_abi.py)."""

import json
from functools import lru_cache
from pathlib import Path

ABI_DIR = Path(__file__).resolve().parent / "abi"
CONTRACTS = ("TaskRegistry", "StakeManager", "Reputation", "RewardVault", "RLToken")


@lru_cache(maxsize=None)
def abi_document(name: str) -> dict:
    """{"contract", "version", "abiHash", "abi"} for one contract."""
    path = ABI_DIR / f"{name}.json"
    if not path.exists():
        raise FileNotFoundError(f"no committed ABI for {name!r} in {ABI_DIR} (known: {', '.join(CONTRACTS)})")
    return json.loads(path.read_text())


def load_abi(name: str) -> list:
    return abi_document(name)["abi"]

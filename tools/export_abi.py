"""Export the contracts' ABIs from brownie's build into workers/chain/abi/ and subgraph/abis/.

    brownie compile && .venv/bin/python tools/export_abi.py          # write both
    .venv/bin/python tools/export_abi.py --check                      # exit 1 if either is stale

Each workers/chain/abi/ file is {"contract", "version", "abiHash", "abi"}: `version` is the project
version from pyproject.toml, `abiHash` a keccak of the canonical ABI JSON so a node can log exactly
which ABI it speaks. subgraph/abis/<name>.json is the same canonical ABI as a plain JSON array, the
form graph-cli reads. A core's ABI also carries the events of its logic libraries (TaskRegistry's
RoundLogic, AggregateAttest and SlotLogic; DisputeManager's JuryLogic): their code runs by
delegatecall, so those events are emitted from the core's address.
"""

import argparse
import json
import re
import sys
from pathlib import Path

from eth_utils import keccak

# The committed set and each core's libraries are the workers' own (one list each).
from workers.chain.abi import CONTRACTS
from workers.chain.layout import LIBRARIES as LIBRARIES_OF

ROOT = Path(__file__).resolve().parent.parent
BUILD_DIR = ROOT / "build" / "contracts"
ABI_DIR = ROOT / "workers" / "chain" / "abi"
SUBGRAPH_ABI_DIR = ROOT / "subgraph" / "abis"


def project_version() -> str:
    match = re.search(r'^version\s*=\s*"([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.M)
    return match.group(1)


def _signature(item: dict) -> str:
    def typ(i):
        if i["type"].startswith("tuple"):
            return "(" + ",".join(typ(c) for c in i["components"]) + ")" + i["type"][5:]
        return i["type"]

    return f'{item["type"]}:{item.get("name", "")}(' + ",".join(typ(i) for i in item.get("inputs", [])) + ")"


def canonical_abi(name: str, build_dir: Path = BUILD_DIR) -> list:
    """The contract's ABI plus its libraries' events, deduplicated, sorted by (type, signature)."""
    items = {}
    for source in (name, *LIBRARIES_OF.get(name, ())):
        artifact = json.loads((build_dir / f"{source}.json").read_text())
        for item in artifact["abi"]:
            if source != name and item["type"] != "event":
                continue
            items.setdefault(_signature(item), item)
    return [items[k] for k in sorted(items)]


def abi_hash(abi: list) -> str:
    return "0x" + keccak(text=json.dumps(abi, sort_keys=True, separators=(",", ":"))).hex()


def exported(build_dir: Path = BUILD_DIR) -> dict:
    """{contract name: the JSON text its ABI file must contain}."""
    version = project_version()
    out = {}
    for name in CONTRACTS:
        abi = canonical_abi(name, build_dir)
        doc = {"contract": name, "version": version, "abiHash": abi_hash(abi), "abi": abi}
        out[name] = json.dumps(doc, indent=1, sort_keys=True) + "\n"
    return out


def subgraph_exported(build_dir: Path = BUILD_DIR) -> dict:
    """{contract name: the JSON text its subgraph/abis/ file must contain} (the bare ABI array)."""
    return {name: json.dumps(canonical_abi(name, build_dir), indent=1, sort_keys=True) + "\n" for name in CONTRACTS}


def _differing(expected: dict, abi_dir: Path) -> list:
    return [
        name
        for name, text in expected.items()
        if not (abi_dir / f"{name}.json").exists() or (abi_dir / f"{name}.json").read_text() != text
    ]


def stale(build_dir: Path = BUILD_DIR, abi_dir: Path = ABI_DIR) -> list:
    """Names whose committed ABI file differs from a fresh export (missing files count)."""
    return _differing(exported(build_dir), abi_dir)


def stale_subgraph(build_dir: Path = BUILD_DIR, abi_dir: Path = SUBGRAPH_ABI_DIR) -> list:
    """Names whose subgraph/abis/ file differs from a fresh export (missing files count)."""
    return _differing(subgraph_exported(build_dir), abi_dir)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report stale ABIs (exit 1 if any)")
    args = parser.parse_args(argv)
    targets = ((ABI_DIR, exported()), (SUBGRAPH_ABI_DIR, subgraph_exported()))
    if args.check:
        failed = False
        for abi_dir, expected in targets:
            names = _differing(expected, abi_dir)
            if names:
                print(f"stale ABIs in {abi_dir}: {', '.join(names)}; run tools/export_abi.py", file=sys.stderr)
                failed = True
        if failed:
            return 1
        print("ABIs up to date")
        return 0
    for abi_dir, expected in targets:
        abi_dir.mkdir(parents=True, exist_ok=True)
        for name, text in expected.items():
            (abi_dir / f"{name}.json").write_text(text)
            print(f"wrote {abi_dir.relative_to(ROOT)}/{name}.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())

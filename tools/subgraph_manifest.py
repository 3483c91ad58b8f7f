"""Fill subgraph/subgraph.template.yaml from a deployment record into subgraph/subgraph.yaml.

    .venv/bin/python tools/subgraph_manifest.py --network sepolia          # deployments/sepolia.json
    .venv/bin/python tools/subgraph_manifest.py --deployment path/to/record.json [--graph-network NAME]

The record is what scripts/deploy.py writes (deployments/<network>.json): `contracts` gives each data
source's address; `startBlocks` (written by scripts/deploy.py since the subgraph exists) gives the
block each contract was deployed in, so the subgraph sees the constructors' events. A record without
it (older ones, workers/localnet's) starts every data source at block 0 unless --start-block says
otherwise. The graph network name defaults to the record's `network`; it must be a network the graph
node is configured for. The output is rewritten only when its text changes (make stays quiet).

It refuses a manifest in which an event of a data source's ABI (subgraph/abis/, exported from the
build by tools/export_abi.py) has no handler with its exact signature, a handler names an event the
ABI does not have, or an ABI in subgraph/abis/ declares events but is no data source's: a contract
that grows an event fails `make subgraph` until it is mapped. An ABI without events (StateView, a
periphery that only reads) needs no data source.
"""

import argparse
import json
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SUBGRAPH = ROOT / "subgraph"
ABI_DIR = SUBGRAPH / "abis"
TEMPLATE = SUBGRAPH / "subgraph.template.yaml"
OUT = SUBGRAPH / "subgraph.yaml"
PLACEHOLDER = re.compile(r"\{\{([A-Za-z]+)(?::([A-Za-z]+))?\}\}")
ADDRESS = re.compile(r"^0x[0-9a-fA-F]{40}$")


class ManifestError(Exception):
    """The record cannot fill the template."""


def deployments_dir() -> Path:
    """$DECENTRL_DEPLOYMENTS_DIR, else deployments/ (as scripts/deploy.py)."""
    return Path(os.environ.get("DECENTRL_DEPLOYMENTS_DIR") or ROOT / "deployments")


def data_sources(template: str) -> list:
    """The contract names the template has data sources for (from its {{address:NAME}} slots)."""
    return sorted({name for kind, name in PLACEHOLDER.findall(template) if kind == "address"})


def render(template: str, record: dict, graph_network: str | None = None, start_block: int | None = None) -> str:
    network = graph_network or record.get("network")
    if not network:
        raise ManifestError("the record names no network: pass --graph-network")
    contracts = record.get("contracts", {})
    blocks = record.get("startBlocks", {})

    def fill(match):
        kind, name = match.group(1), match.group(2)
        if kind == "network" and name is None:
            return network
        if kind == "address":
            address = contracts.get(name)
            if not address or not ADDRESS.match(address):
                raise ManifestError(f"the record has no valid address for {name} (got {address!r})")
            return address
        if kind == "startBlock":
            if start_block is not None:
                return str(start_block)
            return str(int(blocks.get(name, 0)))
        raise ManifestError(f"unknown placeholder {match.group(0)} in {TEMPLATE.name}")

    return PLACEHOLDER.sub(fill, template)


def event_signature(item: dict) -> str:
    """An ABI event as a manifest names it: `Name(indexed uint256,address,uint256[3],(uint8,bytes))`."""

    def typ(i):
        if i["type"].startswith("tuple"):
            return "(" + ",".join(typ(c) for c in i["components"]) + ")" + i["type"][5:]
        return i["type"]

    inputs = ",".join(("indexed " if i.get("indexed") else "") + typ(i) for i in item["inputs"])
    return item["name"] + "(" + inputs + ")"


def abi_events(name: str, abi_dir: Path = ABI_DIR) -> list:
    """Signatures of every event in subgraph/abis/<name>.json."""
    abi = json.loads((abi_dir / f"{name}.json").read_text())
    return [event_signature(item) for item in abi if item["type"] == "event"]


def coverage_problems(manifest_text: str, abi_dir: Path = ABI_DIR) -> list:
    """What keeps the manifest from handling exactly the events the ABIs in `abi_dir` declare: each
    data source handles exactly its ABI's events, and each ABI that declares events is a data
    source's."""
    import yaml  # brownie's dependency, in the project's venv

    problems = []
    sources = yaml.safe_load(manifest_text)["dataSources"]
    indexed = {ds["source"]["abi"] for ds in sources}
    for path in sorted(abi_dir.glob("*.json")):
        events = abi_events(path.stem, abi_dir)
        if path.stem not in indexed and events:
            problems.append(f"{path.stem}: no data source, but its ABI declares {', '.join(events)}")
    for ds in sources:
        name, abi = ds["name"], ds["source"]["abi"]
        handled = [h["event"] for h in ds["mapping"].get("eventHandlers", [])]
        declared = abi_events(abi, abi_dir)
        problems += [f"{name}: no handler for {sig}" for sig in declared if sig not in handled]
        problems += [f"{name}: handler for {sig}, which {abi}'s ABI does not declare" for sig in handled
                     if sig not in declared]
        problems += [f"{name}: two handlers for {sig}" for sig in set(handled) if handled.count(sig) > 1]
    return problems


def write(text: str, out: Path) -> bool:
    """Writes `text` to `out` unless it is already there; returns whether it wrote."""
    if out.exists() and out.read_text() == text:
        return False
    out.write_text(text)
    return True


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--network", help="read deployments/<network>.json ($DECENTRL_DEPLOYMENTS_DIR)")
    source.add_argument("--deployment", type=Path, help="read this deployment record")
    parser.add_argument("--graph-network", help="network name for the graph node (default: the record's)")
    parser.add_argument("--start-block", type=int, help="start every data source here (overrides the record)")
    parser.add_argument("--out", type=Path, default=OUT, help=f"where to write (default {OUT.relative_to(ROOT)})")
    args = parser.parse_args(argv)
    path = args.deployment or deployments_dir() / f"{args.network}.json"
    if not path.exists():
        hint = (f"deploy first with `brownie run scripts/deploy.py` (a development network) or `brownie run "
                f"scripts/deploy.py live --network {args.network}`") if args.network else ""
        print(f"deployment record {path} not found{'; ' + hint if hint else ''}", file=sys.stderr)
        return 1
    try:
        text = render(TEMPLATE.read_text(), json.loads(path.read_text()), args.graph_network, args.start_block)
    except ManifestError as exc:
        print(f"{path}: {exc}", file=sys.stderr)
        return 1
    problems = coverage_problems(text)
    if problems:
        print(f"{TEMPLATE.relative_to(ROOT)} does not cover the ABIs in {ABI_DIR.relative_to(ROOT)}:", file=sys.stderr)
        for problem in problems:
            print(f"  {problem}", file=sys.stderr)
        return 1
    if write(text, args.out):
        print(f"wrote {args.out} from {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""workers.chain.abi's enums: every Solidity enum in the committed ABIs decodes to the protocol
enum of the same qualified name, whose members are the Solidity enum's, in order."""

import re
from pathlib import Path

import pytest

from workers import protocol
from workers.chain.abi import CONTRACTS, ENUMS, load_abi, typed_value

ROOT = Path(__file__).resolve().parents[3]
LEFT_AS_INT = {"EpisodeCheck.Fault"}  # a library's internal reason code, never read by the workers


def _enum_names(items):
    for item in items:
        internal = item.get("internalType") or ""
        if internal.startswith("enum "):
            yield internal[len("enum "):]
        yield from _enum_names(item.get("components", ()))


def _solidity_members(qualified: str) -> list[str]:
    """The member names of `enum Name` (in its interface or file), from the contracts' sources."""
    scope, _, name = qualified.rpartition(".")
    for path in (ROOT / "contracts").rglob("*.sol"):
        text = path.read_text()
        if scope and not re.search(rf"\b(interface|contract|library)\s+{scope}\b", text):
            continue
        match = re.search(rf"\benum\s+{name}\s*\{{([^}}]*)\}}", text)
        if match:
            body = re.sub(r"//[^\n]*", "", match.group(1))
            return [m.strip() for m in body.split(",") if m.strip()]
    raise LookupError(f"enum {qualified} not found under contracts/")


def test_every_enum_in_the_abis_has_its_protocol_enum():
    found = {name for contract in CONTRACTS for entry in load_abi(contract)
             for name in _enum_names(entry.get("inputs", []) + entry.get("outputs", []))}
    assert found - LEFT_AS_INT == set(ENUMS)


@pytest.mark.parametrize("qualified", sorted(ENUMS))
def test_protocol_enums_match_their_solidity_members(qualified):
    members = [m.replace("_", "").lower() for m in ENUMS[qualified].__members__]
    assert members == [m.lower() for m in _solidity_members(qualified)]


def test_a_dispute_status_is_not_a_task_status():
    dispute = typed_value({"type": "uint8", "internalType": "enum IDisputeManager.Status"}, 3)
    task = typed_value({"type": "uint8", "internalType": "enum ITaskRegistry.Status"}, 3)
    assert dispute is protocol.DisputeStatus.UPHELD and task is protocol.Status.ACTIVE
    assert typed_value({"type": "uint8", "internalType": "enum EpisodeCheck.Fault"}, 2) == 2

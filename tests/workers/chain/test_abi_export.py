"""The committed ABIs in workers/chain/abi/ match a fresh compile (build/contracts, which
`brownie test` recompiles from contracts/ at session start)."""

import importlib.util
import json
import sys

from chain_services import ROOT

from workers.chain.abi import ABI_DIR, CONTRACTS, abi_document

_spec = importlib.util.spec_from_file_location("export_abi", ROOT / "tools" / "export_abi.py")
export_abi = sys.modules["export_abi"] = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(export_abi)


def test_committed_abis_match_the_build():
    assert export_abi.stale() == [], "stale ABIs: run `.venv/bin/python tools/export_abi.py`"


def test_a_changed_build_is_detected(tmp_path):
    build = tmp_path / "build"
    build.mkdir()
    for name in (*CONTRACTS, *(lib for libs in export_abi.LIBRARIES_OF.values() for lib in libs)):
        artifact = json.loads((export_abi.BUILD_DIR / f"{name}.json").read_text())
        if name == "StakeManager":
            artifact["abi"].append({"type": "event", "name": "Added", "anonymous": False, "inputs": []})
        (build / f"{name}.json").write_text(json.dumps({"abi": artifact["abi"]}))
    assert export_abi.stale(build, ABI_DIR) == ["StakeManager"]


def test_registry_abi_carries_round_logic_events_and_a_version():
    doc = abi_document("TaskRegistry")
    events = {item["name"] for item in doc["abi"] if item["type"] == "event"}
    assert {"PhaseStarted", "VerdictReached", "RoundFinalized", "TaskSettled", "DrawArmed"} <= events
    assert doc["version"] == export_abi.project_version()
    assert doc["abiHash"] == export_abi.abi_hash(doc["abi"])

"""The manifest handles exactly the events the contracts emit, its ABIs are the build's, and it is
filled from a real deployment record (subgraph/README.md)."""

import json
import subprocess

import yaml
from subgraph_support import SUBGRAPH, manifest, subgraph_manifest

from scripts.deploy import write_deployment
from tools import export_abi

CONTRACTS = ("ProtocolConfig", "TaskRegistry", "TaskFront", "StakeManager", "Reputation", "RewardVault",
             "DisputeManager", "KeyringBoard", "RLToken")
# Exported like the others, but emits nothing: the subgraph indexes no periphery that only reads.
WITHOUT_EVENTS = ("StateView",)


def test_every_contract_is_a_data_source():
    assert sorted(ds["name"] for ds in manifest()["dataSources"]) == sorted(CONTRACTS)
    assert sorted(export_abi.CONTRACTS) == sorted(CONTRACTS + WITHOUT_EVENTS)
    # subgraph/abis holds exactly what export_abi writes there (its --check finds no stray file).
    assert sorted(p.stem for p in subgraph_manifest.ABI_DIR.glob("*.json")) == sorted(export_abi.CONTRACTS)
    assert [subgraph_manifest.abi_events(name) for name in WITHOUT_EVENTS] == [[]]


def test_every_event_of_every_abi_has_a_handler():
    text = (SUBGRAPH / "build" / "subgraph.yaml").read_text()
    assert subgraph_manifest.coverage_problems(text) == []
    handled = sum(len(ds["mapping"]["eventHandlers"]) for ds in yaml.safe_load(text)["dataSources"])
    declared = sum(len(subgraph_manifest.abi_events(name)) for name in CONTRACTS)
    assert handled == declared > 70


def test_registry_abi_carries_its_libraries_events():
    events = {sig.split("(")[0] for sig in subgraph_manifest.abi_events("TaskRegistry")}
    # RoundLogic, AggregateAttest and SlotLogic run by delegatecall: their events come from the registry.
    assert {"PhaseStarted", "VerdictReached", "RewardEarned", "PayReclaimed", "AggregateAttested"} <= events
    assert {"SlotAssigned", "TaskStatusChanged", "DrawArmed"} <= events


def test_dispute_manager_abi_carries_jury_logic_events():
    events = {sig.split("(")[0] for sig in subgraph_manifest.abi_events("DisputeManager")}
    # JuryLogic runs by delegatecall: the draw, voting and the jurors' release come from the DisputeManager.
    assert {"JurorDrawArmed", "JurorDrawn", "VotingStarted", "JurorReleased"} <= events


def test_governance_events_are_protocol_configs_alone():
    # Moved out of the cores: a handler left on TaskRegistry or DisputeManager would be refused.
    moved = {"RoleSharesSet", "SlashBpsSet", "TreasurySet", "DisputeWindowSet", "VoteWindowSet", "MinBondSet"}
    emitters = {name for name in CONTRACTS
                if moved & {sig.split("(")[0] for sig in subgraph_manifest.abi_events(name)}}
    assert emitters == {"ProtocolConfig"}
    handled = {ds["name"]: {h["event"].split("(")[0] for h in ds["mapping"]["eventHandlers"]}
               for ds in manifest()["dataSources"]}
    assert handled["ProtocolConfig"] >= moved | {"RoleGranted", "RoleRevoked", "RoleAdminChanged"}
    assert "TaskFrontSet" in handled["TaskRegistry"]
    assert handled["TaskFront"] == {"EIP712DomainChanged"}
    assert not handled["DisputeManager"] & {"RoleGranted", "RoleRevoked", "RoleAdminChanged"}


def test_a_new_event_without_handler_is_reported(tmp_path):
    for name in CONTRACTS:
        items = json.loads((subgraph_manifest.ABI_DIR / f"{name}.json").read_text())
        if name == "StakeManager":
            items.append({"type": "event", "name": "Added", "anonymous": False,
                          "inputs": [{"name": "node", "type": "address", "indexed": True}]})
        (tmp_path / f"{name}.json").write_text(json.dumps(items))
    text = (SUBGRAPH / "build" / "subgraph.yaml").read_text()
    assert subgraph_manifest.coverage_problems(text, tmp_path) == ["StakeManager: no handler for Added(indexed address)"]


def test_an_abi_with_events_and_no_data_source_is_reported(tmp_path):
    for name in export_abi.CONTRACTS:
        (tmp_path / f"{name}.json").write_text((subgraph_manifest.ABI_DIR / f"{name}.json").read_text())
    text = (SUBGRAPH / "build" / "subgraph.yaml").read_text()
    assert subgraph_manifest.coverage_problems(text, tmp_path) == []  # StateView has no events: no data source
    items = json.loads((tmp_path / "StateView.json").read_text())
    items.append({"type": "event", "name": "Viewed", "anonymous": False, "inputs": []})
    (tmp_path / "StateView.json").write_text(json.dumps(items))
    assert subgraph_manifest.coverage_problems(text, tmp_path) == [
        "StateView: no data source, but its ABI declares Viewed()"]


def test_a_changed_signature_is_reported(tmp_path):
    for name in CONTRACTS:
        items = json.loads((subgraph_manifest.ABI_DIR / f"{name}.json").read_text())
        for item in items:
            if item.get("name") == "KeyringPosted":
                item["inputs"][1]["indexed"] = False
        (tmp_path / f"{name}.json").write_text(json.dumps(items))
    problems = subgraph_manifest.coverage_problems((SUBGRAPH / "build" / "subgraph.yaml").read_text(), tmp_path)
    assert problems == [
        "KeyringBoard: no handler for KeyringPosted(indexed uint256,address,string)",
        "KeyringBoard: handler for KeyringPosted(indexed uint256,indexed address,string), which KeyringBoard's ABI "
        "does not declare",
    ]


def test_subgraph_abis_match_the_build():
    # brownie test compiles contracts/ into build/contracts at session start.
    assert export_abi.stale_subgraph() == [], "stale ABIs in subgraph/abis: run `.venv/bin/python tools/export_abi.py`"


def test_a_changed_build_makes_the_subgraph_abi_stale(tmp_path):
    libraries = [lib for libs in export_abi.LIBRARIES_OF.values() for lib in libs]
    for name in (*export_abi.CONTRACTS, *libraries):
        artifact = json.loads((export_abi.BUILD_DIR / f"{name}.json").read_text())
        if name == "Reputation":
            artifact["abi"].append({"type": "event", "name": "Added", "anonymous": False, "inputs": []})
        (tmp_path / f"{name}.json").write_text(json.dumps({"abi": artifact["abi"]}))
    assert export_abi.stale_subgraph(tmp_path) == ["Reputation"]


def test_every_handler_is_exported_by_the_built_wasm():
    built = yaml.safe_load((SUBGRAPH / "build" / "subgraph.yaml").read_text())
    for ds in built["dataSources"]:
        wasm = SUBGRAPH / "build" / ds["mapping"]["file"]
        script = ("const fs=require('fs');const m=new WebAssembly.Module(fs.readFileSync(process.argv[1]));"
                  "console.log(JSON.stringify(WebAssembly.Module.exports(m).map(e=>e.name)))")
        exports = set(json.loads(subprocess.check_output(["node", "-e", script, str(wasm)], text=True)))
        assert {h["handler"] for h in ds["mapping"]["eventHandlers"]} <= exports, ds["name"]


def test_manifest_is_filled_from_a_real_deployment_record(dep, tmp_path, monkeypatch):
    monkeypatch.setenv("DECENTRL_DEPLOYMENTS_DIR", str(tmp_path))
    record_path = write_deployment(dep, "subgraph-test")
    record = json.loads(record_path.read_text())
    out = tmp_path / "subgraph.yaml"
    assert subgraph_manifest.main(["--network", "subgraph-test", "--out", str(out)]) == 0
    doc = yaml.safe_load(out.read_text())
    for ds in doc["dataSources"]:
        assert ds["network"] == "subgraph-test"
        assert ds["source"]["address"] == record["contracts"][ds["name"]]
        # Each data source starts at its contract's deployment, so constructor events are indexed.
        deployed = getattr(dep, {"ProtocolConfig": "config", "TaskRegistry": "registry", "TaskFront": "front",
                                 "StakeManager": "stakes", "Reputation": "reputation", "RewardVault": "vault",
                                 "DisputeManager": "disputes", "KeyringBoard": "keyrings",
                                 "RLToken": "token"}[ds["name"]]).tx.block_number
        assert ds["source"]["startBlock"] == record["startBlocks"][ds["name"]] == deployed
    assert subgraph_manifest.main(["--network", "subgraph-test", "--out", str(out), "--graph-network", "anvil",
                                   "--start-block", "7"]) == 0
    doc = yaml.safe_load(out.read_text())
    assert {(ds["network"], ds["source"]["startBlock"]) for ds in doc["dataSources"]} == {("anvil", 7)}


def test_a_record_without_an_address_is_refused(tmp_path, capsys):
    record = json.loads((SUBGRAPH / "placeholder-deployment.json").read_text())
    del record["contracts"]["KeyringBoard"]
    path = tmp_path / "partial.json"
    path.write_text(json.dumps(record))
    assert subgraph_manifest.main(["--deployment", str(path), "--out", str(tmp_path / "m.yaml")]) == 1
    assert "no valid address for KeyringBoard" in capsys.readouterr().err
    assert subgraph_manifest.main(["--network", "nowhere", "--out", str(tmp_path / "m.yaml")]) == 1
    assert "deploy first" in capsys.readouterr().err


def test_every_schema_type_and_field_has_a_description():
    lines = (SUBGRAPH / "schema.graphql").read_text().splitlines()
    undocumented = []
    in_block = False
    for i, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith(("type ", "enum ")):
            in_block = True
            if not lines[i - 1].strip().startswith('"'):
                undocumented.append(stripped)
            continue
        if stripped == "}":
            in_block = False
        elif in_block and ":" in stripped and not stripped.startswith('"'):
            if not lines[i - 1].strip().endswith('"'):
                undocumented.append(stripped)
    assert undocumented == []

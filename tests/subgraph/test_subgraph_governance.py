"""Parameters, roles, pauses, approvals, keyrings, missed and withheld work, and a fault proven
on-chain, through the compiled mappings."""

import pytest
from subgraph_story import (ADMIN, BOND, MIN_STAKE, REQUESTER, SAMPLERS, TREASURY, TRAINER, governance_story,
                            role_id)
from subgraph_support import address_id

from workers.protocol import Role


@pytest.fixture(scope="module")
def story():
    s = governance_story()
    s.result = s.run()
    assert s.result.error is None, s.result.error
    return s


def test_protocol_parameters_follow_their_setters(story):
    p = story.result.get("Protocol", "decentrl")
    assert (p["trainerBps"], p["samplerBps"], p["validatorBps"], p["slashBps"]) == (7000, 2000, 1000, 1000)
    assert p["treasury"] == TREASURY and p["disputeManager"] == story.addresses["DisputeManager"]
    assert p["taskFront"] == story.addresses["TaskFront"]
    assert p["minStakes"] == [str(MIN_STAKE[r]) for r in (Role.SAMPLER, Role.TRAINER, Role.VALIDATOR)]
    assert p["reputationThreshold"] == 60 and p["reputationDeltas"] == [2, 20, 10, 15, 0, 20]
    assert (p["unbondingPeriod"], p["recoveryCooldown"], p["disputeWindow"], p["voteWindow"]) == (
        "604800", "604800", "86400", "86400")
    assert p["minBond"] == str(BOND) and p["registryPaused"] is False
    assert p["forcedErrorBps"] == 5000
    assert p["minBountyPerSlotRound"] == str(10**16)
    changes = story.result.all("ParameterChange")
    assert {c["parameter"] for c in changes} >= {"RoleSharesSet", "MinStakeSet", "DeltaSet", "MinBondSet"}
    shares = next(c for c in changes if c["parameter"] == "RoleSharesSet")
    assert shares["value"] == "7000/2000/1000" and "key" not in shares
    assert {c["key"] for c in changes if c["parameter"] == "MinStakeSet"} == {"Sampler", "Trainer", "Validator"}


def test_parameter_changes_name_the_contract_that_emitted_them(story):
    by_contract = {}
    for c in story.result.all("ParameterChange"):
        by_contract.setdefault(c["contract"], set()).add(c["parameter"])
    assert by_contract[story.addresses["ProtocolConfig"]] == {
        "RoleSharesSet", "SlashBpsSet", "TreasurySet", "DisputeWindowSet", "VoteWindowSet", "MinBondSet",
        "ForcedErrorBpsSet", "MinBountyPerSlotRoundSet"}
    assert by_contract[story.addresses["TaskRegistry"]] == {"TaskFrontSet", "DisputeManagerSet"}
    front = next(c for c in story.result.all("ParameterChange") if c["parameter"] == "TaskFrontSet")
    assert front["value"] == story.addresses["TaskFront"] and "key" not in front
    assert story.addresses["DisputeManager"] not in by_contract


def test_roles_per_contract(story):
    members = story.result.all("RoleMember")
    assert len(members) == 10  # two roles on five contracts
    assert {m["accessRole"][:42] for m in members} == {
        story.addresses[c] for c in ("ProtocolConfig", "TaskRegistry", "StakeManager", "Reputation", "RewardVault")}
    revoked = [m for m in members if not m["active"]]
    assert len(revoked) == 1 and revoked[0]["accessRole"].startswith(story.addresses["Reputation"])
    changed = [r for r in story.result.all("AccessRole") if r["adminRole"] != "0x" + "00" * 32]
    assert len(changed) == 1 and changed[0]["contract"] == story.addresses["StakeManager"]


def test_protocol_config_has_the_governor_and_the_registry_a_guardian(story):
    # ProtocolConfig's GOVERNOR_ROLE is its own AccessRole, apart from the StakeManager's and the Reputation's.
    config, governor = story.addresses["ProtocolConfig"], "0x" + role_id("GOVERNOR_ROLE").hex()
    access = story.result.get("AccessRole", f"{config}-{governor}")
    assert (access["contract"], access["role"]) == (config, governor)
    member = story.result.get("RoleMember", f"{access['id']}-{ADMIN}")
    assert member["active"] is True and member["changedBy"] == ADMIN
    registry = story.addresses["TaskRegistry"]
    registry_roles = {r["role"] for r in story.result.all("AccessRole") if r["contract"] == registry}
    assert registry_roles == {"0x" + "00" * 32, "0x" + role_id("GUARDIAN_ROLE").hex()}


def test_pause_domain_and_token_events(story):
    pauses = sorted(story.result.all("PauseEvent"), key=lambda e: int(e["blockNumber"]))
    assert [e["paused"] for e in pauses] == [True, False] and pauses[0]["account"] == ADMIN
    assert {d["contract"] for d in story.result.all("DomainChange")} == {
        story.addresses["TaskFront"], story.addresses["RLToken"]}
    allowance = story.result.get("Allowance", f"{REQUESTER}-{story.addresses['TaskRegistry']}")
    assert allowance["value"] == "7000000000000000000"
    # The mint comes from the zero address, which gets no account.
    assert "0x" + "00" * 20 not in story.result.ids("Account")
    assert story.result.get("Account", address_id(ADMIN))["tokenBalance"] == str(10**27)


def test_missed_commit_and_withheld_reveal_vacate_slots(story):
    vacated = {a["node"]: a for a in story.result.all("Assignment") if not a["active"]}
    assert vacated[address_id(SAMPLERS[1])]["vacatedReason"] == "Missed"
    assert vacated[address_id(TRAINER)]["vacatedReason"] == "Withheld"
    assert "node" not in story.result.get("Slot", "1-Trainer-0")
    assert story.result.get("Node", address_id(SAMPLERS[1]))["activeSlots"] == 0
    changes = {c["node"]: c for c in story.result.all("ReputationChange")}
    assert (changes[address_id(SAMPLERS[1])]["delta"], changes[address_id(TRAINER)]["delta"]) == (-10, -20)
    stake = story.result.get("Stake", f"{address_id(TRAINER)}-Trainer")
    assert stake["locked"] == "0" and stake["slashed"] == str(50 * 10**18)


def test_keyring_and_proven_fault(story):
    assert story.result.get("Task", "1")["keyringCid"] == "bafykeyring"
    (keyring,) = story.result.all("Keyring")
    assert keyring["requester"] == REQUESTER and keyring["task"] == "1"
    d = story.result.get("Dispute", "1")
    assert (d["fault"], d["prover"], d["status"]) == ("WrongSeeds", story.events[-2]["params"][1]["value"], "Upheld")

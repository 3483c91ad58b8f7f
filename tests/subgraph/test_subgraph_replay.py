"""The compiled mappings index a real chain: the protocol is deployed and a task played on anvil by
the scripted actors (a missed commit, a vote against the quorum), with governance (a ProtocolConfig
parameter and role), a keyring, an unstake and withdrawals around it; every log the contracts
emitted since deployment goes through the harness, and the entities agree with the contracts' views."""

import copy

import pytest
from brownie import chain
from subgraph_chain import index, mismatches
from subgraph_support import address_id

from scripts.actors import Protocol, ScriptedSampler, ScriptedTrainer, ScriptedValidator, fill_task, play_round
from workers.protocol import Role, Status, TaskParams

TOKEN = 10**18


@pytest.fixture(scope="module")
def played(staked, admin, requester, samplers, trainer, validators, outsider, task_params):
    dep = staked
    proto = Protocol(dep)
    ss = [ScriptedSampler(f"S{i}", a, proto, miss_commit_rounds={1} if i == 1 else ()) for i, a in enumerate(samplers)]
    t = ScriptedTrainer("T", trainer, proto)
    vs = [ScriptedValidator(f"V{i}", a, proto, against_rounds={0} if i == 2 else ()) for i, a in enumerate(validators)]
    dep.config.setSlashBps(1500, {"from": admin})
    dep.config.grantRole(dep.config.GOVERNOR_ROLE(), outsider, {"from": admin})
    dep.config.revokeRole(dep.config.GOVERNOR_ROLE(), outsider, {"from": admin})
    dep.registry.pause({"from": admin})
    dep.registry.unpause({"from": admin})
    dep.stakes.setNodePaused(True, {"from": outsider})
    params = TaskParams(spec_cid=task_params.spec_cid, spec_digest=task_params.spec_digest, bounty=3_000 * TOKEN,
                        num_rounds=2)
    dep.token.approve(dep.registry, params.bounty, {"from": requester})
    task_id = dep.registry.createTask(params.as_tuple(), {"from": requester}).events["TaskCreated"]["taskId"]
    fill_task(proto, task_id, ss, t, outsider)
    dep.keyrings.postKeyring(task_id, "bafykeyring", {"from": requester})
    for _ in range(2):
        play_round(proto, task_id, [*ss, t, *vs], outsider)
    assert proto.task(task_id)["status"] == Status.COMPLETED
    ss[0].withdraw()
    dep.vault.withdraw(requester, dep.vault.claimableOf(requester), {"from": requester})
    dep.stakes.requestUnstake(Role.SAMPLER, 100 * TOKEN, {"from": samplers[0]})
    chain.sleep(7 * 24 * 3600 + 1)
    chain.mine()
    dep.stakes.withdrawUnbonded(Role.SAMPLER, {"from": samplers[0]})
    events, result = index(dep)
    assert result.error is None, result.error
    return dep, task_id, events, result


def test_entities_agree_with_the_contracts(played):
    dep, _, _, result = played
    for entity, at_least in {"Stake": 6, "Node": 7, "Account": 10, "Submission": 5, "Slot": 6, "RoleMember": 10,
                             "HeldPay": 0, "Task": 1}.items():
        assert len(result.all(entity)) >= at_least, entity  # the comparison below is not vacuous
    assert mismatches(result, dep) == []


def test_a_disagreement_is_reported(played):
    dep, task_id, _, result = played
    result = copy.deepcopy(result)
    stake = result.all("Stake")[0]
    stake["locked"] = str(int(stake["locked"]) + 1)
    result.get("Task", str(task_id))["status"] = "Active"
    assert mismatches(result, dep) == [
        f"Stake {stake['id']}.locked: subgraph {int(stake['locked'])} != chain {int(stake['locked']) - 1}",
        f"Task {task_id}.status: subgraph 'Active' != chain 'Completed'",
    ]


def test_the_chain_emitted_what_the_mappings_must_handle(played):
    _, _, events, _ = played
    handled = {ev["handler"] for ev in events}
    assert {"handleTaskCreated", "handleSlotVacated", "handleVerdictReached", "handleRewardEarned", "handleDissented",
            "handleReputationChanged", "handleTaskSettled", "handleRoleGranted", "handleMinStakeSet",
            "handleKeyringPosted", "handleUnbondedWithdrawn", "handlePaused", "handleNodePauseSet"} <= handled
    by_source = {(ev["dataSource"], ev["handler"]) for ev in events}
    # The parameters and their governor come from ProtocolConfig now, the task front's wiring from the registry.
    assert {("ProtocolConfig", h) for h in ("handleRoleSharesSet", "handleSlashBpsSet", "handleTreasurySet",
                                             "handleDisputeWindowSet", "handleVoteWindowSet", "handleMinBondSet",
                                             "handleRoleGranted", "handleRoleRevoked")} <= by_source
    assert ("TaskRegistry", "handleTaskFrontSet") in by_source
    assert {source for source, _ in by_source} >= {"ProtocolConfig", "TaskRegistry", "StakeManager", "Reputation",
                                                   "RewardVault", "KeyringBoard", "RLToken"}


def test_protocol_config_and_task_front_are_indexed(played, admin, outsider):
    dep, _, _, result = played
    config = dep.config.address.lower()
    p = result.get("Protocol", "decentrl")
    assert p["taskFront"] == dep.front.address.lower() and p["slashBps"] == 1500
    slash = sorted((int(c["blockNumber"]), c["value"]) for c in result.all("ParameterChange")
                   if c["parameter"] == "SlashBpsSet")
    assert [value for _, value in slash] == ["1000", "1500"]  # the constructor's, then the governor's
    moved = ("RoleSharesSet", "SlashBpsSet", "TreasurySet", "DisputeWindowSet", "VoteWindowSet", "MinBondSet")
    changes = result.all("ParameterChange")
    # ForcedErrorBpsSet and MinBountyPerSlotRoundSet were born in ProtocolConfig (SPECIFICATION.md 5.5.3, 5.2).
    assert {c["parameter"] for c in changes if c["contract"] == config} == {*moved, "ForcedErrorBpsSet",
                                                                            "MinBountyPerSlotRoundSet"}
    assert {c["contract"] for c in changes if c["parameter"] in moved} == {config}
    front = next(c for c in result.all("ParameterChange") if c["parameter"] == "TaskFrontSet")
    assert (front["contract"], front["value"]) == (dep.registry.address.lower(), dep.front.address.lower())
    governor = f"{config}-0x{bytes(dep.config.GOVERNOR_ROLE()).hex()}"
    assert result.get("RoleMember", f"{governor}-{address_id(admin)}")["active"] is True
    revoked = result.get("RoleMember", f"{governor}-{address_id(outsider)}")
    assert (revoked["active"], revoked["changedBy"]) == (False, address_id(admin))
    assert {r["contract"] for r in result.all("AccessRole")} == {
        c.address.lower() for c in (dep.config, dep.registry, dep.stakes, dep.reputation, dep.vault)}


def test_penalties_of_the_round_are_indexed(played, samplers, validators):
    _, task_id, _, result = played
    vacated = {(a["node"], a["vacatedReason"]) for a in result.all("Assignment") if "vacatedReason" in a}
    assert (address_id(samplers[1]), "Missed") in vacated
    assert address_id(validators[2]) not in {node for node, _ in vacated}  # it dissented in round 0 (5.5)
    assert [(d["round"], d["validator"]) for d in result.all("Dissent")] == [(f"{task_id}-0", address_id(validators[2]))]
    outcomes = {(c["node"], c["outcome"]) for c in result.all("ReputationChange")}
    assert (address_id(validators[2]), "AgainstQuorum") not in outcomes
    task = result.get("Task", str(task_id))
    assert task["status"] == "Completed" and task["keyringCid"] == "bafykeyring"
    assert int(task["refund"]) + sum(int(x) for x in task["paidByRole"]) == 3_000 * TOKEN


def test_ids_are_the_logs_transaction_and_index(played):
    _, _, events, result = played
    reputation = [ev for ev in events if ev["handler"] == "handleReputationChanged"]
    assert result.ids("ReputationChange") == {f"{ev['transaction']['hash']}-{ev['logIndex']}" for ev in reputation}

"""The compiled mappings index a real dispute (the round of tests/disputes/test_dispute_round.py:
sampler 0 reveals an episode with wrong seeds, every validator accepts, an outsider proves the
fault): held pay, the reclaims, the failed task and the awards agree with the contracts."""

import pytest
from brownie import chain
from subgraph_chain import index, mismatches
from subgraph_support import address_id

from scripts.deploy import DeployParams, deploy
from tests.registry.rounds.driver import RoundDriver
from tools.episode_fixtures import episode
from workers.merkle import MerkleTree
from workers.protocol import Evidence, Role, commitment

TOKEN = 10**18
BOND = 100 * TOKEN
CID = "bafkrei-episodes"
SALT = b"\x01" * 32


@pytest.fixture(scope="module")
def dep(admin, treasury):
    return deploy(admin, DeployParams(treasury=treasury.address, activate_disputes=True))


@pytest.fixture(scope="module")
def disputed(staked, requester, samplers, trainer, outsider, task_params):
    dep, registry = staked, staked.registry
    dep.token.approve(registry, task_params.bounty, {"from": requester})
    active_task = registry.createTask(task_params.as_tuple(), {"from": requester}).events["TaskCreated"]["taskId"]
    for s in samplers:
        registry.claimSlot(active_task, Role.SAMPLER, {"from": s})
    registry.claimSlot(active_task, Role.TRAINER, {"from": trainer})
    chain.mine(2)
    registry.drawValidators(active_task, {"from": trainer})
    driver = RoundDriver(registry, dep.state, active_task, samplers, trainer)
    cheat = samplers[0]
    items = [episode(0), episode(1), episode(2, seed_shift=1)]
    tree = MerkleTree(items)
    registry.commit(active_task, commitment(active_task, 0, str(cheat), tree.root, CID, SALT), {"from": cheat})
    driver.commit_samples(samplers[1:])
    registry.reveal(active_task, tree.root, CID, SALT, {"from": cheat})
    driver.reveal_samples(samplers[1:])
    driver.commit_checkpoint()
    driver.reveal_checkpoint()
    driver.attest_all()
    dep.token.approve(dep.disputes, BOND, {"from": outsider})
    dispute_id = dep.disputes.openDispute(active_task, 0, Role.SAMPLER, 0, BOND, Evidence.WHOLE, 0,
                                           {"from": outsider}).events[
        "DisputeOpened"]["disputeId"]
    dep.disputes.proveFault(dispute_id, items[2], tree.proof(2), {"from": outsider})
    dep.disputes.withdraw(outsider, dep.state.owedOf(outsider), {"from": outsider})
    events, result = index(dep)
    assert result.error is None, result.error
    return dep, active_task, dispute_id, result


def test_entities_agree_with_the_contracts(disputed):
    dep, _, _, result = disputed
    assert len(result.all("HeldPay")) == 6 and len(result.all("Dispute")) == 1
    assert mismatches(result, dep) == []


def test_the_proven_dispute_and_its_effects(disputed, samplers, outsider):
    _, task_id, dispute_id, result = disputed
    d = result.get("Dispute", str(dispute_id))
    assert (d["status"], d["fault"], d["prover"], d["submitter"]) == (
        "Upheld", "WrongSeeds", address_id(outsider), address_id(samplers[0]))
    assert result.get("Task", str(task_id))["status"] == "Failed"
    cheat_payout = result.get("Payout", result.get("Submission", f"{task_id}-0-Sampler-0")["payout"])
    assert cheat_payout["reclaimed"] is True
    assert result.get("HeldPay", cheat_payout["heldPay"])["status"] == "Reclaimed"
    penalised = {p["node"] for p in result.all("DisputePenalty")}
    assert address_id(samplers[0]) in penalised and len(penalised) == 4  # the sampler and three validators
    assert result.get("Account", address_id(outsider))["disputeOwed"] == "0"
    assert len(result.all("DisputeWithdrawal")) == 1

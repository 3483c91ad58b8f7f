"""One dispute on a real round (SPECIFICATION.md 13): sampler 0 reveals the root of episodes encoded
by the workers' own code, one of them with seeds that are not derive_seeds(...); every validator
accepts; an outsider disputes and proves the fault on-chain. The dispute is upheld, the sampler's
held pay goes back to the requester, the task fails, and the books still balance."""

import brownie

from tests.registry.rounds.driver import RoundDriver, events_of
from tools.episode_fixtures import episode
from workers.merkle import MerkleTree
from workers.protocol import Evidence, Role, commitment

TOKEN = 10**18
BOND = 100 * TOKEN
CID = "bafkrei-episodes"
SALT = b"\x01" * 32


def test_proven_fault_overturns_an_accepted_shard(staked, active_task, samplers, trainer, outsider, requester, state):
    dep, registry, vault = staked, staked.registry, staked.vault
    disputes = dep.disputes
    driver = RoundDriver(registry, dep.state, active_task, samplers, trainer)
    cheat = samplers[0]
    assert state.slotOf(active_task, Role.SAMPLER, 0)["node"] == cheat
    items = [episode(0), episode(1), episode(2, seed_shift=1)]
    tree = MerkleTree(items)
    registry.commit(active_task, commitment(active_task, 0, str(cheat), tree.root, CID, SALT), {"from": cheat})
    driver.commit_samples(samplers[1:])
    registry.reveal(active_task, tree.root, CID, SALT, {"from": cheat})
    driver.reveal_samples(samplers[1:])
    driver.commit_checkpoint()
    driver.reveal_checkpoint()
    driver.attest_all()
    held = vault.heldOf(active_task, 0, cheat)
    assert held > 0 and vault.claimableOf(cheat) == 0

    dep.token.approve(disputes, BOND, {"from": outsider})
    opened = disputes.openDispute(active_task, 0, Role.SAMPLER, 0, BOND, Evidence.EPISODE, 2, {"from": outsider})
    dispute_id = opened.events["DisputeOpened"]["disputeId"]
    with brownie.reverts(f"NoFaultProven: {dispute_id}"):
        disputes.proveFault(dispute_id, items[1], tree.proof(1), {"from": outsider})
    refund_before = vault.claimableOf(requester)
    proved = disputes.proveFault(dispute_id, items[2], tree.proof(2), {"from": outsider})

    assert events_of(proved, "FaultProven")[0]["fault"] == 4  # WrongSeeds
    assert state.disputeOf(dispute_id)["status"] == 3  # Upheld
    assert state.taskOf(active_task)["status"] == 6  # Failed
    assert vault.heldOf(active_task, 0, cheat) == 0
    assert vault.claimableOf(requester) - refund_before >= held
    paid = [int(x) for x in state.paidOf(active_task)]
    refunded = vault.claimableOf(requester)
    assert sum(paid) + refunded == state.taskOf(active_task)["bounty"]
    assert sum(paid) == vault.heldTotalOf(active_task) == vault.escrowOf(active_task)
    print(f"GAS openDispute={opened.gas_used} proveFault={proved.gas_used}")

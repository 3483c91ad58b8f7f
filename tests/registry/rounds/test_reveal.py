"""reveal opens a commitment: it stores root and cid, emits ResultRevealed, and cannot be repeated
or made by a node that is not expected in this round."""

import brownie

from workers.protocol import Phase, Role


def test_reveal_records_result_and_emits_event(registry, round_driver, samplers, state):
    round_driver.commit_samples()
    s = samplers[0]
    root, cid, _ = round_driver.result(s)
    tx = round_driver.reveal(s)
    assert dict(tx.events["ResultRevealed"]) == {
        "taskId": round_driver.task_id, "round": 0, "node": s.address, "role": Role.SAMPLER,
        "slot": 0, "root": "0x" + root.hex(), "cid": cid,
    }
    sub = state.submissionOf(round_driver.task_id, 0, Role.SAMPLER, 0)
    assert sub["commitment"] == "0x" + round_driver.commitment_of(s).hex()
    assert (sub["root"], sub["cid"], sub["node"], sub["revealed"], sub["verdict"]) == (
        "0x" + root.hex(), cid, s.address, True, 0)
    assert state.taskOf(round_driver.task_id)["pending"] == 1


def test_trainer_reveal_records_checkpoint_submission(registry, round_driver, trainer, state):
    round_driver.commit_samples()
    round_driver.reveal_samples()
    round_driver.commit_checkpoint()
    root, cid, _ = round_driver.result(trainer)
    tx = round_driver.reveal_checkpoint()
    assert tx.events["ResultRevealed"]["role"] == Role.TRAINER
    assert tx.events["ResultRevealed"]["slot"] == 0
    sub = state.submissionOf(round_driver.task_id, 0, Role.TRAINER, 0)
    assert (sub["root"], sub["cid"], sub["revealed"]) == ("0x" + root.hex(), cid, True)
    # Revealing is not adopting: the checkpoint changes only when the round accepts it.
    assert state.taskOf(round_driver.task_id)["checkpointRoot"] == "0x" + "00" * 32


def test_second_reveal_reverts(registry, round_driver, samplers):
    round_driver.commit_samples()
    round_driver.reveal(samplers[0])
    with brownie.reverts(f"AlreadyRevealed: {round_driver.task_id}, {samplers[0].address.lower()}"):
        round_driver.reveal(samplers[0])


def test_reveal_by_sampler_joining_after_sample_commit_reverts(
    registry, round_driver, samplers, outsider, stake_node, state
):
    """A sampler that takes a vacant slot during SampleReveal starts next round."""
    round_driver.commit(samplers[0])
    round_driver.expire()  # samplers[1] missed SampleCommit and is vacated
    stake_node(outsider, Role.SAMPLER)
    tx = registry.claimSlot(round_driver.task_id, Role.SAMPLER, {"from": outsider})
    assert tx.events["SlotAssigned"]["sinceRound"] == 1
    assert state.taskOf(round_driver.task_id)["phase"] == Phase.SAMPLE_REVEAL
    with brownie.reverts(f"NotExpectedThisRound: {round_driver.task_id}, 0, 1"):
        round_driver.reveal(outsider)

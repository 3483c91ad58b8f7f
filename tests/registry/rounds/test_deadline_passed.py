"""After a phase deadline (protocol time) nobody may act in that phase any more: commit, reveal,
commitAttestation and attest revert DeadlinePassed(taskId, deadline) until someone calls advance."""

import brownie
from brownie import chain, web3


def _past(round_driver):
    deadline = round_driver.task()["phaseDeadline"]
    chain.sleep(deadline - chain[-1].timestamp + 1)
    chain.mine()
    return deadline


def test_commit_after_deadline_reverts(registry, round_driver, samplers):
    round_driver.commit(samplers[0])
    deadline = _past(round_driver)
    with brownie.reverts(f"DeadlinePassed: {round_driver.task_id}, {deadline}"):
        round_driver.commit(samplers[1])


def test_commit_at_deadline_is_on_time(registry, round_driver, samplers):
    deadline = round_driver.task()["phaseDeadline"]
    web3.provider.make_request("evm_setNextBlockTimestamp", [deadline])
    tx = round_driver.commit(samplers[0])
    assert tx.timestamp == deadline
    assert "ResultCommitted" in tx.events


def test_reveal_after_deadline_reverts(registry, round_driver, samplers):
    round_driver.commit_samples()
    deadline = _past(round_driver)
    with brownie.reverts(f"DeadlinePassed: {round_driver.task_id}, {deadline}"):
        round_driver.reveal(samplers[0])


def test_vote_commit_after_deadline_reverts(registry, round_driver):
    round_driver.work()
    v = round_driver.validators()[0]
    deadline = _past(round_driver)
    with brownie.reverts(f"DeadlinePassed: {round_driver.task_id}, {deadline}"):
        round_driver.seal_votes(validators=[v])


def test_vote_reveal_after_deadline_reverts(registry, round_driver):
    round_driver.work()
    round_driver.seal_votes()
    deadline = _past(round_driver)
    with brownie.reverts(f"DeadlinePassed: {round_driver.task_id}, {deadline}"):
        round_driver.open_votes(validators=round_driver.validators()[:1])

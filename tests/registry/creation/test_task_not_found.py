"""Every entry point taking a task id reverts TaskNotFound(id) for an id never created."""

import brownie

from workers.protocol import Role


def test_cancel_unknown_task(registry, requester, create_task):
    create_task()
    with brownie.reverts("TaskNotFound: 2"):
        registry.cancelTask(2, {"from": requester})


def test_claim_unknown_task(staked, registry, samplers, trainer):
    with brownie.reverts("TaskNotFound: 1"):
        registry.claimSlot(1, Role.SAMPLER, {"from": samplers[0]})
    with brownie.reverts("TaskNotFound: 0"):
        registry.claimSlot(0, Role.TRAINER, {"from": trainer})


def test_draw_unknown_task(staked, registry, outsider):
    with brownie.reverts("TaskNotFound: 7"):
        registry.drawValidators(7, {"from": outsider})


def test_commit_unknown_task(staked, registry, samplers):
    with brownie.reverts("TaskNotFound: 1"):
        registry.commit(1, b"\x01" * 32, {"from": samplers[0]})


def test_reveal_unknown_task(staked, registry, samplers):
    with brownie.reverts("TaskNotFound: 1"):
        registry.reveal(1, b"\x01" * 32, "bafkrei", b"\x02" * 32, {"from": samplers[0]})


def test_attest_unknown_task(staked, registry, validators):
    with brownie.reverts("TaskNotFound: 1"):
        registry.commitAttestation(1, 0, b"\x01" * 32, {"from": validators[0]})
    with brownie.reverts("TaskNotFound: 1"):
        registry.attest(1, 0, 1, b"\x02" * 32, {"from": validators[0]})


def test_advance_unknown_task(staked, registry, outsider):
    with brownie.reverts(f"TaskNotFound: {2**256 - 1}"):
        registry.advance(2**256 - 1, {"from": outsider})

"""Protocol time stands still while the registry is paused, so every deadline moves out by the
paused duration: a pause never makes anyone miss a deadline or lets a task expire."""

from dataclasses import replace

import brownie
from brownie import chain

from workers.protocol import Status


def test_protocol_time_freezes_while_paused(registry, admin):
    paused_at = registry.pause({"from": admin}).timestamp
    chain.sleep(5000)
    chain.mine()
    assert registry.protocolTime() == paused_at
    unpaused_at = registry.unpause({"from": admin}).timestamp
    assert registry.protocolTime() == chain[-1].timestamp - (unpaused_at - paused_at)


def test_pauses_accumulate(registry, admin):
    total = 0
    for _ in range(2):
        start = registry.pause({"from": admin}).timestamp
        chain.sleep(1000)
        total += registry.unpause({"from": admin}).timestamp - start
    chain.mine()
    assert total >= 2000
    assert registry.protocolTime() == chain[-1].timestamp - total


def test_claim_deadline_shifts_by_paused_duration(registry, admin, outsider, create_task, task_params, state):
    task_id = create_task(replace(task_params, claim_window=3600))
    deadline = state.taskOf(task_id)["claimDeadline"]
    registry.pause({"from": admin})
    chain.sleep(10_000)  # well past the deadline in wall-clock time
    registry.unpause({"from": admin})
    chain.sleep(deadline - registry.protocolTime() - 60)
    chain.mine()
    with brownie.reverts(f"DeadlineNotReached: {task_id}, {deadline}"):
        registry.advance(task_id, {"from": outsider})
    chain.sleep(120)
    tx = registry.advance(task_id, {"from": outsider})
    assert tx.events["TaskSettled"]["status"] == Status.FAILED


def test_phase_deadline_shifts_by_paused_duration(registry, admin, samplers, active_task, state):
    deadline = state.taskOf(active_task)["phaseDeadline"]
    registry.pause({"from": admin})
    chain.sleep(5000)  # the 600 s commit window is long over in wall-clock time
    registry.unpause({"from": admin})
    assert registry.protocolTime() < deadline
    tx = registry.commit(active_task, b"\x01" * 32, {"from": samplers[0]})
    assert tx.events["ResultCommitted"]["node"] == samplers[0]


def test_task_created_after_pause_uses_protocol_time(registry, admin, create_task, state):
    start = registry.pause({"from": admin}).timestamp
    chain.sleep(4000)
    paused_for = registry.unpause({"from": admin}).timestamp - start
    task_id = create_task()
    assert state.taskOf(task_id)["claimDeadline"] == chain[-1].timestamp - paused_for + 3600

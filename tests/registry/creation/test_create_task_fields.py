"""taskOf after createTask: every field from the params, a claim deadline in protocol time and a
snapshot of the role shares by Role order (Sampler, Trainer, Validator)."""

from dataclasses import replace

from brownie import chain

from workers.protocol import Phase, Status

TOKEN = 10**18


def test_fields_copied_from_params(staked, registry, requester, create_task, task_params, state):
    params = replace(task_params, num_samplers=3, num_validators=5, num_rounds=9, commit_window=700,
                     reveal_window=400, attest_window=800)
    task = state.taskOf(create_task(params))
    assert task["requester"] == requester
    assert task["status"] == Status.OPEN
    assert [task["numSamplers"], task["numValidators"], task["numRounds"]] == [3, 5, 9]
    assert [task["commitWindow"], task["revealWindow"], task["attestWindow"]] == [700, 400, 800]
    assert task["bounty"] == 10_000 * TOKEN
    assert bytes(task["specDigest"]) == params.spec_digest
    assert task["specCid"] == params.spec_cid


def test_progress_fields_start_empty(staked, registry, create_task, state):
    task = state.taskOf(create_task())
    assert task["phase"] == Phase.SAMPLE_COMMIT
    assert [task["round"], task["filledSamplers"], task["filledValidators"], task["pending"]] == [0, 0, 0, 0]
    assert task["trainerFilled"] is False
    assert [task["idleRounds"], task["revealedMask"], task["phaseDeadline"], task["seedBlock"]] == [0, 0, 0, 0]
    assert bytes(task["checkpointRoot"]) == b"\x00" * 32
    assert task["checkpointCid"] == ""


def test_claim_deadline_is_protocol_time_plus_window(staked, registry, create_task, task_params, state):
    task_id = create_task(replace(task_params, claim_window=7200))
    assert registry.protocolTime() == chain[-1].timestamp  # never paused: no offset
    assert state.taskOf(task_id)["claimDeadline"] == chain[-1].timestamp + 7200


def test_shares_snapshot_by_role_order(staked, registry, create_task, config, state):
    task_id = create_task()
    assert [int(x) for x in state.taskOf(task_id)["sharesBps"]] == [2000, 7000, 1000]
    assert [int(x) for x in config.roleShares()] == [2000, 7000, 1000]

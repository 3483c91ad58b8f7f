"""createTask announces the task with TaskCreated and TaskStatusChanged(Open), all arguments set."""

from dataclasses import replace

from workers.protocol import Status

TOKEN = 10**18


def test_task_created_carries_every_argument(staked, registry, token, requester, task_params):
    params = replace(task_params, num_samplers=4, num_validators=7, num_rounds=12, bounty=1234 * TOKEN)
    token.approve(registry, params.bounty, {"from": requester})
    tx = registry.createTask(params.as_tuple(), {"from": requester})
    ev = tx.events["TaskCreated"]
    assert ev["taskId"] == 1
    assert ev["requester"] == requester
    assert ev["specCid"] == params.spec_cid
    assert bytes(ev["specDigest"]) == params.spec_digest
    assert [ev["bounty"], ev["numSamplers"], ev["numValidators"], ev["numRounds"]] == [1234 * TOKEN, 4, 7, 12]


def test_status_changed_to_open(staked, registry, token, requester, task_params):
    token.approve(registry, task_params.bounty, {"from": requester})
    tx = registry.createTask(task_params.as_tuple(), {"from": requester})
    assert [int(x) for x in tx.events["TaskStatusChanged"].values()] == [1, Status.OPEN]
    assert len(tx.events["TaskStatusChanged"]) == 1


def test_events_come_after_the_deposit(staked, registry, token, requester, task_params):
    token.approve(registry, task_params.bounty, {"from": requester})
    tx = registry.createTask(task_params.as_tuple(), {"from": requester})
    names = [name for name in tx.events.keys() if name != "Approval"]
    assert names == ["Transfer", "Deposited", "TaskCreated", "TaskStatusChanged"]


def test_return_value_is_the_task_id(staked, registry, token, requester, task_params):
    token.approve(registry, 2 * task_params.bounty, {"from": requester})
    registry.createTask(task_params.as_tuple(), {"from": requester})
    tx = registry.createTask(task_params.as_tuple(), {"from": requester})
    assert tx.return_value == 2
    assert tx.events["TaskCreated"]["taskId"] == 2

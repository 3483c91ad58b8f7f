"""workers/node/queues/interest.py: a node queues SlotAssigned naming it, PhaseStarted of tasks it holds a
slot in, and the events every node needs; its held set survives a restart."""

from workers.node.queues.interest import Interest

ME = "0x" + "ab" * 20
OTHER = "0x" + "cd" * 20


def test_phase_events_of_held_tasks_only(tmp_path):
    interest = Interest(tmp_path / "watcher.sqlite", ME)
    assert interest.wants("TaskCreated", {"taskId": 1})  # claims and the claim keeper
    assert interest.wants("DrawArmed", {"taskId": 1, "seedBlock": 5})  # the draw keeper
    assert not interest.wants("PhaseStarted", {"taskId": 1, "round": 0, "phase": 0})
    assert not interest.wants("SlotAssigned", {"taskId": 1, "node": OTHER, "role": 0, "slot": 0})
    assert interest.wants("SlotAssigned", {"taskId": 1, "node": ME.upper().replace("0X", "0x"), "role": 0, "slot": 1})
    assert interest.wants("PhaseStarted", {"taskId": 1, "round": 0, "phase": 0})
    assert not interest.wants("PhaseStarted", {"taskId": 2, "round": 0, "phase": 0})
    assert interest.held() == {1}


def test_a_vacated_or_settled_task_is_no_longer_held(tmp_path):
    interest = Interest(tmp_path / "watcher.sqlite", ME)
    for task in (1, 2):
        interest.wants("SlotAssigned", {"taskId": task, "node": ME, "role": 1, "slot": 0})
    assert interest.wants("SlotVacated", {"taskId": 1, "node": OTHER, "role": 0, "slot": 0, "reason": 2})  # a reclaim
    assert not interest.wants("SlotVacated", {"taskId": 1, "node": ME, "role": 1, "slot": 0, "reason": 2})
    assert not interest.wants("PhaseStarted", {"taskId": 1, "round": 1, "phase": 0})
    assert interest.wants("TaskSettled", {"taskId": 2, "status": 3})  # held until then
    assert interest.held() == set()
    assert not interest.wants("TaskSettled", {"taskId": 1, "status": 3})  # its slot was vacated before
    assert not interest.wants("TaskSettled", {"taskId": 5, "status": 3})  # another node's task
    interest.wants("SlotVacated", {"taskId": 1, "node": ME, "role": 1, "slot": 0, "reason": 2})  # seen twice: same
    assert interest.held() == set()


def test_a_settled_task_seen_again_is_queued_again(tmp_path):
    """A watcher that fails to enqueue an event reads it again: a task held when it settled (whose
    trainer pins the final policy) is still wanted then, and after a restart."""
    interest = Interest(tmp_path / "watcher.sqlite", ME)
    interest.wants("SlotAssigned", {"taskId": 3, "node": ME, "role": 1, "slot": 0})
    assert interest.wants("TaskSettled", {"taskId": 3, "status": 3})
    assert interest.wants("TaskSettled", {"taskId": 3, "status": 3})
    assert Interest(tmp_path / "watcher.sqlite", ME).wants("TaskSettled", {"taskId": 3, "status": 3})
    assert interest.held() == set()


def test_the_held_set_survives_a_restart(tmp_path):
    Interest(tmp_path / "watcher.sqlite", ME).wants("SlotAssigned", {"taskId": 7, "node": ME, "role": 2, "slot": 0})
    again = Interest(tmp_path / "watcher.sqlite", ME)
    assert again.held() == {7} and again.wants("PhaseStarted", {"taskId": 7, "round": 0, "phase": 4})


def test_reward_earned_only_when_it_names_this_node(tmp_path):
    """A node releases its own held pay (workers.node.handlers.dispute_handlers): other nodes' rewards are
    not queued."""
    interest = Interest(tmp_path / "watcher.sqlite", ME)
    assert not interest.wants("RewardEarned", {"taskId": 1, "round": 0, "node": OTHER, "role": 0, "amount": 5})
    assert interest.wants("RewardEarned", {"taskId": 1, "round": 0, "node": ME, "role": 0, "amount": 5})
    assert interest.wants("VotingStarted", {"disputeId": 1, "jurors": 3, "deadline": 9})  # juror duty, keepers

"""A round walks SampleCommit -> SampleReveal -> TrainCommit -> TrainReveal -> Attest ->
AttestReveal; each phase starts with deadline = protocolTime + its window and closes early once
everyone expected acted."""

from tests.registry.rounds.driver import events_of
from workers.protocol import Phase, Status


def _started(tx):
    return [(e["round"], e["phase"], e["deadline"]) for e in events_of(tx, "PhaseStarted")]


def test_activation_opens_sample_commit_with_commit_window(registry, active_task, task_params, state):
    t = state.taskOf(active_task)
    assert t["status"] == Status.ACTIVE
    assert t["round"] == 0
    assert t["phase"] == Phase.SAMPLE_COMMIT
    assert t["pending"] == task_params.num_samplers
    assert t["phaseDeadline"] > registry.protocolTime() - 1


def test_each_phase_starts_when_the_last_expected_node_acted(registry, round_driver, task_params, state):
    p = task_params
    first = round_driver.commit_samples()
    assert _started(first[0]) == []  # one sampler still expected
    assert _started(first[1]) == [(0, Phase.SAMPLE_REVEAL, first[1].timestamp + p.reveal_window)]

    revealed = round_driver.reveal_samples()
    assert _started(revealed[0]) == []
    assert _started(revealed[1]) == [(0, Phase.TRAIN_COMMIT, revealed[1].timestamp + p.commit_window)]

    tx = round_driver.commit_checkpoint()
    assert _started(tx) == [(0, Phase.TRAIN_REVEAL, tx.timestamp + p.reveal_window)]

    tx = round_driver.reveal_checkpoint()
    assert _started(tx) == [(0, Phase.ATTEST, tx.timestamp + p.attest_window)]
    t = state.taskOf(round_driver.task_id)
    assert (t["phase"], t["pending"], t["phaseDeadline"]) == (Phase.ATTEST, 3, tx.timestamp + p.attest_window)
    assert t["revealedMask"] == 0b111


def test_last_vote_commit_opens_attest_reveal(registry, round_driver, task_params, state):
    round_driver.work()
    txs = round_driver.seal_votes()
    assert _started(txs[0]) == [] and _started(txs[1]) == []
    last = txs[2]
    assert _started(last) == [(0, Phase.ATTEST_REVEAL, last.timestamp + task_params.reveal_window)]
    t = state.taskOf(round_driver.task_id)
    assert (t["phase"], t["pending"], t["revealedMask"]) == (Phase.ATTEST_REVEAL, 3, 0b111)


def test_last_vote_opened_finalizes_and_opens_next_round(registry, round_driver, task_params, state):
    round_driver.work()
    txs = round_driver.attest_all()
    assert _started(txs[0]) == [] and _started(txs[1]) == []
    assert "RoundFinalized" not in txs[1].events
    last = txs[2]
    assert _started(last) == [(1, Phase.SAMPLE_COMMIT, last.timestamp + task_params.commit_window)]
    t = state.taskOf(round_driver.task_id)
    assert (t["round"], t["phase"], t["pending"], t["revealedMask"]) == (1, Phase.SAMPLE_COMMIT, 2, 0)


def test_deadlines_are_in_protocol_time(registry, round_driver, task_params, state):
    tx = round_driver.commit_samples()[-1]
    assert registry.protocolTime() == tx.timestamp  # never paused
    assert state.taskOf(round_driver.task_id)["phaseDeadline"] == registry.protocolTime() + task_params.reveal_window

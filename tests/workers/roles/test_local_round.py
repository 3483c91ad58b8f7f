"""workers/roles/local_round.py: honest rounds in one process chain their checkpoints, and carry
what a validator is given."""

from tests.workers.roles.conftest import SMALL, TASK_ID
from workers.roles.local_round import run_round, run_rounds
from workers.roles.validator import verify_round
from workers.storage import cid as cids


def test_rounds_chain_their_checkpoints_and_match_single_rounds(rounds):
    chained = list(run_rounds(SMALL, TASK_ID, 2))
    assert [r.round for r in chained] == [0, 1]
    assert chained[0].prev is None and chained[1].prev == chained[0].checkpoint.bundle
    assert chained[1].checkpoint.meta["prev"] == chained[0].checkpoint.root.hex()
    # the same rounds as the roles' session fixture computes them one by one
    assert [r.checkpoint.root for r in chained] == [r.checkpoint.root for r in rounds]


def test_revealed_and_fetch_are_what_a_validator_is_given(rounds):
    rnd = rounds[1]
    assert rnd.revealed == [(slot, rnd.shards[slot].root, rnd.shards[slot].blob) for slot in (0, 1)]
    for blob in rnd.checkpoint.stored:
        assert rnd.fetch(cids.compute(blob)) == blob
    assert rnd.fetch(cids.compute(b"not stored")) is None
    ckpt = rnd.checkpoint
    verdict = verify_round(SMALL, TASK_ID, rnd.round, rnd.prev, rnd.revealed, (ckpt.root, ckpt.bundle), bytes(32),
                           rnd.fetch)
    assert verdict.trainer.accepted and all(j.accepted for j in verdict.samplers.values())


def test_slots_are_the_shards_sampled():
    done = run_round(SMALL, TASK_ID, 0, None, slots=(2,))
    assert list(done.shards) == [2] and [s for s, _, _ in done.revealed] == [2]
    assert done.checkpoint.inputs == [(2, done.shards[2].root)]

"""workers/roles/aggregation.py, the plain logic of SPECIFICATION.md 5.5.2: whether a round is
aggregated, who aggregates, when a
validator gives up on the aggregate, which relay entries join it, and how votes that would make
the chain refuse it are found and dropped (the chain's answer is a stand-in `check` here; the
tests in test_aggregate_round.py ask the real contracts)."""
import pytest

from workers.crypto.bls import BlsKey, aggregate_g1, is_g1
from workers.node.handlers.relay import RelayEntry
from workers.roles.aggregation import (
    CHAIN_LOOK_S,
    FIRST_LOOK_S,
    MIN_AGGREGATE_SIGNERS,
    RELAY_LOOK_S,
    Rejection,
    Vote,
    agreeing,
    choose_aggregator,
    find_invalid,
    next_look,
    plan,
    relay_look_only,
    settle,
    worth_aggregating,
)

NODES = {v: "0x" + f"{v + 1:02x}" * 20 for v in range(4)}
KEYS = {v: (v, v, v, v) for v in range(4)}


def test_a_round_is_aggregated_only_from_the_gas_break_even_up():
    # bench/attest_gas.py: an aggregate costs about three single votes, so three candidates vote alone
    assert MIN_AGGREGATE_SIGNERS == 4
    assert [worth_aggregating(n) for n in range(6)] == [False, False, False, False, True, True]
    assert [worth_aggregating(n, min_signers=2) for n in range(4)] == [False, False, True, True]
    with pytest.raises(ValueError, match="min_signers must be >= 2"):
        worth_aggregating(5, min_signers=1)


def test_the_aggregator_rotates_with_the_round_among_the_candidates():
    assert [choose_aggregator(7, r, [0, 2, 3]) for r in range(4)] == [2, 3, 0, 2]
    # order and repeats do not matter
    assert choose_aggregator(7, 0, [3, 0, 2, 2]) == choose_aggregator(7, 0, [0, 2, 3])
    assert choose_aggregator(7, 0, []) is None


def test_every_candidate_aggregates_once_in_as_many_rounds():
    assert sorted(choose_aggregator(5, r, [1, 4, 6]) for r in range(3)) == [1, 4, 6]


def test_plan_waits_as_configured_with_time_to_spare():
    p = plan(1000.0, seconds_left=120, wait_s=4, fallback_s=12)
    assert (p.aggregate_by, p.fallback_at) == (1004.0, 1012.0)


def test_plan_is_capped_inside_the_attest_deadline():
    p = plan(1000.0, seconds_left=10, wait_s=4, fallback_s=12)
    assert p.fallback_at == 1005.0  # half the time left, the other half for its own attest
    assert p.aggregate_by == 1002.5  # half-way to that fallback: the aggregate lands before it
    late = plan(1000.0, seconds_left=-3, wait_s=4, fallback_s=12)
    assert (late.aggregate_by, late.fallback_at) == (1000.0, 1000.0)
    with pytest.raises(ValueError):
        plan(0.0, 10, -1, 1)


def entry(v, bitmap=0b111, signature=(1, 2), node=None):
    return RelayEntry(bitmap, signature, node or NODES[v], bytes([v]) * 32)


def test_the_waiting_aggregator_looks_at_the_relay_often_and_at_the_chain_seldom():
    waits = [next_look(100.0, 110.0, looks) for looks in range(6)]
    assert waits == [FIRST_LOOK_S, 2 * FIRST_LOOK_S, 4 * FIRST_LOOK_S, RELAY_LOOK_S, RELAY_LOOK_S, RELAY_LOOK_S]
    assert (FIRST_LOOK_S, RELAY_LOOK_S) == (0.05, 0.25)  # soon, then at most 4 looks a second
    assert next_look(100.0, 110.0, 10**6) == RELAY_LOOK_S  # however long it waited
    assert next_look(109.9, 110.0, 5) == pytest.approx(0.1)  # never past the time it sends by
    assert next_look(111.0, 110.0) == 0.0
    assert not relay_look_only(100.0, 110.0, None)  # the first look reads the candidates from the chain
    assert relay_look_only(100.0, 110.0, 100.0 + CHAIN_LOOK_S) and relay_look_only(101.9, 110.0, 102.0)
    assert not relay_look_only(102.0, 110.0, 102.0)  # time to re-read who can still join
    assert not relay_look_only(110.0, 110.0, 112.0)  # time to send: everything is read again


def test_agreeing_keeps_candidates_with_the_holder_the_bitmap_and_a_g1_point():
    good = tuple(BlsKey.from_secret(9).sign(b"\x01" * 32))
    entries = {0: entry(0, signature=good), 1: entry(1, bitmap=0b011, signature=good),
               2: entry(2, signature=good, node=NODES[3]), 3: entry(3, signature=(1, 3))}
    votes, left_out = agreeing(entries, 0b111, NODES, [0, 1, 2, 3], KEYS, is_g1)
    assert votes == {0: Vote(0, NODES[0], good, KEYS[0], bytes([0]) * 32)}  # the entry's salt is carried
    assert set(left_out) == {1, 2, 3}
    assert "another bitmap" in left_out[1] and "another node" in left_out[2] and "G1" in left_out[3]


def test_agreeing_leaves_out_slots_that_are_not_candidates():
    good = tuple(BlsKey.from_secret(9).sign(b"\x01" * 32))
    votes, left_out = agreeing({0: entry(0, signature=good), 1: entry(1, signature=good)}, 0b111, NODES, [1], KEYS,
                               is_g1)
    assert set(votes) == {1} and set(left_out) == {0}


class Chain:
    """A stand-in for the contract's check of an aggregate: real BLS sums of real signatures; an
    aggregate verifies when its sum equals the sum of the honest signatures of its slots."""

    def __init__(self, message, bad=(), voted=()):
        self.keys = {v: BlsKey.from_secret(100 + v) for v in range(4)}
        self.honest = {v: k.sign(message) for v, k in self.keys.items()}
        self.sent = {v: ([7, 7] if v in bad else self.honest[v]) for v in range(4)}
        self.voted = set(voted)
        self.calls = []

    def votes(self):
        return {v: Vote(v, NODES[v], tuple(self.sent[v]), tuple(self.keys[v].pubkey_g2), bytes([v]) * 32)
                for v in range(4)}

    def check(self, slots):
        self.calls.append(slots)
        for v in sorted(slots):
            if v in self.voted:
                return Rejection("AlreadyAttested", {"taskId": 1, "validator": NODES[v]})
        ok = aggregate_g1(self.sent[v] for v in slots if self.sent[v] != [7, 7]) == aggregate_g1(
            self.honest[v] for v in slots) and all(self.sent[v] != [7, 7] for v in slots)
        return None if ok else Rejection("InvalidAggregateSignature", {"signerBitmap": sum(1 << v for v in slots)})


def test_settle_takes_every_vote_when_the_chain_accepts_them_in_one_call():
    chain = Chain(b"\x02" * 32)
    assert settle(chain.votes(), chain.check) == frozenset(range(4))
    assert len(chain.calls) == 1


def test_settle_drops_a_bad_signature_found_by_bisection():
    chain = Chain(b"\x02" * 32, bad=(2,))
    assert settle(chain.votes(), chain.check) == frozenset({0, 1, 3})
    assert frozenset({2}) in chain.calls and len(chain.calls) <= 6


def test_settle_drops_a_slot_that_voted_meanwhile_and_gives_up_below_two():
    chain = Chain(b"\x02" * 32, voted=(1,))
    assert settle(chain.votes(), chain.check) == frozenset({0, 2, 3})
    chain = Chain(b"\x02" * 32, bad=(0, 1, 2))
    assert settle(chain.votes(), chain.check) is None


def test_settle_drops_the_slot_whose_salt_does_not_open_its_sealed_vote():
    """The chain names the slot (SignerCommitmentMismatch) or the node (NotCommitted): one call
    finds it, no bisection."""
    votes = Chain(b"\x02" * 32).votes()
    calls = []

    def check(slots):
        calls.append(slots)
        if 2 in slots:
            return Rejection("SignerCommitmentMismatch", {"taskId": 1, "slot": 2})
        if 0 in slots:
            return Rejection("NotCommitted", {"taskId": 1, "node": NODES[0]})
        return None

    assert settle(votes, check) == frozenset({1, 3})
    assert len(calls) == 3


def test_settle_gives_up_on_a_revert_that_refuses_every_subset():
    votes = Chain(b"\x02" * 32).votes()
    calls = []

    def deadline_passed(slots):
        calls.append(slots)
        return Rejection("DeadlinePassed", {"taskId": 1})

    assert settle(votes, deadline_passed) is None
    assert len(calls) < 2 * len(votes)
    assert settle({0: votes[0]}, lambda slots: None) is None  # one vote: its own attest is cheaper


def test_settle_drops_slots_an_unknown_per_signer_refusal_hits():
    """E.g. a registry that takes only slots whose key was registered before the slot was taken,
    with an error this node does not know by name: the slots it refuses are found by bisection."""
    votes = Chain(b"\x02" * 32).votes()
    late = {1, 3}

    def check(slots):
        return Rejection("SomeFutureError", {"taskId": 1, "index": 9}) if slots & late else None

    assert settle(votes, check) == frozenset({0, 2})


def test_find_invalid_by_bisection():
    bad = {3, 9}
    calls = []

    def valid(part):
        calls.append(part)
        return not (part & bad)

    assert find_invalid(range(16), valid) == bad
    assert len(calls) < 16

"""Aggregate attestations, the plain logic (SPECIFICATION.md 5.5.2): whether a round's votes are
aggregated at all, who aggregates it, when each validator gives up on the aggregate and votes
alone, which relay entries go into an aggregate, and how entries that would make it revert are
found and dropped. No chain, no Redis, no Celery: workers.node.handlers.relay and the validator handlers
feed it what they read and send what it decides.

The relay that carries the signatures is untrusted (it can withhold entries or inject garbage), so
nothing read from it is believed: an entry counts only with the chain's holder of its slot, the
validator's own bitmap and a signature that passes the contract's own check (`settle`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

MIN_AGGREGATE_SIGNERS = 4
"""Default: the fewest validators that can join an aggregate (choose_aggregator's candidates) for
which the round's sealed votes are opened by one aggregate; with fewer, each validator opens its
own. One attestAggregate costs about as much as three `attest` openings whatever its size:
measured with bench/attest_gas.py (the commits and the round's finalization aside, which both
paths pay), 2 validators 152,948 gas opening alone against 260,099 aggregated, 3: 229,422 against
251,807, 4: 305,896 against 254,268. Below the break-even, opening alone also reaches quorum
sooner: no validator waits for the others' signatures and no aggregator for the relay."""

AGGREGATE_WAIT_S = 10.0
"""Default: how long an aggregator waits for the other validators' signatures after posting its own."""
ATTEST_FALLBACK_S = 20.0
"""Default: how long after posting a validator waits for an aggregate to cover it before it attests
alone. Longer than AGGREGATE_WAIT_S, so that an aggregate sent at the end of its wait still lands
first; validators of one task finish their checks at about the same time, so the two overlap."""


def choose_aggregator(task_id: int, round_: int, candidates: Sequence[int]) -> int | None:
    """The slot that aggregates this round: candidates[(task_id + round_) mod len(candidates)], where
    `candidates` are the validator slots that can be in an aggregate (held, expected this round,
    with a registered BLS key), as every validator of the task reads them from the chain. A rotation
    rather than "the lowest slot": every validator knows the aggregator before anyone posts (nobody
    waits to learn who is lowest among those that posted, and two nodes never both think they are
    it), the aggregator's extra gas is spread over the validators, and a silent or malicious
    aggregator costs the others only its own turns."""
    ordered = sorted(set(candidates))
    if not ordered:
        return None
    return ordered[(task_id + round_) % len(ordered)]


def check_min_signers(min_signers: int) -> int:
    """`min_signers` if it is a valid aggregate_min_signers setting, else ValueError."""
    if min_signers < 2:
        raise ValueError(f"aggregate_min_signers must be >= 2 (an aggregate carries two votes or more), "
                         f"got {min_signers}")
    return min_signers


def worth_aggregating(candidates: int, min_signers: int = MIN_AGGREGATE_SIGNERS) -> bool:
    """Whether a round with `candidates` validators that can join an aggregate is aggregated (at
    least `min_signers` of them, MIN_AGGREGATE_SIGNERS by default) or voted alone. Every validator
    of the round reads the same candidates from the chain, so they all decide the same way."""
    return candidates >= check_min_signers(min_signers)


@dataclass(frozen=True)
class Plan:
    """When, in seconds of this machine's clock (time.time()), a validator that posted its vote acts."""

    aggregate_by: float
    """The aggregator sends what it has by then, even if not every candidate posted."""
    fallback_at: float
    """A validator whose slot no aggregate covers by then votes with its own `attest`."""


def plan(now: float, seconds_left: float, wait_s: float, fallback_s: float) -> Plan:
    """The round's timing for a validator that posts at `now`, `seconds_left` before the AttestReveal
    deadline: it falls back after `fallback_s`, but never later than half of the time left (so its
    own transaction still has the other half), and an aggregator sends after `wait_s`, but never
    later than half-way to that fallback (so its aggregate lands before the others give up on it)."""
    if wait_s < 0 or fallback_s < 0:
        raise ValueError("wait_s and fallback_s must be >= 0")
    fallback = max(0.0, min(fallback_s, seconds_left / 2))
    return Plan(aggregate_by=now + min(wait_s, fallback / 2), fallback_at=now + fallback)


FIRST_LOOK_S = 0.05
"""A waiting aggregator's first look at the relay comes this soon, and each later one twice as
late, up to RELAY_LOOK_S: validators of one task finish their checks at about the same time, so
the signatures it waits for are mostly a moment away (one Redis read a look, nothing from the chain)."""
RELAY_LOOK_S = 0.25
"""The longest a waiting aggregator goes between two looks at the relay."""
CHAIN_LOOK_S = 2.0
"""How often a waiting aggregator also re-reads from the chain which validators can still join
(a candidate may have voted alone or left): ~10 eth_calls, too many to repeat every look."""


def next_look(now: float, aggregate_by: float, looks: int = 0) -> float:
    """Seconds until the waiting aggregator's next look at the relay after `looks` looks that found
    someone missing: FIRST_LOOK_S doubled per look up to RELAY_LOOK_S, never past `aggregate_by`."""
    return max(0.0, min(FIRST_LOOK_S * 2 ** min(looks, 16), RELAY_LOOK_S, aggregate_by - now))


def relay_look_only(now: float, aggregate_by: float, chain_look_at: float | None) -> bool:
    """Whether this look reads only the relay: while waiting (before `aggregate_by`), between two
    chain reads (the next at `chain_look_at`; None: no candidates read yet)."""
    return chain_look_at is not None and now < min(aggregate_by, chain_look_at)


@dataclass(frozen=True)
class Vote:
    """One slot's vote as it may go into an aggregate: its signature (G1), its holder's
    registered G2 key (read from the chain, never from the relay) and its salt."""

    slot: int
    node: str
    signature: tuple[int, int]
    pubkey_g2: tuple[int, int, int, int]
    salt: bytes  # what its sealed vote opens with (from the relay: the chain checks it)


def agreeing(entries: Mapping[int, object], bitmap: int, holders: Mapping[int, str], candidates: Iterable[int],
             keys: Mapping[int, Sequence[int]], is_point: Callable[[Sequence[int]], bool]) -> tuple[dict, dict]:
    """The relay entries (slot -> workers.node.handlers.relay.RelayEntry-like: accept_bitmap, signature,
    node) that may join an aggregate of `bitmap`, as ({slot: Vote}, {slot: why left out}): a slot
    that is a candidate, an entry naming the slot's holder on chain, the same bitmap and a
    signature that is a point of G1. Disagreeing validators vote on their own (or are aggregated by
    nobody): keeping one bitmap per aggregate keeps the aggregate one signed message."""
    wanted = set(candidates)
    votes, left_out = {}, {}
    for slot, entry in sorted(entries.items()):
        if slot not in wanted:
            left_out[slot] = "not a candidate (vacant, no sealed vote, opened already or no key)"
        elif entry.node.lower() != holders[slot].lower():
            left_out[slot] = "names another node than the slot's holder"
        elif entry.accept_bitmap != bitmap:
            left_out[slot] = f"another bitmap ({entry.accept_bitmap:#b})"
        elif not is_point(entry.signature):
            left_out[slot] = "signature is not a G1 point"
        else:
            votes[slot] = Vote(slot, holders[slot], tuple(entry.signature), tuple(keys[slot]), bytes(entry.salt))
    return votes, left_out


def find_invalid(slots: Iterable[int], valid: Callable[[frozenset], bool]) -> set[int]:
    """The slots whose signatures are bad, by bisection: `valid(subset)` says whether the aggregate
    of that subset verifies (an eth_call of attestAggregate: ~ms, against ~1.5 s for one pairing
    check in Python). k bad signatures among n cost O(k log n) calls; none costs none here (the
    caller already knows the whole set fails)."""
    bad: set[int] = set()

    def split(group: list[int]) -> None:
        if len(group) == 1:
            bad.add(group[0])
            return
        half = len(group) // 2
        for part in (group[:half], group[half:]):
            if not valid(frozenset(part)):
                split(part)

    group = sorted(slots)
    if group:
        split(group)
    return bad


@dataclass(frozen=True)
class Rejection:
    """Why the chain would refuse an aggregate (a decoded revert: workers.chain.errors.DecodedError)."""

    name: str
    kwargs: dict


def settle(votes: Mapping[int, Vote], check: Callable[[frozenset], Rejection | None], min_signers: int = 2,
           log: Callable[[str], None] = lambda _: None) -> frozenset | None:
    """The set of `votes` (slots) that the chain accepts as one aggregate, after dropping the ones
    it refuses, or None when
    fewer than `min_signers` remain (an aggregate of one costs more gas than its `attest`).
    `check(slots)` simulates attestAggregate of those slots (eth_call) and returns why it would
    revert, or None. A bad signature is found by bisection (find_invalid) and dropped; a slot that
    the revert names (AlreadyAttested(node), BlsKeyNotRegistered(node), VacantValidatorSlot(slot),
    or any per-signer error with a node argument) is dropped; for any other revert the slots whose
    sub-aggregates the chain refuses are found by bisection and dropped (a refusal that is not
    per signer, such as DeadlinePassed, refuses every subset: then it gives up, and the validators
    fall back to `attest`). Every pass drops at least one slot: at most len(votes) + 1 passes."""
    chosen = set(votes)
    by_node = {v.node.lower(): slot for slot, v in votes.items()}
    while len(chosen) >= min_signers:
        rejection = check(frozenset(chosen))
        if rejection is None:
            return frozenset(chosen)
        if rejection.name == "InvalidAggregateSignature":
            bad = find_invalid(chosen, lambda part: _signature_ok(check(part)))
        else:
            bad = {s for s in _named_slots(rejection, by_node) if s in chosen}
            if not bad:  # a per-signer refusal this code does not know by name: find who by bisection
                bad = find_invalid(chosen, lambda part: check(part) is None)
        if bad >= chosen:
            log(f"aggregate refused ({rejection.name}) whatever its signers; giving up")
            return None
        log(f"aggregate refused ({rejection.name}): dropping slots {sorted(bad)}")
        chosen -= bad
    return None


def _signature_ok(rejection: Rejection | None) -> bool:
    return rejection is None or rejection.name != "InvalidAggregateSignature"


def _named_slots(rejection: Rejection, by_node: Mapping[str, int]) -> set[int]:
    slots = set()
    for name, value in rejection.kwargs.items():
        if isinstance(value, str) and value.lower() in by_node:
            slots.add(by_node[value.lower()])
        elif name == "slot" and isinstance(value, int):
            slots.add(value)
    return slots

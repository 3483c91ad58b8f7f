"""Forced errors on a real chain (SPECIFICATION.md 5.5.3): round 0 has no draws; a reveal's salt is the
worker's draw commitment for the next round; in round 1 the workers open their draws in AttestReveal,
each forced exactly when uint256(keccak256(abi.encode(secret, seed))) % 10_000 < forcedErrorBps;
validators that answer "plant" on the forced submissions (bit 64 + i) get them accepted and are paid,
while one that accepts everything misses the plants (PlantMissed) and earns nothing that round."""

import brownie
from eth_abi import encode
from eth_utils import keccak

from tests.registry.rounds.driver import draw_commitment, events_of, send
from workers.protocol import Role


def _forced(secret, seed, bps):
    return int.from_bytes(keccak(encode(["bytes32", "bytes32"], [secret, seed])), "big") % 10_000 < bps


def test_forced_round(round_driver, registry, state, vault, samplers, trainer):
    d = round_driver
    workers = [*samplers, trainer]  # submission bits 0, 1 and 2
    d.work()
    for node in workers:
        stored = bytes(state.drawCommitmentOf(d.task_id, 1, node))
        assert stored == d.result(node, 0)[2]  # the reveal's salt
        assert stored == draw_commitment(d.task_id, 1, str(node), d.draw_secret(node, 1))
        assert bytes(state.drawCommitmentFor(d.task_id, 1, node, d.draw_secret(node, 1))) == stored
    assert state.drawnMask(d.task_id, 0) == 0  # round 0: nothing to open
    d.attest_all()

    assert d.round == 1
    seed = state.roundSeed(d.task_id, 1)
    assert int.from_bytes(bytes(seed), "big") != 0
    bps = state.forcedErrorBps()
    assert bps == 5000
    forced = [_forced(d.draw_secret(n, 1), bytes(seed), bps) for n in workers]
    forced_bits = sum(1 << i for i, f in enumerate(forced) if f)

    d.work()
    assert state.drawnMask(d.task_id, 1) == 0b111
    honest = (0b111 & ~forced_bits) | (forced_bits << 64)  # accept the unforced, "plant" the forced
    vals = d.validators()
    votes = [0b111, honest, honest]  # validator slot 0 accepts everything
    d.seal_votes(votes, vals)
    assert d.task()["pending"] == 6  # three votes and three draws

    opened = d.open_draws()
    got = [(e["node"], e["role"], e["slot"], e["forced"]) for tx in opened for e in events_of(tx, "DrawOpened")]
    assert got == [(n.address, Role.SAMPLER if i < 2 else Role.TRAINER, i if i < 2 else 0, forced[i])
                   for i, n in enumerate(workers)]
    assert (state.openedDrawMask(d.task_id, 1), state.forcedMask(d.task_id, 1)) == (0b111, forced_bits)
    assert tuple(state.drawsOf(d.task_id, 1)) == (0b111, forced_bits)

    before = [vault.claimableOf(v) for v in vals]
    last = d.open_votes(votes, vals)[-1]
    verdicts = {(e["role"], e["slot"]): e["verdict"] for e in events_of(last, "VerdictReached")}
    assert set(verdicts.values()) == {1}  # every submission accepted: its worker is not hurt
    missed = events_of(last, "PlantMissed")
    share = [vault.claimableOf(v) - b for v, b in zip(vals, before, strict=True)]
    if forced_bits:
        assert [(e["node"], e["validatorSlot"], e["bitsMissed"]) for e in missed] == [(vals[0].address, 0, forced_bits)]
        assert share[0] == 0 and share[1] == share[2] > 0
    else:  # nothing forced: nobody can have missed a plant
        assert missed == [] and share[0] == share[1] == share[2] > 0
    stored = registry.attestationOf(d.task_id, 1, 1)
    assert (stored["voted"], stored["acceptBitmap"], stored["plantBitmap"]) == (True, 0b111 & ~forced_bits,
                                                                              forced_bits)


def test_open_draw_checks(round_driver, registry, samplers):
    d = round_driver
    d.play_round()
    d.work()
    d.seal_votes()
    s0 = samplers[0]
    with brownie.reverts(f"DrawMismatch: {d.task_id}, {s0.address.lower()}"):
        send(registry.openDraw, d.task_id, 1, b"\x05" * 32, sender=s0)
    v = d.validators()[0]
    with brownie.reverts(f"NoDraw: {d.task_id}, {v.address.lower()}"):
        send(registry.openDraw, d.task_id, 1, d.draw_secret(v, 1), sender=v)
    send(registry.openDraw, d.task_id, 1, d.draw_secret(s0, 1), sender=s0)
    with brownie.reverts(f"AlreadyOpened: {d.task_id}, {s0.address.lower()}"):
        send(registry.openDraw, d.task_id, 1, d.draw_secret(s0, 1), sender=s0)

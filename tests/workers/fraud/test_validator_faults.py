"""The fraud matrix, validators: a validator that rejects everything, one that seals its vote and never
opens it (Withheld: slashed, -20), a colluding minority (a validator that accepts a cheating
sampler's work), and one that accepts without checking (it misses the forced errors). The quorum
(⌈2n/3⌉) decides as the evidence says. A validator that accepted work the quorum rejected is paid
nothing and keeps its stake, reputation and slot (an honest validator whose sampled challenges
missed the fault votes the same way); one that rejected work the quorum accepted dissents: it keeps
its stake, reputation and slot, since a lone rejection may be the one that is right (its dispute
decides: tests/workers/disputes/test_lone_detector.py); with disputes on (as deployed) its pay is
held and goes back to the requester at the window's end unless its dispute vindicates it, and with
disputes off (nothing could vindicate it) it is paid nothing. Every honest node is paid its slot
share. Each case has its own network, whose validator pool is exactly the task's validators (the
draw takes them all)."""
from types import SimpleNamespace

import fraud_faults as faults
import pytest
from fraud_world import BOUNTY, Cheat, FraudNet, outcome, play_round, start_task

from workers.protocol import Outcome, Phase, Role, Verdict


def share(net, role: Role, slots: int) -> int:
    return BOUNTY * net.deployment.config.functions.roleShares().call()[role] // 10_000 // slots


@pytest.fixture
def make_net(tmp_path_factory):
    nets = []

    def make(validators: int, **settings) -> FraudNet:
        net = FraudNet(tmp_path_factory.mktemp("fraud-validators"), **settings)
        nets.append(net)
        for node, role in [("sampler0", "sampler"), ("sampler1", "sampler"), ("trainer", "trainer"),
                           *((f"validator{i}", "validator") for i in range(validators))]:
            net.add_node(node, role)
        return net

    yield make
    for net in nets:
        net.stop()


def play(net, validators: int, liar: str, *cheats: Cheat) -> SimpleNamespace:
    """One round of a task with `validators` validators; returns what happened, and the liar's
    locked stake and reputation before the round."""
    nodes = {"sampler": [net.node("sampler0"), net.node("sampler1")], "trainer": [net.node("trainer")],
             "validator": [net.node(f"validator{i}") for i in range(validators)]}
    task_id = net.create_task(num_validators=validators)
    start_task(net, task_id, nodes["sampler"], nodes["trainer"][0], nodes["validator"])
    state = net.deployment.state.functions
    liar = net.node(liar)
    slot = state.membershipOf(task_id, liar.address).call().slot
    before = SimpleNamespace(locked=state.slotOf(task_id, Role.VALIDATOR, slot).call().lockedStake,
                             score=net.deployment.reputation.functions.scoreOf(liar.address).call())
    block = net.w3.eth.block_number + 1
    play_round(net, task_id, nodes, *cheats)
    return SimpleNamespace(nodes=nodes, liar=liar, before=before, seen=outcome(net, task_id, block), task_id=task_id)


def assert_liar_unpaid(net, r) -> None:
    """The liar accepted work the quorum rejected: it earns nothing, and keeps its stake, reputation
    and slot (an honest validator whose challenges missed the fault would have voted as it did)."""
    assert r.liar.address not in r.seen.vacated and r.liar.address not in r.seen.slashed
    assert net.deployment.reputation.functions.scoreOf(r.liar.address).call() == r.before.score
    assert r.liar.address not in r.seen.earned


def assert_dissent_kept_its_place(net, r) -> None:
    """The liar dissented: not vacated, not slashed, its reputation unchanged; everyone else paid."""
    assert r.seen.vacated == {} and r.seen.slashed == {}
    assert net.deployment.reputation.functions.scoreOf(r.liar.address).call() == r.before.score
    dissents = net.deployment.registry.events.Dissented().get_logs(from_block=0)
    assert [(e.args.validator, e.args.dissentBitmap) for e in dissents] == [(r.liar.address, 0b111)]
    for node in r.nodes["sampler"]:
        assert r.seen.verdicts[(node.address, Role.SAMPLER)] == Verdict.ACCEPTED
        assert r.seen.earned[node.address] == share(net, Role.SAMPLER, 2)
    trainer = r.nodes["trainer"][0]
    assert r.seen.verdicts[(trainer.address, Role.TRAINER)] == Verdict.ACCEPTED
    assert r.seen.earned[trainer.address] == share(net, Role.TRAINER, 1)
    for node in r.nodes["validator"][:2]:
        assert r.seen.earned[node.address] == share(net, Role.VALIDATOR, 3)


def test_a_validator_rejecting_honest_work_dissents_and_is_not_paid(make_net):
    """Disputes off: nothing could vindicate the dissent, so it is not paid at all."""
    net = make_net(3, disputes=False)
    r = play(net, 3, "validator2", Cheat("validator2", faults.VERIFY, faults.reject_everything, phases=(Phase.ATTEST,)))
    assert_dissent_kept_its_place(net, r)
    assert r.liar.address not in r.seen.earned


def test_a_dissent_no_dispute_vindicates_is_held_then_reclaimed_to_the_requester(make_net):
    """Disputes on, as deployed: the dissenter's round pay is held like everyone's; once the window
    has passed with no dispute of its own proving the work bad, releasePay gives it to the requester,
    while the honest nodes' held pay is released to them."""
    net = make_net(3)
    r = play(net, 3, "validator2", Cheat("validator2", faults.VERIFY, faults.reject_everything, phases=(Phase.ATTEST,)))
    assert_dissent_kept_its_place(net, r)
    d, task_id, pay = net.deployment, r.task_id, share(net, Role.VALIDATOR, 3)
    vault = d.vault.functions
    assert r.seen.earned[r.liar.address] == vault.heldOf(task_id, 0, r.liar.address).call() == pay
    requester = d.state.functions.taskOf(task_id).call().requester
    refund = vault.claimableOf(requester).call()
    end = d.state.functions.windowEndOf(task_id, 0).call()
    net.w3.provider.make_request("evm_increaseTime", [end - d.registry.functions.protocolTime().call() + 1])
    net.mine()
    honest = r.nodes["validator"][0]
    for node in (r.liar, honest):
        net.w3.eth.wait_for_transaction_receipt(
            d.disputes.functions.releasePay(task_id, 0, node.address).transact({"from": net.admin}))
    assert vault.heldOf(task_id, 0, r.liar.address).call() == 0 and vault.claimableOf(r.liar.address).call() == 0
    assert vault.claimableOf(requester).call() == refund + pay
    assert vault.claimableOf(honest.address).call() == pay


def test_a_colluding_minority_of_validators_cannot_pass_a_cheat(make_net):
    """sampler1 fabricates rewards and validator3 (one of four, quorum 3) accepts it anyway."""
    net = make_net(4)
    r = play(net, 4, "validator3",
             Cheat("sampler1", faults.SHARD, faults.fabricated_rewards, phases=(Phase.SAMPLE_COMMIT,)),
             Cheat("validator3", faults.VERIFY, faults.accept_everything, phases=(Phase.ATTEST,)))
    assert_liar_unpaid(net, r)
    cheater, honest = net.node("sampler1"), net.node("sampler0")
    assert r.seen.verdicts[(cheater.address, Role.SAMPLER)] == Verdict.REJECTED
    assert r.seen.vacated == {cheater.address: Outcome.REJECTED}
    assert cheater.address in r.seen.slashed and cheater.address not in r.seen.earned
    assert r.seen.earned[honest.address] == share(net, Role.SAMPLER, 2)
    assert r.seen.earned[net.node("trainer").address] == share(net, Role.TRAINER, 1)
    for node in r.nodes["validator"][:3]:
        assert r.seen.earned[node.address] == share(net, Role.VALIDATOR, 4)


def test_a_validator_that_seals_and_never_opens_its_vote_is_slashed(make_net):
    """validator2 commits its (honest) vote and withholds the opening, as one that waits to see
    the others' votes would: at the AttestReveal deadline it is Withheld (slashed, -20, vacated);
    the two opened votes decide and are paid."""
    net = make_net(3)
    r = play(net, 3, "validator2", Cheat("validator2", withhold=(Phase.ATTEST_REVEAL,)))
    slash_bps = net.deployment.config.functions.slashBps().call()
    assert r.seen.vacated == {r.liar.address: Outcome.WITHHELD}
    assert r.seen.slashed.get(r.liar.address) == r.before.locked * slash_bps // 10_000
    assert net.deployment.reputation.functions.scoreOf(r.liar.address).call() == r.before.score - 20
    assert r.liar.address not in r.seen.earned
    trainer = r.nodes["trainer"][0]
    assert r.seen.verdicts[(trainer.address, Role.TRAINER)] == Verdict.ACCEPTED
    for node in r.nodes["validator"][:2]:
        assert r.seen.earned[node.address] == share(net, Role.VALIDATOR, 3)


def accept_without_checking(spec, task_id, round_, prev_bundle, samplers, trainer, *args, **kwargs):
    """A lazy validator: re-executes nothing and accepts every submission."""
    from workers.roles.validator import Judgement, RoundVerdict

    yes = Judgement(True, "accepted without checking")
    return RoundVerdict({slot: yes for slot, _, _ in samplers}, None if trainer is None else yes)


def test_a_validator_that_does_not_check_misses_the_forced_errors_and_is_not_paid(make_net):
    """SPECIFICATION.md 5.5.3: about half of the submissions are forced to carry a planted error; the
    honest validators find it and answer "plant", the lazy one accepts it: it earns nothing that
    round (PlantMissed) and keeps its stake, reputation and slot, and the forced workers are paid
    like the others. Rounds are played until one has a forced submission (7 in 8 do)."""
    net = make_net(3)
    lazy = Cheat("validator2", faults.VERIFY, accept_without_checking, phases=(Phase.ATTEST,))
    early = Cheat("validator2", "workers.node.handlers.validator_handlers._check_samplers_early", lambda ctx, ev: None,
                  phases=(Phase.TRAIN_COMMIT,))
    for _ in range(4):
        r = play(net, 3, "validator2", lazy, early)
        forced = net.deployment.state.functions.forcedMask(r.task_id, 0).call()
        if forced:
            break
    assert forced, "four rounds without a forced submission (odds 1 in 4,096)"
    missed = net.deployment.registry.events.PlantMissed().get_logs(from_block=0, argument_filters={
        "taskId": r.task_id})
    assert [(e.args.node, e.args.bitsMissed) for e in missed] == [(r.liar.address, forced)]
    assert_liar_unpaid(net, r)
    assert r.seen.vacated == {} and r.seen.slashed == {}
    workers = [(node, Role.SAMPLER, share(net, Role.SAMPLER, 2)) for node in r.nodes["sampler"]]
    workers.append((r.nodes["trainer"][0], Role.TRAINER, share(net, Role.TRAINER, 1)))
    for node, role, pay in workers:
        assert r.seen.verdicts[(node.address, role)] == Verdict.ACCEPTED, node.name
        assert r.seen.earned[node.address] == pay, node.name
    for node in r.nodes["validator"][:2]:
        assert r.seen.earned[node.address] == share(net, Role.VALIDATOR, 3), node.name

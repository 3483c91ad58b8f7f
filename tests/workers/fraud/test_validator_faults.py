"""The fraud matrix, validators: a validator that attests against the evidence, one that seals its
vote and never opens it (Withheld: slashed, -20), and a colluding
minority (a validator that accepts a cheating sampler's work). The quorum (⌈2n/3⌉) decides as the
evidence says; the dishonest validator is slashed slashBps of its locked stake, loses 15
reputation and is paid nothing; every honest node is paid its slot share. Each case has its own
network, whose validator pool is exactly the task's validators (the draw takes them all)."""
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

    def make(validators: int) -> FraudNet:
        net = FraudNet(tmp_path_factory.mktemp("fraud-validators"))
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
    return SimpleNamespace(nodes=nodes, liar=liar, before=before, seen=outcome(net, task_id, block))


def assert_liar_punished(net, r) -> None:
    slash_bps = net.deployment.config.functions.slashBps().call()
    assert r.seen.vacated.get(r.liar.address) == Outcome.AGAINST_QUORUM
    assert r.seen.slashed.get(r.liar.address) == r.before.locked * slash_bps // 10_000
    assert net.deployment.reputation.functions.scoreOf(r.liar.address).call() == r.before.score - 15
    assert r.liar.address not in r.seen.earned


def test_a_validator_attesting_against_the_evidence_is_slashed(make_net):
    net = make_net(3)
    r = play(net, 3, "validator2", Cheat("validator2", faults.VERIFY, faults.reject_everything, phases=(Phase.ATTEST,)))
    assert_liar_punished(net, r)
    assert r.seen.vacated == {r.liar.address: Outcome.AGAINST_QUORUM}
    for node in r.nodes["sampler"]:
        assert r.seen.verdicts[(node.address, Role.SAMPLER)] == Verdict.ACCEPTED
        assert r.seen.earned[node.address] == share(net, Role.SAMPLER, 2)
    trainer = r.nodes["trainer"][0]
    assert r.seen.verdicts[(trainer.address, Role.TRAINER)] == Verdict.ACCEPTED
    assert r.seen.earned[trainer.address] == share(net, Role.TRAINER, 1)
    for node in r.nodes["validator"][:2]:
        assert r.seen.earned[node.address] == share(net, Role.VALIDATOR, 3)


def test_a_colluding_minority_of_validators_cannot_pass_a_cheat(make_net):
    """sampler1 fabricates rewards and validator3 (one of four, quorum 3) accepts it anyway."""
    net = make_net(4)
    r = play(net, 4, "validator3",
             Cheat("sampler1", faults.SHARD, faults.fabricated_rewards, phases=(Phase.SAMPLE_COMMIT,)),
             Cheat("validator3", faults.VERIFY, faults.accept_everything, phases=(Phase.ATTEST,)))
    assert_liar_punished(net, r)
    cheater, honest = net.node("sampler1"), net.node("sampler0")
    assert r.seen.verdicts[(cheater.address, Role.SAMPLER)] == Verdict.REJECTED
    assert r.seen.vacated == {cheater.address: Outcome.REJECTED, r.liar.address: Outcome.AGAINST_QUORUM}
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

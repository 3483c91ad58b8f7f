"""The fraud matrix, samplers: in each case one sampler of a 2-sampler task cheats in one way and
everyone else is honest (a trainer, 3 validators). The network must reject the cheater's work,
slash it (slashBps of its locked stake) and take 20 reputation, vacate its slot — and pay every
honest node exactly its slot share. Each case has a fresh cheater (a cheater's reputation falls
below the threshold after one rejection)."""
import fraud_faults as faults
import pytest
from fraud_world import Cheat, as_node, network, outcome, play_round, slot_share, start_task

from workers.protocol import Outcome, Phase, Role, Verdict

SAMPLER_FAULTS = {
    "fabricated rewards": faults.fabricated_rewards,
    "altered observations": faults.altered_observations,
    "actions not drawn from the committed policy": faults.off_policy_actions,
    "a root its blob does not reach (invalid Merkle proof)": faults.root_of_nothing,
}


@pytest.fixture(scope="module")
def net(tmp_path_factory):
    nodes = {"sampler0": "sampler", "trainer": "trainer",
             "validator0": "validator", "validator1": "validator", "validator2": "validator"}
    with network(tmp_path_factory.mktemp("fraud-samplers"), nodes) as fraud_net:
        yield fraud_net


def run_case(net, fault, name: str, *, rounds: int = 1, cheat_round: int = 0):
    cheater = net.add_node(name, "sampler")
    honest = net.node("sampler0")
    nodes = {"sampler": [honest, cheater], "trainer": [net.node("trainer")],
             "validator": [net.node(f"validator{i}") for i in range(3)]}
    task_id = net.create_task(num_rounds=rounds)
    start_task(net, task_id, nodes["sampler"], nodes["trainer"][0], nodes["validator"])
    cheat = Cheat(cheater.name, faults.SHARD, fault, phases=(Phase.SAMPLE_COMMIT,), rounds=(cheat_round,))
    for _ in range(cheat_round):
        play_round(net, task_id, nodes)
    if cheat_round:
        assert bytes(net.task(task_id).checkpointRoot) != bytes(32), "no checkpoint accepted before the cheat"
    score = net.deployment.reputation.functions.scoreOf(cheater.address).call()
    locked = net.deployment.state.functions.slotOf(task_id, Role.SAMPLER, 1).call().lockedStake
    block = net.w3.eth.block_number + 1
    play_round(net, task_id, nodes, cheat)
    return cheater, nodes, task_id, score, locked, outcome(net, task_id, block)


def assert_caught_and_honest_paid(net, cheater, nodes, score, locked, seen, rounds=1):
    slash_bps = net.deployment.config.functions.slashBps().call()
    assert seen.verdicts[(cheater.address, Role.SAMPLER)] == Verdict.REJECTED
    assert seen.vacated == {cheater.address: Outcome.REJECTED}
    assert seen.slashed == {cheater.address: locked * slash_bps // 10_000}
    assert net.deployment.reputation.functions.scoreOf(cheater.address).call() == score - 20
    assert cheater.address not in seen.earned
    honest = nodes["sampler"][0]
    assert seen.verdicts[(honest.address, Role.SAMPLER)] == Verdict.ACCEPTED
    assert seen.earned[honest.address] == slot_share(net, Role.SAMPLER, 2, rounds)
    trainer = nodes["trainer"][0]
    assert seen.verdicts[(trainer.address, Role.TRAINER)] == Verdict.ACCEPTED
    assert seen.earned[trainer.address] == slot_share(net, Role.TRAINER, 1, rounds)
    for validator in nodes["validator"]:
        assert seen.earned[validator.address] == slot_share(net, Role.VALIDATOR, 3, rounds)


@pytest.mark.parametrize("fault", SAMPLER_FAULTS, ids=list(SAMPLER_FAULTS))
def test_sampler_fault_is_caught_and_the_honest_are_paid(net, fault):
    cheater, nodes, task_id, score, locked, seen = run_case(net, SAMPLER_FAULTS[fault], f"cheat-{len(net.nodes)}")
    assert_caught_and_honest_paid(net, cheater, nodes, score, locked, seen)
    for validator in nodes["validator"]:  # the shards were judged while the trainer trained
        with as_node(validator) as ctx:
            [note] = [n["data"] for n in ctx.secrets.notes(task_id) if n["kind"] == "verdict"]
        assert note["samplers_judged_early"] == [0, 1] and note["samplers"]["1"][0] is False, (validator.name, note)


def test_rollouts_from_a_stale_policy_are_caught(net):
    """Round 1 rolled out with the initial policy although round 0's checkpoint was accepted."""
    cheater, nodes, _, score, locked, seen = run_case(net, faults.stale_policy, "stale", rounds=2, cheat_round=1)
    assert_caught_and_honest_paid(net, cheater, nodes, score, locked, seen, rounds=2)


def test_an_episode_that_does_not_decode_is_rejected_not_a_crash(net):
    """Bytes crafted to break a parser get their sampler rejected and slashed; the validators and
    the trainer, whose jobs read them, are paid in full (no one misses a deadline over them)."""
    cheater, nodes, task_id, score, locked, seen = run_case(net, faults.undecodable_episode, "undecodable")
    assert_caught_and_honest_paid(net, cheater, nodes, score, locked, seen)
    for validator in nodes["validator"]:
        with as_node(validator) as ctx:
            [note] = [n["data"] for n in ctx.secrets.notes(task_id) if n["kind"] == "verdict"]
        accepted, reason = note["samplers"]["1"][:2]
        assert accepted is False and "malformed episode" in reason, (validator.name, note)

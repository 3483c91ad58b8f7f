"""The fraud matrix on each environment family beyond classic control (fraud_workloads: MuJoCo's
HalfCheetah-v5, with normalisation statistics, and Hopper-v5, whose shards hold several falling
episodes; MinAtar Breakout through the MinAtar CNN; Atari Breakout through the Nature CNN; every
one verified segment by segment from committed snapshots), on the chain with the real handlers, as
the CartPole matrix runs.

Honest runs: 20 task seeds of a MuJoCo task (HalfCheetah) and a pixel task (MinAtar), 3 of Hopper
and 2 of Atari, every submission Accepted by every validator (no false rejection: one validator
voting otherwise would be vacated as against the quorum), each validator having replayed the
spec's number of segments of each shard. Cheats: each one's cheater is rejected by the quorum,
slashed slashBps of its locked stake, loses 20 reputation and its slot, and every honest node is
paid exactly its slot share. A sampler that batches its episodes by the rollout's earlier lane
rule (other last bits, the same episodes) is accepted and paid.

Atari is the costly family here: each node's first Atari task calibrates its speed on it
(workers.node.market.calibrate, on this 2-core machine: a sampler's rollouts ~2.4 s, the trainer's
updates ~4 s), and again for the Atari cheater, a fresh node; a round after that takes ~6 s."""
import dataclasses

import fraud_faults
import fraud_trainer_faults
import fraud_workloads as workloads
import pytest
from fraud_world import Cheat, as_node, network, outcome, play_round, slot_share, start_task

from workers.protocol import Outcome, Phase, Role, Verdict

HONEST = [(workload, seed) for workload in ("halfcheetah", "minatar") for seed in range(20)] + [
    ("hopper", seed) for seed in range(3)] + [("atari", seed) for seed in range(2)]
"""(workload, task seed) of each honest case: 20 seeds of a MuJoCo and a pixel task, a few of the others."""
SAMPLER_CHEATS = {  # (workload, name): (dishonest sample_shard, what every validator's rejection says)
    ("halfcheetah", "altered observations"): (workloads.altered_observations, "obs"),
    ("halfcheetah", "forged snapshots"): (workloads.forged_snapshots, "does not replay"),
    ("halfcheetah", "actions not drawn from the committed policy"): (workloads.off_policy_actions, "does not replay"),
    ("minatar", "flipped pixels"): (workloads.flipped_pixels, "obs"),
    ("minatar", "actions not drawn from the committed policy"): (workloads.off_policy_actions, "does not replay"),
    ("atari", "inverted frames"): (workloads.inverted_frames, "obs"),
}
TRAINER_CHEATS = {
    ("halfcheetah", "observation statistics left stale"): (
        workloads.stale_observation_statistics, "observation statistics are not the round's"),
    ("minatar", "an altered training step (every step of the CNN)"): (
        fraud_trainer_faults.altered_steps, "does not re-execute"),
}


@pytest.fixture(scope="module")
def net(tmp_path_factory):
    nodes = {"sampler0": "sampler", "sampler1": "sampler", "trainer": "trainer",
             "validator0": "validator", "validator1": "validator", "validator2": "validator"}
    with network(tmp_path_factory.mktemp("fraud-workloads"), nodes) as fraud_net:
        yield fraud_net


def roles(net, sampler=None, trainer=None) -> dict:
    return {"sampler": [net.node("sampler0"), sampler or net.node("sampler1")],
            "trainer": [trainer or net.node("trainer")], "validator": [net.node(f"validator{i}") for i in range(3)]}


def verdict_notes(task_id: int, validators) -> list[dict]:
    notes = []
    for validator in validators:
        with as_node(validator) as ctx:
            [note] = [n["data"] for n in ctx.secrets.notes(task_id) if n["kind"] == "verdict"]
        notes.append(note)
    return notes


@pytest.mark.parametrize(("workload", "seed"), HONEST, ids=[f"{w}-{s}" for w, s in HONEST])
def test_an_honest_round_is_accepted_by_every_validator(net, workload, seed):
    nodes = roles(net)
    spec = dataclasses.replace(workloads.WORKLOADS[workload], seed=seed)
    task_id = net.create_task(spec=spec)
    start_task(net, task_id, nodes["sampler"], nodes["trainer"][0], nodes["validator"])
    block = net.w3.eth.block_number + 1
    play_round(net, task_id, nodes)
    seen = outcome(net, task_id, block)
    workers = [(n, Role.SAMPLER) for n in nodes["sampler"]] + [(nodes["trainer"][0], Role.TRAINER)]
    assert seen.verdicts == {(n.address, role): Verdict.ACCEPTED for n, role in workers}
    assert seen.vacated == {} and seen.slashed == {}
    assert bytes(seen.task.checkpointRoot) != bytes(32)
    replayed = f"{spec.challenges_per_sampler} replayed segments"  # of each shard, from its snapshots: not episodes
    for note in verdict_notes(task_id, nodes["validator"]):
        for accepted, why, *_, planted in note["samplers"].values():
            assert replayed in why and (accepted or planted and why.startswith("planted")), note


def assert_rejected_and_honest_paid(net, cheater, role: Role, nodes, score: int, locked: int, seen) -> None:
    slash_bps = net.deployment.config.functions.slashBps().call()
    assert seen.verdicts[(cheater.address, role)] == Verdict.REJECTED
    assert seen.vacated == {cheater.address: Outcome.REJECTED}
    assert seen.slashed == {cheater.address: locked * slash_bps // 10_000}
    assert net.deployment.reputation.functions.scoreOf(cheater.address).call() == score - 20
    assert cheater.address not in seen.earned
    for node, honest_role, slots in [(s, Role.SAMPLER, 2) for s in nodes["sampler"]] + [
            (t, Role.TRAINER, 1) for t in nodes["trainer"]] + [(v, Role.VALIDATOR, 3) for v in nodes["validator"]]:
        if node is cheater:
            continue
        if honest_role != Role.VALIDATOR:
            assert seen.verdicts[(node.address, honest_role)] == Verdict.ACCEPTED, node.name
        assert seen.earned[node.address] == slot_share(net, honest_role, slots), node.name


@pytest.mark.parametrize("case", SAMPLER_CHEATS, ids=[" / ".join(c) for c in SAMPLER_CHEATS])
def test_a_sampler_cheat_is_caught_and_the_honest_are_paid(net, case):
    workload, _ = case
    fault, reason = SAMPLER_CHEATS[case]
    cheater = net.add_node(f"cheat-{len(net.nodes)}", "sampler")
    nodes = roles(net, sampler=cheater)
    task_id = net.create_task(spec=workloads.WORKLOADS[workload])
    start_task(net, task_id, nodes["sampler"], nodes["trainer"][0], nodes["validator"])
    score = net.deployment.reputation.functions.scoreOf(cheater.address).call()
    locked = net.deployment.state.functions.slotOf(task_id, Role.SAMPLER, 1).call().lockedStake
    block = net.w3.eth.block_number + 1
    play_round(net, task_id, nodes, Cheat(cheater.name, fraud_faults.SHARD, fault, phases=(Phase.SAMPLE_COMMIT,)))
    seen = outcome(net, task_id, block)
    assert_rejected_and_honest_paid(net, cheater, Role.SAMPLER, nodes, score, locked, seen)
    for note in verdict_notes(task_id, nodes["validator"]):
        accepted, why = note["samplers"]["1"][:2]
        assert accepted is False and reason in why, note


@pytest.mark.parametrize("case", TRAINER_CHEATS, ids=[" / ".join(c) for c in TRAINER_CHEATS])
def test_a_trainer_cheat_is_caught_and_the_honest_are_paid(net, case):
    workload, _ = case
    fault, reason = TRAINER_CHEATS[case]
    cheater = net.add_node(f"cheat-{len(net.nodes)}", "trainer")
    nodes = roles(net, trainer=cheater)
    task_id = net.create_task(spec=workloads.WORKLOADS[workload])
    start_task(net, task_id, nodes["sampler"], cheater, nodes["validator"])
    score = net.deployment.reputation.functions.scoreOf(cheater.address).call()
    locked = net.deployment.state.functions.slotOf(task_id, Role.TRAINER, 0).call().lockedStake
    block = net.w3.eth.block_number + 1
    cheat = Cheat(cheater.name, fraud_trainer_faults.TRAIN, fault, phases=(Phase.TRAIN_COMMIT,))
    play_round(net, task_id, nodes, cheat)
    seen = outcome(net, task_id, block)
    assert_rejected_and_honest_paid(net, cheater, Role.TRAINER, nodes, score, locked, seen)
    assert bytes(seen.task.checkpointRoot) == bytes(32), "a rejected checkpoint became the task's"
    for note in verdict_notes(task_id, nodes["validator"]):
        assert note["trainer"][0] is False and reason in note["trainer"][1], note["trainer"]


OLD_LANES = "workers.rl.envs.config.EnvConfig.fixed_episode_steps"
"""Patched to say no env runs to its time limit: the rollout's rule before it (speculative lanes)."""


def test_a_sampler_batching_its_episodes_the_old_way_is_accepted_and_paid(net):
    """Which episodes share a forward pass is not checked bit for bit (replays compare policy
    outputs within tolerance): a sampler that still rolls HalfCheetah's speculative lanes commits
    other last bits, and every validator accepts it. The lane rule only saves a sampler CPU; a
    validator has nothing to enforce there, and an honest sampler on either rule is paid."""
    from unittest import mock

    from workers.rl.policy import make_policy
    from workers.rl.rollout import episode_root, rollout

    spec = workloads.WORKLOADS["halfcheetah"]
    policy = make_policy(spec.space(), spec.policy_config())

    def shard():
        return rollout(policy, spec.env_config(), task_seed=spec.seed, round_=0, shard=0,
                       num_steps=spec.steps_per_shard, steps_per_snapshot=spec.steps_per_snapshot)

    new = shard()
    with mock.patch(OLD_LANES, lambda self: None):
        old = shard()
    assert episode_root(old) != episode_root(new), "the old rule must give other bits, or this plays nothing"

    sampler = net.add_node(f"old-lanes-{len(net.nodes)}", "sampler")
    nodes = roles(net, sampler=sampler)
    task_id = net.create_task(spec=spec)
    start_task(net, task_id, nodes["sampler"], nodes["trainer"][0], nodes["validator"])
    block = net.w3.eth.block_number + 1
    play_round(net, task_id, nodes, Cheat(sampler.name, OLD_LANES, lambda self: None, phases=(Phase.SAMPLE_COMMIT,)))
    seen = outcome(net, task_id, block)
    workers = [(n, Role.SAMPLER) for n in nodes["sampler"]] + [(nodes["trainer"][0], Role.TRAINER)]
    assert seen.verdicts == {(n.address, role): Verdict.ACCEPTED for n, role in workers}
    assert seen.vacated == {} and seen.slashed == {}
    assert seen.earned[sampler.address] == slot_share(net, Role.SAMPLER, 2)

"""Honest runs over 20 task seeds: no false rejection. Each seed is its own one-round task (the
fraud world's spec with `seed` varied, so other environment seeds, action draws, initial policy
and minibatch permutations) played on the chain by honest nodes — 2 samplers, a trainer and 3
validators, each validator challenging with its own secret seed (os.urandom per task and round,
so 60 independent challenge draws over the seeds). Every submission must be Accepted, and no
validator may have voted otherwise (one that did would be vacated as against the quorum).

The chain version is affordable (about 3 s a seed on two cores), so it runs end to end rather
than at the role level."""
import dataclasses

import pytest
from fraud_world import SPEC, network, outcome, play_round, slot_share, start_task

from workers.protocol import Role, Verdict

SEEDS = [SPEC.seed + i for i in range(20)]


@pytest.fixture(scope="module")
def net(tmp_path_factory):
    nodes = {"sampler0": "sampler", "sampler1": "sampler", "trainer": "trainer",
             "validator0": "validator", "validator1": "validator", "validator2": "validator"}
    with network(tmp_path_factory.mktemp("fraud-honest"), nodes) as fraud_net:
        yield fraud_net


@pytest.mark.parametrize("seed", SEEDS)
def test_an_honest_round_is_accepted_by_every_validator(net, seed):
    nodes = {"sampler": [net.node("sampler0"), net.node("sampler1")], "trainer": [net.node("trainer")],
             "validator": [net.node(f"validator{i}") for i in range(3)]}
    task_id = net.create_task(spec=dataclasses.replace(SPEC, seed=seed))
    start_task(net, task_id, nodes["sampler"], nodes["trainer"][0], nodes["validator"])
    block = net.w3.eth.block_number + 1
    play_round(net, task_id, nodes)
    seen = outcome(net, task_id, block)

    workers = [(n, Role.SAMPLER) for n in nodes["sampler"]] + [(nodes["trainer"][0], Role.TRAINER)]
    assert seen.verdicts == {(n.address, role): Verdict.ACCEPTED for n, role in workers}
    assert seen.vacated == {} and seen.slashed == {}
    assert bytes(seen.task.checkpointRoot) != bytes(32)
    for node, role in workers + [(v, Role.VALIDATOR) for v in nodes["validator"]]:
        slots = {Role.SAMPLER: 2, Role.TRAINER: 1, Role.VALIDATOR: 3}[role]
        assert seen.earned[node.address] == slot_share(net, role, slots), (node.name, role)

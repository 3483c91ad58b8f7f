"""The fraud matrix, trainers: in each case the trainer of a 2-sampler task cheats in one way and
everyone else is honest (2 samplers, 3 validators). The network must reject the trainer's
checkpoint by the ⌈2n/3⌉ quorum, slash it slashBps of its locked stake, take 20 reputation,
vacate its slot, keep the task's checkpoint where it was — and pay every honest node exactly its
slot share. Each case has a fresh cheating trainer (one rejection puts a node below the
reputation threshold).

Validators re-execute only challenged transitions, so the step faults tamper with every
transition (fraud_trainer_faults' docstring): every validator's challenges expose them, whatever
its secret seed draws, and the spec needs no more challenges than the fraud world's (4
transitions of 4 steps). Faults confined to one step are measured by bench/verify.py, not
asserted here. The checkpoint faults are caught before any sampling (root and trace ends)."""
import fraud_trainer_faults as faults
import pytest
from fraud_world import Cheat, as_node, network, outcome, play_round, slot_share, start_task

from workers.protocol import Outcome, Phase, Role, Verdict

TRAINER_FAULTS = {  # name: (dishonest train_round, what every validator's rejection says)
    "a skipped training step (in every transition)": (faults.skipped_steps, "does not re-execute"),
    "an altered training step (every step)": (faults.altered_steps, "does not re-execute"),
    "a shard left out as if it could not be fetched": (faults.shard_left_out, "did not train on the accepted shards"),
    "a checkpoint bundle that does not hash to its committed root": (
        faults.bundle_off_its_root, "checkpoint does not match its revealed root"),
    "a checkpoint policy that is not the end of its committed trace": (
        faults.policy_off_its_trace, "is not the checkpoint's policy"),
}


@pytest.fixture(scope="module")
def net(tmp_path_factory):
    nodes = {"sampler0": "sampler", "sampler1": "sampler",
             "validator0": "validator", "validator1": "validator", "validator2": "validator"}
    with network(tmp_path_factory.mktemp("fraud-trainers"), nodes) as fraud_net:
        yield fraud_net


@pytest.mark.parametrize("fault", TRAINER_FAULTS, ids=list(TRAINER_FAULTS))
def test_trainer_fault_is_caught_and_the_honest_are_paid(net, fault):
    cheater = net.add_node(f"cheat-{len(net.nodes)}", "trainer")
    nodes = {"sampler": [net.node("sampler0"), net.node("sampler1")], "trainer": [cheater],
             "validator": [net.node(f"validator{i}") for i in range(3)]}
    task_id = net.create_task()
    start_task(net, task_id, nodes["sampler"], cheater, nodes["validator"])
    reputation = net.deployment.reputation.functions
    state, config = net.deployment.state.functions, net.deployment.config.functions
    score = reputation.scoreOf(cheater.address).call()
    locked = state.slotOf(task_id, Role.TRAINER, 0).call().lockedStake
    block = net.w3.eth.block_number + 1
    dishonest, reason = TRAINER_FAULTS[fault]
    play_round(net, task_id, nodes, Cheat(cheater.name, faults.TRAIN, dishonest, phases=(Phase.TRAIN_COMMIT,)))
    seen = outcome(net, task_id, block)

    for validator in nodes["validator"]:
        with as_node(validator) as ctx:
            [note] = [n["data"] for n in ctx.secrets.notes(task_id) if n["kind"] == "verdict"]
        assert note["trainer"][0] is False and reason in note["trainer"][1], (validator.name, note["trainer"])

    assert seen.verdicts[(cheater.address, Role.TRAINER)] == Verdict.REJECTED
    assert seen.vacated == {cheater.address: Outcome.REJECTED}
    assert seen.slashed == {cheater.address: locked * config.slashBps().call() // 10_000}
    assert reputation.scoreOf(cheater.address).call() == score - 20
    assert cheater.address not in seen.earned
    assert bytes(seen.task.checkpointRoot) == bytes(32), "a rejected checkpoint became the task's"
    for sampler in nodes["sampler"]:
        assert seen.verdicts[(sampler.address, Role.SAMPLER)] == Verdict.ACCEPTED
        assert seen.earned[sampler.address] == slot_share(net, Role.SAMPLER, 2)
    for validator in nodes["validator"]:
        assert seen.earned[validator.address] == slot_share(net, Role.VALIDATOR, 3)

"""Samplers roll out their next shard before its phase (workers.node.handlers.sample_ahead): round 0's when
their slot is assigned, round r+1's while the validators judge round r. What they commit must be
exactly what sampling at SampleCommit would give, and a shard rolled out with a checkpoint the
validators reject must never be committed. The fraud world's phases are played here with the
samplers also acting in Attest, as their workers do (the other fraud cases leave them out of it:
the path that samples at SampleCommit)."""
import fraud_trainer_faults as trainer_faults
import fraud_world
import pytest
from fraud_world import Cheat, as_node, event, network, play_round, task_created

from workers.chain.view import ChainView
from workers.node.handlers import assignment_handlers, sample_ahead
from workers.node.queues.dispatch import jsonable
from workers.protocol import Phase, Role, Status
from workers.roles.plants import plant_shard
from workers.roles.sampler import sample_shard
from workers.roles.trainer import verify_checkpoint


@pytest.fixture(scope="module")
def net(tmp_path_factory):
    nodes = {"sampler0": "sampler", "sampler1": "sampler", "validator0": "validator",
             "validator1": "validator", "validator2": "validator"}
    with network(tmp_path_factory.mktemp("sample-ahead"), nodes) as fraud_net:
        yield fraud_net


@pytest.fixture(autouse=True)
def samplers_act_in_attest(monkeypatch):
    # before the validators: their last vote ends the phase
    monkeypatch.setitem(fraud_world.WORKERS, Phase.ATTEST, ("sampler", "validator"))


def start(net, trainer, rounds: int = 2) -> tuple[int, dict]:
    """Claims and the draw, as fraud_world.start_task, with each sampler's worker handling its
    SlotAssigned while the task still fills."""
    nodes = {"sampler": [net.node("sampler0"), net.node("sampler1")], "trainer": [trainer],
             "validator": [net.node(f"validator{i}") for i in range(3)]}
    task_id = net.create_task(num_rounds=rounds)
    for sampler in nodes["sampler"]:
        with as_node(sampler) as ctx:
            assignment_handlers.claim_sampler(ctx, task_created(net, task_id, "sampler"))
        assigned = net.deployment.registry.events.SlotAssigned().get_logs(
            from_block=0, argument_filters={"taskId": task_id, "node": sampler.address})
        with as_node(sampler) as ctx:
            joined = event("SlotAssigned", "sampler", **jsonable(dict(assigned[0]["args"])))
            assignment_handlers.sampler_joined(ctx, joined)
    assert net.task(task_id).status == Status.OPEN  # the trainer's slot is still free
    with as_node(trainer) as ctx:
        assignment_handlers.claim_trainer(ctx, task_created(net, task_id, "trainer"))
    net.mine(2)
    with as_node(nodes["validator"][0]) as ctx:
        armed = event("DrawArmed", "validator", taskId=task_id, seedBlock=net.task(task_id).seedBlock)
        assignment_handlers.draw(ctx, armed)
    assert net.task(task_id).status == Status.ACTIVE
    return task_id, nodes


def committed(net, sampler, task_id: int, round_: int) -> dict:
    with as_node(sampler) as ctx:
        [note] = [n["data"] for n in ctx.secrets.notes(task_id) if n["kind"] == "work" and n["round"] == round_]
    return note


def trainer_checkpoint(net, task_id: int, round_: int) -> tuple[bytes, bytes]:
    """(root, policy) of the checkpoint the trainer revealed in the round."""
    [trainer] = [s for s in ChainView(net.deployment).submissions(task_id, round_) if s.role == Role.TRAINER]
    return bytes(trainer.root), verify_checkpoint(net.store.get(trainer.cid), trainer.root).policy_bytes


def fresh_root(task_id: int, round_: int, slot: int, policy: bytes | None, forced: bool) -> str:
    """The root of the shard that sampling at SampleCommit gives (policy None: the initial one),
    with its forced error planted when the sampler's draw forced it."""
    shard = sample_shard(fraud_world.SPEC, task_id, round_, slot, policy)
    return "0x" + (plant_shard(shard) if forced else shard).root.hex()


def test_shards_sampled_ahead_are_what_sampling_in_the_phase_commits(net):
    task_id, nodes = start(net, net.add_node("trainer-honest", "trainer"))
    play_round(net, task_id, nodes)
    assert net.task(task_id).round == 1 and net.task(task_id).checkpointCid, "round 0's checkpoint was not accepted"
    play_round(net, task_id, nodes)
    assert net.task(task_id).status == Status.COMPLETED

    _, checkpoint_0 = trainer_checkpoint(net, task_id, 0)
    for slot, sampler in enumerate(nodes["sampler"]):
        for round_, policy in ((0, None), (1, checkpoint_0)):
            note = committed(net, sampler, task_id, round_)
            assert "sampled_ahead_s" in note, (sampler.name, round_, note)
            assert note["root"] == fresh_root(task_id, round_, slot, policy, note["forced"]), (sampler.name, round_)
    workers = [*nodes["sampler"], *nodes["trainer"]]
    for validator in nodes["validator"]:
        with as_node(validator) as ctx:
            bitmaps = [n["data"]["bitmap"] for n in ctx.secrets.notes(task_id) if n["kind"] == "verdict"]
        assert bitmaps == [fraud_world.honest_vote(net, task_id, r, workers) for r in (0, 1)], validator.name


def test_a_shard_sampled_with_a_rejected_checkpoint_is_not_committed(net):
    cheater = net.add_node("trainer-cheat", "trainer")
    task_id, nodes = start(net, cheater)
    play_round(net, task_id, nodes, Cheat(cheater.name, trainer_faults.TRAIN, trainer_faults.policy_off_its_trace,
                                          phases=(Phase.TRAIN_COMMIT,)))
    doctored_root, _ = trainer_checkpoint(net, task_id, 0)
    task = net.task(task_id)
    assert bytes(task.checkpointRoot) == bytes(32), "the doctored checkpoint was accepted"
    assert (task.status, task.phase) == (Status.ACTIVE, Phase.SAMPLE_COMMIT)
    for slot, sampler in enumerate(nodes["sampler"]):  # each rolled the next round out with it
        held = sample_ahead._AHEAD.get((net.deployment.registry.address, sampler.address, task_id, task.round, slot))
        assert held is not None and held.policy_root == doctored_root, sampler.name

    for sampler in nodes["sampler"]:
        fraud_world.act(net, sampler, task_id, task.round, Phase.SAMPLE_COMMIT)
    for slot, sampler in enumerate(nodes["sampler"]):
        note = committed(net, sampler, task_id, task.round)
        assert "sampled_ahead_s" not in note, sampler.name
        assert note["root"] == fresh_root(task_id, task.round, slot, None, note["forced"]), sampler.name

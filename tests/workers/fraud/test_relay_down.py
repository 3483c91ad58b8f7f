"""A hostile or broken attestation relay withholds everything (SPECIFICATION.md 5.5.2): here the
validators' relay does not answer at all. Each validator then attests alone, and the round is
decided as usual: the relay costs gas, never a vote."""
import pytest
from fraud_world import FraudNet, outcome, play_round, start_task

from tests.ports import dead_port
from workers.protocol import Role, Verdict


@pytest.fixture
def dead():
    """A relay URL whose port refuses connections for the whole test."""
    with dead_port() as port:
        yield f"redis://127.0.0.1:{port}/0"


def test_validators_attest_alone_when_the_relay_is_down(tmp_path, caplog, dead):
    net = FraudNet(tmp_path)
    try:
        # two validators aggregate only when asked to from two up (by default they would vote alone)
        nodes = {"sampler": [net.add_node("sampler0", "sampler")], "trainer": [net.add_node("trainer", "trainer")],
                 "validator": [net.add_node(f"validator{i}", "validator", attest_relay=dead, aggregate_min_signers=2)
                               for i in range(2)]}
        task_id = net.create_task(num_samplers=1, num_validators=2)
        start_task(net, task_id, nodes["sampler"], nodes["trainer"][0], nodes["validator"])
        block = net.w3.eth.block_number + 1
        with caplog.at_level("WARNING", logger="workers.node.handlers.aggregate_handlers"):
            play_round(net, task_id, nodes)
        assert [r.getMessage().split(":")[0] for r in caplog.records if "relay unavailable" in r.getMessage()] == [
            f"task {task_id} round 0"]  # the first tried the relay; then the other had nobody to aggregate with
        seen = outcome(net, task_id, block)
        registry = net.deployment.registry
        votes = [e.args for e in registry.events.Attested().get_logs(from_block=block) if e.args.taskId == task_id]
        assert sorted(v.validator for v in votes) == sorted(n.address for n in nodes["validator"])
        assert list(registry.events.AggregateAttested().get_logs(from_block=block)) == []
        assert seen.verdicts == {(nodes["sampler"][0].address, Role.SAMPLER): Verdict.ACCEPTED,
                                 (nodes["trainer"][0].address, Role.TRAINER): Verdict.ACCEPTED}
        assert all(n.address in seen.earned for n in nodes["validator"])
    finally:
        net.stop()

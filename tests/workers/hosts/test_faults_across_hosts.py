"""Faults between hosts (conftest.py's network, its nodes running), each in a 1-round task of its own:

- the trainer's host is cut off mid-round (its link taken down once the round's SampleCommit
  opened) and comes back after its TrainCommit deadline: it is vacated as Missed (not slashed),
  the samples are still attested and paid, and the task ends without a result, the rest refunded;
- one validator's Redis is stopped mid-round and started again 3 s later (its append-only file
  keeps what was queued): the task completes with every node paid its share.

Nothing is paid twice: what TaskSettled says each role was paid is what the operators hold."""
import time

from tests.workers.integration.network import SPEC
from workers.chain.view import ChainView
from workers.localnet.chain import MIN_STAKES, TOKEN
from workers.payouts import slot_share
from workers.protocol import Outcome, Phase, Role, Status, TaskParams

TASK = dict(bounty=1000 * TOKEN, num_samplers=2, num_validators=3, num_rounds=1, claim_window=600,
            commit_window=120, reveal_window=60, attest_window=120)
TIMEOUT_S = 240


def _events(hosts, name: str, task_id: int) -> list:
    event = getattr(hosts.deployment.registry.events, name)
    return [e for e in event.get_logs(from_block=hosts.deployment.block) if e.args["taskId"] == task_id]


def _run(hosts, on_tick):
    """A task of TASK run to its end, calling on_tick(task_id, task) meanwhile; its id."""
    params = TaskParams(hosts.publish(SPEC.to_bytes()), SPEC.digest(), **TASK)
    task_id = hosts.create_task(params)
    final = hosts.wait_final(task_id, TIMEOUT_S, lambda task: on_tick(task_id, task))
    print(f"\ntask {task_id} final: {final}, block {hosts.w3.eth.block_number}")
    return task_id


def _held(hosts, task_id: int) -> dict:
    view = ChainView(hosts.deployment)
    return {op.name: view.read(hosts.deployment.vault, "heldOf", task_id, 0, op.address)
            for op in hosts.operators.values()}


def _paid_once(hosts, task_id: int, held: dict) -> None:
    (settled,) = _events(hosts, "TaskSettled", task_id)
    by_role = {role: sum(held[op.name] for op in hosts.operators.values() if op.role == role)
               for role in ("sampler", "trainer", "validator")}
    assert [int(x) for x in settled.args["paidByRole"]] == [by_role["sampler"], by_role["trainer"],
                                                            by_role["validator"]]


def _unslashed(hosts) -> None:
    view = ChainView(hosts.deployment)
    for op in hosts.operators.values():
        stake = view.stake(op.address, Role[op.role.upper()])
        assert (stake.staked, stake.locked) == (MIN_STAKES[Role[op.role.upper()]], 0), op.name


def test_a_trainer_cut_off_mid_round_is_vacated_unslashed_and_the_samples_are_paid(hosts, nodes):
    trainer = hosts.operators["trainer"]
    w3, d = hosts.w3, hosts.deployment
    done = []

    def cut_then_pass_its_deadline(task_id, task):
        if task.status != Status.ACTIVE:
            return
        if not done and task.phase == Phase.SAMPLE_COMMIT:
            hosts.cut("trainer")
            done.append("cut")
        elif done == ["cut"] and task.phase == Phase.TRAIN_COMMIT:  # the samples are in; the trainer cannot commit
            w3.provider.make_request("evm_increaseTime", [TASK["commit_window"] + 1])
            w3.provider.make_request("evm_mine", [])
            # anyone may advance past a deadline (a node's keeper would, at the deadline's wall time)
            w3.eth.wait_for_transaction_receipt(
                d.registry.functions.advance(task_id).transact({"from": hosts.admin, "gas": 3_000_000}))
            hosts.restore("trainer")  # back after its deadline
            done.append("restored")

    task_id = _run(hosts, cut_then_pass_its_deadline)
    assert done == ["cut", "restored"]
    assert ChainView(d).task(task_id).status == Status.NO_RESULT
    vacated = [(e.args["node"], Outcome(e.args["reason"])) for e in _events(hosts, "SlotVacated", task_id)]
    assert vacated == [(trainer.address, Outcome.MISSED)]
    held = _held(hosts, task_id)
    task = ChainView(d).task(task_id)
    for op in hosts.operators.values():
        expected = 0 if op.role == "trainer" else slot_share(task, Role[op.role.upper()])
        assert held[op.name] == expected, op.name
    _paid_once(hosts, task_id, held)
    _unslashed(hosts)


def test_a_validator_whose_redis_restarts_mid_round_still_votes(hosts, nodes):
    validator = hosts.operators["validator0"]
    restarted = []

    def restart_its_redis(task_id, task):
        if not restarted and task.status == Status.ACTIVE and task.phase == Phase.SAMPLE_REVEAL:
            validator.redis.stop()
            time.sleep(3)
            validator.redis.start()
            restarted.append(task.phase)

    task_id = _run(hosts, restart_its_redis)
    assert restarted
    task = ChainView(hosts.deployment).task(task_id)
    assert task.status == Status.COMPLETED
    assert _events(hosts, "SlotVacated", task_id) == []
    held = _held(hosts, task_id)
    for op in hosts.operators.values():
        assert held[op.name] == slot_share(task, Role[op.role.upper()]), op.name
    _paid_once(hosts, task_id, held)
    _unslashed(hosts)

"""Faults between hosts (conftest.py's network, its nodes running), each in a 1-round task of its own:

- the trainer's host is cut off mid-round (its link taken down once the round's SampleCommit
  opened) and comes back after its TrainCommit deadline: it is vacated as Missed (not slashed),
  the samples are still attested and paid, and the task ends without a result, the rest refunded;
- one validator's Redis is stopped mid-round and started again 3 s later (its append-only file
  keeps what was queued): the task completes with every node paid its share;
- content whose only holder has gone: a sampler's IPFS node hangs once the node holds its
  commitment (nobody can have fetched its shard: its CID is not out before the reveal; a task
  whose reveal came first is run again) and its host is cut once its
  reveal lands, back once the round is judged (AttestReveal: in time to open its forced-error
  draw; a host that stays away withholds that too, and is vacated Withheld instead, one penalty
  either way, at the AttestReveal deadline). The trainer and the validators cannot fetch the
  shard (the harness's nodes give a fetch 5 s): after 3 deliveries the validators reject it as
  missing data and the trainer, which fetches the same way, leaves it out; the gone sampler is
  rejected (slashed, vacated), the trainer, the other sampler and the validators are accepted
  and paid, the task completes;
- the trainer's IPFS node is stopped as the round's TrainCommit opens (the trainer's job in
  flight, before its commit) and started again 2 s later on its repo: the node's store calls wait
  it out, its IPFS node is dialed into the swarm again, and the task completes with every
  submission accepted and every node paid its share.

Nothing is paid twice: what TaskSettled says each role was paid is what the operators hold. Every
event is handled once: each operator's own job records (in its own Redis, one per event and
role, keyed by txHash:logIndex) of the task's events are all done, none failed, none sent again
by the stale-job sweep but where a Redis restarted; which ran more than once is checked per fault."""
import threading
import time

import pytest

from tests.workers.integration.network import SPEC
from workers.chain.view import ChainView
from workers.localnet.chain import MIN_STAKES, TOKEN
from workers.node.handlers.common import FETCH_DELIVERIES
from workers.node.handlers.context import Secrets
from workers.node.queues.jobs import DONE, EVENT_KEY, QUEUED, RUNNING, JobRecord
from workers.payouts import slot_share
from workers.protocol import Outcome, Phase, Role, Status, Verdict

TASK = dict(bounty=1000 * TOKEN, num_samplers=2, num_validators=3, num_rounds=1, claim_window=600,
            commit_window=120, reveal_window=60, attest_window=120)
TIMEOUT_S = 240


def _events(hosts, name: str, task_id: int) -> list:
    event = getattr(hosts.deployment.registry.events, name)
    return [e for e in event.get_logs(from_block=hosts.deployment.block) if e.args["taskId"] == task_id]


def _run(hosts, on_tick):
    """A task of TASK run to its end, calling on_tick(task_id, task) meanwhile; its id."""
    task_id = hosts.submit_task(SPEC, **TASK)
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


def _unslashed(hosts, but=()) -> None:
    view = ChainView(hosts.deployment)
    for op in hosts.operators.values():
        if op.name in but:
            continue
        stake = view.stake(op.address, Role[op.role.upper()])
        assert (stake.staked, stake.locked) == (MIN_STAKES[Role[op.role.upper()]], 0), op.name


def _task_jobs(op, task_id: int) -> dict:
    """{(role, event key): JobRecord} of the jobs of the task's chain events in the operator's own Redis."""
    def read(client):
        jobs = {}
        for key in client.scan_iter(match="decentrl:*:job:*", count=1000):
            role, _, event_key = key.decode().split(":job:", 1)[1].partition(":")
            record = JobRecord.parse(client.hgetall(key))
            if EVENT_KEY.fullmatch(event_key) and record.run and int(record.run["args"].get("taskId", -1)) == task_id:
                jobs[(role, event_key)] = record
        return jobs

    return op.redis.client_call(read)


def _handled_once(hosts, task_id: int, requeued_by=(), timeout: float = 60.0) -> dict:
    """Once no operator has a job of the task's events queued or running (a host back from a cut
    catches up first): each job is done, none failed, and none sent again by the stale-job sweep
    but on the operators `requeued_by` (whose Redis restarted: the sweep sends again a job whose
    message went down with it, which runs once all the same). Each event has one record per role
    that handles it (its key is the event's txHash:logIndex), and a delivery of a done job does not
    run it: done is handled once; `attempts` counts its runs. {operator: {(role, event key): JobRecord}}."""
    deadline = time.monotonic() + timeout
    while True:
        jobs = {op.name: _task_jobs(op, task_id) for op in hosts.operators.values()}
        unfinished = {name: key for name, records in jobs.items() for key, r in records.items()
                      if r.status in (QUEUED, RUNNING)}
        if not unfinished or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    for name, records in jobs.items():
        assert records, f"{name} handled no event of task {task_id}"
        for key, record in records.items():
            assert record.status == DONE and (record.requeued == 0 or name in requeued_by), (name, key, record)
    return jobs


def _retried(jobs: dict) -> dict:
    """{(operator, role, event name, its phase if a PhaseStarted): attempts} of the jobs that ran
    more than once."""
    def phase(record):
        return Phase(int(record.run["args"]["phase"])).name if "phase" in record.run["args"] else None

    return {(name, role, r.event, phase(r)): r.attempts for name, records in jobs.items()
            for (role, _), r in records.items() if r.attempts != 1}



def _completed_with_every_node_paid_once(hosts, task_id: int) -> None:
    """The task completed with nobody vacated or slashed and each operator holding its slot share, paid once."""
    task = ChainView(hosts.deployment).task(task_id)
    assert task.status == Status.COMPLETED
    assert _events(hosts, "SlotVacated", task_id) == []
    held = _held(hosts, task_id)
    for op in hosts.operators.values():
        assert held[op.name] == slot_share(task, Role[op.role.upper()]), op.name
    _paid_once(hosts, task_id, held)
    _unslashed(hosts)

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
    assert _retried(_handled_once(hosts, task_id)) == {}  # each in one run, the trainer's after it came back


def test_a_validator_whose_redis_restarts_mid_round_still_votes(hosts, nodes):
    validator = hosts.operators["validator0"]
    restarted = []

    def restart_its_redis(task_id, task):
        # after the samples are revealed, before the validators' work: SampleReveal alone can end
        # between two looks (the last reveal opens TrainCommit at once), TrainCommit lasts the training
        if not restarted and task.status == Status.ACTIVE and task.phase in (Phase.SAMPLE_REVEAL, Phase.TRAIN_COMMIT):
            validator.redis.stop()
            time.sleep(3)
            validator.redis.start()
            restarted.append(task.phase)

    task_id = _run(hosts, restart_its_redis)
    assert restarted
    _completed_with_every_node_paid_once(hosts, task_id)
    assert _retried(_handled_once(hosts, task_id, requeued_by=(validator.name,))) == {}


@pytest.fixture
def gone(hosts):
    """The sampler whose content goes with its host; back in service after the test (its score
    recovered, its stake topped up), since the session's later tests need both samplers. After
    the test: recovering moves the chain's clock past the cooldown, and so past the dispute window
    of what the task holds, which the nodes then release."""
    yield hosts.operators["sampler0"]
    hosts.back_in_service("sampler0")


HANG_TRIES = 3
"""Tasks the shard test may run before it hangs the sampler's IPFS node in time (see below)."""
HANG_LOOK_S = 0.005
"""How often the shard test looks for the sampler's commitment: its reveal can follow within a
tick of the task's loop when it commits last."""


def _hang_then_cut(hosts, gone) -> tuple[int, dict, float]:
    """A task in which `gone`'s IPFS node hangs once the node holds its shard's commitment, before
    the shard's CID is out, and its host is cut off once the shard is revealed (restored in
    AttestReveal): (task id, what was seen, the task's wall seconds). seen["late"] when the hang
    came too late: the shard was revealed before it, so others may have fetched it (the task then
    runs unharmed)."""
    d, view = hosts.deployment, ChainView(hosts.deployment)
    seen = {}
    secrets = Secrets(gone.node_dir / "secrets.sqlite")
    task_id = d.state.functions.taskCount().call() + 1  # the one _run is about to submit
    stop = threading.Event()

    def hang_its_ipfs():
        # The node keeps its commitment just after adding the shard to its IPFS node and just before
        # it sends the commit: the shard is there only, and its CID is out only once revealed,
        # which it cannot be before the commit is mined. Whether the reveal came first is read
        # once the node is hung: nobody can fetch the shard after that (a fetch needs the reveal,
        # and the node no longer answers).
        while not stop.wait(HANG_LOOK_S):
            if secrets.commitment(task_id, 0, Role.SAMPLER) is not None:
                break
        else:
            return
        gone.ipfs.pause()
        slot = view.membership(task_id, gone.address).slot
        sub = view.read(d.state, "submissionOf", task_id, 0, Role.SAMPLER, slot)
        if sub.revealed:
            gone.ipfs.resume()
            seen["late"] = True
        else:
            seen.update(hung=True, committed_when_hung=bytes(sub.commitment) != b"\x00" * 32, slot=slot)

    def cut_then_restore(task_id, task):
        if task.status != Status.ACTIVE or "hung" not in seen or "back" in seen:
            return
        if "cut" not in seen and view.read(d.state, "submissionOf", task_id, 0, Role.SAMPLER, seen["slot"]).revealed:
            hosts.cut(gone.name)
            seen["cut"] = True
        elif "cut" in seen and task.phase == Phase.ATTEST_REVEAL:
            back(judged_in=task.phase)

    def back(judged_in=None):
        hosts.restore(gone.name)
        gone.ipfs.resume()
        seen["back"] = judged_in

    hanger = threading.Thread(target=hang_its_ipfs, daemon=True)
    hanger.start()
    started = time.monotonic()
    try:
        assert _run(hosts, cut_then_restore) == task_id
    finally:
        stop.set()
        hanger.join()
        if "hung" in seen and "back" not in seen:
            back()
    return task_id, seen, time.monotonic() - started


def test_a_shard_whose_only_holder_has_gone_is_rejected_and_the_round_goes_on(hosts, nodes, gone):
    d, view = hosts.deployment, ChainView(hosts.deployment)
    for _ in range(HANG_TRIES):
        task_id, seen, wall_s = _hang_then_cut(hosts, gone)
        if "late" not in seen:
            break
        print("looked after the shard was revealed: the task ran unharmed; another one")
    assert "late" not in seen, f"every one of {HANG_TRIES} tasks revealed the shard before the test hung it"
    assert seen["hung"] and seen["back"] == Phase.ATTEST_REVEAL
    print(f"sampler0's IPFS node hung {'after' if seen['committed_when_hung'] else 'before'} its commit was mined")
    task = ChainView(d).task(task_id)
    assert task.status == Status.COMPLETED
    verdicts = {(e.args["node"], Role(e.args["role"])): Verdict(e.args["verdict"])
                for e in _events(hosts, "VerdictReached", task_id)}
    expected = {(op.address, Role[op.role.upper()]): Verdict.ACCEPTED
                for op in hosts.operators.values() if op.role in ("sampler", "trainer")}
    expected[(gone.address, Role.SAMPLER)] = Verdict.REJECTED
    assert verdicts == expected
    vacated = [(e.args["node"], Outcome(e.args["reason"])) for e in _events(hosts, "SlotVacated", task_id)]
    assert vacated == [(gone.address, Outcome.REJECTED)]
    for name in ("validator0", "validator1", "validator2"):  # each rejected it as missing data
        (note,) = [n for n in Secrets(hosts.operators[name].node_dir / "secrets.sqlite").notes(task_id)
                   if n["kind"] == "verdict"]
        assert note["data"]["samplers"][str(seen["slot"])][:2] == [False, f"missing data: the blob of sampler "
                                                                          f"slot {seen['slot']} could not be fetched"]
    (work,) = [n for n in Secrets(hosts.operators["trainer"].node_dir / "secrets.sqlite").notes(task_id)
               if n["kind"] == "work"]
    assert work["data"]["left_out"] == [seen["slot"]]
    held = _held(hosts, task_id)
    for op in hosts.operators.values():
        assert held[op.name] == (0 if op is gone else slot_share(task, Role[op.role.upper()])), op.name
    _paid_once(hosts, task_id, held)
    slashed = [(e.args["node"], e.args["amount"]) for e in d.stakes.events.Slashed.get_logs(from_block=d.block)]
    (amount,) = [a for node, a in slashed if node == gone.address]
    assert [node for node, _ in slashed] == [gone.address]  # in this whole session: no honest node
    stake = view.stake(gone.address, Role.SAMPLER)
    assert amount > 0 and (stake.staked, stake.locked) == (MIN_STAKES[Role.SAMPLER] - amount, 0)
    _unslashed(hosts, but=(gone.name,))
    jobs = _handled_once(hosts, task_id)
    retried = _retried(jobs)
    print(f"retried: {retried}; missing data judged in {wall_s:.1f} s of task")
    for name, role, phase in [("trainer", "trainer", "TRAIN_COMMIT"), ("validator0", "validator", "ATTEST"),
                              ("validator1", "validator", "ATTEST"), ("validator2", "validator", "ATTEST")]:
        assert retried.get((name, role, "PhaseStarted", phase)) == FETCH_DELIVERIES, (name, retried)


def test_a_trainer_whose_ipfs_node_restarts_mid_round_still_trains(hosts, nodes):
    trainer = hosts.operators["trainer"]
    view = ChainView(hosts.deployment)
    restarted = {}

    def restart_its_ipfs(task_id, task):
        if not restarted and task.status == Status.ACTIVE and task.phase == Phase.TRAIN_COMMIT:
            hosts.stop_ipfs(trainer.name)
            stopped = time.monotonic()
            committed = bytes(view.read(hosts.deployment.state, "submissionOf", task_id, 0, Role.TRAINER, 0).commitment)
            time.sleep(2)
            hosts.start_ipfs(trainer.name)
            restarted.update(committed_before=committed != b"\x00" * 32, down_s=time.monotonic() - stopped)

    task_id = _run(hosts, restart_its_ipfs)
    assert restarted and restarted["committed_before"] is False
    assert {Verdict(e.args["verdict"]) for e in _events(hosts, "VerdictReached", task_id)} == {Verdict.ACCEPTED}
    _completed_with_every_node_paid_once(hosts, task_id)
    jobs = _handled_once(hosts, task_id)
    print(f"trainer's IPFS node down {restarted['down_s']:.1f} s; retried: {_retried(jobs)}")


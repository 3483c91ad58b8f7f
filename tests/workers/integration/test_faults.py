"""Faults cost time, never standing: one 10-round task on a real network (a sampler, a trainer and a
validator as Celery worker processes under their Supervisors, every store on one real js-ipfs
node) meets nine faults, one a round at most, each while a role's job is in flight (the sampler's:
a commit, a reveal or a rollout; the trainer's TrainCommit job; the validator's Attest or
AttestReveal job). In this order, each struck during the sampler's, then the trainer's, then the
validator's job:

  1. the node's Redis is SIGKILLed,
  2. the node's Celery main process is SIGKILLed,
  3. the store (the IPFS node) is SIGKILLed.

A fault waits for a round where its job is seen running (a short job can end between two looks):
the tenth round is a spare.

Redis and IPFS are down OUTAGE_S and then restarted on their ports, as a node's health check
restarts them (the network's Redis is every node's: a database each); the Supervisor restarts the
worker. Redis redelivers an unacknowledged message only after the default 15 minutes, as in a real
node, so a job comes back only by the node's own recovery (before it, a job that met Redis's
ConnectionError failed, its record stayed `running`, and the task stalled). The task completes,
every submission accepted, and no node is vacated, slashed or marked down: scores and stakes are as
after a faultless task."""
import importlib.util
import os
import signal
import sys
import time
from types import SimpleNamespace

import pytest
from network import ROOT, SPEC, TOKEN, Network, registry_events, running_phase_job

from tests.ports import ipfs_api_port
from workers.chain.view import ChainView
from workers.node.processes import redis_service
from workers.node.queues.jobs import DONE
from workers.protocol import Phase, Role, Status, TaskParams, Verdict
from workers.storage.store import IpfsStore

ROLES = [("sampler", "sampler"), ("trainer", "trainer"), ("validator", "validator")]
ROUNDS = 10  # one fault a round at most (FAULTS), and a spare
PARAMS = dict(bounty=1000 * TOKEN, num_samplers=1, num_validators=1, num_rounds=ROUNDS, claim_window=600,
              commit_window=120, reveal_window=60, attest_window=120)
OUTAGE_S = 5.0
VISIBILITY_TIMEOUT_S = 900
"""NodeConfig's default (the other integration tests take 15 s): a job whose message Redis kept
unacknowledged must not come back by Redis's redelivery within the task, as it would not in a
real node's; only the node's own recovery brings it back."""
TIMEOUT_S = 420
SAMPLER_PHASES = (Phase.SAMPLE_COMMIT, Phase.SAMPLE_REVEAL, Phase.ATTEST)
VALIDATOR_PHASES = (Phase.ATTEST, Phase.ATTEST_REVEAL)
FAULTS = [("redis", "sampler", SAMPLER_PHASES),
          ("redis", "trainer", (Phase.TRAIN_COMMIT,)),
          ("redis", "validator", VALIDATOR_PHASES),
          ("celery", "sampler", SAMPLER_PHASES),
          ("celery", "trainer", (Phase.TRAIN_COMMIT,)),
          ("celery", "validator", VALIDATOR_PHASES),
          ("store", "sampler", SAMPLER_PHASES),
          ("store", "trainer", (Phase.TRAIN_COMMIT,)),
          ("store", "validator", VALIDATOR_PHASES)]
"""In order: (what is killed, whose job is in flight, in which of the task's phases)."""


def _ipfs_tool():
    spec = importlib.util.spec_from_file_location("ipfs_node", ROOT / "tools" / "ipfs_node.py")
    module = sys.modules["ipfs_node"] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Faults:
    """Kills and restarts the network's Redis, a worker's main process, the IPFS node."""

    def __init__(self, net: Network, tool, ipfs):
        self.net, self.tool, self.ipfs = net, tool, ipfs
        self.log: list[SimpleNamespace] = []

    def redis(self) -> float:
        service = self.net.redis
        port = int(service.url.rsplit(":", 1)[1].split("/")[0])
        os.kill(service.pid, signal.SIGKILL)
        service.process.wait()
        time.sleep(OUTAGE_S)
        self.net.redis = redis_service.start_embedded(self.net.workdir / "redis", ports=[port])
        return time.time()

    def celery(self, node) -> float:
        child = node.child(node.role)
        os.kill(child.pid, signal.SIGKILL)  # the main process only: the Supervisor sees it die
        child.wait()
        return time.time()

    def store(self) -> float:
        os.kill(self.ipfs.pid, signal.SIGKILL)
        os.waitpid(self.ipfs.pid, 0)
        time.sleep(OUTAGE_S)
        self.ipfs = self.tool.start(self.ipfs.repo, self.ipfs.port)
        return time.time()

    def on_tick(self, task) -> None:
        """The next fault, once its role's job runs in one of its phases, in a round after the last
        fault's."""
        if task.status != Status.ACTIVE or len(self.log) == len(FAULTS) or \
                (self.log and self.log[-1].round >= task.round):
            return
        what, role, phases = FAULTS[len(self.log)]
        if task.phase not in phases:
            return
        node = self.net.node(role)
        job = running_phase_job(node)
        if job is None:
            return
        killed = time.time()
        back = {"redis": self.redis, "celery": lambda: self.celery(node), "store": self.store}[what]()
        self.log.append(SimpleNamespace(what=what, role=role, round=task.round, phase=Phase(task.phase), job=job,
                                        killed=killed, back=back))


@pytest.fixture(scope="module")
def faulted(tmp_path_factory):
    tool = _ipfs_tool()
    ipfs = tool.start(tmp_path_factory.mktemp("faults-ipfs"), ipfs_api_port(tool))
    net = None
    faults = None
    try:
        net = Network(tmp_path_factory.mktemp("faults-network"), ROLES, ipfs_api=ipfs.api,
                      node_settings={"visibility_timeout": VISIBILITY_TIMEOUT_S})
        store = IpfsStore(ipfs.api, net.workdir / "requester-ledger.sqlite")
        params = TaskParams(store.put(SPEC.to_bytes(), pin=True), SPEC.digest(), **PARAMS)
        view = ChainView(net.deployment)
        before = {n.name: (view.score(n.address), view.stake(n.address, Role[n.role.upper()]).staked)
                  for n in net.nodes}
        faults = Faults(net, tool, ipfs)
        d, admin = net.deployment, net.admin
        net.start()
        net.w3.eth.wait_for_transaction_receipt(
            d.token.functions.approve(d.registry.address, params.bounty).transact({"from": admin}))
        started = time.time()
        net.w3.eth.wait_for_transaction_receipt(
            d.registry.functions.createTask(params.as_tuple()).transact({"from": admin}))
        task_id = d.state.functions.taskCount().call()
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            task = d.state.functions.taskOf(task_id).call()
            if task.status in (Status.COMPLETED, Status.FAILED, Status.CANCELLED):
                break
            if time.monotonic() > deadline:
                raise AssertionError(f"task {task_id} not done within {TIMEOUT_S} s: {task}; faults {faults.log}")
            faults.on_tick(task)
            time.sleep(0.01)
        out = SimpleNamespace(net=net, task_id=task_id, params=params, before=before, faults=faults.log,
                              wall_s=time.time() - started, health={n.name: n.sup.health() for n in net.nodes})
        net.wait_caught_up()
        net.stop_nodes()
        yield out
        store.close()
    finally:
        if net is not None:
            net.stop()
        tool.stop((faults.ipfs if faults else ipfs).pid)


def test_every_fault_struck_a_job_in_flight_which_then_finished(faulted):
    assert [(f.what, f.role) for f in faulted.faults] == [(what, role) for what, role, _ in FAULTS]
    for fault in faulted.faults:
        record = faulted.net.node(fault.role).jobs().get(fault.role, fault.job)
        assert record.status == DONE, (fault, record)
        if fault.what != "celery":  # it waited the outage out in its one run: no failure, nothing sent again
            assert (record.attempts, record.requeued) == (1, 0), (fault, record)
        print(f"\nround {fault.round} ({fault.phase.name}): {fault.what} killed during the {fault.role}'s job; "
              f"back after {fault.back - fault.killed:.1f} s; the job done {record.updated - fault.back:.1f} s later "
              f"(attempts {record.attempts}, sent again by the sweep {record.requeued})")
    killed = {(role, role) for what, role, _ in FAULTS if what == "celery"}  # each role's worker, once
    for name, node in faulted.health.items():
        for child, health in node.items():
            assert (health["restarts"], health["alive"]) == (int((name, child) in killed), True), (name, child)


def test_task_completed_with_every_submission_accepted(faulted):
    task = ChainView(faulted.net.deployment).task(faulted.task_id)
    assert task.status == Status.COMPLETED and task.round == ROUNDS - 1
    verdicts = sorted((e.args["round"], Role(e.args["role"]), Verdict(e.args["verdict"]))
                      for e in registry_events(faulted.net) if e.name == "VerdictReached")
    want = [(r, role, Verdict.ACCEPTED) for r in range(ROUNDS) for role in (Role.SAMPLER, Role.TRAINER)]
    assert verdicts == sorted(want)
    print(f"\nfaulted task {faulted.task_id}: {ROUNDS} rounds, {len(faulted.faults)} faults, "
          f"wall_s={faulted.wall_s:.1f}")


def test_no_node_was_vacated_slashed_or_marked_down(faulted):
    net, view = faulted.net, ChainView(faulted.net.deployment)
    d = net.deployment
    assert [e for e in registry_events(net) if e.name in ("SlotVacated", "PlantMissed")] == []
    assert list(d.stakes.events.Slashed.get_logs(from_block=d.block)) == []
    lowered = [e for e in d.reputation.events.ReputationChanged.get_logs(from_block=d.block)
               if e.args.newScore < e.args.oldScore]
    assert lowered == []
    for node in net.nodes:
        score, staked = faulted.before[node.name]
        stake = view.stake(node.address, Role[node.role.upper()])
        assert (view.score(node.address), stake.staked, stake.locked) == (score + 2 * ROUNDS, staked, 0), node.name

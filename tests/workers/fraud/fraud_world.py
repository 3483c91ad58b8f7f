"""A decentrl network for the fraud matrix: a real anvil with the deployed protocol, a real Redis
(the nodes' transaction senders, jobs and the Celery broker), a shared content store, and nodes
whose handlers (workers.node.handlers.table lists their modules) this process calls as plain functions,
phase by phase, as each node's worker would. One node cheats in one way per case: a `cheat` swaps
one function of its own work (its rollout, its verdict, ...) for a dishonest one while its handler
runs; everything else (storage, commit, reveal, the honest validators' checks, attest, the
contracts' verdicts, slashes, reputation and pay) is the real code.

No block ticker: time moves only when a case passes a deadline (`pass_deadline`)."""
from __future__ import annotations

import contextlib
import dataclasses
from pathlib import Path
from types import SimpleNamespace
from unittest import mock

from workers.localnet import inprocess
from workers.localnet.chain import TOKEN
from workers.localnet.network import LocalNetwork
from workers.node.queues.dispatch import HandledEvent
from workers.protocol import Phase, Role, Status, TaskParams
from workers.spec import DEMO_CARTPOLE, TaskSpec
from workers.storage.store import EmbeddedStore

ANVIL_PORTS = range(8700, 8710)
REDIS_PORTS = range(16421, 16430)
PASSWORD = "fraud-matrix-password"
SPEC = dataclasses.replace(DEMO_CARTPOLE, steps_per_shard=256, challenges_per_sampler=2,
                           ppo=dataclasses.replace(DEMO_CARTPOLE.ppo, batch_size=64, update_epochs=4))
"""The demo spec, reduced: 256 steps per shard, 4 epochs of batch 64."""
BOUNTY = 900 * TOKEN


class FraudNet(LocalNetwork):
    def __init__(self, workdir: Path, redis_databases: int = 64, **settings):
        """settings: other LocalNetwork arguments (node_settings, disputes); redis_databases: one
        per node, and one for the relay."""
        super().__init__(workdir, password=PASSWORD, scrypt_n=2**10, anvil_ports=ANVIL_PORTS,
                         redis_ports=REDIS_PORTS, tick_s=0, redis_databases=redis_databases, **settings)
        self.store = EmbeddedStore(self.store_dir)
        self.spec_cid = self.store.put(SPEC.to_bytes(), pin=True)

    def add_node(self, name: str, role: str, **kwargs):
        """Validators vote alone here (unless a case gives them a relay): this process runs their
        handlers one after another, with no Celery worker to run the aggregator's scheduled checks
        (aggregation on real workers: tests/workers/aggregation)."""
        return super().add_node(name, role, **{"attest_relay": "off", **kwargs})

    def mine(self, blocks: int = 1) -> None:
        for _ in range(blocks):
            self.w3.provider.make_request("evm_mine", [])

    def pass_deadline(self, task_id: int) -> None:
        """Moves protocol time past the task's current phase (or claim) deadline."""
        registry, state = self.deployment.registry.functions, self.deployment.state.functions
        task = state.taskOf(task_id).call()
        deadline = task.phaseDeadline if task.status == Status.ACTIVE else task.claimDeadline
        self.w3.provider.make_request("evm_increaseTime", [max(deadline - registry.protocolTime().call() + 1, 1)])
        self.mine()

    def create_task(self, *, num_samplers: int = 2, num_validators: int = 3, num_rounds: int = 1,
                    spec: TaskSpec = SPEC) -> int:
        d = self.deployment
        spec_cid = self.spec_cid if spec is SPEC else self.store.put(spec.to_bytes(), pin=True)
        params = TaskParams(spec_cid, spec.digest(), BOUNTY, num_samplers=num_samplers,
                            num_validators=num_validators, num_rounds=num_rounds, claim_window=600,
                            commit_window=600, reveal_window=600, attest_window=600)
        self.w3.eth.wait_for_transaction_receipt(
            d.token.functions.approve(d.registry.address, params.bounty).transact({"from": self.admin}))
        self.w3.eth.wait_for_transaction_receipt(
            d.registry.functions.createTask(params.as_tuple()).transact({"from": self.admin}))
        return d.state.functions.taskCount().call()

    def task(self, task_id: int):
        return self.deployment.state.functions.taskOf(task_id).call()


@contextlib.contextmanager
def network(workdir: Path, nodes: dict):
    """A FraudNet with `nodes` (name -> role) added, stopped when the block ends."""
    net = FraudNet(workdir)
    try:
        for name, role in nodes.items():
            net.add_node(name, role)
        yield net
    finally:
        net.stop()


def slot_share(net: FraudNet, role: Role, slots: int, rounds: int = 1) -> int:
    """One slot's pay for one accepted round (SPECIFICATION.md section 6)."""
    shares = net.deployment.config.functions.roleShares().call()
    return BOUNTY * shares[role] // 10_000 // rounds // slots


def event(name: str, handler_role: str, **args) -> HandledEvent:
    """A HandledEvent as the dispatcher gives it to `handler_role`'s handler (first attempt)."""
    return HandledEvent(f"fraud:{name}:{sorted(args.items())}", name, args, 0, handler_role, 1)


def task_created(net, task_id: int, handler_role: str) -> HandledEvent:
    """The task's TaskCreated as the dispatcher gives it to `handler_role`'s handler: its logged
    args, as JSON."""
    from workers.node.queues.dispatch import jsonable

    registry = net.deployment.registry
    log = registry.events.TaskCreated().get_logs(from_block=0, argument_filters={"taskId": task_id})[0]
    return event("TaskCreated", handler_role, **jsonable(dict(log["args"])))


def as_node(node):
    """This node's context (as its workers build it), for the block to pass to its handlers."""
    return inprocess.as_node(node, PASSWORD)


@dataclasses.dataclass
class Cheat:
    """One node's dishonesty: while that node's handler for `phase` runs, `target` (a dotted
    attribute) is replaced by `replacement` (and a cheating sampler or trainer plants no forced
    error); `withhold` phases are simply not acted in (a withheld reveal is not sent at the commit
    either)."""

    node: str
    target: str = ""
    replacement: object = None
    phases: tuple = ()
    rounds: tuple = (0,)
    withhold: tuple = ()

    @contextlib.contextmanager
    def active(self):
        with contextlib.ExitStack() as stack:
            stack.enter_context(mock.patch(self.target, self.replacement))
            if set(self.phases) & {Phase.SAMPLE_COMMIT, Phase.TRAIN_COMMIT}:
                # a cheating worker runs its own code, not our planting: when its draw forces it,
                # it commits its work unplanted (which would otherwise be re-bundled, and a
                # mismatched root made consistent, by the honest plant)
                stack.enter_context(mock.patch("workers.node.handlers.round_handlers.is_forced_now",
                                               lambda *args: False))
            yield


HANDLERS = {"sampler": ("round_handlers", "sampler_phase"), "trainer": ("round_handlers", "trainer_phase"),
            "validator": ("validator_handlers", "validator_phase")}
WORKERS = {Phase.SAMPLE_COMMIT: ("sampler",), Phase.SAMPLE_REVEAL: ("sampler",),
           # the validators judge the revealed shards while the trainer trains: before its commit ends the phase
           Phase.TRAIN_COMMIT: ("validator", "trainer"),
           Phase.TRAIN_REVEAL: ("trainer",), Phase.ATTEST: ("validator",),
           # the votes are opened and the workers open their forced-error draws
           Phase.ATTEST_REVEAL: ("validator", "sampler", "trainer")}


def act(net: FraudNet, node, task_id: int, round_: int, phase: Phase, cheats=()) -> None:
    """`node` handles PhaseStarted(task, round, phase) as its worker would (cheating if one of
    `cheats` is its own for this round and phase)."""
    import importlib

    from workers.node.handlers import round_handlers

    mine = [c for c in cheats if c.node == node.name and round_ in c.rounds]
    withheld = {p for c in mine for p in c.withhold}
    if phase in withheld:
        return
    module, name = HANDLERS[node.role]
    handler = getattr(importlib.import_module(f"workers.node.handlers.{module}"), name)
    ev = event("PhaseStarted", node.role, taskId=task_id, round=round_, phase=int(phase),
               deadline=net.task(task_id).phaseDeadline)
    # The harness is the deadline keeper (play_round calls advance): a validator's handler does not
    # also schedule a Celery DeadlineReached check, which needs a running worker's task context.
    with contextlib.ExitStack() as stack:
        ctx = stack.enter_context(as_node(node))
        stack.enter_context(mock.patch("workers.node.handlers.validator_handlers.schedule_deadline"))
        if round_handlers.REVEAL_PHASE.get(phase) in withheld:
            # an honest node's commit that ends the phase reveals at once: a withholding one does not
            stack.enter_context(mock.patch("workers.node.handlers.round_handlers._reveal_round"))
        if phase == Phase.ATTEST and Phase.ATTEST_REVEAL in withheld:  # likewise a validator's sealed vote
            stack.enter_context(mock.patch("workers.node.handlers.validator_handlers.open_vote"))
        for cheat in mine:
            if phase in cheat.phases:
                stack.enter_context(cheat.active())
        handler(ctx, ev)


def start_task(net: FraudNet, task_id: int, samplers, trainer, validators, draws: int = 1) -> None:
    """The samplers and the trainer claim (and commit their first draws, as their SlotAssigned
    handlers do), the validators are drawn: the task is Active. A pool
    that has grown past what one draw walks (Draws.ATTEMPTS_PER_VACANCY per slot) with nodes no
    longer eligible may re-arm the draw: up to `draws` draws are made."""
    from workers.node.handlers import assignment_handlers
    from workers.node.handlers.draws import commit_first_draw

    for node in samplers:
        with as_node(node) as ctx:
            assignment_handlers.claim_sampler(ctx, task_created(net, task_id, "sampler"))
            commit_first_draw(ctx, task_id, Role.SAMPLER)
    with as_node(trainer) as ctx:
        assignment_handlers.claim_trainer(ctx, task_created(net, task_id, "trainer"))
        commit_first_draw(ctx, task_id, Role.TRAINER)
    for _ in range(draws):
        net.mine(2)
        with as_node(validators[0]) as ctx:
            armed = event("DrawArmed", "validator", taskId=task_id, seedBlock=net.task(task_id).seedBlock)
            assignment_handlers.draw(ctx, armed)
        if net.task(task_id).status != Status.DRAWING:
            break
    task = net.task(task_id)
    assert (task.status, task.phase, task.round) == (Status.ACTIVE, Phase.SAMPLE_COMMIT, 0), task
    drawn = {net.deployment.state.functions.slotOf(task_id, Role.VALIDATOR, i).call().node
             for i in range(task.numValidators)}
    assert drawn == {v.address for v in validators}, "the case's validators must be the task's"


def play_round(net: FraudNet, task_id: int, nodes: dict, *cheats: Cheat) -> None:
    """Every node of the task acts in each phase of the current round (`nodes`: role -> nodes);
    a phase left incomplete (a withheld action) ends at its deadline with advance(), as a keeper
    would call it."""
    round_ = net.task(task_id).round
    for phase in Phase:
        task = net.task(task_id)
        if task.status != Status.ACTIVE or task.round != round_:
            return
        if task.phase != phase:
            continue
        for node in [node for role in WORKERS[phase] for node in nodes[role]]:
            act(net, node, task_id, round_, phase, cheats)
        task = net.task(task_id)
        if task.status == Status.ACTIVE and task.round == round_ and task.phase == phase:
            net.pass_deadline(task_id)
            net.w3.eth.wait_for_transaction_receipt(
                net.deployment.registry.functions.advance(task_id).transact({"from": net.admin}))


def outcome(net: FraudNet, task_id: int, block: int) -> SimpleNamespace:
    """What the chain says happened to the task since `block`: verdicts, vacated slots, rewards
    and slashes, by node address."""
    d = net.deployment
    logs = lambda contract, name: [e.args for e in getattr(contract.events, name)().get_logs(  # noqa: E731
        from_block=block) if e.args.get("taskId", task_id) == task_id]
    return SimpleNamespace(
        verdicts={(a.node, Role(a.role)): a.verdict for a in logs(d.registry, "VerdictReached")},
        vacated={a.node: a.reason for a in logs(d.registry, "SlotVacated")},
        earned={a.node: a.amount for a in logs(d.registry, "RewardEarned")},
        slashed={a.node: a.amount for a in logs(d.stakes, "Slashed")},
        task=net.task(task_id))


def honest_vote(net: FraudNet, task_id: int, round_: int, workers) -> int:
    """The vote an honest validator casts on a round of honest `workers` (samplers and trainer):
    accept for the submissions whose draw did not force them, "plant" for those it did
    (SPECIFICATION.md 5.5.3), as each worker's own draw says (before or after it is opened)."""
    from workers.node.handlers.draws import is_forced_now
    from workers.protocol import encode_vote

    task = net.task(task_id)
    accept = plant = 0
    for node in workers:
        with as_node(node) as ctx:
            m = ctx.view.membership(task_id, ctx.address)
            bit = 1 << (task.numSamplers if m.role == Role.TRAINER else m.slot)
            if is_forced_now(ctx, task_id, round_):
                plant |= bit
            else:
                accept |= bit
    return encode_vote(accept, plant)

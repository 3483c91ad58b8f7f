"""Incentives measured on the real network: does any strategy pay better than honest work?

    ip netns exec NS .venv/bin/python bench/incentives.py [--rounds 3] [--validator-rounds 8]
        [--fractions 0.1,0.25,0.5] [--price 1.0] [--jurors 3] [--seed 0] [--only NAME,...]

One network for the whole bench: the fraud matrix's world (tests/workers/fraud/fraud_world.py:
a real anvil with the protocol deployed and disputes ACTIVE — pay held for a 1-day window — a real
Redis, nodes whose handlers this process runs phase by phase). Every round is a fresh one-round
task (two for `stale policy`, whose counted round is the second) of 2 samplers, 1 trainer and 3
validators, each validator with its own secret, random challenge seed, each worker with its own
forced-error draw (committed at its claim, opened after the votes: about half of the submissions
carry the plant), and exactly ONE strategic node; everyone else is honest:

- each cheat class of the fraud matrix (tests/workers/fraud: fraud_faults, fraud_trainer_faults),
  whole (every episode / every step) and partial (a random fraction of the episodes, gradient
  steps or transitions: --fractions), played by a fresh sampler (slot 1) or a fresh trainer;
- the validator strategies, played by validator slot `validator2`: accept-all and reject-all
  (both skip every check: no re-execution, so no CPU cost), guess (checks nothing and answers each
  submission "plant" or accept on a fair coin: the best blind answer to forced errors,
  SPECIFICATION.md 5.5.3), copy-votes (reads the attestations the
  chain shows when its turn comes, at a random place in the voting order, and votes each
  submission as their majority; nothing visible: accepts) and vote-last (the same, voting after
  the other two). Both read the chain at the time they vote: with sealed votes they see nothing and
  fall back to accepting.

After every round is played, the disputes: `--jurors` validators outside every task are staked
(for as many seats as there can be disputes) and run as real node processes (Celery workers under
their Supervisors, with a block ticker); the other validators, played in-process and not running,
pause themselves (setNodePaused) so that the jury draw does not seat them; and
every HONEST validator of every round runs its node's detector (workers.node.handlers.
detector_handlers, on RoundFinalized; played in-process as the round was) — it disputes, with the
minimum bond, each submission it rejected that the verdict let through. Strategic validators do
not dispute (a lazy strategy has nothing to show). Once every dispute is settled, protocol time
passes every round's dispute window and each held pay is released (releasePay, which returns an
unvindicated dissent's pay to the requester).

A node's utility for its round, in DRL:

    earned (RewardEarned) - reclaimed (PayReclaimed) - slashed (Slashed during the round, and
    PartyPenalised in a dispute of the round) - bonds posted + owed by the DisputeManager (bond
    returned + awards)  - CPU-seconds x --price

CPU is time.process_time around the role functions the node ran in the round (after an uncounted
honest warm-up round: the process's first training pays about a second of torch start-up) (sample_shard,
train_round, verify_samplers, verify_round, or the strategy that replaced one); the price is
--price DRL per CPU-second (default 1). Chain calls, storage and the jurors' re-execution (in
their own processes) are not counted.

Printed: per strategy, the strategic node's mean utility beside the honest node's of the same
role (sampler: the honest sampler of the same rounds; trainer: the honest trainer of the `honest`
rounds; validator: the two honest validators of the same rounds), (cheat - honest) / the role's
slot pay, and how many honest nodes (jurors included) were slashed. Ends with exactly one line

    RESULT cheat_advantage_max=<x> lazy_validator_max=<y> honest_slashed=<n> rounds=<n>

cheat_advantage_max: the largest (cheater utility - honest utility) / honest pay over the cheat
classes (goal < 0). lazy_validator_max: the largest mean utility of a non-honest validator
strategy over the honest validators' (goal <= 0.5). honest_slashed: honest nodes slashed, all
rounds (goal 0). rounds: rounds counted. A missed goal is printed as measured.
"""
from __future__ import annotations

import argparse
import contextlib
import dataclasses
import random
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
# the fraud matrix's world and dishonest drop-ins; the integration suite's node settings
for _folder in ("fraud", "disputes", "integration"):
    sys.path.insert(0, str(ROOT / "tests" / "workers" / _folder))

TOKEN = 10**18
DAY_S = 86_400
VOTE_WINDOW_S = 600
ROLE_TARGETS = ("workers.roles.sampler.sample_shard", "workers.roles.trainer.train_round",
                "workers.roles.validator.verify_samplers", "workers.roles.validator.verify_round")
"""The role functions whose CPU time is a node's cost of work."""
EARLY_CHECK = "workers.node.handlers.validator_handlers._check_samplers_early"


# -- accounting (pure) -----------------------------------------------------------------------------

@dataclasses.dataclass
class Take:
    """What one node got and spent in one round (wei, CPU-seconds)."""

    earned: int = 0
    reclaimed: int = 0
    slashed: int = 0
    bonds: int = 0
    owed: int = 0
    cpu_s: float = 0.0

    def utility(self, price: float) -> float:
        """In DRL: pay kept, minus slashes and bonds, plus what disputes owe it, minus its CPU at
        `price` DRL per CPU-second."""
        return (self.earned - self.reclaimed - self.slashed - self.bonds + self.owed) / TOKEN - self.cpu_s * price


@dataclasses.dataclass
class Seat:
    """One node's part in one counted round."""

    strategy: str
    role: str  # "sampler", "trainer", "validator"
    strategic: bool
    take: Take
    pay: float  # the role's slot pay for the round, DRL


@dataclasses.dataclass
class Line:
    strategy: str
    role: str
    rounds: int
    utility: float  # the strategic node's mean (for "honest": the role's honest mean)
    honest: float  # the honest node's of the same role
    pay: float
    honest_slashed: int
    cpu_s: float = 0.0  # the strategic node's mean CPU-seconds
    honest_cpu_s: float = 0.0

    @property
    def advantage(self) -> float:
        return (self.utility - self.honest) / self.pay


def summarize(seats: list[Seat], price: float) -> list[Line]:
    """One Line per (strategy, strategic role): the strategic mean beside the honest mean of the
    same role — of the same rounds, or of the `honest` rounds where its rounds have no honest node
    of that role (the trainer) — and the honest nodes slashed in its rounds."""
    baseline, baseline_cpu = defaultdict(list), defaultdict(list)
    for s in seats:
        if s.strategy == "honest":
            baseline[s.role].append(s.take.utility(price))
            baseline_cpu[s.role].append(s.take.cpu_s)
    lines = []
    for strategy in dict.fromkeys(s.strategy for s in seats):
        mine = [s for s in seats if s.strategy == strategy]
        slashed = sum(1 for s in mine if not s.strategic and s.take.slashed > 0)
        if strategy == "honest":
            for role in dict.fromkeys(s.role for s in mine):
                u = statistics.fmean(baseline[role])
                pay = statistics.fmean(s.pay for s in mine if s.role == role)
                cpu = statistics.fmean(baseline_cpu[role])
                lines.append(Line(strategy, role, len(baseline[role]), u, u, pay,
                                  sum(1 for s in mine if s.role == role and s.take.slashed > 0), cpu, cpu))
            continue
        [role] = {s.role for s in mine if s.strategic}
        strategic = [s for s in mine if s.strategic]
        peers = [s for s in mine if not s.strategic and s.role == role]
        honest = [s.take.utility(price) for s in peers] or baseline[role]
        honest_cpu = [s.take.cpu_s for s in peers] or baseline_cpu[role]
        lines.append(Line(strategy, role, len(strategic), statistics.fmean(s.take.utility(price) for s in strategic),
                          statistics.fmean(honest), statistics.fmean(s.pay for s in strategic), slashed,
                          statistics.fmean(s.take.cpu_s for s in strategic), statistics.fmean(honest_cpu)))
    return lines


def result(lines: list[Line], rounds: int, jurors_slashed: int = 0) -> str:
    cheats = [ln.advantage for ln in lines if ln.strategy != "honest" and ln.role != "validator"]
    lazy = [ln.utility / ln.honest for ln in lines if ln.strategy != "honest" and ln.role == "validator"]
    slashed = sum(ln.honest_slashed for ln in lines) + jurors_slashed
    fmt = lambda xs: f"{max(xs):.3f}" if xs else "nan"  # noqa: E731
    return f"RESULT cheat_advantage_max={fmt(cheats)} lazy_validator_max={fmt(lazy)} honest_slashed={slashed} " \
           f"rounds={rounds}"


# -- CPU time of a node's work ---------------------------------------------------------------------

class Clock:
    """CPU seconds by node name, of the role functions run while `node` is set (outermost call
    only: a role function calling another is counted once)."""

    def __init__(self):
        self.cpu = defaultdict(float)
        self.node: str | None = None
        self._depth = 0

    def timed(self, fn):
        def wrapper(*args, **kwargs):
            if self._depth:
                return fn(*args, **kwargs)
            self._depth += 1
            started = time.process_time()
            try:
                return fn(*args, **kwargs)
            finally:
                self._depth -= 1
                self.cpu[self.node] += time.process_time() - started
        return wrapper

    @contextlib.contextmanager
    def acting(self, name: str):
        """Counts the role functions run in the block as `name`'s (a cheat's replacement, patched
        inside the block, is timed by its Cheat: `timed` it when building the Cheat)."""
        import importlib

        self.node = name
        with contextlib.ExitStack() as stack:
            for target in ROLE_TARGETS:
                module, attr = target.rsplit(".", 1)
                current = getattr(importlib.import_module(module), attr)
                stack.enter_context(mock.patch(target, self.timed(current)))
            yield
        self.node = None


# -- strategies ------------------------------------------------------------------------------------

def uniform(samplers, trainer, accept: bool, reason: str):
    from workers.roles.validator import Judgement, RoundVerdict

    j = Judgement(accept, reason)
    return RoundVerdict({slot: j for slot, _, _ in samplers}, None if trainer is None else j)


def lazy(accept: bool):
    """A verify_round that checks nothing and votes `accept` on everything."""
    def verify_round(spec, task_id, round_, prev_bundle, samplers, trainer, *args, **kwargs):
        return uniform(samplers, trainer, accept, "voted without checking")
    return verify_round


def guessing(rng):
    """A verify_round that checks nothing and answers each submission blind: "plant" (forced) or
    accept, a fair coin each (the forced errors' rate; SPECIFICATION.md 5.5.3)."""
    from workers.roles.validator import Judgement, RoundVerdict

    def guess() -> Judgement:
        if rng.random() < 0.5:
            return Judgement(False, "guessed: forced", planted=True)
        return Judgement(True, "guessed: not forced")

    def verify_round(spec, task_id, round_, prev_bundle, samplers, trainer, *args, **kwargs):
        return RoundVerdict({slot: guess() for slot, _, _ in samplers}, None if trainer is None else guess())
    return verify_round


def copying(net, default: bool = True):
    """A verify_round that checks nothing and votes, submission by submission, as the majority of
    the attestations the chain shows now (ties accept); nothing visible: `default`."""
    from workers.roles.validator import Judgement, RoundVerdict

    def verify_round(spec, task_id, round_, prev_bundle, samplers, trainer, *args, **kwargs):
        state = net.deployment.state.functions
        task = net.task(task_id)
        seen = [a.acceptBitmap for a in (state.attestationOf(task_id, round_, v).call()
                                         for v in range(task.numValidators)) if a.voted]

        def vote(bit: int) -> Judgement:
            if not seen:
                return Judgement(default, "no vote visible: the default")
            yes = sum(1 for b in seen if b >> bit & 1)
            return Judgement(2 * yes >= len(seen), f"copied {yes} of {len(seen)} visible votes")
        return RoundVerdict({slot: vote(slot) for slot, _, _ in samplers},
                            None if trainer is None else vote(task.numSamplers))
    return verify_round


@dataclasses.dataclass
class Strategy:
    name: str
    role: str  # the strategic node's role; "" for the all-honest rounds
    make: object = None  # (net, clock, rng, node_name) -> [Cheat]
    order: str = "fixed"  # validators' voting order: fixed (strategic last), random
    rounds_per_task: int = 1


def strategies(fractions, only=()) -> list[Strategy]:
    import fraud_faults as sf
    import fraud_trainer_faults as tf
    from fraud_world import Cheat

    from workers.protocol import Phase

    def cheat(target, phase, fn=None, factory=None):
        def make(net, clock, rng, node):
            return [Cheat(node, target, clock.timed(fn if factory is None else factory(rng)), phases=(phase,),
                          rounds=(0,))]
        return make

    sampler = lambda fn=None, factory=None: cheat(sf.SHARD, Phase.SAMPLE_COMMIT, fn, factory)  # noqa: E731
    trainer = lambda fn=None, factory=None: cheat(tf.TRAIN, Phase.TRAIN_COMMIT, fn, factory)  # noqa: E731

    def validator(vote):
        def make(net, clock, rng, node):
            return [Cheat(node, EARLY_CHECK, lambda ctx, ev: None, phases=(Phase.TRAIN_COMMIT,)),
                    Cheat(node, sf.VERIFY, clock.timed(vote(net, rng)), phases=(Phase.ATTEST,))]
        return make

    out = [Strategy("honest", ""),
           *(Strategy(name, "sampler", sampler(fn)) for name, fn in [
               ("fabricated rewards", sf.fabricated_rewards), ("altered observations", sf.altered_observations),
               ("off-policy actions", sf.off_policy_actions), ("root of nothing", sf.root_of_nothing),
               ("undecodable episode", sf.undecodable_episode)]),
           Strategy("stale policy", "sampler", None, rounds_per_task=2),
           *(Strategy(f"{name} {f:.0%}", "sampler", sampler(factory=lambda rng, mk=mk, f=f: mk(f, rng)))
             for name, mk in [("fabricated rewards", sf.fabricated_rewards_of),
                              ("altered observations", sf.altered_observations_of)] for f in fractions),
           *(Strategy(name, "trainer", trainer(fn)) for name, fn in [
               ("skipped steps", tf.skipped_steps), ("altered steps", tf.altered_steps),
               ("bundle off its root", tf.bundle_off_its_root), ("policy off its trace", tf.policy_off_its_trace)]),
           *(Strategy(f"{name} {f:.0%}", "trainer", trainer(factory=lambda rng, mk=mk, f=f: mk(f, rng)))
             for name, mk in [("skipped steps", tf.skipped_steps_of), ("altered steps", tf.altered_steps_of)]
             for f in fractions),
           Strategy("accept-all", "validator", validator(lambda net, rng: lazy(True))),
           Strategy("reject-all", "validator", validator(lambda net, rng: lazy(False))),
           Strategy("guess", "validator", validator(lambda net, rng: guessing(rng))),
           Strategy("copy-votes", "validator", validator(lambda net, rng: copying(net)), order="random"),
           Strategy("vote-last", "validator", validator(lambda net, rng: copying(net)))]
    # stale policy: the cheat is in the task's second round (the first's checkpoint is accepted)
    stale = next(s for s in out if s.name == "stale policy")

    def stale_make(net, clock, rng, node):
        return [Cheat(node, sf.SHARD, clock.timed(sf.stale_policy), phases=(Phase.SAMPLE_COMMIT,), rounds=(1,))]
    stale.make = stale_make
    return [s for s in out if not only or s.name in only]


# -- the network -----------------------------------------------------------------------------------

@dataclasses.dataclass
class Played:
    strategy: str
    task_id: int
    round: int
    blocks: tuple[int, int]
    seats: dict  # node name -> (address, role, strategic)
    cpu: dict  # node name -> CPU s
    honest_validators: list
    fate: str  # what the round's verdict did to the strategic node (`Bench.fate`)


class Bench:
    def __init__(self, workdir: Path, args):
        from fraud_world import FraudNet
        from network import NODE_SETTINGS

        self.args = args
        self.rng = random.Random(args.seed)
        # a Redis database per node: the honest ones, a fresh cheater per cheat round, replacements, jurors
        databases = 16 + 3 * len(strategies(args.fractions)) * max(args.rounds, args.validator_rounds) + args.jurors
        self.net = FraudNet(workdir, redis_databases=databases, node_settings=NODE_SETTINGS,
                            disputes={"dispute_window_s": DAY_S, "vote_window_s": VOTE_WINDOW_S})
        for name, role in [("sampler0", "sampler"), ("sampler1", "sampler"), ("trainer", "trainer"),
                           ("validator0", "validator"), ("validator1", "validator"), ("validator2", "validator")]:
            self.net.add_node(name, role)
        self.honest = {"sampler": [self.net.node("sampler0"), self.net.node("sampler1")],
                       "trainer": [self.net.node("trainer")],
                       "validator": [self.net.node(f"validator{i}") for i in range(3)]}
        self.clock = Clock()
        self.played: list[Played] = []
        self.replaced = 0
        self._fresh = 0

    def fresh(self, role: str):
        self._fresh += 1
        return self.net.add_node(f"{role}-{self._fresh}", role)

    def eligible(self, node) -> bool:
        from workers.protocol import Role

        role = {"sampler": Role.SAMPLER, "trainer": Role.TRAINER, "validator": Role.VALIDATOR}[node.role]
        d = self.net.deployment
        stakes = d.stakes.functions
        return (d.reputation.functions.isEligible(node.address).call()
                and stakes.availableStake(node.address, role).call() >= stakes.minStake(role).call()
                and not stakes.isNodePaused(node.address).call())

    def fate(self, task_id: int, block: int, node) -> str:
        """The strategic node's lot at the round's end, one letter: A accepted, R rejected, I
        inconclusive, M missed its deadline (samplers, trainers); p paid, d dissented, m missed a
        forced error another validator found, u otherwise unpaid (outvoted), q against the quorum
        (validators); "" for the honest rounds. Disputes come later."""
        from workers.protocol import Outcome, Verdict

        if node is None:
            return ""
        registry = self.net.deployment.registry
        logs = lambda name: [e.args for e in getattr(registry.events, name)().get_logs(  # noqa: E731
            from_block=block, argument_filters={"taskId": task_id}) if e.args.get("node", e.args.get("validator"))
            == node.address]
        vacated = [Outcome(a.reason) for a in logs("SlotVacated")]
        if node.role == "validator":
            if Outcome.AGAINST_QUORUM in vacated:
                return "q"
            if logs("Dissented"):
                return "d"
            return "m" if logs("PlantMissed") else "p" if logs("RewardEarned") else "u"
        if Outcome.MISSED in vacated or Outcome.WITHHELD in vacated:
            return "M"
        verdicts = [Verdict(a.verdict) for a in logs("VerdictReached")]
        return verdicts[-1].name[0] if verdicts else "?"

    def play(self, strategy: Strategy) -> Played:
        import fraud_world as fw

        net = self.net
        # A node an earlier round made ineligible (an honest validator whose sampled checks missed a
        # partial cheat that the quorum caught is slashed and marked down) is replaced by a fresh
        # one: the validator draw takes the whole pool, which must be the task's three.
        for group in self.honest.values():
            for i, node in enumerate(group):
                if not self.eligible(node):
                    group[i] = self.fresh(node.role)
                    self.replaced += 1
        samplers, trainer = list(self.honest["sampler"]), self.honest["trainer"][0]
        validators = list(self.honest["validator"])
        strategic = None
        if strategy.role == "sampler":
            strategic = samplers[1] = self.fresh("sampler")
        elif strategy.role == "trainer":
            strategic = trainer = self.fresh("trainer")
        elif strategy.role == "validator":
            strategic = validators[2]
            if strategy.order == "random":
                self.rng.shuffle(validators)
        nodes = {"sampler": samplers, "trainer": [trainer], "validator": validators}
        cheats = [] if strategic is None else strategy.make(net, self.clock, self.rng, strategic.name)
        task_id = net.create_task(num_rounds=strategy.rounds_per_task)
        # ineligible validators replaced earlier stay in the draw list: a draw may re-arm
        fw.start_task(net, task_id, samplers, trainer, sorted(validators, key=lambda v: v.name), draws=500)
        original = fw.act

        def act(net_, node, task_id_, round_, phase, cheats_=()):
            with self.clock.acting(node.name):
                original(net_, node, task_id_, round_, phase, cheats_)

        with mock.patch.object(fw, "act", act):
            for _ in range(strategy.rounds_per_task - 1):  # the counted round is the last
                fw.play_round(net, task_id, nodes, *cheats)
            self.clock.cpu.clear()
            counted = net.task(task_id).round
            first = net.w3.eth.block_number + 1
            fw.play_round(net, task_id, nodes, *cheats)
        seats = {node.name: (node.address, role, node is strategic)
                 for role, group in nodes.items() for node in group}
        played = Played(strategy.name, task_id, counted, (first, net.w3.eth.block_number), seats,
                        dict(self.clock.cpu), [v for v in validators if v is not strategic],
                        self.fate(task_id, first, strategic))
        self.played.append(played)
        return played

    def disputes(self) -> None:
        """The honest validators' detectors dispute what they saw fail; jurors outside every task
        judge, as real node processes; then every held pay is released after the windows."""
        from dispute_world import wait_for
        from fraud_world import as_node, event

        from workers.localnet.chain import Ticker
        from workers.node.handlers import detector_handlers
        from workers.protocol import DisputeStatus, Role

        net, d = self.net, self.net.deployment
        # A juror seat locks the validator minimum: staked for as many seats as disputes can be
        # opened (a rejected submission per honest validator per round), each juror sits on all.
        seats = 3 * 3 * len(self.played) + 1
        stake = d.stakes.functions.minStake(Role.VALIDATOR).call() * seats
        jurors = [net.add_node(f"juror{i}", "validator", drl=stake // TOKEN + 1_000, stake=stake)
                  for i in range(self.args.jurors)]
        # The task validators are played in-process, not running: paused, they are not drawn as
        # jurors (a seated juror that never votes is slashed and holds the vote up for its window).
        for node in net.nodes:
            if node.role == "validator" and node not in jurors:
                node.sender.send(d.stakes.functions.setNodePaused(True))
        first = net.w3.eth.block_number + 1
        net.start(names=[j.name for j in jurors])
        ticker = Ticker(net.w3, 0.5)
        try:
            net.wait_ready()
            for p in self.played:
                for v in p.honest_validators:
                    with as_node(v) as ctx:
                        detector_handlers.dispute_what_it_saw_fail(
                            ctx, event("RoundFinalized", "validator", taskId=p.task_id, round=p.round))
            opened = [e.args.disputeId for e in d.disputes.events.DisputeOpened().get_logs(from_block=first)]
            state = d.state.functions
            settled = (DisputeStatus.UPHELD, DisputeStatus.DISMISSED, DisputeStatus.VOID)
            wait_for(f"the jurors settling {len(opened)} disputes",
                     lambda: all(state.disputeOf(i).call().status in settled for i in opened),
                     timeout=120 + 90 * len(opened))
        finally:
            ticker.stop()
            net.stop_nodes()
        ends = [state.windowEndOf(p.task_id, p.round).call() for p in self.played]
        now = d.registry.functions.protocolTime().call()
        net.w3.provider.make_request("evm_increaseTime", [max(max(ends) - now + 1, 1)])
        net.mine()
        vault = d.vault.functions
        for e in d.vault.events.Held().get_logs(from_block=0):
            a = e.args
            if vault.heldOf(a.taskId, a.round, a.account).call() > 0:
                net.w3.eth.wait_for_transaction_receipt(d.disputes.functions.releasePay(
                    a.taskId, a.round, a.account).transact({"from": net.admin}))

    def seats(self) -> tuple[list[Seat], int]:
        """Every counted round's seats with their takes, from the chain's events; and the jurors
        slashed."""
        from fraud_world import slot_share

        from workers.protocol import Role

        net, d = self.net, self.net.deployment
        logs = lambda c, name: [e for e in getattr(c.events, name)().get_logs(from_block=0)]  # noqa: E731
        key = lambda a, node: (a.taskId, a.round, node)  # noqa: E731
        takes = defaultdict(Take)
        for e in logs(d.registry, "RewardEarned"):
            takes[key(e.args, e.args.node)].earned += e.args.amount
        for e in logs(d.registry, "PayReclaimed"):
            takes[key(e.args, e.args.node)].reclaimed += e.args.amount
        disputes = {}
        self.dispute_roles = defaultdict(list)
        for e in logs(d.disputes, "DisputeOpened"):
            disputes[e.args.disputeId] = (e.args.taskId, e.args.round)
            self.dispute_roles[(e.args.taskId, e.args.round)].append(Role(e.args.role).name.lower())
            takes[key(e.args, e.args.disputer)].bonds += e.args.bond
        for e in logs(d.disputes, "Owed"):
            task, round_ = disputes[e.args.disputeId]
            takes[(task, round_, e.args.account)].owed += e.args.amount
        for e in logs(d.disputes, "PartyPenalised"):
            task, round_ = disputes[e.args.disputeId]
            takes[(task, round_, e.args.node)].slashed += e.args.slashed
        by_block = {b: p for p in self.played for b in range(p.blocks[0], p.blocks[1] + 1)}
        for e in logs(d.stakes, "Slashed"):
            p = by_block.get(e.blockNumber)
            if p is not None:
                takes[(p.task_id, p.round, e.args.node)].slashed += e.args.amount
        outcome_of = {e.args.disputeId: e.args.outcome for e in logs(d.disputes, "DisputeSettled")}
        strategy_of = {(p.task_id, p.round): p.strategy for p in self.played}
        self.upheld = defaultdict(int)
        for i, (task, round_) in disputes.items():
            if outcome_of.get(i) == 3 and (task, round_) in strategy_of:
                self.upheld[strategy_of[(task, round_)]] += 1
        for (task, round_), roles in self.dispute_roles.items():
            if (task, round_) in strategy_of:
                print(f"dispute: {strategy_of[(task, round_)]}: task {task} round {round_}, the {', '.join(roles)}",
                      file=sys.stderr)
        settled = list(outcome_of.values())
        self.dispute_counts = (len(disputes), *(sum(1 for o in settled if o == k) for k in (3, 4, 5)))
        jurors_slashed = len({e.args.juror for e in logs(d.disputes, "JurorReleased") if e.args.slashed > 0})
        role_of = {"sampler": Role.SAMPLER, "trainer": Role.TRAINER, "validator": Role.VALIDATOR}
        per_task = {"sampler": 2, "trainer": 1, "validator": 3}
        seats = []
        for p in self.played:
            rounds = next(s.rounds_per_task for s in strategies(self.args.fractions) if s.name == p.strategy)
            for name, (address, role, strategic) in p.seats.items():
                take = dataclasses.replace(takes[(p.task_id, p.round, address)], cpu_s=p.cpu.get(name, 0.0))
                pay = slot_share(net, role_of[role], per_task[role], rounds) / TOKEN
                seats.append(Seat(p.strategy, role, strategic, take, pay))
        return seats, jurors_slashed

    def close(self) -> None:
        self.net.stop()


def table(lines: list[Line], fates: dict, upheld: dict) -> str:
    rows = [f"{'strategy':<26} {'role':<9} {'n':>3} {'pay':>6} {'utility':>8} {'honest':>8} {'(u-h)/pay':>9} "
            f"{'u/honest':>8} {'cpu_s':>5} {'h_cpu_s':>7} {'fates':<6} {'upheld':>6} {'honest_slashed':>14}"]
    for ln in lines:
        ratio = ln.utility / ln.honest if ln.honest else float("nan")
        fate = fates.get(ln.strategy, "") if ln.strategy != "honest" else ""
        rows.append(f"{ln.strategy:<26} {ln.role:<9} {ln.rounds:>3} {ln.pay:>6.1f} {ln.utility:>8.2f} "
                    f"{ln.honest:>8.2f} {ln.advantage:>+9.3f} {ratio:>8.3f} {ln.cpu_s:>5.2f} {ln.honest_cpu_s:>7.2f} "
                    f"{fate:<6} {upheld.get(ln.strategy, 0):>6} {ln.honest_slashed:>14}")
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="counted rounds per strategy; default 3")
    parser.add_argument("--validator-rounds", type=int, default=8,
                        help="counted rounds per validator strategy (and of honest play, their reference): "
                             "a blind validator's pay depends on the rounds' forced draws; default 8")
    parser.add_argument("--fractions", type=lambda s: [float(x) for x in s.split(",")], default=[0.1, 0.25, 0.5],
                        help="partial cheats' fractions of episodes / steps / transitions; default 0.1,0.25,0.5")
    parser.add_argument("--price", type=float, default=1.0, help="DRL per CPU-second of work; default 1")
    parser.add_argument("--jurors", type=int, default=3, help="validators outside every task, judging disputes")
    parser.add_argument("--seed", type=int, default=0, help="seed of the partial cheats' picks and vote orders")
    parser.add_argument("--only", type=lambda s: s.split(","), default=(),
                        help="comma-separated strategy names to play (honest is always played)")
    args = parser.parse_args()
    if args.rounds < 1 or args.validator_rounds < 1:
        parser.error("--rounds and --validator-rounds must be at least 1")
    chosen = strategies(args.fractions, ("honest", *args.only) if args.only else ())
    with tempfile.TemporaryDirectory(prefix="incentives-") as workdir:
        bench = Bench(Path(workdir), args)
        try:
            started = time.monotonic()
            bench.play(chosen[0])  # a warm-up round, not counted: the first training pays torch's start-up
            bench.played.clear()
            for strategy in chosen:
                rounds = args.validator_rounds if strategy.role in ("validator", "") else args.rounds
                for _ in range(rounds):
                    bench.play(strategy)
                print(f"played {strategy.name} x{rounds} ({time.monotonic() - started:.0f} s)", file=sys.stderr)
            bench.disputes()
            seats, jurors_slashed = bench.seats()
        finally:
            bench.close()
    lines = summarize(seats, args.price)
    print(f"rounds per strategy {args.rounds} (validator strategies and honest play {args.validator_rounds}); "
          f"price {args.price:g} DRL per CPU-second; fractions "
          f"{','.join(f'{f:g}' for f in args.fractions)}; {args.jurors} jurors; disputes on (1-day window)")
    fates = defaultdict(str)
    for p in bench.played:
        fates[p.strategy] += p.fate
    print(table(lines, fates, bench.upheld))
    print("fates: the strategic node at each round's verdict: A accepted, R rejected, I inconclusive, M missed "
          "(sampler, trainer); p paid, d dissented, m missed a forced error, u outvoted (unpaid), q slashed "
          "against the quorum (validator). upheld: disputes "
          "of its rounds upheld (honest validators' detectors, judged by the jurors)")
    cheat_rounds = [x for x in seats if x.role == "validator" and not x.strategic
                    and x.strategy not in ("honest", *(ln.strategy for ln in lines if ln.role == "validator"))]
    if cheat_rounds:
        print(f"honest validators in the cheat rounds: mean utility "
              f"{statistics.fmean(x.take.utility(args.price) for x in cheat_rounds):.2f} DRL over {len(cheat_rounds)}; "
              f"slashed {sum(1 for x in cheat_rounds if x.take.slashed)}, pay reclaimed "
              f"{sum(1 for x in cheat_rounds if x.take.reclaimed)}, disputes won "
              f"{sum(1 for x in cheat_rounds if x.take.owed > x.take.bonds)}")
    by_role = {role: sum(1 for x in seats if not x.strategic and x.role == role and x.take.slashed)
               for role in ("sampler", "trainer", "validator")}
    print("honest nodes slashed by role: " + ", ".join(f"{role} {n}" for role, n in by_role.items()))
    opened, upheld, dismissed, void = bench.dispute_counts
    print(f"disputes opened {opened}: upheld {upheld}, dismissed {dismissed}, void {void}")
    print(f"jurors slashed: {jurors_slashed}; honest nodes made ineligible and replaced between rounds: "
          f"{bench.replaced}")
    counted = sum(1 for _ in bench.played)
    print(result(lines, counted, jurors_slashed))


if __name__ == "__main__":
    main()

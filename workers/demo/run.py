"""`decentrl demo`: the whole network on this machine, training an environment's preset (default
CartPole-v1, which it solves; `--env ID` runs workers.rl.presets.ENV_PRESETS[ID] with as many
samplers and rounds as the preset names, and task seed DEMO_SEED).

1-4 through workers.localnet.network:
1. its own anvil (free port, automine + a 1 s evm_mine ticker) and the protocol deployed with
   plain web3 from build/contracts to a temporary deployment record;
2. one embedded Redis (a database per account) and one shared embedded content store;
3. an account for each node, with its own encrypted keystore and node folder: the preset's
   samplers (2 for CartPole-v1), 1 trainer, 3 validators (funded with ETH and DRL, staked at the
   minimum for their role) and a requester;
4. each worker node's processes through the node's entry point (workers.node.run: a
   Celery worker for its role plus the chain watcher, under a Supervisor);
5. the requester signs the CreateTask request (EIP-712) and a permit for the bounty, and submits
   the demo task (workers.spec.DEMO_CARTPOLE, or the preset's spec) with workers.chain.requester.create_task;
6. shows the task's phases, votes (each validator's attest: three are too few for a BLS aggregate
   to pay, workers.roles.aggregation.MIN_AGGREGATE_SIGNERS),
   verdicts and rounds as the events arrive, with each accepted
   checkpoint's mean return (a quick 10-episode evaluation) and the samplers' training return;
7. at the end: the final checkpoint verified against the on-chain checkpointRoot and evaluated
   (100 episodes), each node's payout and reputation, a PNG learning curve; then it stops
   everything it started and prints `RESULT eval_return=<mean> rounds=<n> wall_s=<seconds>`.

With `explorer_port` the network explorer (workers.explorer) serves the demo's chain and store on
127.0.0.1 from step 1 on, so the task can be watched live in a browser; `linger_s` keeps the
whole network (chain, Redis, store, nodes, explorer) up that long after the run (math.inf: until
Ctrl-C) and prints how to use it from another shell.
"""

from __future__ import annotations

import json
import math
import queue
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import click

TOKEN = 10**18
PASSWORD = "decentrl-demo"  # the demo's throwaway keystores; a real node prompts for its own
SCRYPT_N = 2**14  # lighter than the default 2**18: twelve processes decrypt a keystore at start
NODE_DRL = 1_000
BOUNTY_DRL = 1_000
DEMO_ENV = "CartPole-v1"
DEMO_SEED = 1
"""The task seed of the demo's spec (workers.spec.DEMO_CARTPOLE and every `--env` preset's)."""
TASK = dict(num_samplers=2, num_validators=3, num_rounds=5, claim_window=600, commit_window=120,
            reveal_window=60, attest_window=120)
QUICK_EPISODES = 10
FINAL_EPISODES = 100
TIMEOUT_S = 540.0
DEMO_WORK = 5 * 2 * 2048
"""Env steps of the CartPole-v1 demo (5 rounds of 2 x 2048), which TIMEOUT_S and TASK's commit and
attest windows are sized for; a preset with more work gets them scaled up in proportion."""
ANVIL_PORTS = range(8690, 8700)  # the first free one, else an ephemeral port
EXPLORER_PORTS = 10  # --explorer PORT: the first free of PORT..PORT+9
HEALTH_INTERVAL_S = 15.0  # each node's health check (as `node start` runs it), for `decentrl node status`
PHASE_NAMES = {0: "sample-commit", 1: "sample-reveal", 2: "train-commit", 3: "train-reveal", 4: "attest",
               5: "attest-reveal"}


def say(text: str = "") -> None:
    click.echo(text)


def vote_text(accept: int, plant: int) -> str:
    """A vote as the demo shows it: its accept bits, and its "plant" answers if any (bit i: sampler
    slot i, the highest the trainer; SPECIFICATION.md 5.5.3)."""
    return f"accept {accept:#b}" + (f", plant {plant:#b}" if plant else "")


def roles(samplers: int, validators: int) -> list[tuple[str, str]]:
    """(node name, role) of the demo's worker nodes: `samplers` samplers, a trainer, `validators` validators."""
    return ([(f"sampler-{i}", "sampler") for i in range(1, samplers + 1)] + [("trainer", "trainer")]
            + [(f"validator-{i}", "validator") for i in range(1, validators + 1)])


def preset_demo(env_id: str) -> tuple[object, dict, float]:
    """(spec, TaskParams settings, timeout in seconds) of the demo of `env_id`'s preset: its spec with
    task seed DEMO_SEED, its samplers and rounds, and windows and timeout scaled to its work.
    ClickException naming the envs that have a preset."""
    from workers.rl.presets import ENV_PRESETS
    from workers.spec import preset_spec

    preset = ENV_PRESETS.get(env_id)
    if preset is None:
        raise click.ClickException(f"no preset for {env_id!r}; the demo runs one of {', '.join(ENV_PRESETS)}")
    scale = max(1.0, preset.rounds * preset.steps_per_round / DEMO_WORK)
    task = dict(num_samplers=preset.shards, num_rounds=preset.rounds,
                commit_window=math.ceil(TASK["commit_window"] * scale),
                attest_window=math.ceil(TASK["attest_window"] * scale))
    return preset_spec(preset, seed=DEMO_SEED), task, TIMEOUT_S * scale


@dataclass
class Curve:
    rounds: list = field(default_factory=list)
    env_steps: list = field(default_factory=list)
    eval_return: list = field(default_factory=list)
    sample_return: list = field(default_factory=list)


class Demo:
    def __init__(self, out_dir: Path, keep: bool, spec=None, task: dict | None = None, live_eval: bool = True,
                 timeout_s: float | None = None):
        """`spec` and `task` replace the demo's task spec and TaskParams settings (tests);
        `live_eval` False: no evaluation of each round's checkpoint while the task runs (it takes a
        CPU core from the nodes, bench/overhead.py measures the network without it); `timeout_s`:
        how long the task may take (default TIMEOUT_S)."""
        self.out_dir = Path(out_dir)
        self.keep = keep
        self.live_eval = live_eval
        self.spec = spec
        self.task = {**TASK, **(task or {})}
        self.timeout_s = TIMEOUT_S if timeout_s is None else timeout_s
        self.workdir = Path(tempfile.mkdtemp(prefix="decentrl-demo-"))
        self.net = None
        self.explorer = None
        self.nodes = []
        self.timeline: list[tuple[float, str, dict]] = []  # (seconds since start, event, args) of the task
        self.validator_slots: dict[int, str] = {}  # validator slot -> node name (from SlotAssigned)

    # -- setting up ------------------------------------------------------------------------------

    def start_network(self):
        """Chain, Redis, store, accounts and stakes (workers.localnet.network)."""
        from workers.chain.view import ChainView
        from workers.localnet.network import ROLE_OF, LocalNetwork
        from workers.storage import open_store

        self.net = LocalNetwork(self.workdir, password=PASSWORD, scrypt_n=SCRYPT_N, anvil_ports=ANVIL_PORTS,
                                anvil_log=True)
        self.w3, self.dep = self.net.w3, self.net.deployment
        say(f"chain     anvil {self.net.anvil.http_url} (chain {self.dep.chain_id}), protocol deployed: "
            f"registry {self.dep.addresses['TaskRegistry']}")
        self.store = open_store(None, self.net.store_dir)
        say(f"services  embedded Redis {self.net.redis.url} (pid {self.net.redis.pid}), "
            f"embedded store {self.net.store_dir}")
        everyone = roles(self.task["num_samplers"], self.task["num_validators"]) + [("requester", "requester")]
        with click.progressbar(everyone, label="accounts  keystores, funds and stakes", file=None) as bar:
            for name, role in bar:
                if role == "requester":
                    self.requester = self.net.account(name, drl=BOUNTY_DRL)
                else:
                    # the CPU, GPU or not: DEMO_CARTPOLE's 5-round solve was tuned on the CPU's
                    # training path (a CUDA update takes another), and a 64x64 policy trains faster
                    # there (docs/benchmarks.md)
                    self.net.add_node(name, role, drl=NODE_DRL, trainer_device="cpu")
        self.nodes = self.net.nodes
        view = ChainView(self.dep)
        for node in self.nodes:
            staked = view.stake(node.address, ROLE_OF[node.role]).staked
            say(f"  {node.name:<12}{node.address}  staked {staked / TOKEN:,.0f} DRL as {node.role}")
        say(f"  {'requester':<12}{self.requester.address}  holds {BOUNTY_DRL:,} DRL for the bounty")

    def start_explorer(self, port: int):
        """The explorer page over this demo's chain and store, served from a background thread."""
        from workers.explorer.api import ExplorerApi
        from workers.explorer.server import ExplorerServer
        from workers.localnet.chain import free_port

        port = free_port(range(port, port + EXPLORER_PORTS), fallback=False)
        self.explorer = ExplorerServer(ExplorerApi(self.dep, self.store), port=port).start()
        say(f"explorer  {self.explorer.url}  (open it to watch the task live)")

    def linger(self, seconds: float):
        """Keeps the whole network up (chain, Redis, store, the nodes, the explorer) for `seconds`
        (math.inf: until Ctrl-C), after printing how to use it."""
        for line in self.usage_lines():
            say(line)
        until = "until Ctrl-C" if math.isinf(seconds) else f"for {seconds:g} s (Ctrl-C ends it sooner)"
        say(f"linger    the network stays up {until}")
        end = time.monotonic() + seconds
        try:
            while time.monotonic() < end:
                time.sleep(min(1.0, end - time.monotonic()))
        except KeyboardInterrupt:
            pass

    def usage_lines(self) -> list[str]:
        """How to use the lingering network from another shell: where everything is, the keystores'
        password, and commands to try."""
        rpc, dep, store = self.net.anvil.http_url, self.net.deployment_path, self.net.store_dir
        requester = self.net.workdir / "nodes" / "requester"
        flags = f"--rpc {rpc} --deployment {dep} --store-dir {store}"
        lines = ["", "the network is up: use it from another shell",
                 f"  RPC          {rpc} (chain {self.dep.chain_id})",
                 f"  deployment   {dep}",
                 f"  store        {store} (the nodes' shared embedded store)",
                 f"  explorer     {self.explorer.url if self.explorer else '(none: demo --explorer PORT)'}",
                 f"  password     {PASSWORD} (every demo keystore: export DECENTRL_KEYSTORE_PASSWORD={PASSWORD})",
                 f"  requester    {requester}  ({self.requester.address})"]
        lines += [f"  {node.name:<12} {node.node_dir}  ({node.address}, {node.role})" for node in self.nodes]
        lines += ["  try:",
                  f"    export DECENTRL_KEYSTORE_PASSWORD={PASSWORD}",
                  f"    decentrl {flags} --node-dir {requester} task list --all",
                  f"    decentrl {flags} --node-dir {requester} task status {self.task_id}",
                  f"    decentrl task spec --demo -o spec.json && decentrl {flags} spec put spec.json",
                  f"    decentrl {flags} --node-dir {requester} wallet claim",
                  f"    decentrl {flags} --node-dir {self.nodes[0].node_dir} node status",
                  f"    decentrl {flags} task report {self.task_id} -o report"]
        if not self.keep:
            lines.append(f"  everything is deleted when the demo ends (demo --keep keeps {self.workdir})")
        return lines + [""]

    def start_nodes(self):
        self.net.start(on_restart=lambda node, child: say(f"  ! {node.name}: {child} process died; restarted"),
                       every_s=1.0, health_interval_s=HEALTH_INTERVAL_S)
        pids = ", ".join(f"{n.name} " + "+".join(str(c.pid) for c in n.sup.children.values()) for n in self.nodes)
        say(f"nodes     {len(self.nodes)} nodes, each a Celery worker + a chain watcher, samplers and trainers "
            f"also a claim worker (pids {pids})")
        say(f"status    decentrl --rpc {self.net.anvil.http_url} --deployment {self.net.deployment_path} "
            f"--node-dir {self.nodes[0].node_dir} node status   (any node: {self.nodes[0].node_dir.parent}/<name>)")
        try:
            self.net.wait_ready()
        except TimeoutError as exc:
            raise click.ClickException(str(exc)) from None
        say("nodes     every worker is up")

    def submit(self):
        from workers.chain.requester import create_task
        from workers.spec import DEMO_CARTPOLE
        from workers.spec_fetch import publish_spec

        self.spec = self.spec or DEMO_CARTPOLE
        self.started_block = self.w3.eth.block_number
        self.task_id, self.params, _ = create_task(self.dep, self.store, self.requester.account,
                                                   self.requester.sender.send, self.spec, publish=publish_spec,
                                                   bounty=BOUNTY_DRL * TOKEN, **self.task)
        say(f"task      {self.task_id}: {self.spec.env_id}, bounty {BOUNTY_DRL:,} DRL, "
            f"{self.task['num_rounds']} rounds, {self.task['num_samplers']} samplers x {self.spec.steps_per_shard} "
            f"steps, signed by the requester (EIP-712 + permit); spec {self.params.spec_cid}")

    # -- following the task ----------------------------------------------------------------------

    def follow(self, started: float) -> Curve:
        """Shows the task's events as they are mined (a websocket-woken watcher: each event is
        stamped when its block is read, not at the next poll) until the task ends."""
        from workers.chain.watcher import EventWatcher, SqliteCursor
        from workers.protocol import FINAL_STATUSES, Role, Status, Verdict, decode_vote

        events: queue.Queue = queue.Queue()
        watcher = EventWatcher(self.dep, events.put, SqliteCursor(self.workdir / "demo-events.sqlite"),
                               ws_url=self.net.anvil.ws_url, start_block=self.started_block).start()
        names = {n.account.address: n.name for n in self.nodes}
        curve = Curve()
        deadline = time.monotonic() + self.timeout_s
        ended_in = None  # the block whose TaskStatusChanged ended the task
        try:
            while True:
                try:
                    e = events.get(timeout=0.2 if ended_in is not None else 1.0)
                except queue.Empty:
                    if ended_in is not None:
                        return curve  # the ending block's events are all shown
                    if time.monotonic() > deadline:
                        status = Status(self.dep.state.functions.taskOf(self.task_id).call().status)
                        raise click.ClickException(
                            f"task {self.task_id} not finished within {self.timeout_s:g} s "
                            f"(status {status.name.lower()}; logs in {self.workdir / 'nodes'})") from None
                    continue
                if ended_in is not None and e.block > ended_in:
                    return curve
                if e.args.get("taskId") != self.task_id:
                    continue
                t = time.time() - started
                a = e.args
                self.timeline.append((t, e.name, dict(a)))
                if e.name == "SlotAssigned" and Role(a["role"]) == Role.VALIDATOR:
                    self.validator_slots[int(a["slot"])] = names.get(a["node"], a["node"])
                if e.name == "SlotAssigned":
                    say(f"{t:6.1f}s  {names.get(a['node'], a['node'])} took the {Role(a['role']).name.lower()} "
                        f"slot {a['slot']}")
                elif e.name == "PhaseStarted":
                    say(f"{t:6.1f}s  round {a['round'] + 1}: {PHASE_NAMES[int(a['phase'])]}")
                elif e.name == "VerdictReached":
                    say(f"{t:6.1f}s  round {a['round'] + 1}: {names.get(a['node'], a['node'])} "
                        f"{Verdict(a['verdict']).name.lower()} ({a['accepts']} accept, {a['rejects']} reject)")
                elif e.name == "AggregateAttested":
                    signers = [self.validator_slots.get(v, f"slot {v}") for v in range(64)
                               if (int(a["signerBitmap"]) >> v) & 1]
                    vote = vote_text(*decode_vote(int(a["acceptBitmap"])))
                    say(f"{t:6.1f}s  round {a['round'] + 1}: {', '.join(signers)} voted {vote} "
                        f"in ONE aggregate attestation ({len(signers)} BLS signatures, one transaction)")
                elif e.name == "Attested":
                    say(f"{t:6.1f}s  round {a['round'] + 1}: {names.get(a['validator'], a['validator'])} voted "
                        f"{vote_text(*decode_vote(int(a['acceptBitmap'])))} alone (attest)")
                elif e.name == "DrawOpened":
                    say(f"{t:6.1f}s  round {a['round'] + 1}: {names.get(a['node'], a['node'])}'s draw: "
                        + ("forced (it planted its error)" if a["forced"] else "not forced"))
                elif e.name == "RoundFinalized" and self.live_eval:
                    self._round_done(curve, int(a["round"]), bytes(a["checkpointRoot"]), a["checkpointCid"], t)
                elif e.name == "TaskStatusChanged":
                    say(f"{t:6.1f}s  task {Status(a['status']).name.lower()}")
                    if Status(a["status"]) in FINAL_STATUSES:
                        self.status, ended_in = Status(a["status"]), e.block
        finally:
            watcher.stop()

    def _round_done(self, curve: Curve, round_: int, root: bytes, cid: str, t: float):
        if not cid or cid == getattr(self, "_last_cid", None):
            say(f"{t:6.1f}s  round {round_ + 1} ended without a new checkpoint")
            return
        self._last_cid = cid
        _, quick = self.checkpoint_return(root, cid, QUICK_EPISODES)
        sample_mean = self.samplers_return(round_)
        curve.rounds.append(round_ + 1)
        curve.env_steps.append((round_ + 1) * self.task["num_samplers"] * self.spec.steps_per_shard)
        curve.eval_return.append(quick)
        curve.sample_return.append(sample_mean)
        say(f"{t:6.1f}s  round {round_ + 1} finalized: checkpoint {cid[:16]}..  mean return {quick:.1f} "
            f"({QUICK_EPISODES} eval episodes; samplers' rollouts "
            f"{'ended no episode' if math.isnan(sample_mean) else f'{sample_mean:.1f}'})")

    def samplers_return(self, round_: int) -> float:
        """The mean of the samplers' mean episode returns of `round_` (their work notes), nan when
        no shard ended an episode (one shorter than the env's episodes, as HalfCheetah's 256-step
        shards of 1,000-step episodes)."""
        from workers.node.handlers.context import Secrets
        from workers.protocol import Role

        returns = []
        for node in self.nodes:
            if node.role == "sampler":
                for note in Secrets(node.node_dir / "secrets.sqlite").notes(self.task_id):
                    if note["round"] == round_ and note["role"] == Role.SAMPLER and note["kind"] == "work":
                        returns.append(note["data"]["mean_return"])
        returns = [r for r in returns if r is not None]
        return sum(returns) / len(returns) if returns else float("nan")

    def checkpoint_return(self, root: bytes, cid: str, episodes: int):
        """(verified checkpoint, mean return over `episodes` deterministic episodes)."""
        import torch

        from workers.rl.evaluate import evaluate
        from workers.roles.sampler import round_policy
        from workers.roles.trainer import verify_checkpoint

        torch.set_num_threads(1)
        result = verify_checkpoint(self.store.get(cid), root)
        policy = round_policy(self.spec, result.policy_bytes)
        return result, evaluate(policy, self.spec.env_config(), episodes=episodes, seed=10_000).mean_return

    # -- the end ---------------------------------------------------------------------------------

    def final(self, curve: Curve) -> float:
        from workers.chain.view import ChainView
        from workers.protocol import Role

        view = ChainView(self.dep)
        task = view.task(self.task_id)
        if not task.checkpoint_cid:
            raise click.ClickException(f"task {self.task_id} ended {task.status.name.lower()} without a checkpoint")
        result, mean = self.checkpoint_return(bytes(task.checkpoint_root), task.checkpoint_cid, FINAL_EPISODES)
        policy_dir = self.out_dir / "policy"
        policy_dir.mkdir(parents=True, exist_ok=True)
        (policy_dir / "policy.safetensors").write_bytes(result.policy_bytes)
        (policy_dir / "metadata.json").write_text(json.dumps({**result.meta, "cid": task.checkpoint_cid}, indent=2,
                                                             sort_keys=True) + "\n")
        say(f"final     checkpoint of round {result.round + 1} verified against checkpointRoot "
            f"0x{bytes(task.checkpoint_root).hex()[:16]}..; mean return {mean:.1f} over {FINAL_EPISODES} episodes "
            f"(target {self.spec.target_return:g}) -> {policy_dir}")
        earned = {}
        logs = self.dep.registry.events.RewardEarned().get_logs(from_block=self.started_block)
        for e in logs:
            if e["args"]["taskId"] == self.task_id:
                earned[e["args"]["node"]] = earned.get(e["args"]["node"], 0) + e["args"]["amount"]
        say("payouts   (disputes on: each round's pay is held in the RewardVault until the round's dispute window "
            "ends; then a running node releases its own (DisputeManager.releasePay), as `decentrl dispute claim` "
            "does; this demo stops its nodes before that)")
        for node in self.nodes:
            a = node.account.address
            held, until = self.held_pay(a)
            when = f"held until {until}, then released by the node" if held else "nothing held"
            say(f"  {node.name:<12}{a}  earned {earned.get(a, 0) / TOKEN:>8.2f} DRL ({held / TOKEN:.2f} {when})  "
                f"claimable {view.claimable(a) / TOKEN:>8.2f} DRL  reputation {view.score(a)}  "
                f"stake {view.stake(a, Role[node.role.upper()]).staked / TOKEN:,.0f} DRL")
        say(f"  {'requester':<12}{self.requester.account.address}  paid {BOUNTY_DRL:,} DRL, refund claimable "
            f"{view.claimable(self.requester.account.address) / TOKEN:.2f} DRL")
        aggregates = [a for _, name, a in self.timeline if name == "AggregateAttested"]
        alone = [a for _, name, a in self.timeline if name == "Attested"]
        self.attest_counts = {"aggregate": len(aggregates), "attest": len(alone)}
        if aggregates:
            say(f"votes     {len(aggregates)} attestAggregate transactions carrying "
                f"{sum(bin(int(a['signerBitmap'])).count('1') for a in aggregates)} validator votes, "
                f"{len(alone)} individual attest transactions")
        else:
            from workers.roles.aggregation import MIN_AGGREGATE_SIGNERS

            say(f"votes     {len(alone)} individual attest transactions (an aggregate pays from "
                f"{MIN_AGGREGATE_SIGNERS} validators up)")
        self.final_return = mean
        self.plot(curve, mean)
        return mean

    def held_pay(self, address: str) -> tuple[int, str]:
        """(pay of this task held for `address`, the wall time (UTC) its last round's dispute window
        ends: protocol time, which stands still only while the registry is paused, runs with the clock)."""
        import datetime as dt

        state, vault = self.dep.state.functions, self.dep.vault.functions
        held, end = 0, 0
        for round_ in range(self.task["num_rounds"]):
            amount = vault.heldOf(self.task_id, round_, address).call()
            if amount:
                held += amount
                end = max(end, state.windowEndOf(self.task_id, round_).call())
        if not held:
            return 0, ""
        wall = time.time() + end - self.dep.registry.functions.protocolTime().call(block_identifier="pending")
        return held, dt.datetime.fromtimestamp(wall, dt.UTC).strftime("%H:%M:%S UTC")

    def plot(self, curve: Curve, final: float):
        import matplotlib

        matplotlib.use("Agg")
        from matplotlib import pyplot as plt

        n = len(curve.eval_return)
        fig, ax = plt.subplots(figsize=(7, 4.2), dpi=110)
        ax.plot(curve.env_steps[:n], curve.eval_return, "o-", label=f"accepted checkpoint ({QUICK_EPISODES} episodes)")
        ax.plot(curve.env_steps[:n], curve.sample_return, "s--", alpha=0.7, label="samplers' rollouts")
        if n:
            ax.plot([curve.env_steps[n - 1]], [final], "*", markersize=14, label=f"final ({FINAL_EPISODES} episodes)")
        ax.axhline(self.spec.target_return, color="grey", linestyle=":", label=f"solved ({self.spec.target_return:g})")
        ax.set_xlabel("environment steps")
        ax.set_ylabel("mean return")
        ax.set_title(f"decentrl demo: {self.spec.env_id}, task {self.task_id} "
                     f"({self.task['num_samplers']} samplers, 1 trainer, {self.task['num_validators']} validators)")
        ax.grid(alpha=0.3)
        ax.legend(loc="lower right", fontsize=8)
        fig.tight_layout()
        self.out_dir.mkdir(parents=True, exist_ok=True)
        path = self.out_dir / "learning_curve.png"
        fig.savefig(path)
        plt.close(fig)
        (self.out_dir / "learning_curve.json").write_text(json.dumps(
            {"round": curve.rounds[:n], "env_steps": curve.env_steps[:n], "eval_return": curve.eval_return,
             "sample_return": curve.sample_return, "final_return": final}, indent=2) + "\n")
        say(f"curve     {path}")

    def stop(self):
        if self.explorer is not None:
            self.explorer.stop()
            self.explorer = None
        if self.net is not None:
            self.net.stop()
        if self.keep:
            say(f"kept      {self.workdir}")
        else:
            shutil.rmtree(self.workdir, ignore_errors=True)


def main(out_dir: Path = Path("reports/demo"), keep: bool = False, explorer_port: int | None = None,
         linger_s: float = 0.0, env_id: str = DEMO_ENV) -> int:
    started = time.time()
    spec, task, timeout_s = preset_demo(env_id)
    demo = Demo(out_dir, keep, spec=spec, task=task, timeout_s=timeout_s)
    mean, rounds, code = float("nan"), 0, 1
    try:
        demo.start_network()
        if explorer_port is not None:
            demo.start_explorer(explorer_port)
        demo.start_nodes()
        demo.submit()
        curve = demo.follow(started)
        rounds = len(curve.eval_return)
        mean = demo.final(curve)
        solved = mean >= demo.spec.target_return
        code = 0 if solved else 1
        say(f"{'SOLVED' if solved else 'NOT SOLVED'}: mean return {mean:.1f} (target {demo.spec.target_return:g}) "
            f"after {rounds} rounds")
        if linger_s > 0:
            demo.linger(linger_s)
    except click.ClickException as exc:
        say(f"demo failed: {exc.format_message()}")
        demo.keep = True
    except Exception as exc:  # noqa: BLE001 - report, stop everything, and still print the RESULT line
        import traceback

        traceback.print_exc()
        say(f"demo failed: {type(exc).__name__}: {exc}")
        demo.keep = True
    finally:
        say("stopping  nodes, Redis, anvil")
        demo.stop()
    wall = time.time() - started
    shown = "nan" if math.isnan(mean) else f"{mean:.1f}"
    say(f"RESULT eval_return={shown} rounds={rounds} wall_s={wall:.1f}")
    return code

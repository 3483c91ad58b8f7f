"""Gas of every step of the decentrl task lifecycle, and of one whole task.

    brownie run $PWD/bench/gas.py --network NAME   # `make gas` (development); brownie needs the
                                                   # absolute path for a script outside scripts/

Plays one task with the scripted actors of scripts/actors.py (2 samplers, 1 trainer,
3 validators, 5 rounds) on a fresh deployment, plus a few side tasks for the steps a clean task
never takes (createTaskWithSig, advance past a missed deadline). Prints a table of every step,
the round gas with 10 and with 10,000 rollout episodes per sampler (the chain only sees Merkle
roots, so they must be equal), and ends with exactly one line:

    RESULT task_gas=<whole task> round_gas=<one round>

"whole task" is every transaction of the task from createTask to the attestation that settles
it (claims, draw, 5 rounds); staking and approvals are per node, not per task, and are listed
separately. "one round" is round R2 (a round in steady state: no first-time storage writes).

Hash-valued calldata costs 4 gas per zero byte and 16 per other byte, so the actors here draw
salts and batch headers until every submitted hash has no zero byte (`stable_calldata`); without
that, two rounds would differ by a few dozen gas by chance. A worker's draw (forced errors,
SPECIFICATION.md 5.5.3) is forced or not by chance, and a forced one's openDraw records it (one more
write to a slot the call already wrote): the two episode rounds are compared without their openDraw
transactions, whose cost does not depend on the work.
"""

import contextlib
import io
import secrets
import statistics
import warnings

from brownie import accounts, chain, network
from brownie._config import CONFIG

from scripts.actors import (
    TOKEN,
    Protocol,
    ScriptedSampler,
    ScriptedTrainer,
    ScriptedValidator,
    fill_task,
    play_round,
    relay,
    sign_task,
    transact,
)
from scripts.deploy import DeployParams, deploy
from tools.episode_fixtures import episode
from workers.merkle import MerkleTree
from workers.protocol import Evidence, Role, Status, TaskParams, vote_commitment

SPEC_CID = "bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy"
PARAMS = TaskParams(spec_cid=SPEC_CID, spec_digest=bytes.fromhex("11" * 32), bounty=10_000 * TOKEN)
EPISODES = {1: 10, 2: 10_000}  # round index -> episodes per sampler; other rounds use 10
JURORS = 7  # 2n + 1 for the tasks' 3 validators: a full jury of validators outside the task
BOND = 100 * TOKEN
FAULTY_SHARD = [episode(0), episode(1), episode(2, seed_shift=1)]
"""Sampler 0's shard in the proven dispute: item 2's seeds are not the task's (EpisodeCheck.WrongSeeds)."""


def step_name(label: str, tx) -> str:
    """The table row of a transaction: its label, refined by what it triggered."""
    if label == "attest":
        if "TaskSettled" in tx.events:
            return "attest (last: finalizes round, settles task)"
        if "RoundFinalized" in tx.events:
            if "Held" in tx.events:
                return "attest (last: finalizes round, holds pay)"
            return "attest (last: finalizes round)"
    if label.startswith(("commit", "reveal")) and "PhaseStarted" in tx.events:
        return f"{label} (last: closes phase)"
    if label == "claimSlot trainer" and "DrawArmed" in tx.events:
        return "claimSlot trainer (fills task, arms draw)"
    return label


def cast(proto: Protocol, first: int = 1):
    a = accounts
    samplers = [ScriptedSampler(f"S{i + 1}", a[first + i], proto) for i in range(2)]
    trainer = ScriptedTrainer("T1", a[first + 2], proto)
    validators = [ScriptedValidator(f"V{i + 1}", a[first + 3 + i], proto) for i in range(3)]
    for node in [*samplers, trainer, *validators]:
        node.stable_calldata = True
    return samplers, trainer, validators


def measure(dep) -> dict:
    """Runs everything; returns {"steps": [(row, gas)], "task_gas", "round_gas", "episode_rounds"}."""
    proto = Protocol(dep)
    samplers, trainer, validators = cast(proto)
    nodes = [*samplers, trainer, *validators]
    keeper, requester = accounts[7], accounts[8]
    for node in nodes:
        transact(dep.admin, dep.token.transfer, node.account, 100_000 * TOKEN)
        node.stake(5 * dep.stakes.minStake(node.role))  # room for several tasks at once
    transact(dep.admin, dep.token.transfer, requester, 100_000 * TOKEN)

    # The whole task.
    start = len(proto.txs)
    transact(requester, dep.token.approve, dep.registry, PARAMS.bounty)
    tx = proto.send("createTask", requester, dep.registry.createTask, PARAMS.as_tuple())
    task_id = tx.events["TaskCreated"]["taskId"]
    fill_task(proto, task_id, samplers, trainer, keeper)
    round_gas, draw_gas = {}, {}
    for r in range(PARAMS.num_rounds):
        for s in samplers:
            s.episodes = EPISODES.get(r, 10)
        first = len(proto.txs)
        round_gas[r] = play_round(proto, task_id, nodes, keeper)
        draw_gas[r] = sum(tx.gas_used for label, tx in proto.txs[first:] if label == "openDraw")
    assert proto.task(task_id)["status"] == Status.COMPLETED
    task_gas = proto.gas(start)

    # createTaskWithSig: a signing-only requester, relayed by the keeper (with allowance, then permit).
    signer = accounts.add(secrets.token_hex(32))
    transact(dep.admin, dep.token.transfer, signer, 100_000 * TOKEN)
    accounts[0].transfer(signer, 10**18, silent=True)
    transact(signer, dep.token.approve, dep.registry, PARAMS.bounty)
    relay(proto, keeper, sign_task(signer.private_key, signer.address, PARAMS, dep.front))
    relay(proto, keeper, sign_task(signer.private_key, signer.address, PARAMS, dep.front, token=dep.token),
          label="createTaskWithSig (+permit)")

    # advance: sampler S2 misses the commit deadline of a side task.
    transact(requester, dep.token.approve, dep.registry, PARAMS.bounty)
    tx = proto.send("createTask", requester, dep.registry.createTask, PARAMS.as_tuple())
    side = tx.events["TaskCreated"]["taskId"]
    fill_task(proto, side, samplers, trainer, keeper)
    samplers[1].miss_commit_rounds = {0}
    play_round(proto, side, nodes, keeper)

    trainer.withdraw()
    steps = [(step_name(label, tx), tx.gas_used) for label, tx in proto.txs]
    return {"steps": steps, "task_gas": task_gas, "round_gas": round_gas[1],
            "episode_rounds": (round_gas[1], round_gas[2]), "draw_gas": (draw_gas[1], draw_gas[2])}


class ShardSampler(ScriptedSampler):
    """Reveals the root of fixed items (episodes encoded by the workers' own code)."""

    def __init__(self, name, account, proto, items: list[bytes]):
        super().__init__(name, account, proto)
        self.items = items

    def rollout(self, task_id: int, round_: int) -> list[bytes]:
        return self.items


def task_with_one_round(proto: Protocol, requester, nodes: list, keeper) -> int:
    """A task created, filled and played through its round 0."""
    dep = proto.dep
    samplers, trainer = [n for n in nodes if n.role == Role.SAMPLER], next(n for n in nodes if n.role == Role.TRAINER)
    transact(requester, dep.token.approve, dep.registry, PARAMS.bounty)
    task_id = transact(requester, dep.registry.createTask, PARAMS.as_tuple()).events["TaskCreated"]["taskId"]
    fill_task(proto, task_id, samplers, trainer, keeper)
    play_round(proto, task_id, nodes, keeper)
    return task_id


def measure_disputes(dep) -> list:
    """The dispute steps on a deployment with disputes active (pay held for the dispute window):
    a sampler's accepted shard disputed and its fault proven on-chain; a trainer's accepted
    checkpoint disputed and judged by a jury of seven (commit, reveal, settle); held pay released."""
    proto = Protocol(dep)
    samplers, trainer, validators = cast(proto)
    samplers[0] = ShardSampler("S1", samplers[0].account, proto, FAULTY_SHARD)
    nodes = [*samplers, trainer, *validators]
    keeper, requester, disputer = accounts[7], accounts[8], accounts[9]
    jurors = accounts[10:10 + JURORS]
    for node in nodes:
        transact(dep.admin, dep.token.transfer, node.account, 100_000 * TOKEN)
        node.stake(5 * dep.stakes.minStake(node.role))
    transact(dep.admin, dep.token.transfer, requester, 100_000 * TOKEN)
    transact(dep.admin, dep.token.transfer, disputer, 10_000 * TOKEN)
    start = len(proto.txs)
    # Two tasks, round 0 of each played (its pay held), before the jurors join the validator pool:
    # the tasks' validators are then the three scripted ones.
    proven, judged = (task_with_one_round(proto, requester, nodes, keeper) for _ in range(2))
    for juror in jurors:
        amount = 5 * dep.stakes.minStake(Role.VALIDATOR)
        transact(dep.admin, dep.token.transfer, juror, amount)
        transact(juror, dep.token.approve, dep.stakes, amount)
        transact(juror, dep.stakes.stake, Role.VALIDATOR, amount)

    # A proven fault: sampler 0's accepted shard holds an episode with the wrong seeds.
    transact(disputer, dep.token.approve, dep.disputes, BOND)
    tx = proto.send("openDispute", disputer, dep.disputes.openDispute, proven, 0, Role.SAMPLER, 0, BOND,
                    Evidence.EPISODE, 2)
    dispute_id = tx.events["DisputeOpened"]["disputeId"]
    tree = MerkleTree(FAULTY_SHARD)
    proto.send("proveFault (upholds, fails the task)", disputer, dep.disputes.proveFault, dispute_id,
               FAULTY_SHARD[2], tree.proof(2))

    # A jury: the trainer's accepted checkpoint disputed; the seven outsiders vote to dismiss.
    transact(disputer, dep.token.approve, dep.disputes, BOND)
    tx = proto.send("openDispute", disputer, dep.disputes.openDispute, judged, 0, Role.TRAINER, 0, BOND,
                    Evidence.WHOLE, 0)
    dispute_id = tx.events["DisputeOpened"]["disputeId"]
    chain.mine()  # the draw is seeded by the next block
    tx = proto.send("drawJurors", keeper, dep.disputes.drawJurors, dispute_id)
    seated = [e["juror"] for e in tx.events["JurorDrawn"]]
    assert len(seated) == JURORS, seated
    salts = {juror: secrets.token_bytes(32) for juror in seated}
    for juror in seated:
        label = "commitVote (last: opens the reveals)" if juror == seated[-1] else "commitVote"
        proto.send(label, juror, dep.disputes.commitVote, dispute_id,
                   vote_commitment(dispute_id, juror, False, salts[juror]))
    for juror in seated:
        proto.send("revealVote", juror, dep.disputes.revealVote, dispute_id, False, salts[juror])
    proto.send("settle (jury dismissed)", keeper, dep.disputes.settle, dispute_id)

    # Held pay of the judged round, once its dispute window has passed.
    chain.sleep(dep.config.disputeWindow() + 1)
    chain.mine()
    for node in nodes:
        proto.send("releasePay", keeper, dep.disputes.releasePay, judged, 0, node.address)
    juror = seated[0]
    proto.send("withdraw (juror's award)", juror, dep.disputes.withdraw, juror, dep.state.owedOf(juror))
    return [(step_name(label, tx), tx.gas_used) for label, tx in proto.txs[start:]
            if not label.startswith(("claimSlot", "drawValidators", "commit ", "reveal ", "attest"))
            or "Held" in tx.events]


def table(steps: list) -> list[str]:
    rows = {}
    for name, gas in steps:
        rows.setdefault(name, []).append(gas)
    lines = [f"{'step':<48}{'calls':>6}{'min':>10}{'median':>10}{'max':>10}"]
    for name, gas in rows.items():
        lines.append(f"{name:<48}{len(gas):>6}{min(gas):>10,}{int(statistics.median(gas)):>10,}{max(gas):>10,}")
    return lines


def main():
    warnings.filterwarnings("ignore", message=r"rpc\.\w+ should not be called directly")
    CONFIG.argv["silent"] = True
    with contextlib.redirect_stdout(io.StringIO()):  # deploy() prints each contract; not needed here
        # the steps table: pay credited at once, so a payout and its withdrawal are each one step; the
        # dispute steps (held pay, released after the window) on a deployment as shipped
        dep = deploy(accounts[0], DeployParams(activate_disputes=False))
        disputes_dep = deploy(accounts[0], DeployParams(activate_disputes=True))
    result = measure(dep)
    print(f"\nGas per step on {network.show_active()} (prague, optimizer 200 runs)")
    print("\n".join(table(result["steps"])))
    print("\nDisputes (a deployment with disputes active: round pay held for the dispute window)")
    print("\n".join(table(measure_disputes(disputes_dep))))
    small, large = result["episode_rounds"]
    print(f"\nwhole task (2 samplers, 1 trainer, 3 validators, 5 rounds): {result['task_gas']:,} gas")
    print(f"one round, 10 episodes per sampler:      {small:,} gas")
    print(f"one round, 10,000 episodes per sampler:  {large:,} gas")
    print(f"ratio 10,000 / 10 episodes: {large / small:.4f} (only Merkle roots go on chain)")
    small_draws, large_draws = result["draw_gas"]
    print(f"  of which openDraw: {small_draws:,} and {large_draws:,} gas (a forced draw records one more bit)")
    assert small - small_draws == large - large_draws, "round gas must not depend on the number of episodes"
    print(f"RESULT task_gas={result['task_gas']} round_gas={result['round_gas']}")
    return result

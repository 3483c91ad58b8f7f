"""`decentrl demo --hosts` (`make demo-hosts`): the demo's task (workers.demo.run: the CartPole-v1
preset, 2 samplers, 1 trainer, 3 validators) run by operators on separate hosts
(workers.localnet.hosts.network: network namespaces on one LAN, each operator with its own
folder, IPFS node, Redis and `decentrl node start`; the chain on a host of its own). The requester
publishes the spec from its own IPFS node; at the end it fetches the final checkpoint through that
node (from the trainer's, over the swarm), verifies it against the chain and evaluates it. Needs
root. Ends with the demo's line `RESULT eval_return=<mean> rounds=<n> wall_s=<seconds>`."""
from __future__ import annotations

import math
import shutil
import tempfile
import time
from pathlib import Path

from workers.demo.run import BOUNTY_DRL, DEMO_ENV, FINAL_EPISODES, PHASE_NAMES, TASK, TOKEN, preset_demo, roles, say


def _show_hosts(net) -> None:
    say(f"hosts     LAN {net.lan.subnet}.0/24: chain {net.chain_host.address} (anvil, RPC :8545), requester "
        f"{net.requester_host.address} (IPFS)")
    for op in net.operators.values():
        say(f"  {op.name:<12}{op.host.address:<15} {op.role:<10} {op.address}  IPFS {op.ipfs.peer_id[:20]}..  "
            f"Redis 127.0.0.1:6379 (its own)  {op.folder}")


def _follower():
    """on_tick for wait_final: says each phase as the task enters it."""
    seen = set()

    def on_tick(task):
        key = (task.status, task.round, task.phase)
        if task.status == 3 and key not in seen:  # Active
            seen.add(key)
            say(f"round {task.round + 1}   {PHASE_NAMES[task.phase]}")

    return on_tick


def _final_return(net, spec, task) -> float:
    """The final checkpoint, fetched through the requester's IPFS node and verified against the
    chain's checkpointRoot; its mean return over FINAL_EPISODES episodes."""
    from workers.rl.evaluate import evaluate
    from workers.roles.sampler import round_policy
    from workers.roles.trainer import verify_checkpoint
    from workers.storage.store import IpfsStore

    def fetch():
        store = IpfsStore(net.ipfs["requester"].api, net.workdir / "hosts" / "requester" / "ledger.sqlite")
        try:
            return store.get(task.checkpoint_cid, timeout=60)
        finally:
            store.close()

    result = verify_checkpoint(net.requester_host.call(fetch), bytes(task.checkpoint_root))
    policy = round_policy(spec, result.policy_bytes)
    return evaluate(policy, spec.env_config(), episodes=FINAL_EPISODES, seed=10_000).mean_return


def _payouts(net, task_id: int, rounds: int) -> None:
    from workers.chain.view import ChainView

    view = ChainView(net.deployment)
    for op in net.operators.values():
        held = sum(view.read(net.deployment.vault, "heldOf", task_id, r, op.address) for r in range(rounds))
        say(f"  {op.name:<12}{op.address}  earned {held / TOKEN:>8.2f} DRL (held for the dispute window)  "
            f"reputation {view.score(op.address)}")


def main(keep: bool = False) -> int:
    from workers.chain.view import ChainView
    from workers.localnet.hosts.network import HostsNetwork
    from workers.protocol import Status

    started = time.time()
    spec, task_settings, timeout_s = preset_demo(DEMO_ENV)
    settings = {**TASK, **task_settings}
    workdir = Path(tempfile.mkdtemp(prefix="decentrl-demo-hosts-"))
    mean, rounds, code = float("nan"), 0, 1
    try:
        say("starting  hosts: chain, requester, 2 samplers, 1 trainer, 3 validators (network namespaces)")
        with HostsNetwork(workdir, roles(settings["num_samplers"], settings["num_validators"])) as net:
            _show_hosts(net)
            net.start_nodes()
            say("nodes     running (`decentrl node start --ipfs-peer ...` on each operator host)")
            task_id = net.submit_task(spec, bounty=BOUNTY_DRL * TOKEN, **settings)
            say(f"task      {task_id} submitted by the requester (`decentrl task submit` on its host; the spec "
                f"{ChainView(net.deployment).task(task_id).spec_cid} published from its IPFS node)")
            net.wait_final(task_id, timeout_s, _follower())
            final = ChainView(net.deployment).task(task_id)
            rounds = final.round + 1
            say(f"task      {task_id} ended {final.status.name.lower()} after {rounds} rounds")
            if final.status == Status.COMPLETED:
                mean = _final_return(net, spec, final)
                say(f"final     checkpoint fetched through the requester's IPFS node, verified against checkpointRoot; "
                    f"mean return {mean:.1f} over {FINAL_EPISODES} episodes (target {spec.target_return:g})")
                code = 0 if mean >= spec.target_return else 1
            _payouts(net, task_id, rounds)
            say("stopping  nodes, IPFS nodes, Redis, anvil; deleting the hosts")
    except Exception as exc:  # noqa: BLE001 - report, and still print the RESULT line (everything is stopped)
        import traceback

        traceback.print_exc()
        say(f"demo failed: {type(exc).__name__}: {exc} (files kept in {workdir})")
        keep = True
    finally:
        if not keep:
            shutil.rmtree(workdir, ignore_errors=True)
    shown = "nan" if math.isnan(mean) else f"{mean:.1f}"
    say(f"RESULT eval_return={shown} rounds={rounds} wall_s={time.time() - started:.1f}")
    return code

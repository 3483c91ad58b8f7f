"""Each classic-control preset (workers.rl.presets.ENV_PRESETS) learns through a real network: one
network (anvil, Redis, 2 samplers, 1 trainer and 1 validator as Celery worker processes, each staked
for five tasks at once) runs five tasks side by side, each the spec `decentrl task spec --env ID`
writes, for a few rounds; then each final checkpoint (verified against its on-chain root) is
evaluated against the spec's initial policy, round 0's, on the same 10 episodes.

"Learns" is: the final evaluation (on the spec's environment, its wrappers included) closes at least
a quarter of the gap between round 0's and the preset's target."""
from __future__ import annotations

import time

import pytest

from tests.ports import worker_part
from workers.localnet.chain import TOKEN
from workers.localnet.network import LocalNetwork
from workers.protocol import FINAL_STATUSES, Role, Status, Verdict
from workers.rl.presets import CLASSIC, ENV_PRESETS
from workers.spec import preset_spec

ANVIL_PORTS = range(9240, 9248)
REDIS_PORTS = range(9248, 9256)
PASSWORD = "presets-test-password"
ROUNDS = {"CartPole-v1": 2, "Acrobot-v1": 5, "Pendulum-v1": 7, "MountainCar-v0": 4, "MountainCarContinuous-v0": 5}
"""Rounds each task runs: enough for its preset to show learning (the presets' docstrings have the
curves), no more."""
EVAL_EPISODES, EVAL_SEED = 10, 10_000
TASK = dict(num_samplers=2, num_validators=1, claim_window=600, commit_window=180, reveal_window=60,
            attest_window=180)
BOUNTY = 100 * TOKEN
TIMEOUT_S = 600
ROLES = [("sampler0", "sampler"), ("sampler1", "sampler"), ("trainer", "trainer"), ("validator0", "validator")]
NODE_SETTINGS = dict(retry_backoff=1, retry_backoff_max=4, retry_jitter=False)


def test_every_classic_control_env_has_a_preset_with_its_own_target():
    classic = {env: p for env, p in ENV_PRESETS.items() if p.family == CLASSIC}
    assert set(classic) == set(ROUNDS)
    assert {env: p.solved_return for env, p in classic.items()} == {
        "CartPole-v1": 475.0, "Acrobot-v1": -100.0, "MountainCar-v0": -110.0, "Pendulum-v1": -200.0,
        "MountainCarContinuous-v0": 90.0}


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """The five tasks run to their end; {env_id: (spec, final task record)} and the network's store."""
    from workers.chain.requester import create_task
    from workers.storage import EmbeddedStore

    net = LocalNetwork(tmp_path_factory.mktemp("presets"), password=PASSWORD, scrypt_n=2**10,
                       anvil_ports=worker_part(ANVIL_PORTS, 2), redis_ports=worker_part(REDIS_PORTS, 2),
                       node_settings=NODE_SETTINGS)
    try:
        d = net.deployment
        for name, role in ROLES:  # each assignment locks the role's minimum stake: five tasks, five locks
            stake = 5 * d.stakes.functions.minStake(Role[role.upper()]).call()
            net.add_node(name, role, stake=stake, trainer_device="cpu")
        requester = net.account("requester", drl=len(ROUNDS) * BOUNTY // TOKEN)
        store = EmbeddedStore(net.store_dir)
        net.start()
        net.wait_ready()
        tasks = {}
        for env_id, rounds in ROUNDS.items():
            spec = preset_spec(env_id)
            task_id, _, _ = create_task(d, store, requester.account, requester.sender.send, spec, bounty=BOUNTY,
                                        num_rounds=rounds, **TASK)
            tasks[env_id] = (spec, task_id)
        deadline = time.monotonic() + TIMEOUT_S
        while not all(Status(d.state.functions.taskOf(t).call().status) in FINAL_STATUSES for _, t in tasks.values()):
            assert time.monotonic() < deadline, f"tasks not done within {TIMEOUT_S} s"
            time.sleep(0.5)
        net.stop_nodes()
        records = {env: (spec, task_id, d.state.functions.taskOf(task_id).call())
                   for env, (spec, task_id) in tasks.items()}
        yield records, store, net
    finally:
        net.stop()


def mean_return(spec, policy_bytes) -> float:
    import torch

    from workers.rl.evaluate import evaluate
    from workers.roles.sampler import round_policy

    torch.set_num_threads(1)
    policy = round_policy(spec, policy_bytes)
    return evaluate(policy, spec.env_config(), episodes=EVAL_EPISODES, seed=EVAL_SEED).mean_return


@pytest.mark.parametrize("env_id", list(ROUNDS))
def test_the_preset_learns_through_the_network(finished, env_id):
    from workers.roles.trainer import verify_checkpoint

    tasks, store, net = finished
    spec, task_id, task = tasks[env_id]
    assert Status(task.status) == Status.COMPLETED and task.checkpointCid, (env_id, task)
    for round_ in range(ROUNDS[env_id]):  # every round's training accepted: the curve is the preset's
        trainer = net.deployment.state.functions.submissionOf(task_id, round_, int(Role.TRAINER), 0).call()
        assert Verdict(trainer.verdict) == Verdict.ACCEPTED, (env_id, round_, trainer)
    final = verify_checkpoint(store.get(task.checkpointCid), bytes(task.checkpointRoot))
    before, after = mean_return(spec, None), mean_return(spec, final.policy_bytes)
    assert after - before >= 0.25 * (spec.target_return - before), (env_id, before, after, spec.target_return)


def test_task_report_and_the_explorer_show_a_curve_below_zero(finished, tmp_path):
    """Pendulum's returns are negative (-1,100 to -150): the report's plot and the explorer's curve
    show them (they once started the axis at 0, where CartPole's returns start)."""
    import json

    from click.testing import CliRunner

    from workers.cli import cli
    from workers.explorer.api import ExplorerApi

    tasks, store, net = finished
    spec, task_id, _ = tasks["Pendulum-v1"]
    result = CliRunner().invoke(cli, ["--rpc", net.anvil.http_url, "--deployment", str(net.deployment_path),
                                      "--node-dir", str(tmp_path / "reader"), "--store-dir", str(net.store_dir),
                                      "task", "report", str(task_id), "-o", str(tmp_path / "report"),
                                      "--eval-episodes", "2"])
    assert result.exit_code == 0, result.output
    curve = json.loads((tmp_path / "report" / "report.json").read_text())["curve"]
    assert (curve["env_id"], curve["target_return"]) == ("Pendulum-v1", -200.0) and not curve["errors"]
    points = curve["points"]
    assert [p["round"] for p in points] == list(range(1, ROUNDS["Pendulum-v1"] + 1))
    assert all(p["rollout_return"] < 0 and p["eval_return"] < 0 for p in points), points
    assert (tmp_path / "report" / "learning_curve.png").stat().st_size > 10_000
    api = ExplorerApi(net.deployment, store, eval_episodes=2)
    assert [p["eval_return"] for p in api.curve(task_id)["points"]] == [p["eval_return"] for p in points]

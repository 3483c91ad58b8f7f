"""The demo's parts up to the task's submission, for real: its own anvil and deploy, the
embedded Redis and store, seven keystores funded and the six worker nodes staked, each node's
Celery worker and watcher started through the handlers' entry point and answering, the task
signed by the requester and created; then everything stops. The learning curve is drawn from a
scripted curve. (The whole run, rounds and all, is `decentrl demo`.)"""


import math

import pytest

from workers.demo import run as demo_run
from workers.node.processes.state import pid_alive as alive
from workers.protocol import Role, Status


@pytest.fixture
def demo(tmp_path, monkeypatch):
    monkeypatch.setattr(demo_run, "ANVIL_PORTS", range(8671, 8680))
    d = demo_run.Demo(tmp_path / "out", keep=False)
    yield d
    d.stop()


def test_demo_sets_up_the_network_submits_and_stops_everything(demo, capsys):
    demo.start_network()
    assert 8671 <= demo.net.anvil.port <= 8679
    first = demo.dep.block
    dep = demo.dep
    assert [n.role for n in demo.nodes] == ["sampler", "sampler", "trainer", "validator", "validator", "validator"]
    for node in demo.nodes:
        role = Role[node.role.upper()]
        assert dep.stakes.functions.stakeOf(node.account.address, role).call().staked == \
            dep.stakes.functions.minStake(role).call()
        assert len(list((node.node_dir / "keystore").glob("0x*.json"))) == 1
    assert len({n.account.address for n in demo.nodes} | {demo.requester.address}) == 7
    demo.start_nodes()
    pids = [c.pid for n in demo.nodes for c in n.sup.children.values()]
    assert len(pids) == 15 and all(alive(p) for p in pids)  # 6 workers, 6 watchers, 3 claim lanes
    demo.submit()
    watch_a_node_with_node_status(demo)
    linger_and_use_the_printed_commands(demo, capsys, pids)
    task = dep.state.functions.taskOf(demo.task_id).call()
    assert task.requester == demo.requester.address and task.bounty == demo_run.BOUNTY_DRL * 10**18
    assert task.specDigest == demo.spec.digest() and Status(task.status) in (Status.OPEN, Status.DRAWING,
                                                                            Status.ACTIVE)
    assert demo.w3.eth.block_number > first + 1  # the ticker mines too
    workdir, anvil_pid, redis_pid = demo.workdir, demo.net.anvil.pid, demo.net.redis.pid
    demo.stop()
    assert not any(alive(p) for p in pids + [anvil_pid, redis_pid])
    assert not any((n.node_dir / "node.json").exists() for n in demo.nodes)
    assert not workdir.exists()


def test_learning_curve_png(tmp_path):
    from workers.spec import DEMO_CARTPOLE

    d = demo_run.Demo(tmp_path, keep=False, spec=DEMO_CARTPOLE)
    d.task_id = 1
    curve = demo_run.Curve([1, 2, 3], [4096, 8192, 12288], [112.1, 300.5, 500.0], [21.6, 80.2, 230.0])
    d.plot(curve, 499.8)
    png = (tmp_path / "learning_curve.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000
    import json

    data = json.loads((tmp_path / "learning_curve.json").read_text())
    assert data["eval_return"] == [112.1, 300.5, 500.0] and data["final_return"] == 499.8
    d.stop()  # started nothing: only its empty work folder goes
    assert not d.workdir.exists()


def test_samplers_return_skips_shards_that_ended_no_episode(tmp_path):
    from types import SimpleNamespace

    from workers.node.handlers.context import Secrets

    d = demo_run.Demo(tmp_path, keep=False)
    d.task_id = 3
    d.nodes = [SimpleNamespace(role=role, node_dir=tmp_path / name) for name, role in
               (("s1", "sampler"), ("s2", "sampler"), ("t", "trainer"))]
    for node in d.nodes:
        node.node_dir.mkdir()
    notes = {"s1": {0: None, 1: 12.5}, "s2": {0: None, 1: None}}
    for name, by_round in notes.items():
        for round_, mean in by_round.items():
            Secrets(tmp_path / name / "secrets.sqlite").note(3, round_, Role.SAMPLER, "work", {"mean_return": mean})
    assert math.isnan(d.samplers_return(0)) and d.samplers_return(1) == 12.5
    d.stop()


def watch_a_node_with_node_status(demo):
    """The command the demo prints under `status` shows a demo node running, with its health."""
    import re
    import time

    from click.testing import CliRunner

    from workers.cli import cli

    node = demo.nodes[0]
    deadline = time.monotonic() + 60
    while not (node.node_dir / "health.json").exists():  # the first check runs within a second or two
        assert time.monotonic() < deadline, "no health check was written"
        time.sleep(0.5)
    result = CliRunner().invoke(cli, ["--rpc", demo.net.anvil.http_url, "--deployment", str(demo.net.deployment_path),
                                      "--node-dir", str(node.node_dir), "node", "status"])
    assert result.exit_code == 0, result.output
    assert f"account     {node.address}" in result.output
    assert re.search(r"^processes   node running \(pid \d+, roles sampler\)", result.output, re.M), result.output
    assert re.search(r"^  chain +ok ", result.output, re.M) and re.search(r"^  store +ok ", result.output, re.M)


def linger_and_use_the_printed_commands(demo, capsys, pids):
    """`demo --linger` keeps every node up and prints what another shell needs; the `task status`
    command it prints works as printed (with the printed password)."""
    import shlex

    from click.testing import CliRunner

    from workers.cli import cli

    demo.linger(0.3)
    assert all(alive(p) for p in pids)  # the nodes too, not only the chain and the page
    out = capsys.readouterr().out
    assert "every worker is up" in out and f"task      {demo.task_id}: CartPole-v1" in out
    assert f"  RPC          {demo.net.anvil.http_url}" in out and f"  deployment   {demo.net.deployment_path}" in out
    assert f"  password     {demo_run.PASSWORD} " in out
    for node in demo.nodes:
        assert f"  {node.name:<12} {node.node_dir}  ({node.address}, {node.role})" in out
    command = next(line for line in out.splitlines() if line.strip().startswith("decentrl") and "task status" in line)
    argv = shlex.split(command)[1:]
    result = CliRunner().invoke(cli, argv, env={"DECENTRL_KEYSTORE_PASSWORD": demo_run.PASSWORD})
    assert result.exit_code == 0, result.output
    assert f"task {demo.task_id}: " in result.output and "waiting for " in result.output


def test_demo_env_runs_that_envs_preset_with_its_samplers_and_rounds():
    import click

    from workers.rl.presets import ENV_PRESETS
    from workers.spec import DEMO_CARTPOLE, preset_spec

    spec, task, timeout_s = demo_run.preset_demo("CartPole-v1")  # the default demo, unchanged
    assert spec == DEMO_CARTPOLE and {**demo_run.TASK, **task} == demo_run.TASK and timeout_s == demo_run.TIMEOUT_S
    spec, task, timeout_s = demo_run.preset_demo("MountainCarContinuous-v0")
    preset = ENV_PRESETS["MountainCarContinuous-v0"]
    assert spec == preset_spec(preset, seed=demo_run.DEMO_SEED) and spec.target_return == 90.0
    assert (task["num_samplers"], task["num_rounds"]) == (preset.shards, preset.rounds)
    scale = preset.rounds * preset.steps_per_round / demo_run.DEMO_WORK  # 8 rounds of 8,192 steps: 3.2 x CartPole's
    assert task["commit_window"] == math.ceil(120 * scale) and timeout_s == demo_run.TIMEOUT_S * scale
    assert demo_run.roles(preset.shards, 3) == [("sampler-1", "sampler"), ("sampler-2", "sampler"),
                                                ("trainer", "trainer"), ("validator-1", "validator"),
                                                ("validator-2", "validator"), ("validator-3", "validator")]
    with pytest.raises(click.ClickException, match="no preset for 'NoSuchEnv-v0'; the demo runs one of CartPole-v1, "):
        demo_run.preset_demo("NoSuchEnv-v0")

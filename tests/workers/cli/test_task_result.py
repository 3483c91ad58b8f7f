"""A real one-round task run by the demo's network (reduced spec), then `decentrl task status`
and `decentrl task result` against that chain and store: the final checkpoint is fetched by CID,
verified against the on-chain checkpointRoot and written as policy.safetensors + metadata; then
`decentrl policy eval` evaluates what was downloaded."""

import dataclasses
import json
import re

import pytest
from click.testing import CliRunner

from workers.cli import cli
from workers.demo import run as demo_run
from workers.protocol import Status
from workers.spec import DEMO_CARTPOLE

SPEC = dataclasses.replace(DEMO_CARTPOLE, steps_per_shard=384, challenges_per_sampler=2,
                           ppo=dataclasses.replace(DEMO_CARTPOLE.ppo, batch_size=64, update_epochs=4))


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(demo_run, "ANVIL_PORTS", range(8671, 8680))
        d = demo_run.Demo(tmp_path_factory.mktemp("finished") / "out", keep=False, spec=SPEC,
                          task=dict(num_rounds=1, commit_window=60, reveal_window=60, attest_window=60),
                          timeout_s=240.0)
        try:
            d.start_network()
            d.start_nodes()
            d.submit()
            d.follow(__import__("time").time())
            yield d
        finally:
            d.stop()


def test_result_downloads_and_verifies_the_final_policy(finished, tmp_path):
    d = finished
    task = d.dep.state.functions.taskOf(d.task_id).call()
    assert Status(task.status) == Status.COMPLETED and task.checkpointCid

    def run(*args):
        return CliRunner().invoke(cli, ["--rpc", d.net.anvil.http_url, "--deployment", str(d.net.deployment_path),
                                        "--node-dir", str(tmp_path / "reader"), "--store-dir", str(d.net.store_dir),
                                        *args], catch_exceptions=False)

    status = run("task", "status", str(d.task_id))
    assert status.exit_code == 0, status.output
    assert f"task {d.task_id}: completed" in status.output and "ended in round 1 of 1" in status.output
    assert f"checkpoint {task.checkpointCid}" in status.output
    assert "slots: samplers 2/2, trainer 1/1, validators 3/3" in status.output
    assert re.search(r"trainer\s+0\s+revealed\s+verdict accepted", status.output), status.output

    followed = run("task", "status", str(d.task_id), "--follow", "--interval", "0.05")
    assert followed.exit_code == 0, followed.output
    assert f"task {d.task_id} completed after 1 round; its policy: decentrl task result {d.task_id}" in followed.output

    out = tmp_path / "policy"
    result = run("task", "result", str(d.task_id), "-o", str(out))
    assert result.exit_code == 0, result.output
    assert f"verified checkpoint of round 1 against root 0x{task.checkpointRoot.hex()}" in result.output
    from workers.roles.trainer import verify_checkpoint

    bundle = verify_checkpoint(d.store.get(task.checkpointCid), task.checkpointRoot)
    assert (out / "policy.safetensors").read_bytes() == bundle.policy_bytes
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["cid"] == task.checkpointCid and meta["task_id"] == d.task_id and meta["task_status"] == "completed"
    assert meta["spec"] == SPEC.digest().hex()

    missing = CliRunner().invoke(cli, ["--rpc", d.net.anvil.http_url, "--deployment", str(d.net.deployment_path),
                                       "--node-dir", str(tmp_path / "reader"), "--store-dir",
                                       str(tmp_path / "empty-store"), "task", "result", str(d.task_id),
                                       "-o", str(tmp_path / "x")])
    assert missing.exit_code == 1 and f"cannot fetch checkpoint {task.checkpointCid}" in missing.output
    assert "the network's nodes publish to their IPFS node: --ipfs-api" in missing.output

    # what cannot be used is an error that names it, never a traceback
    from workers.storage.store import EmbeddedStore

    corrupted = EmbeddedStore(tmp_path / "corrupted-store")
    path = corrupted._path(task.checkpointCid)
    path.parent.mkdir(parents=True)
    path.write_bytes(d.store.get(task.checkpointCid)[:-1] + b"\0")
    global_args = ["--rpc", d.net.anvil.http_url, "--deployment", str(d.net.deployment_path), "--node-dir",
                   str(tmp_path / "reader")]
    for store, extra, message in [
        (tmp_path / "corrupted-store", ["-o", str(tmp_path / "y")], f"cannot fetch checkpoint {task.checkpointCid}: "),
        (d.net.store_dir, ["-o", str(tmp_path / "y"), "--ipfs-api", "5001"], "bad IPFS API address '5001'"),
        (d.net.store_dir, ["-o", "/proc/decentrl-result"], "cannot write the policy"),
    ]:
        refused = CliRunner().invoke(cli, [*global_args, "--store-dir", str(store), "task", "result", str(d.task_id),
                                           *extra])
        assert refused.exit_code == 1 and isinstance(refused.exception, SystemExit), refused.output
        assert message in refused.output, refused.output


def test_policy_eval_evaluates_the_downloaded_result_on_its_spec_env(finished, tmp_path):
    import torch

    from workers.rl.evaluate import evaluate
    from workers.roles.sampler import round_policy
    from workers.roles.trainer import verify_checkpoint

    d = finished
    task = d.dep.state.functions.taskOf(d.task_id).call()
    chain = ["--rpc", d.net.anvil.http_url, "--deployment", str(d.net.deployment_path),
             "--node-dir", str(tmp_path / "reader"), "--store-dir", str(d.net.store_dir)]
    out = tmp_path / "result"
    assert CliRunner().invoke(cli, [*chain, "task", "result", str(d.task_id), "-o", str(out)]).exit_code == 0
    torch.set_num_threads(1)
    policy = round_policy(SPEC, verify_checkpoint(d.store.get(task.checkpointCid), task.checkpointRoot).policy_bytes)
    expected = evaluate(policy, SPEC.env_id, episodes=5, seed=3)
    line = (f"CartPole-v1: mean return {expected.mean_return:.2f} +- {expected.std_return:.2f} over 5 episodes "
            f"(seeds 3..7, {expected.env_steps:,} env steps)")

    def evaluated(*args, store=True):
        result = CliRunner().invoke(cli, [*(chain if store else chain[:-2]), "policy", "eval", *args,
                                          "--episodes", "5", "--seed", "3"])
        assert result.exit_code == 0, result.output
        return result.output

    # the folder: the env and target come from the spec metadata.json names, fetched and digest-checked
    from_dir = evaluated(str(out))
    assert line in from_dir and f"target {SPEC.target_return:g} (the spec's evaluation.target_return): " in from_dir
    assert line in evaluated(str(out / "policy.safetensors"), "--env", "CartPole-v1", store=False)
    spec_file = tmp_path / "spec.json"
    spec_file.write_bytes(SPEC.to_bytes())
    assert line in evaluated(task.checkpointCid, "--spec", str(spec_file))  # a checkpoint bundle by CID


def test_policy_eval_refuses_what_it_cannot_evaluate_saying_why(finished, tmp_path):
    d = finished
    out = tmp_path / "result"
    chain = ["--rpc", d.net.anvil.http_url, "--deployment", str(d.net.deployment_path),
             "--node-dir", str(tmp_path / "reader"), "--store-dir", str(d.net.store_dir)]
    assert CliRunner().invoke(cli, [*chain, "task", "result", str(d.task_id), "-o", str(out)]).exit_code == 0
    (tmp_path / "not-a-policy.safetensors").write_bytes(b"{}" * 10)
    bare = tmp_path / "bare"
    bare.mkdir()
    (bare / "policy.safetensors").write_bytes((out / "policy.safetensors").read_bytes())
    for args, message in [
        ([str(out), "--env", "Pendulum-v1"], "was trained for other spaces than Pendulum-v1's"),
        ([str(tmp_path / "not-a-policy.safetensors"), "--env", "CartPole-v1"], "is not a decentrl policy: "),
        ([str(tmp_path / "missing")], "no such file or folder, and not a CID"),
        ([str(tmp_path)], "has no policy.safetensors"),
        ([str(bare / "policy.safetensors")], "does not name its task's spec: pass --env ID, or --spec FILE"),
        ([str(out), "--env", "NoSuchEnv-v0"], "cannot evaluate on NoSuchEnv-v0: unknown environment id"),
    ]:
        result = CliRunner().invoke(cli, [*chain, "policy", "eval", *args, "--episodes", "1"])
        assert result.exit_code == 1 and isinstance(result.exception, SystemExit), (args, result.output)
        assert message in result.output, (args, result.output)

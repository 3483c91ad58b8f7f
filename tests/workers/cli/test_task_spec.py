"""`decentrl task spec` writes a spec that `task submit` reads back unchanged, and `task submit`
refuses the contract's out-of-bounds counts and windows before signing anything."""

import json

from click.testing import CliRunner

from workers.cli import cli
from workers.cli.task import load_spec
from workers.rl.presets import ENV_PRESETS
from workers.spec import DEMO_CARTPOLE, TaskSpec, preset_spec


def spec_of(tmp_path, *args) -> TaskSpec:
    path = tmp_path / "spec.json"
    result = CliRunner().invoke(cli, ["task", "spec", "-o", str(path), *args])
    assert result.exit_code == 0, result.output
    return load_spec(str(path))


def test_the_default_spec_reads_back_as_the_defaults(tmp_path):
    assert spec_of(tmp_path) == TaskSpec()


def test_the_demo_spec_reads_back_with_the_demo_digest(tmp_path):
    spec = spec_of(tmp_path, "--demo")
    assert spec == DEMO_CARTPOLE and spec.digest() == DEMO_CARTPOLE.digest()


def test_env_writes_that_envs_preset_with_its_target_and_the_seed(tmp_path):
    for env_id in ENV_PRESETS:
        assert spec_of(tmp_path, "--env", env_id) == preset_spec(env_id)
    spec = spec_of(tmp_path, "--env", "Pendulum-v1", "--seed", "7")
    assert (spec.env_id, spec.seed, spec.target_return) == ("Pendulum-v1", 7, -200.0)
    assert spec.ppo == ENV_PRESETS["Pendulum-v1"].ppo


def test_the_cartpole_preset_is_the_demo_spec_but_for_its_seed(tmp_path):
    assert spec_of(tmp_path, "--env", "CartPole-v1", "--seed", "1") == DEMO_CARTPOLE


def test_the_preset_note_names_the_samplers_and_rounds_to_book():
    result = CliRunner().invoke(cli, ["task", "spec", "--env", "Acrobot-v1"])
    assert result.exit_code == 0
    assert "Acrobot-v1: submit it with --samplers 2 --rounds 8 (4,096 env steps a round; target -100)" in result.output


def test_an_env_without_a_preset_is_refused_naming_those_with_one():
    result = CliRunner().invoke(cli, ["task", "spec", "--env", "NoSuchEnv-v0"])
    assert result.exit_code == 1
    assert "no preset for 'NoSuchEnv-v0'; presets exist for " + ", ".join(ENV_PRESETS) in result.output
    assert "set env_id" in result.output


def test_list_shows_each_preset_with_its_work_rounds_and_target():
    result = CliRunner().invoke(cli, ["task", "spec", "--list"])
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[0].split() == ["ENV", "FAMILY", "STEPS/ROUND", "SAMPLERS", "x", "STEPS", "ROUNDS", "TARGET"]
    rows = {line.split()[0]: line.split() for line in lines[1:]}
    assert set(rows) == set(ENV_PRESETS)
    assert rows["MountainCarContinuous-v0"] == ["MountainCarContinuous-v0", "classic_control", "8,192", "2", "x",
                                                "4,096", "8", "90"]
    assert CliRunner().invoke(cli, ["task", "spec", "--list", "--env", "Acrobot-v1"]).exit_code == 2


def test_stdout_is_the_spec_json():
    result = CliRunner().invoke(cli, ["task", "spec"])
    assert result.exit_code == 0
    assert json.loads(result.output)["env_id"] == "CartPole-v1"


def test_submit_refuses_counts_and_windows_the_registry_would_revert(tmp_path):
    path = tmp_path / "spec.json"
    path.write_text(TaskSpec().to_bytes().decode())
    for option, value in (("--samplers", "33"), ("--validators", "65"), ("--rounds", "1001"),
                          ("--commit-window", "59"), ("--claim-window", str(30 * 24 * 3600 + 1))):
        result = CliRunner().invoke(cli, ["task", "submit", str(path), "--bounty", "1", option, value])
        assert result.exit_code == 2 and option in result.output, (option, result.output)

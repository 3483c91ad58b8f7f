"""`decentrl task spec` writes a spec that `task submit` reads back unchanged, and `task submit`
refuses the contract's out-of-bounds counts and windows before signing anything."""

import json

from click.testing import CliRunner

from workers.cli import cli
from workers.cli.task import load_spec
from workers.spec import DEMO_CARTPOLE, TaskSpec


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


def test_env_and_seed_are_set_and_checked(tmp_path):
    spec = spec_of(tmp_path, "--env", "Pendulum-v1", "--seed", "7")
    assert (spec.env_id, spec.seed) == ("Pendulum-v1", 7)
    result = CliRunner().invoke(cli, ["task", "spec", "--env", "NoSuchEnv-v0"])
    assert result.exit_code == 1 and "env_id" in result.output


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

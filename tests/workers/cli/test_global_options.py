"""`decentrl --version`, and the global options accepted after the subcommand as well as before it."""

from importlib.metadata import version

import click
import pytest
from click.testing import CliRunner

from workers.cli import cli
from workers.cli.group import hoist_global_options

GLOBAL = {"--rpc", "--deployment", "--network", "--node-dir", "--store-dir", "--max-fee-gwei"}


def test_version_is_the_installed_package_version():
    result = CliRunner().invoke(cli, ["--version"])
    assert result.exit_code == 0
    assert result.output == f"decentrl {version('decentrl')}\n"


@pytest.mark.parametrize("argv, expected", [
    (["task", "status", "3", "--rpc", "URL"], ["--rpc", "URL", "task", "status", "3"]),
    (["task", "status", "--rpc=URL", "3"], ["--rpc=URL", "task", "status", "3"]),
    (["--node-dir", "A", "node", "status", "--deployment", "D"], ["--node-dir", "A", "--deployment", "D", "node",
                                                                 "status"]),
    (["wallet", "send", "0xabc", "5", "--", "--rpc", "x"], ["wallet", "send", "0xabc", "5", "--", "--rpc", "x"]),
    (["task", "submit", "s.json", "--bounty", "5"], ["task", "submit", "s.json", "--bounty", "5"]),
])
def test_global_options_after_the_subcommand_move_before_it(argv, expected):
    assert hoist_global_options(argv, cli.params) == expected


def test_a_global_option_after_the_subcommand_takes_effect(tmp_path):
    """--rpc given last is the RPC the command uses (an unreachable one: the error names it)."""
    result = CliRunner().invoke(cli, ["task", "status", "1", "--rpc", "http://127.0.0.1:9", "--node-dir",
                                      str(tmp_path)])
    assert result.exit_code == 1
    assert "cannot reach the RPC at http://127.0.0.1:9" in result.output


def _commands(group, prefix=()):
    for name, command in group.commands.items():
        yield (*prefix, name), command
        if isinstance(command, click.Group):
            yield from _commands(command, (*prefix, name))


def test_no_subcommand_defines_an_option_named_like_a_global_one():
    """Hoisting would take such an option away from its command."""
    assert {name for p in cli.params if isinstance(p, click.Option) and not p.is_flag for name in p.opts} == GLOBAL
    for path, command in _commands(cli):
        clash = {name for p in command.params for name in getattr(p, "opts", ())} & GLOBAL
        assert not clash, (path, clash)

"""`decentrl --help` stays light: the console script imports only click (and the standard
library) to answer --help, for the top level and every subcommand. Checked by what is imported,
not by a stopwatch (speed is for bench/, not for tests on a loaded machine)."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = Path(sys.executable).parent / "decentrl"
HEAVY = ("torch", "web3", "celery", "gymnasium", "eth_account", "cryptography", "py_ecc", "numpy")
PROBE = """
import sys
from workers.cli import cli
try:
    cli.main(sys.argv[1:], prog_name="decentrl")
except SystemExit as done:
    assert done.code in (0, None), done.code
print("HEAVY", sorted(m for m in {heavy!r} if m in sys.modules))
"""


def run(*argv):
    return subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


def heavy_imports_of(*argv) -> str:
    proc = run(sys.executable, "-c", PROBE.format(heavy=HEAVY), *argv)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip().splitlines()[-1]


def test_help_lists_the_commands_and_imports_no_heavy_module():
    proc = run(str(SCRIPT), "--help")
    assert proc.returncode == 0, proc.stderr
    for command in ("node", "task", "demo", "explorer"):
        assert f"  {command}  " in proc.stdout
    assert heavy_imports_of("--help") == "HEAVY []"


def command_paths(group=None, prefix=()):
    """Every leaf command of the CLI, as argv lists (walked, so a new command is covered)."""
    import click

    from workers.cli import cli

    group = group or cli
    for name, command in sorted(group.commands.items()):
        if isinstance(command, click.Group):
            yield from command_paths(command, (*prefix, name))
        else:
            yield [*prefix, name]


def test_every_subcommand_has_help_without_heavy_imports():
    paths = list(command_paths())
    assert ["task", "spec"] in paths and ["task", "report"] in paths and ["explorer"] in paths
    for argv in paths:
        proc = run(str(SCRIPT), *argv, "--help")
        assert proc.returncode == 0 and "Usage: decentrl" in proc.stdout, (argv, proc.stderr)
        assert heavy_imports_of(*argv, "--help") == "HEAVY []", argv

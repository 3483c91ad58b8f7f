"""`decentrl demo`: the whole network on a local chain."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from workers.cli.group import cli


@cli.command("demo")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default="reports/demo", show_default=True,
              help="Where the learning curve and the run's files go.")
@click.option("--keep", is_flag=True, help="Keep the temporary node folders.")
def demo(out_dir, keep):
    """A whole network on a local chain: deploy, 2 samplers, 1 trainer, 3 validators, a
    CartPole-v1 task, its rounds live, the evaluation, payouts and a learning curve."""
    from workers.demo import run

    sys.exit(run.main(out_dir=Path(out_dir), keep=keep))

"""`decentrl demo`: the whole network on a local chain."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import click

from workers.cli.group import cli


@cli.command("demo")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default="reports/demo", show_default=True,
              help="Where the learning curve and the run's files go.")
@click.option("--keep", is_flag=True, help="Keep the temporary node folders.")
@click.option("--explorer", "explorer_port", type=click.IntRange(1, 65535), default=None,
              help="Serve the explorer page on 127.0.0.1:PORT (or the next free of PORT..PORT+9) during the run.")
@click.option("--linger", "linger_s", type=click.FloatRange(0), is_flag=False, flag_value=math.inf, default=0.0,
              metavar="[SECONDS]",
              help="Keep the whole network (chain, nodes, store, explorer) up after the run and print how to use "
                   "it: until Ctrl-C, or for SECONDS.")
def demo(out_dir, keep, explorer_port, linger_s):
    """A whole network on a local chain: deploy, 2 samplers, 1 trainer, 3 validators, a
    CartPole-v1 task, its rounds live, the evaluation, payouts and a learning curve."""
    from workers.demo import run

    sys.exit(run.main(out_dir=Path(out_dir), keep=keep, explorer_port=explorer_port, linger_s=linger_s))

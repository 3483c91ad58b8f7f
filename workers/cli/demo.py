"""`decentrl demo`: the whole network on a local chain."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import click

from workers.cli.group import cli


@cli.command("demo")
@click.option("--env", "env_id", default="CartPole-v1", show_default=True,
              help="Train this environment's preset (decentrl task spec --list) with its samplers and rounds.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default="reports/demo", show_default=True,
              help="Where the learning curve and the run's files go.")
@click.option("--keep", is_flag=True, help="Keep the temporary node folders.")
@click.option("--explorer", "explorer_port", type=click.IntRange(1, 65535), default=None,
              help="Serve the explorer page on 127.0.0.1:PORT (or the next free of PORT..PORT+9) during the run.")
@click.option("--linger", "linger_s", type=click.FloatRange(0), is_flag=False, flag_value=math.inf, default=0.0,
              metavar="[SECONDS]",
              help="Keep the whole network (chain, nodes, store, explorer) up after the run and print how to use "
                   "it: until Ctrl-C, or for SECONDS.")
@click.option("--hosts", "on_hosts", is_flag=True,
              help="Run each operator on a host of its own (a network namespace with its own IPFS node, Redis and "
                   "`node start`; the CartPole-v1 demo only; needs root): `make demo-hosts`.")
def demo(env_id, out_dir, keep, explorer_port, linger_s, on_hosts):
    """A whole network on a local chain: deploy, the preset's samplers (2 for CartPole-v1), 1 trainer,
    3 validators, a task of the preset's spec, its rounds live, the evaluation, payouts and a
    learning curve. Exits 0 when the final evaluation reaches the spec's target."""
    if on_hosts:
        if env_id != "CartPole-v1" or explorer_port is not None or linger_s:
            raise click.UsageError("--hosts runs the CartPole-v1 demo only, without --explorer or --linger")
        from workers.demo import hosts

        sys.exit(hosts.main(keep=keep))
    from workers.demo import run

    sys.exit(run.main(out_dir=Path(out_dir), keep=keep, explorer_port=explorer_port, linger_s=linger_s,
                      env_id=env_id))

"""`decentrl node stop`: stop the node `node start` runs in NODE_DIR (in the background, or in
another shell)."""

from __future__ import annotations

import click

from workers.cli.common import Context
from workers.cli.node import node


@node.command("stop")
@click.option("--timeout", type=click.FloatRange(0), default=30.0, show_default=True, metavar="SECONDS",
              help="How long the node may take to stop its workers (a warm shutdown) before it is killed.")
@click.pass_obj
def node_stop(obj: Context, timeout):
    """Stop the node running in NODE_DIR: SIGTERM (its workers finish or hand back their jobs), then
    SIGKILL after --timeout. The node is found by its folder's lock and pid file (node.json)."""
    from workers.node.processes.stopping import NotRunning, stop_node

    click.echo(f"stopping the node in {obj.node_dir} ...", err=True)
    try:
        stopped = stop_node(obj.node_dir, timeout)
    except NotRunning as exc:
        raise click.ClickException(str(exc)) from None
    left = ", ".join(f"{name} {pid}" for name, pid in stopped.killed_children)
    if stopped.forced:
        click.echo(f"node {stopped.pid} stopped (killed after {timeout:g} s"
                   + (f"; children killed: {left}" if left else "") + ")")
    else:
        click.echo(f"node {stopped.pid} stopped")

"""`decentrl explorer`: the read-only network explorer page (workers/explorer)."""

from __future__ import annotations

import os

import click

from workers.cli.common import Context
from workers.cli.group import cli

# Shared with `decentrl task report` (workers/cli/report.py): where the curve's content comes from.
ipfs_api_option = click.option(
    "--ipfs-api", default=lambda: os.environ.get("DECENTRL_IPFS_API"),
    help="IPFS RPC API to read shards and checkpoints from; default: the embedded store (--store-dir).")
eval_episodes_option = click.option(
    "--eval-episodes", type=click.IntRange(0, 1000), default=10, show_default=True,
    help="Episodes to evaluate each accepted checkpoint for the learning curve (0: do not evaluate).")


@cli.command("explorer")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to serve on.")
@click.option("--port", type=click.IntRange(0, 65535), default=8850, show_default=True,
              help="Port to serve on (0: any free one).")
@ipfs_api_option
@eval_episodes_option
@click.pass_obj
def explorer(obj: Context, host, port, ipfs_api, eval_episodes):
    """Serve a read-only web page of the network: tasks, rounds, verdicts, learning curves,
    nodes, stakes, reputation and payouts, read from the chain and the content store."""
    from workers.cli.task import open_node_store
    from workers.explorer.api import ExplorerApi
    from workers.explorer.server import ExplorerServer

    dep = obj.deployment
    api = ExplorerApi(dep, open_node_store(obj.store_dir, ipfs_api), eval_episodes)
    try:
        server = ExplorerServer(api, host, port)
    except OSError as exc:  # the port taken, a host that does not resolve or is not this machine's
        raise click.ClickException(f"cannot serve on {host}:{port}: {exc.strerror or exc}") from None
    click.echo(f"explorer  {server.url}  (network {dep.network}, chain {dep.chain_id}, RPC {obj.rpc}; Ctrl-C stops)")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()

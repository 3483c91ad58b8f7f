"""The `decentrl` group and its global options."""

from __future__ import annotations

import os

import click

from workers.cli.common import DEFAULT_NETWORK, DEFAULT_RPC, Context, default_node_dir


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--rpc", default=lambda: os.environ.get("DECENTRL_RPC", DEFAULT_RPC), show_default=DEFAULT_RPC,
              help="JSON-RPC endpoint of the chain ($DECENTRL_RPC).")
@click.option("--deployment", type=click.Path(dir_okay=False), default=None,
              help="Deployment record (JSON written by scripts/deploy.py).")
@click.option("--network", default=None,
              help=f"Read deployments/<NETWORK>.json instead (default {DEFAULT_NETWORK}).")
@click.option("--node-dir", type=click.Path(file_okay=False), default=default_node_dir,
              show_default="$DECENTRL_NODE_DIR or ~/.decentrl",
              help="The node's folder: keystore, logs, Redis and store data.")
@click.option("--store-dir", type=click.Path(file_okay=False), default=lambda: os.environ.get("DECENTRL_STORE_DIR"),
              show_default="$DECENTRL_STORE_DIR or NODE_DIR/store",
              help="The embedded content store (share one folder between the nodes of a machine).")
@click.option("--max-fee-gwei", type=click.FloatRange(min=1e-9), envvar="DECENTRL_MAX_FEE_GWEI",
              default=None, show_default="no cap",
              help="The most a transaction of this account may pay per gas, base fee and tip ($DECENTRL_MAX_FEE_GWEI): "
                   "above it nothing is sent until the base fee falls, and speed-ups stop there.")
@click.pass_context
def cli(ctx, rpc, deployment, network, node_dir, store_dir, max_fee_gwei):
    """decentrl: a decentralized reinforcement-learning network."""
    if deployment and network:
        raise click.UsageError("give --deployment or --network, not both")
    ctx.obj = Context(rpc, deployment, network, node_dir, store_dir, max_fee_gwei=max_fee_gwei)

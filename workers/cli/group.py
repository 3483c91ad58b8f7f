"""The `decentrl` group and its global options."""

from __future__ import annotations

import os

import click

from workers.cli.common import DEFAULT_NETWORK, DEFAULT_RPC, Context, default_node_dir


class GlobalOptionsAnywhere(click.Group):
    """A group whose global options may also follow the subcommand, where people type them
    (`decentrl task status 3 --rpc URL`): they are moved in front of it before click parses, as if
    typed there. No subcommand defines an option of the same name (tests/workers/cli/test_global_options.py)."""

    def parse_args(self, ctx, args):
        return super().parse_args(ctx, hoist_global_options(list(args), self.params))


def hoist_global_options(args: list[str], params) -> list[str]:
    """`args` with every global option that takes a value (and its value) found after the
    subcommand moved before it; nothing after a `--` moves."""
    takes_value = {name for p in params if isinstance(p, click.Option) and not p.is_flag for name in p.opts}
    i = 0
    while i < len(args) and args[i].startswith("-") and args[i] != "--":  # the options before the subcommand
        i += 2 if args[i] in takes_value else 1
    if i >= len(args):
        return args
    front, rest, moved = args[:i], [args[i]], []
    j = i + 1
    while j < len(args):
        token = args[j]
        if token == "--":
            rest += args[j:]
            break
        if token in takes_value and j + 1 < len(args):
            moved += args[j:j + 2]
            j += 2
            continue
        if token.split("=", 1)[0] in takes_value and "=" in token:
            moved.append(token)
        else:
            rest.append(token)
        j += 1
    return front + moved + rest


def show_version(ctx, param, value):
    if not value or ctx.resilient_parsing:
        return
    from importlib.metadata import PackageNotFoundError, version

    try:
        click.echo(f"decentrl {version('decentrl')}")
    except PackageNotFoundError:  # run from a checkout that was never installed
        click.echo("decentrl (not installed: pip install -e . gives it a version)")
    ctx.exit()


@click.group(cls=GlobalOptionsAnywhere, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=show_version,
              help="Show the installed decentrl version and exit.")
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
              default=None, show_default="no cap", metavar="GWEI",
              help="The most a transaction of this account may pay per gas, base fee and tip ($DECENTRL_MAX_FEE_GWEI): "
                   "above it nothing is sent until the base fee falls, and speed-ups stop there.")
@click.pass_context
def cli(ctx, rpc, deployment, network, node_dir, store_dir, max_fee_gwei):
    """decentrl: a decentralized reinforcement-learning network.

    The global options (--rpc, --deployment, --network, --node-dir, --store-dir, --max-fee-gwei)
    may be given before the command or after it."""
    if deployment and network:
        raise click.UsageError("give --deployment or --network, not both")
    ctx.obj = Context(rpc, deployment, network, node_dir, store_dir, max_fee_gwei=max_fee_gwei)

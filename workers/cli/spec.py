"""`decentrl spec put FILE`: publish a task spec alone, without creating a task."""

from __future__ import annotations

import os

import click

from workers.cli.common import Context
from workers.cli.group import cli
from workers.cli.task import load_spec, open_node_store


@cli.group()
def spec():
    """Publish a task spec without creating a task."""


@spec.command("put")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--ipfs-api", default=lambda: os.environ.get("DECENTRL_IPFS_API"),
              help="IPFS RPC API to publish to; default: the embedded store (--store-dir).")
@click.pass_obj
def spec_put(obj: Context, file, ipfs_api):
    """Check FILE (a task spec JSON), publish its canonical bytes, fetch them back and parse them as
    the nodes will, and print the CID and digest a task refers to (a third-party client passes them
    as specCid and specDigest to createTaskWithSig; docs/integrating.md)."""
    from workers.spec_fetch import publish_spec
    from workers.storage import StorageError

    task_spec = load_spec(file)
    store = open_node_store(obj.store_dir, ipfs_api)
    try:
        cid = publish_spec(store, task_spec)
    except StorageError as exc:
        raise click.ClickException(f"cannot publish the spec: {exc}") from None
    click.echo(f"spec {cid}")
    click.echo(f"digest 0x{task_spec.digest().hex()}")

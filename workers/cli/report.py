"""`decentrl task report ID -o DIR`: plots and a Markdown page of one task (workers/explorer/report.py)."""

from __future__ import annotations

from pathlib import Path

import click

from workers.cli.common import TASK_ID, Context, writing
from workers.cli.explorer import eval_episodes_option, ipfs_api_option
from workers.cli.task import task


@task.command("report")
@click.argument("task_id", type=TASK_ID)
@click.option("-o", "--output", "out_dir", type=click.Path(file_okay=False), required=True)
@ipfs_api_option
@eval_episodes_option
@click.pass_obj
def task_report(obj: Context, task_id, out_dir, ipfs_api, eval_episodes):
    """Write DIR/report.md with PNG plots: learning curve, per-round verification verdicts, gas
    by function, payouts per node (and report.json with the data)."""
    from workers.cli.task import open_node_store
    from workers.explorer.curve import learning_curve
    from workers.explorer.history import ChainLog, TaskNotFound, task_history
    from workers.explorer.report import one_line, write_report

    log = ChainLog(obj.deployment)
    log.refresh()
    try:
        history = task_history(log, task_id)
    except TaskNotFound as exc:
        raise click.ClickException(str(exc)) from None
    curve = learning_curve(history, open_node_store(obj.store_dir, ipfs_api), eval_episodes)
    for error in curve.errors:
        click.echo(f"note: learning curve: {one_line(error)}", err=True)
    with writing("the report"):
        written = write_report(history, curve, Path(out_dir))
    click.echo(f"task {task_id}: {history.status.name.lower()}, {len(history.rounds)} rounds, "
               f"{sum(tx.gas_used for tx in history.gas):,} gas in {len(history.gas)} transactions")
    plots = ", ".join(p.name for k, p in written.items() if p.suffix == ".png")
    click.echo(f"wrote {written['markdown']} with {plots}")

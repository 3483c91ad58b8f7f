"""`decentrl task list`: a requester's own tasks, from their TaskCreated events."""

from __future__ import annotations

import click

from workers.cli.common import Context, fmt_drl
from workers.cli.task import task


def status_words(t) -> str:
    """A task's status as the CLI lists it: NO_RESULT reads "ended without a result"."""
    from workers.protocol import Status

    if t.status == Status.NO_RESULT:
        return "ended without a result"
    return t.status.name.lower()


@task.command("list")
@click.option("--requester", default=None, metavar="ADDRESS",
              help="Whose tasks; default: this node's account (NODE_DIR's keystore).")
@click.option("--all", "show_all", is_flag=True, help="Also the tasks that have ended.")
@click.pass_obj
def task_list(obj: Context, requester, show_all):
    """The tasks a requester created (from TaskCreated events since the deployment): id, status,
    round, bounty and spec. Ended tasks only with --all."""
    from eth_utils import is_address, to_checksum_address

    from workers.protocol import Status

    if requester is not None and not is_address(requester):
        raise click.BadParameter(f"{requester!r} is not an address", param_hint="'--requester'")
    address = to_checksum_address(requester) if requester else obj.address()
    dep = obj.deployment
    logs = dep.registry.events.TaskCreated().get_logs(from_block=dep.block, argument_filters={"requester": address})
    view = obj.view()
    tasks = [view.task(int(log["args"]["taskId"])) for log in logs]
    ended = (Status.COMPLETED, Status.CANCELLED, Status.FAILED, Status.NO_RESULT)
    shown = [t for t in tasks if show_all or t.status not in ended]
    if not tasks:
        click.echo(f"{address} has created no task on this deployment")
        return
    click.echo(f"{'task':>6}  {'status':<24}{'round':<10}{'bounty':>16}  spec")
    for t in shown:
        rounds = f"{t.round + 1 if t.started else 0}/{t.num_rounds}"
        click.echo(f"{t.task_id:>6}  {status_words(t):<24}{rounds:<10}{fmt_drl(t.bounty):>16}  {t.spec_cid}")
    hidden = len(tasks) - len(shown)
    if hidden:
        click.echo(f"({hidden} ended task{'s' if hidden != 1 else ''} not shown: --all)")

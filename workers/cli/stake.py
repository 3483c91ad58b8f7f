"""`decentrl node unstake / withdraw-stake / pause / resume / recover`: leaving a role, stepping
aside without leaving (SPECIFICATION 3), and the way back below the reputation threshold (4).
`node stake` is in node.py with the other set-up commands."""

from __future__ import annotations

import datetime as dt

import click

from workers.cli.common import ROLE_NAMES, Context, fmt_drl, parse_drl, role_of, send_as
from workers.cli.node import node


@node.command("unstake")
@click.option("--role", type=click.Choice(ROLE_NAMES), required=True)
@click.option("--amount", default=None, metavar="DRL", help="DRL to unbond (default: all that is not locked in tasks).")
@click.pass_obj
def node_unstake(obj: Context, role, amount):
    """Start unbonding stake of ROLE; `withdraw-stake` pays it out after the unbonding period.
    Stake locked in running tasks cannot be unbonded until those tasks release it."""
    account = obj.account()
    view = obj.view()
    info = view.stake(account.address, role_of(role))
    wei = parse_drl(amount, "--amount") if amount else info.available
    if info.available == 0 or wei > info.available:
        raise click.ClickException(f"{role} stake available to unbond: {fmt_drl(info.available)} (staked "
                                   f"{fmt_drl(info.staked)}, locked in tasks {fmt_drl(info.locked)})"
                                   + (f"; asked for {amount} DRL" if amount else ""))
    receipt = send_as(obj, account, obj.deployment.stakes.functions.requestUnstake(role_of(role), wei),
                      "requestUnstake")
    after = view.stake(account.address, role_of(role))
    ready = dt.datetime.fromtimestamp(after.unbonding_ready_at, dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    click.echo(f"unbonding {fmt_drl(after.unbonding)} of {role} stake (tx {receipt['transactionHash'].to_0x_hex()}); "
               f"withdraw it from {ready} with: decentrl node withdraw-stake --role {role}")


@node.command("withdraw-stake")
@click.option("--role", type=click.Choice(ROLE_NAMES), required=True)
@click.pass_obj
def node_withdraw_stake(obj: Context, role):
    """Pay out ROLE's unbonded stake once its unbonding period is over."""
    account = obj.account()
    info = obj.view().stake(account.address, role_of(role))
    if info.unbonding == 0:
        raise click.ClickException(f"nothing unbonding for {role}: run `decentrl node unstake --role {role}` first")
    now = obj.deployment.w3.eth.get_block("latest")["timestamp"]
    if now < info.unbonding_ready_at:
        raise click.ClickException(f"{fmt_drl(info.unbonding)} of {role} stake is unbonding for another "
                                   f"{info.unbonding_ready_at - now} s")
    receipt = send_as(obj, account, obj.deployment.stakes.functions.withdrawUnbonded(role_of(role)),
                      "withdrawUnbonded")
    click.echo(f"withdrew {fmt_drl(info.unbonding)} of {role} stake (tx {receipt['transactionHash'].to_0x_hex()})")


def _set_paused(obj: Context, paused: bool) -> None:
    account = obj.account()
    receipt = send_as(obj, account, obj.deployment.stakes.functions.setNodePaused(paused), "setNodePaused")
    state = "paused: no new work is assigned to it" if paused else "resumed: eligible for new work again"
    click.echo(f"{account.address} {state} (tx {receipt['transactionHash'].to_0x_hex()})")


@node.command("pause")
@click.pass_obj
def node_pause(obj: Context):
    """Stop receiving new work (tasks already assigned continue); e.g. before maintenance."""
    _set_paused(obj, True)


@node.command("resume")
@click.pass_obj
def node_resume(obj: Context):
    """Receive new work again after `node pause`."""
    _set_paused(obj, False)


@node.command("recover")
@click.pass_obj
def node_recover(obj: Context):
    """Below the reputation threshold: once the cooldown has passed, set the score back to the
    threshold (probation: one more penalty and the wait doubles)."""
    account = obj.account()
    rep = obj.deployment.reputation
    score, threshold = rep.functions.scoreOf(account.address).call(), rep.functions.threshold().call()
    if score >= threshold:
        raise click.ClickException(f"reputation {score} is not below the threshold {threshold}: nothing to recover")
    at = rep.functions.recoveryAvailableAt(account.address).call()
    now = obj.deployment.w3.eth.get_block("latest")["timestamp"]
    if now < at:
        raise click.ClickException(f"reputation {score} (threshold {threshold}): recovery opens in {at - now} s")
    receipt = send_as(obj, account, rep.functions.recover(), "recover")
    click.echo(f"reputation {score} -> {rep.functions.scoreOf(account.address).call()} "
               f"(tx {receipt['transactionHash'].to_0x_hex()}); eligible for new work again")

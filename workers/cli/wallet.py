"""`decentrl wallet ...`: the node account's balances, and sending DRL or ETH from it (to fund a
node or a requester, or to move earnings between one's own accounts)."""

from __future__ import annotations

import click

from workers.cli.common import TOKEN, Context, fmt_drl, parse_drl, send_as
from workers.cli.group import cli


@cli.group()
def wallet():
    """Balances and transfers of the node's account."""


def checksum(address: str) -> str:
    from eth_utils import is_address, to_checksum_address

    if not is_address(address):
        raise click.BadParameter(f"{address!r} is not an Ethereum address (0x and 40 hex digits)")
    return to_checksum_address(address)


@wallet.command("balance")
@click.argument("address", required=False)
@click.pass_obj
def wallet_balance(obj: Context, address):
    """DRL and ETH of ADDRESS (default: the node's account)."""
    who = checksum(address) if address else obj.address()
    dep = obj.deployment
    click.echo(f"{who}  {fmt_drl(dep.token.functions.balanceOf(who).call())}, "
               f"{obj.w3.eth.get_balance(who) / TOKEN:.6f} ETH")


@wallet.command("send")
@click.argument("to")
@click.argument("amount")
@click.option("--eth", is_flag=True, help="Send ETH (for gas) instead of DRL.")
@click.pass_obj
def wallet_send(obj: Context, to, amount, eth):
    """Send AMOUNT DRL (or ETH with --eth) from the node's account to TO."""
    to, wei = checksum(to), parse_drl(amount, "AMOUNT")
    dep = obj.deployment
    account = obj.account()
    unit = "ETH" if eth else "DRL"
    held = obj.w3.eth.get_balance(account.address) if eth else dep.token.functions.balanceOf(account.address).call()
    if held < wei:
        shown = f"{held / TOKEN:.6f} ETH" if eth else fmt_drl(held)
        raise click.ClickException(f"insufficient funds: {account.address} holds {shown}, "
                                   f"asked to send {amount} {unit}")
    if eth:
        receipt = send_as(obj, account, None, "ETH transfer", to=to, value=wei)
    else:
        receipt = send_as(obj, account, dep.token.functions.transfer(to, wei), "DRL transfer")
    click.echo(f"sent {amount} {unit} to {to} (tx {receipt['transactionHash'].to_0x_hex()})")



@wallet.command("claim")
@click.option("--amount", default=None, metavar="DRL", help="DRL to withdraw (default: all that is claimable).")
@click.option("--to", "to", default=None, help="Recipient (default: the node's account).")
@click.pass_obj
def wallet_claim(obj: Context, amount, to):
    """Withdraw claimable DRL from the RewardVault: a node's earnings, a requester's refunds and
    released pay alike (SPECIFICATION 6)."""
    dep = obj.deployment
    account = obj.account()
    claimable = dep.vault.functions.claimableOf(account.address).call()
    wei = parse_drl(amount, "--amount") if amount else claimable
    if claimable == 0 or wei > claimable:
        raise click.ClickException(f"{account.address} can claim {fmt_drl(claimable)}"
                                   + (f", asked for {amount} DRL" if amount else "")
                                   + " (round pay is held for its round's dispute window first: `decentrl dispute "
                                     "claim` shows it and releases what is due)")
    recipient = checksum(to) if to else account.address
    receipt = send_as(obj, account, dep.vault.functions.withdraw(recipient, wei), "withdraw")
    click.echo(f"claimed {fmt_drl(wei)} to {recipient} (tx {receipt['transactionHash'].to_0x_hex()}); "
               f"{fmt_drl(claimable - wei)} left claimable")

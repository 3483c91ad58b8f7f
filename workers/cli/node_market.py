"""The part of `decentrl node status` that shows the node's market policy: its prices, its measured
speeds, and the tasks it passed over with why (workers.node.market)."""
from __future__ import annotations

import time

import click

SHOWN = 10
"""Passed-over records shown (the newest; NODE_DIR/market.sqlite keeps more)."""


def echo_market(node_dir) -> None:
    from workers.node.market import book, prices
    from workers.node.market.pricing import drl

    try:
        held = prices.load(node_dir)
    except ValueError as exc:
        click.echo(f"prices      unreadable: {exc}")
        held = None
    if held is not None:
        click.echo("prices      " + ", ".join(f"{role} {drl(held[role])}/1k steps" for role in prices.ROLES)
                   + f"; work must fit {held['feasibility_margin']:g} of a window")
    if not (node_dir / book.FILE).exists():
        click.echo("  speeds     none measured yet (measured at the first task of each env and policy size)")
        return
    records = book.MarketBook(node_dir)
    for kind, env, arch, per_s, source, _ in records.rates():
        click.echo(f"  speed      {kind:<8} {env} {arch}: {per_s:,.0f}/s ({source})")
    passed = records.passed_over(SHOWN)
    if not passed:
        click.echo("  passed     no task passed over")
        return
    click.echo(f"PASSED OVER (newest {len(passed)}):")
    for p in passed:
        when = time.strftime("%H:%M:%S", time.gmtime(p.at))
        click.echo(f"  [{p.code}] task {p.task_id} ({p.role}, {when} UTC): {p.text}")

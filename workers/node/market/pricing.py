"""An operator's price for its work, and whether a slot's pay covers it.

A price is DRL (held in wei) per 1,000 of the role's priced steps (workers.spec_work): steps rolled
out (sampler), consumed by the update (trainer) or re-executed (validator). A slot's pay for a
round is workers.payouts.slot_share: the role's share of the bounty, divided by rounds and slots.
Price 0 takes any bounty (the protocol's own minimum still applies)."""
from __future__ import annotations

from decimal import Decimal

PER_STEPS = 1_000
"""A price is per this many priced steps."""
TOKEN = 10**18


def cost_of(price_wei_per_1k: int, steps: int) -> int:
    """Wei the operator asks for `steps` priced steps (rounded up: a price is a floor)."""
    if price_wei_per_1k < 0:
        raise ValueError(f"a price is >= 0, got {price_wei_per_1k}")
    return -(-int(price_wei_per_1k) * int(steps) // PER_STEPS)


def drl(wei: int) -> str:
    """Wei as DRL with up to 6 significant decimals ("0.35 DRL", "0.000001 DRL")."""
    text = f"{Decimal(int(wei)) / TOKEN:.6f}".rstrip("0").rstrip(".")
    return f"{text if text != '0' or wei == 0 else f'{Decimal(int(wei)) / TOKEN:.2E}'} DRL"


def steps_text(steps: int) -> str:
    """70000 -> '70k', 1500 -> '1.5k', 512 -> '512', 10000000 -> '10M'."""
    if steps < 1000:
        return str(steps)
    if steps < 1_000_000:
        return f"{steps / 1000:.1f}".rstrip("0").rstrip(".") + "k"
    return f"{steps / 1_000_000:.1f}".rstrip("0").rstrip(".") + "M"


def priced_out(share_wei: int, price_wei_per_1k: int, steps: int) -> str | None:
    """Why a slot paying `share_wei` a round does not cover the price of `steps` priced steps a
    round, or None when it does."""
    cost = cost_of(price_wei_per_1k, steps)
    if share_wei >= cost:
        return None
    return (f"bounty share {drl(share_wei)}/round < price {drl(cost)} for {steps_text(steps)} steps "
            f"({drl(price_wei_per_1k)} per 1k)")

"""Amounts of DRL as people read them (RLToken has 18 decimals): shared by the CLI, the explorer and
the task reports. Standard library only, so that `decentrl --help` stays light."""
from __future__ import annotations

from decimal import Decimal

TOKEN = 10**18
"""One DRL, in wei."""


def fmt_drl(wei: int) -> str:
    """'1,234.5 DRL'; an amount that would show as 0 DRL is given in wei."""
    if 0 < abs(wei) < TOKEN // 10**4:
        return f"{wei:,} wei"
    return f"{Decimal(wei) / TOKEN:,.4f}".rstrip("0").rstrip(".") + " DRL"

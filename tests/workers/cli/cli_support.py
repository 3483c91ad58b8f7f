"""Constants and helpers the CLI tests import (a module of its own: `from conftest import` picks
up whichever folder's conftest an xdist worker loaded last)."""

import re

PASSWORD = "correct horse battery staple"
TOKEN = 10**18


def account_of(output: str) -> str:
    """The address `node init` printed."""
    return re.search(r"^account (0x[0-9a-fA-F]{40})$", output, re.M).group(1)

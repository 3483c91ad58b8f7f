"""Constants and helpers the CLI tests import (a module of its own: `from conftest import` picks
up whichever folder's conftest an xdist worker loaded last)."""

from workers.localnet.chain import TOKEN  # noqa: F401  (the suite's unit)

PASSWORD = "correct horse battery staple"

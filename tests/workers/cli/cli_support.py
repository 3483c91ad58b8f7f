"""Constants and helpers the CLI tests import (a module of its own: `from conftest import` picks
up whichever folder's conftest an xdist worker loaded last)."""

PASSWORD = "correct horse battery staple"
TOKEN = 10**18

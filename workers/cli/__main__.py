"""`python -m workers.cli` = `decentrl`."""

from workers.cli import main

main()

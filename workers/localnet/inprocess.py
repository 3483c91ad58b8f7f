"""A node's handlers called in this process, as its worker would call them: the integration tests,
the fraud matrix and in-process drivers build one node's context and pass it to its handlers."""

from __future__ import annotations

import contextlib
import os

from workers.chain.keystore import PASSWORD_ENV


@contextlib.contextmanager
def as_node(node, password: str):
    """`node`'s NodeContext, as its workers build it (its keystore unlocked with `password`), for
    the block to call its handlers with; the keystore password variable is restored afterwards
    (other networks in the same process use other passwords)."""
    from workers.node.handlers.context import NodeContext

    before = os.environ.get(PASSWORD_ENV)
    os.environ[PASSWORD_ENV] = password
    try:
        yield NodeContext.build(node.config)
    finally:
        if before is None:
            os.environ.pop(PASSWORD_ENV, None)
        else:
            os.environ[PASSWORD_ENV] = before

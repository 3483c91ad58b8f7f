"""A node's handlers called in this process, as its worker would call them: the integration tests,
the fraud matrix and in-process drivers bind NodeContext.current() to one node at a time."""

from __future__ import annotations

import contextlib
import os

from workers.chain.keystore import PASSWORD_ENV


@contextlib.contextmanager
def as_node(node, password: str):
    """NodeContext.current() is `node`'s context (its keystore unlocked with `password`) while the
    block runs; the keystore password variable is restored afterwards (other networks in the same
    process use other passwords)."""
    from workers.node.handlers import context
    from workers.node.handlers.context import NodeContext

    before = os.environ.get(PASSWORD_ENV)
    os.environ[PASSWORD_ENV] = password
    context._current.update(pid=os.getpid(), ctx=NodeContext.build(node.config))
    try:
        yield context._current["ctx"]
    finally:
        context._current.clear()
        if before is None:
            os.environ.pop(PASSWORD_ENV, None)
        else:
            os.environ[PASSWORD_ENV] = before

"""A node's handlers called in this process, as its worker would call them: the integration tests,
the fraud matrix and in-process drivers build one node's context and pass it to its handlers."""

from __future__ import annotations

import contextlib
import os

from workers.chain.keystore import PASSWORD_ENV

_loaded: dict = {}
"""What every context this process builds would load again: the chain (w3 and the deployment's
contracts, by rpc_url and record path; checked again at each use as a node's periodic check does)
and a node's unlocked account (by its keystore's content and password). A worker process builds
its context once; a driver of many nodes' handlers builds one per call."""


@contextlib.contextmanager
def as_node(node, password: str):
    """`node`'s NodeContext, as its workers build it (its keystore unlocked with `password`), for
    the block to call its handlers with; the keystore password variable is restored afterwards
    (other networks in the same process use other passwords). Every context is new (its store,
    sender, Redis and secrets connections); the contracts' bindings and the account are reused."""
    from workers.chain.deployment import recheck_deployment
    from workers.chain.keystore import find_keystore, load_account
    from workers.node.handlers.context import NodeContext, load_chain

    settings = node.config.settings
    before = os.environ.get(PASSWORD_ENV)
    os.environ[PASSWORD_ENV] = password
    try:
        chain_key = (os.getpid(), settings.rpc_url, str(settings.deployment))
        if chain_key in _loaded:
            w3, deployment = _loaded[chain_key]
            _loaded[chain_key] = w3, recheck_deployment(deployment, settings.deployment)
        else:
            _loaded[chain_key] = load_chain(settings)
        keystore = find_keystore(settings.node_dir, settings.address)
        account_key = (keystore.read_bytes(), password)
        if account_key not in _loaded:
            _loaded[account_key] = load_account(keystore)
        yield NodeContext.build(node.config, account=_loaded[account_key], chain=_loaded[chain_key])
    finally:
        if before is None:
            os.environ.pop(PASSWORD_ENV, None)
        else:
            os.environ[PASSWORD_ENV] = before

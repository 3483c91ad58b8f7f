"""What the fork server (workers.node.processes.spawn) loads once for every child it forks: the libraries a
node's processes import anyway, and the compute stack's first-use costs (workers.roles.warmup).

Only modules whose import reads no per-node setting belong here: prometheus_client picks its
multiprocess mode from PROMETHEUS_MULTIPROC_DIR when it is imported, and workers.node's modules
read the node's config, so both are imported in each child, after its environment is set."""
import os

import celery.apps.worker  # noqa: F401
import celery.bin.celery  # noqa: F401
import eth_account  # noqa: F401
import eth_keys  # noqa: F401
import kombu.transport.redis  # noqa: F401
import py_ecc.optimized_bn128  # noqa: F401
import redis  # noqa: F401
import web3  # noqa: F401

from workers.node.processes import spawn  # noqa: F401 - the children's entry point (the supervisor's)
from workers.node.processes.lifetime import end_with_parent
from workers.roles import warmup

if os.environ.get(spawn.ENDS_WITH_PARENT_ENV) == "1":  # the supervising process killed: this server ends,
    end_with_parent()                                   # and its children with it

# Trainers and validators update a policy; the rest share the warmed modules for free.
warmup.exercise(update=True)

"""decentrl off-chain workers: the node roles (training, sampling, validation) and their chain,
storage and scheduling clients.

The package is layered (LAYERS, lowest first): a module imports from its own top-level package
and from lower layers only, never from a higher layer nor from another package of its own layer,
function-local imports included (tests/workers/test_layers.py checks every import statement).
What a lower layer must reach above it is injected: the node passes its metrics to the chain
layer and the store as observers (workers.chain.observer, workers.storage.store.StoreObserver)."""

__version__ = "0.1.0"

from workers import cpu_kernels as _cpu_kernels  # noqa: E402 - the pin must precede any computation

_cpu_kernels.pin()

LAYERS = (
    # shared, no I/O
    ("amounts", "cid", "content_memo", "cpu_kernels", "deadline", "framing", "hashing", "ports", "protocol"),
    ("merkle", "payouts"),  # Merkle trees over hashing; the bounty's split over the protocol's roles
    ("chain", "crypto", "rl", "storage"),  # the chain client, cryptography, RL, content storage
    ("spec",),  # task specs (environment and inputs)
    ("spec_fetch", "spec_work"),  # a task's spec fetched and checked by the nodes' rules; the work it implies
    ("roles",),  # each role's work as plain functions
    ("node",),  # a node's processes, queues, handlers and observability
    ("explorer", "localnet"),  # the read model and explorer; a whole network on one machine
    ("demo",),  # the demo run
    ("cli",),  # `decentrl`
)
"""The top-level modules and packages of `workers`, by layer, lowest first."""

"""decentrl off-chain workers: the node roles (training, sampling, validation) and their chain,
storage and scheduling clients."""

__version__ = "0.1.0"

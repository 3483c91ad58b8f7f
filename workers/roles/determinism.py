"""One CPU thread while a role computes: float reductions then do not depend on a node's cores."""

from __future__ import annotations

from contextlib import contextmanager

import torch


@contextmanager
def single_thread():
    """Run the block with `torch.set_num_threads(1)`, restoring the previous count after."""
    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(previous)

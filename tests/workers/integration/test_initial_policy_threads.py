"""Nodes run with whatever torch thread count their cores give, so the task's initial policy must
not depend on it (it once did: the orthogonal init's QR gave other bits with 2 threads, and
validators rejected every round-0 shard)."""
import torch
from network import SPEC

from workers.rl.policy import digest
from workers.roles.sampler import initial_policy


def test_initial_policy_is_the_same_with_any_thread_count():
    previous = torch.get_num_threads()
    try:
        digests = set()
        for threads in (1, 2, 4):
            torch.set_num_threads(threads)
            digests.add(digest(initial_policy(SPEC)))
    finally:
        torch.set_num_threads(previous)
    assert len(digests) == 1

"""What one slot of a role earns for one accepted round: contracts/libraries/Payouts.sol's split,
in Python, for nodes deciding whether a task is worth their work (SPECIFICATION.md section 6,
"Split"): roundPool = floor(floor(bounty * shareBps / 10000) / numRounds), and each of the role's
slots earns floor(roundPool / slots)."""
from __future__ import annotations

from workers.protocol import Role

BPS = 10_000


def round_pool(bounty: int, share_bps: int, num_rounds: int) -> int:
    """Payouts.roundPool: what one round pays one role, all its payees together (wei)."""
    if num_rounds < 1:
        raise ValueError(f"num_rounds must be >= 1, got {num_rounds}")
    return (int(bounty) * int(share_bps) // BPS) // int(num_rounds)


def per_payee(pool: int, payees: int) -> int:
    """Payouts.perPayee: each of `payees` slots' equal share of `pool` (0 when there are none)."""
    return 0 if payees == 0 else int(pool) // int(payees)


def slot_share(task, role: Role) -> int:
    """Wei one slot of `role` earns for one accepted round of `task` (a TaskInfo: its bounty,
    snapshotted shares, rounds and slots)."""
    role = Role(role)
    pool = round_pool(task.bounty, task.shares_bps[int(role)], task.num_rounds)
    return per_payee(pool, task.slot_count(role))

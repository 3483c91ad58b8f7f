"""The TaskRegistry constructor refuses a zero address for any collaborator, the admin or the
treasury, and gives the admin every role."""

import brownie
import pytest
from brownie import TaskRegistry

ZERO = "0x" + "00" * 20
ARGS = ["token", "stakes", "reputation", "vault", "admin", "treasury"]


def _args(dep, admin, treasury):
    return [dep.token, dep.stakes, dep.reputation, dep.vault, admin, treasury]


@pytest.mark.parametrize("index", range(len(ARGS)), ids=ARGS)
def test_zero_address_rejected(dep, admin, treasury, index):
    args = _args(dep, admin, treasury)
    args[index] = ZERO
    with brownie.reverts("ZeroAddress: "):
        TaskRegistry.deploy(*args, {"from": admin})


def test_admin_holds_every_role(dep, admin, outsider, treasury):
    registry = TaskRegistry.deploy(*_args(dep, outsider, treasury), {"from": admin})
    for role in [registry.DEFAULT_ADMIN_ROLE(), registry.GOVERNOR_ROLE(), registry.GUARDIAN_ROLE()]:
        assert registry.hasRole(role, outsider) is True
        assert registry.hasRole(role, admin) is False


def test_defaults_set(dep, admin, treasury):
    registry = TaskRegistry.deploy(*_args(dep, admin, treasury), {"from": admin})
    assert [int(x) for x in registry.roleShares()] == [2000, 7000, 1000]
    assert [registry.slashBps(), registry.treasury(), registry.taskCount()] == [1000, treasury, 0]
    assert registry.paused() is False

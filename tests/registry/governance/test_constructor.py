"""The TaskRegistry constructor refuses a zero address for any collaborator or the admin, gives the
admin the admin and guardian roles (governance is ProtocolConfig's), and starts with no task."""

import brownie
import pytest
from brownie import TaskRegistry

ZERO = "0x" + "00" * 20
ARGS = ["token", "stakes", "reputation", "vault", "config", "admin"]


def _args(dep, admin):
    return [dep.token, dep.stakes, dep.reputation, dep.vault, dep.config, admin]


@pytest.mark.parametrize("index", range(len(ARGS)), ids=ARGS)
def test_zero_address_rejected(dep, admin, index):
    args = _args(dep, admin)
    args[index] = ZERO
    with brownie.reverts("ZeroAddress: "):
        TaskRegistry.deploy(*args, {"from": admin})


def test_admin_holds_admin_and_guardian_roles(dep, admin, outsider):
    registry = TaskRegistry.deploy(*_args(dep, outsider), {"from": admin})
    for role in [registry.DEFAULT_ADMIN_ROLE(), registry.GUARDIAN_ROLE()]:
        assert registry.hasRole(role, outsider) is True
        assert registry.hasRole(role, admin) is False


def test_collaborators_and_clock(dep, admin):
    registry = TaskRegistry.deploy(*_args(dep, admin), {"from": admin})
    assert [registry.token(), registry.stakes(), registry.reputation(), registry.vault(), registry.config()] == [
        dep.token, dep.stakes, dep.reputation, dep.vault, dep.config]
    assert registry.paused() is False
    assert registry.protocolTime() == brownie.chain[-1].timestamp

"""Only GOVERNOR_ROLE changes shares, slash rate and treasury; holding GUARDIAN_ROLE is not enough."""

import brownie
import pytest


def _setters(registry, account):
    return {
        "setRoleShares": lambda: registry.setRoleShares(6000, 2500, 1500, {"from": account}),
        "setSlashBps": lambda: registry.setSlashBps(2000, {"from": account}),
        "setTreasury": lambda: registry.setTreasury(account, {"from": account}),
    }


@pytest.mark.parametrize("name", ["setRoleShares", "setSlashBps", "setTreasury"])
def test_outsider_cannot_govern(registry, outsider, name):
    role = bytes(registry.GOVERNOR_ROLE())
    with brownie.reverts(f"AccessControlUnauthorizedAccount: {outsider.address.lower()}, {role}"):
        _setters(registry, outsider)[name]()


@pytest.mark.parametrize("name", ["setRoleShares", "setSlashBps", "setTreasury"])
def test_guardian_cannot_govern(registry, admin, outsider, name):
    registry.grantRole(registry.GUARDIAN_ROLE(), outsider, {"from": admin})
    role = bytes(registry.GOVERNOR_ROLE())
    with brownie.reverts(f"AccessControlUnauthorizedAccount: {outsider.address.lower()}, {role}"):
        _setters(registry, outsider)[name]()


def test_granted_governor_can_govern(registry, admin, outsider):
    registry.grantRole(registry.GOVERNOR_ROLE(), outsider, {"from": admin})
    for call in _setters(registry, outsider).values():
        call()
    assert [int(x) for x in registry.roleShares()] == [2500, 6000, 1500]
    assert registry.slashBps() == 2000
    assert registry.treasury() == outsider


def test_revoked_governor_cannot_govern(registry, admin):
    registry.revokeRole(registry.GOVERNOR_ROLE(), admin, {"from": admin})
    role = bytes(registry.GOVERNOR_ROLE())
    with brownie.reverts(f"AccessControlUnauthorizedAccount: {admin.address.lower()}, {role}"):
        registry.setSlashBps(2000, {"from": admin})

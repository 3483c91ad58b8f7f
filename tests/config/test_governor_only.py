"""Only ProtocolConfig's GOVERNOR_ROLE changes the protocol's parameters (shares, slash rate,
treasury, dispute windows, bond); the registry's guardian or admin role is not enough."""

import brownie
import pytest

HOUR = 3600


def _setters(config, account):
    return {
        "setRoleShares": lambda: config.setRoleShares(6000, 2500, 1500, {"from": account}),
        "setSlashBps": lambda: config.setSlashBps(2000, {"from": account}),
        "setTreasury": lambda: config.setTreasury(account, {"from": account}),
        "setDisputeWindow": lambda: config.setDisputeWindow(2 * HOUR, {"from": account}),
        "setVoteWindow": lambda: config.setVoteWindow(HOUR, {"from": account}),
        "setMinBond": lambda: config.setMinBond(10**18, {"from": account}),
    }


SETTERS = ["setRoleShares", "setSlashBps", "setTreasury", "setDisputeWindow", "setVoteWindow", "setMinBond"]


@pytest.mark.parametrize("name", SETTERS)
def test_outsider_cannot_govern(config, outsider, name):
    role = bytes(config.GOVERNOR_ROLE())
    with brownie.reverts(f"AccessControlUnauthorizedAccount: {outsider.address.lower()}, {role}"):
        _setters(config, outsider)[name]()


@pytest.mark.parametrize("name", SETTERS)
def test_registry_guardian_and_admin_cannot_govern(registry, config, admin, outsider, name):
    registry.grantRole(registry.GUARDIAN_ROLE(), outsider, {"from": admin})
    registry.grantRole(registry.DEFAULT_ADMIN_ROLE(), outsider, {"from": admin})
    role = bytes(config.GOVERNOR_ROLE())
    with brownie.reverts(f"AccessControlUnauthorizedAccount: {outsider.address.lower()}, {role}"):
        _setters(config, outsider)[name]()


def test_granted_governor_can_govern(config, admin, outsider):
    config.grantRole(config.GOVERNOR_ROLE(), outsider, {"from": admin})
    for call in _setters(config, outsider).values():
        call()
    assert [int(x) for x in config.roleShares()] == [2500, 6000, 1500]
    assert config.slashBps() == 2000
    assert config.treasury() == outsider
    assert (config.disputeWindow(), config.voteWindow(), config.minBond()) == (2 * HOUR, HOUR, 10**18)


def test_revoked_governor_cannot_govern(config, admin):
    config.revokeRole(config.GOVERNOR_ROLE(), admin, {"from": admin})
    role = bytes(config.GOVERNOR_ROLE())
    with brownie.reverts(f"AccessControlUnauthorizedAccount: {admin.address.lower()}, {role}"):
        config.setSlashBps(2000, {"from": admin})

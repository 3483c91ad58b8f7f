"""Only GUARDIAN_ROLE pauses and unpauses the registry; ProtocolConfig's GOVERNOR_ROLE is not enough."""

import brownie


def test_guardian_pauses_and_unpauses(registry, admin):
    tx = registry.pause({"from": admin})
    assert registry.paused() is True
    assert tx.events["Paused"]["account"] == admin
    tx = registry.unpause({"from": admin})
    assert registry.paused() is False
    assert tx.events["Unpaused"]["account"] == admin


def test_outsider_cannot_pause(registry, outsider):
    role = bytes(registry.GUARDIAN_ROLE())
    with brownie.reverts(f"AccessControlUnauthorizedAccount: {outsider.address.lower()}, {role}"):
        registry.pause({"from": outsider})
    assert registry.paused() is False


def test_outsider_cannot_unpause(registry, admin, outsider):
    registry.pause({"from": admin})
    role = bytes(registry.GUARDIAN_ROLE())
    with brownie.reverts(f"AccessControlUnauthorizedAccount: {outsider.address.lower()}, {role}"):
        registry.unpause({"from": outsider})
    assert registry.paused() is True


def test_governor_cannot_pause(registry, config, admin, outsider):
    config.grantRole(config.GOVERNOR_ROLE(), outsider, {"from": admin})
    role = bytes(registry.GUARDIAN_ROLE())
    with brownie.reverts(f"AccessControlUnauthorizedAccount: {outsider.address.lower()}, {role}"):
        registry.pause({"from": outsider})


def test_pause_twice_reverts(registry, admin):
    registry.pause({"from": admin})
    with brownie.reverts("EnforcedPause: "):
        registry.pause({"from": admin})
    registry.unpause({"from": admin})
    with brownie.reverts("ExpectedPause: "):
        registry.unpause({"from": admin})

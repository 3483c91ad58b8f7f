"""setSlashBps is capped at 50%; setTreasury refuses the zero address."""

import brownie

ZERO = "0x" + "00" * 20


def test_initial_values(registry, treasury):
    assert registry.slashBps() == 1000
    assert registry.treasury() == treasury


def test_slash_bps_up_to_cap(registry, admin):
    for bps in [0, 5000]:
        tx = registry.setSlashBps(bps, {"from": admin})
        assert registry.slashBps() == bps
        assert tx.events["SlashBpsSet"]["bps"] == bps


def test_slash_bps_over_cap_reverts(registry, admin):
    with brownie.reverts("SlashBpsOutOfBounds: 5001, 5000"):
        registry.setSlashBps(5001, {"from": admin})
    assert registry.slashBps() == 1000


def test_treasury_set(registry, admin, outsider):
    tx = registry.setTreasury(outsider, {"from": admin})
    assert registry.treasury() == outsider
    assert tx.events["TreasurySet"]["treasury"] == outsider


def test_zero_treasury_reverts(registry, admin, treasury):
    with brownie.reverts("ZeroAddress: "):
        registry.setTreasury(ZERO, {"from": admin})
    assert registry.treasury() == treasury

"""setSlashBps is capped at 50%; setTreasury refuses the zero address."""

import brownie

ZERO = "0x" + "00" * 20


def test_initial_values(treasury, config):
    assert config.slashBps() == 1000
    assert config.treasury() == treasury


def test_slash_bps_up_to_cap(admin, config):
    for bps in [0, 5000]:
        tx = config.setSlashBps(bps, {"from": admin})
        assert config.slashBps() == bps
        assert tx.events["SlashBpsSet"]["bps"] == bps


def test_slash_bps_over_cap_reverts(admin, config):
    with brownie.reverts("SlashBpsOutOfBounds: 5001, 5000"):
        config.setSlashBps(5001, {"from": admin})
    assert config.slashBps() == 1000


def test_treasury_set(admin, outsider, config):
    tx = config.setTreasury(outsider, {"from": admin})
    assert config.treasury() == outsider
    assert tx.events["TreasurySet"]["treasury"] == outsider


def test_zero_treasury_reverts(admin, treasury, config):
    with brownie.reverts("ZeroAddress: "):
        config.setTreasury(ZERO, {"from": admin})
    assert config.treasury() == treasury

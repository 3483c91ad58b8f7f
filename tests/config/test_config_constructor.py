"""The ProtocolConfig constructor refuses a zero admin or treasury, gives the admin its two roles
and starts from the published defaults: 70/20/10 shares, 10% slash, one-day windows, a 100 DRL bond."""

import brownie
from brownie import ProtocolConfig

ZERO = "0x" + "00" * 20
TOKEN = 10**18
DAY = 24 * 3600


def test_zero_admin_rejected(admin, treasury):
    with brownie.reverts("ZeroAddress: "):
        ProtocolConfig.deploy(ZERO, treasury, {"from": admin})


def test_zero_treasury_rejected(admin):
    with brownie.reverts("ZeroAddress: "):
        ProtocolConfig.deploy(admin, ZERO, {"from": admin})


def test_admin_holds_both_roles(admin, outsider, treasury):
    config = ProtocolConfig.deploy(outsider, treasury, {"from": admin})
    for role in [config.DEFAULT_ADMIN_ROLE(), config.GOVERNOR_ROLE()]:
        assert config.hasRole(role, outsider) is True
        assert config.hasRole(role, admin) is False


def test_defaults_and_their_events(admin, treasury):
    config = ProtocolConfig.deploy(admin, treasury, {"from": admin})
    assert [int(x) for x in config.roleShares()] == [2000, 7000, 1000]  # by Role: sampler, trainer, validator
    assert (config.slashBps(), config.treasury()) == (1000, treasury)
    assert [x for x in config.slashing()] == [1000, treasury]
    assert (config.disputeWindow(), config.voteWindow(), config.minBond()) == (DAY, DAY, 100 * TOKEN)
    events = config.tx.events
    assert [events["RoleSharesSet"][k] for k in ("trainerBps", "samplerBps", "validatorBps")] == [7000, 2000, 1000]
    assert events["SlashBpsSet"]["bps"] == 1000 and events["TreasurySet"]["treasury"] == treasury
    assert events["DisputeWindowSet"]["window"] == DAY and events["VoteWindowSet"]["window"] == DAY
    assert events["MinBondSet"]["bond"] == 100 * TOKEN

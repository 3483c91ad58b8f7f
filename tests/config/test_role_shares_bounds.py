"""setRoleShares keeps trainer 50-85%, sampler 10-35%, validator 5-20%, summing to 100%."""

import brownie
import pytest

BAD = [
    (4999, 3500, 1501),  # trainer below 50%
    (8501, 1000, 499),  # trainer above 85%
    (8500, 999, 501),  # sampler below 10%
    (5000, 3501, 1499),  # sampler above 35%
    (8500, 1001, 499),  # validator below 5%
    (5000, 2999, 2001),  # validator above 20%
    (7000, 2000, 999),  # sums to 99.99%
    (7000, 2000, 1001),  # sums to 100.01%
    (2**256 - 1, 2000, 1000),  # out of bounds before the sum could overflow
]
GOOD = [(8500, 1000, 500), (5000, 3500, 1500), (5000, 3000, 2000), (7000, 2000, 1000)]


@pytest.mark.parametrize("shares", BAD)
def test_out_of_bounds_reverts_with_args(admin, shares, config):
    with brownie.reverts("SharesOutOfBounds: {}, {}, {}".format(*shares)):
        config.setRoleShares(*shares, {"from": admin})
    assert [int(x) for x in config.roleShares()] == [2000, 7000, 1000]


@pytest.mark.parametrize("shares", GOOD)
def test_bounds_are_inclusive(admin, shares, config):
    trainer, sampler, validator = shares
    config.setRoleShares(trainer, sampler, validator, {"from": admin})
    assert [int(x) for x in config.roleShares()] == [sampler, trainer, validator]

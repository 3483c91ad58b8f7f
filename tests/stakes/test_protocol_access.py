"""Only PROTOCOL_ROLE may lock, unlock or slash; the governor and the node itself may not."""

import brownie
import pytest

from tests.stakes.conftest import TOKEN, unauthorized
from workers.protocol import Role


@pytest.fixture
def staked_node(stakes, stake, node, protocol):
    stake(node, Role.SAMPLER, 300 * TOKEN)
    stakes.lock(node, Role.SAMPLER, 100 * TOKEN, {"from": protocol})
    return node


@pytest.mark.parametrize("caller_name", ["admin", "outsider", "node"])
def test_lock_requires_protocol_role(request, stakes, staked_node, caller_name):
    caller = request.getfixturevalue(caller_name)
    with brownie.reverts(unauthorized(caller, stakes.PROTOCOL_ROLE())):
        stakes.lock(staked_node, Role.SAMPLER, TOKEN, {"from": caller})


@pytest.mark.parametrize("caller_name", ["admin", "outsider", "node"])
def test_unlock_requires_protocol_role(request, stakes, staked_node, caller_name):
    caller = request.getfixturevalue(caller_name)
    with brownie.reverts(unauthorized(caller, stakes.PROTOCOL_ROLE())):
        stakes.unlock(staked_node, Role.SAMPLER, TOKEN, {"from": caller})


@pytest.mark.parametrize("caller_name", ["admin", "outsider", "node"])
def test_slash_requires_protocol_role(request, stakes, staked_node, caller_name):
    caller = request.getfixturevalue(caller_name)
    with brownie.reverts(unauthorized(caller, stakes.PROTOCOL_ROLE())):
        stakes.slash(staked_node, Role.SAMPLER, TOKEN, caller, {"from": caller})


def test_granted_role_can_lock_revoked_cannot(stakes, staked_node, admin, outsider):
    stakes.grantRole(stakes.PROTOCOL_ROLE(), outsider, {"from": admin})
    stakes.lock(staked_node, Role.SAMPLER, TOKEN, {"from": outsider})
    stakes.revokeRole(stakes.PROTOCOL_ROLE(), outsider, {"from": admin})
    with brownie.reverts(unauthorized(outsider, stakes.PROTOCOL_ROLE())):
        stakes.lock(staked_node, Role.SAMPLER, TOKEN, {"from": outsider})
    assert stakes.availableStake(staked_node, Role.SAMPLER) == 199 * TOKEN

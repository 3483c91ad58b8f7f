"""Only REPORTER_ROLE may record outcomes; the governor and the node itself may not."""

import brownie
import pytest

from tests.reputation.conftest import record_of, unauthorized
from workers.protocol import Outcome


@pytest.mark.parametrize("caller_name", ["admin", "outsider", "node"])
def test_record_requires_reporter_role(request, reputation, reporter, node, caller_name):
    caller = request.getfixturevalue(caller_name)
    with brownie.reverts(unauthorized(caller, reputation.REPORTER_ROLE())):
        reputation.record(node, Outcome.ACCEPTED, {"from": caller})
    assert record_of(reputation, node) == [70, 0, 0, 0]


def test_registry_holds_reporter_role(reputation, registry):
    assert reputation.hasRole(reputation.REPORTER_ROLE(), registry)


def test_revoked_reporter_cannot_record(reputation, reporter, admin, node):
    reputation.record(node, Outcome.MISSED, {"from": reporter})
    reputation.revokeRole(reputation.REPORTER_ROLE(), reporter, {"from": admin})
    with brownie.reverts(unauthorized(reporter, reputation.REPORTER_ROLE())):
        reputation.record(node, Outcome.MISSED, {"from": reporter})
    assert reputation.scoreOf(node) == 60


def test_governor_can_grant_a_new_reporter(reputation, admin, outsider, node):
    reputation.grantRole(reputation.REPORTER_ROLE(), outsider, {"from": admin})
    tx = reputation.record(node, Outcome.ACCEPTED, {"from": outsider})
    assert tx.events["ReputationChanged"]["newScore"] == 72
    assert reputation.scoreOf(node) == 72

"""Only ESCROW_ROLE moves escrow; the admin, earners and outsiders may not."""

import brownie
import pytest
from brownie import RewardVault

from tests.vault.conftest import TOKEN, ZERO, unauthorized

CALLERS = ["admin", "outsider", "earner"]


@pytest.mark.parametrize("caller_name", CALLERS)
def test_record_deposit_requires_escrow_role(request, token, vault, admin, caller_name):
    caller = request.getfixturevalue(caller_name)
    token.transfer(vault, TOKEN, {"from": admin})
    with brownie.reverts(unauthorized(caller, vault.ESCROW_ROLE())):
        vault.recordDeposit(1, TOKEN, {"from": caller})


@pytest.mark.parametrize("caller_name", CALLERS)
def test_credit_requires_escrow_role(request, vault, deposit, caller_name):
    caller = request.getfixturevalue(caller_name)
    deposit(1, 10 * TOKEN)
    with brownie.reverts(unauthorized(caller, vault.ESCROW_ROLE())):
        vault.credit(1, caller, TOKEN, {"from": caller})
    assert vault.escrowOf(1) == 10 * TOKEN


@pytest.mark.parametrize("caller_name", CALLERS)
def test_refund_requires_escrow_role(request, vault, deposit, caller_name):
    caller = request.getfixturevalue(caller_name)
    deposit(1, 10 * TOKEN)
    with brownie.reverts(unauthorized(caller, vault.ESCROW_ROLE())):
        vault.refund(1, caller, {"from": caller})
    assert vault.escrowOf(1) == 10 * TOKEN


def test_registry_holds_escrow_role_admin_does_not(vault, registry, admin):
    assert vault.hasRole(vault.ESCROW_ROLE(), registry)
    assert not vault.hasRole(vault.ESCROW_ROLE(), admin)
    assert vault.hasRole(vault.DEFAULT_ADMIN_ROLE(), admin)


@pytest.mark.parametrize("args", [(ZERO, "admin"), ("token", ZERO)])
def test_constructor_rejects_zero_addresses(request, token, admin, args):
    resolved = [token if a == "token" else admin if a == "admin" else a for a in args]
    with brownie.reverts("ZeroAddress: "):
        RewardVault.deploy(*resolved, {"from": admin})

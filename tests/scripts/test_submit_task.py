"""scripts/submit_task.py: parameters, fund checks, decoded reverts, the signed and direct paths."""

import pytest
from brownie import accounts, chain
from eth_utils import keccak

from scripts.actors import sign_task
from scripts.submit_task import (
    DEFAULT_SPEC_CID,
    Contracts,
    SubmitError,
    explain,
    load_contracts,
    submit_direct,
    submit_signed,
    task_params,
)

TOKEN = 10**18


@pytest.fixture
def contracts(funded, admin):
    return Contracts(funded.token, funded.registry, funded.front, admin.address)


@pytest.fixture
def wallet(funded, admin):
    account = accounts.add("0x" + "17" * 32)
    funded.token.transfer(account, 50 * TOKEN, {"from": admin})
    return account


def test_params_from_args_env_and_defaults():
    p = task_params(())
    assert (p.spec_cid, p.spec_digest, p.bounty) == (DEFAULT_SPEC_CID, keccak(text=DEFAULT_SPEC_CID), 1000 * TOKEN)
    p = task_params((), env={"DECENTRL_SPEC_CID": "bafyx", "DECENTRL_BOUNTY": "2.5"})
    assert (p.spec_cid, p.bounty) == ("bafyx", 25 * TOKEN // 10)
    p = task_params(("bafyz", "0x" + "ab" * 32, 7))
    assert (p.spec_digest, p.bounty) == (bytes.fromhex("ab" * 32), 7 * TOKEN)
    with pytest.raises(SubmitError, match="32 bytes"):
        task_params(("bafyz", "0xabcd"))
    with pytest.raises(SubmitError, match="32 bytes of hex, got 'not hex'"):
        task_params(("bafyz", "not hex"))
    with pytest.raises(SubmitError, match="the bounty must be a number of DRL, got 'lots'"):
        task_params(("bafyz", "0x" + "ab" * 32, "lots"))


def test_a_live_network_needs_the_spec_named():
    """No sample spec there: nodes claim only a task whose spec they fetch and match to its digest."""
    for args, env in [((), {}), (("bafyz",), {}), ((), {"DECENTRL_SPEC_CID": "bafyx"})]:
        with pytest.raises(SubmitError, match="give the spec's CID and digest"):
            task_params(args, env=env, development=False)
    p = task_params((), env={"DECENTRL_SPEC_CID": "bafyx", "DECENTRL_SPEC_DIGEST": "ab" * 32}, development=False)
    assert (p.spec_cid, p.spec_digest) == ("bafyx", bytes.fromhex("ab" * 32))


def test_a_live_networks_send_errors_are_explained():
    """On a live network brownie reports a revert at the gas estimate, and the node a sender
    without gas money, as ValueErrors."""
    estimate = ValueError("Gas estimation failed: 'InvalidBounty: '. This transaction will likely revert. If you "
                          "wish to broadcast, you must set the gas limit manually.")
    assert str(explain(estimate, "createTask")) == ("createTask reverted: InvalidBounty: (the bounty must be above "
                                                    "zero)")
    broke = ValueError("Insufficient funds for gas * price + value")
    assert str(explain(broke, "createTaskWithSig")) == ("createTaskWithSig was not sent: its sender has too little "
                                                        "ETH for gas (Insufficient funds for gas * price + value)")


def test_signed_submission_is_relayed(contracts, state, wallet, outsider):
    task_id = submit_signed(contracts, wallet, outsider, task_params((DEFAULT_SPEC_CID, None, 10)))
    assert state.taskOf(task_id).dict()["requester"] == wallet.address
    assert wallet.balance() == 0  # the wallet only signed


def test_direct_submission(contracts, state, requester):
    task_id = submit_direct(contracts, requester, task_params((DEFAULT_SPEC_CID, None, 10)))
    assert state.taskOf(task_id).dict()["requester"] == requester.address


def test_insufficient_balance_is_refused_before_sending(contracts, wallet, outsider):
    with pytest.raises(SubmitError, match=r"holds 50.0000 DRL; the bounty is 60.0000 DRL"):
        submit_signed(contracts, wallet, outsider, task_params((DEFAULT_SPEC_CID, None, 60)))


def test_missing_allowance_is_refused_without_permit(contracts, wallet, outsider):
    with pytest.raises(SubmitError, match="allows the registry 0.0000 DRL"):
        submit_signed(contracts, wallet, outsider, task_params((DEFAULT_SPEC_CID, None, 10)), permit=False)


def test_reverts_are_decoded_with_a_hint(contracts, wallet, outsider):
    params = task_params((DEFAULT_SPEC_CID, None, 60))  # more than the wallet holds
    signed = sign_task(wallet.private_key, wallet.address, params, contracts.front, token=contracts.token)
    with pytest.raises(Exception) as info:
        contracts.front.createTaskWithSig(*signed.args(), {"from": outsider})
    err = explain(info.value, "createTaskWithSig")
    assert "ERC20InsufficientBalance" in str(err) and "does not hold the bounty" in str(err)

    signed = sign_task(wallet.private_key, wallet.address, task_params((DEFAULT_SPEC_CID, None, 1)),
                       contracts.front, ttl=10)
    chain.sleep(60)
    chain.mine()
    with pytest.raises(Exception) as info:
        contracts.front.createTaskWithSig(*signed.args(), {"from": outsider})
    assert "sign again" in str(explain(info.value, "createTaskWithSig"))


def test_missing_deployment_says_how_to_deploy():
    with pytest.raises(FileNotFoundError, match="brownie run scripts/deploy.py live --network no-such-net"):
        load_contracts("no-such-net")

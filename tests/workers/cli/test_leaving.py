"""Leaving and stepping aside, against a real anvil: `node unstake`, `node withdraw-stake`,
`node pause/resume`, and `wallet claim` of a requester's refund. Each test runs inside an anvil
snapshot (reverted afterwards), as it moves the chain's clock by days."""

import re

import pytest
from cli_support import TOKEN

from workers.protocol import Role
from workers.spec import DEMO_CARTPOLE


@pytest.fixture
def clock(w3):
    """`clock(seconds)` moves the chain's time forward; the whole test is reverted afterwards."""
    snapshot = w3.provider.make_request("evm_snapshot", [])["result"]

    def forward(seconds: int):
        w3.provider.make_request("evm_increaseTime", [seconds])
        w3.provider.make_request("evm_mine", [])

    yield forward
    assert w3.provider.make_request("evm_revert", [snapshot])["result"]


def test_unstake_then_withdraw_after_the_unbonding_period(clock, node, invoke, contracts):
    node_dir, address = node(drl=1000)
    assert invoke(node_dir, "node", "stake", "--role", "sampler", "--amount", "300").exit_code == 0
    early = invoke(node_dir, "node", "withdraw-stake", "--role", "sampler")
    assert early.exit_code == 1 and "nothing unbonding for sampler" in early.output

    too_much = invoke(node_dir, "node", "unstake", "--role", "sampler", "--amount", "301")
    assert too_much.exit_code == 1 and "available to unbond: 300 DRL" in too_much.output
    result = invoke(node_dir, "node", "unstake", "--role", "sampler", "--amount", "120")
    assert result.exit_code == 0, result.output
    assert "unbonding 120 DRL of sampler stake" in result.output
    info = contracts.stakes.functions.stakeOf(address, Role.SAMPLER).call()
    assert (info.staked, info.unbonding) == (180 * TOKEN, 120 * TOKEN)

    not_yet = invoke(node_dir, "node", "withdraw-stake", "--role", "sampler")
    assert not_yet.exit_code == 1 and "is unbonding for another" in not_yet.output
    clock(contracts.stakes.functions.unbondingPeriod().call() + 1)
    done = invoke(node_dir, "node", "withdraw-stake", "--role", "sampler")
    assert done.exit_code == 0, done.output
    assert contracts.token.functions.balanceOf(address).call() == 820 * TOKEN
    assert contracts.stakes.functions.stakeOf(address, Role.SAMPLER).call().unbonding == 0


def test_pause_takes_the_node_out_of_new_work_and_resume_brings_it_back(clock, node, invoke, contracts):
    node_dir, address = node(drl=1000)
    assert invoke(node_dir, "node", "stake", "--role", "validator", "--amount", "200").exit_code == 0
    assert invoke(node_dir, "node", "pause").exit_code == 0
    assert contracts.stakes.functions.isNodePaused(address).call()
    status = invoke(node_dir, "node", "status")
    assert "paused      yes" in status.output and "node paused" in status.output
    assert invoke(node_dir, "node", "resume").exit_code == 0
    assert not contracts.stakes.functions.isNodePaused(address).call()


def test_a_requester_claims_the_refund_of_a_task_nobody_took(clock, tmp_path, node, invoke, contracts):
    spec = tmp_path / "spec.json"
    spec.write_bytes(DEMO_CARTPOLE.to_bytes())
    requester_dir, requester = node(drl=500)
    submitted = invoke(requester_dir, "task", "submit", str(spec), "--bounty", "500", "--claim-window", "60")
    assert submitted.exit_code == 0, submitted.output
    task_id = int(re.search(r"^task (\d+) created", submitted.output, re.M).group(1))
    nothing = invoke(requester_dir, "wallet", "claim")
    assert nothing.exit_code == 1 and "can claim 0 DRL" in nothing.output

    not_yet = invoke(requester_dir, "task", "advance", str(task_id))
    assert not_yet.exit_code == 1 and "nothing to advance yet" in not_yet.output
    clock(61)  # the claim window passes with no slot filled: anyone may settle it as failed
    advanced = invoke(requester_dir, "task", "advance", str(task_id))
    assert advanced.exit_code == 0 and f"task {task_id} advanced" in advanced.output and "now failed" in advanced.output
    assert contracts.vault.functions.claimableOf(requester).call() == 500 * TOKEN

    part = invoke(requester_dir, "wallet", "claim", "--amount", "200")
    assert part.exit_code == 0 and "300 DRL left claimable" in part.output, part.output
    rest = invoke(requester_dir, "wallet", "claim")
    assert rest.exit_code == 0, rest.output
    assert contracts.token.functions.balanceOf(requester).call() == 500 * TOKEN
    assert contracts.vault.functions.claimableOf(requester).call() == 0


def test_a_requester_cancels_an_open_task_and_claims_the_bounty_back(clock, tmp_path, node, invoke, contracts):
    spec = tmp_path / "spec.json"
    spec.write_bytes(DEMO_CARTPOLE.to_bytes())
    requester_dir, requester = node(drl=300)
    other_dir, _ = node()
    submitted = invoke(requester_dir, "task", "submit", str(spec), "--bounty", "300")
    task_id = int(re.search(r"^task (\d+) created", submitted.output, re.M).group(1))
    not_theirs = invoke(other_dir, "task", "cancel", str(task_id))
    assert not_theirs.exit_code == 1 and f"belongs to {requester}" in not_theirs.output
    cancelled = invoke(requester_dir, "task", "cancel", str(task_id))
    assert cancelled.exit_code == 0, cancelled.output
    assert "cancelled" in invoke(requester_dir, "task", "status", str(task_id)).output
    again = invoke(requester_dir, "task", "cancel", str(task_id))
    assert again.exit_code == 1 and "is cancelled" in again.output
    assert invoke(requester_dir, "wallet", "claim").exit_code == 0
    assert contracts.token.functions.balanceOf(requester).call() == 300 * TOKEN


def test_recover_after_the_cooldown_puts_a_penalised_node_back_at_the_threshold(clock, node, invoke, contracts, admin):
    node_dir, address = node()
    fine = invoke(node_dir, "node", "recover")
    assert fine.exit_code == 1 and "not below the threshold" in fine.output
    rep = contracts.reputation
    reporter = rep.functions.REPORTER_ROLE().call()  # the registry's role; lent to admin inside the snapshot
    for tx in (rep.functions.grantRole(reporter, admin).transact({"from": admin}),
               rep.functions.record(address, 1).transact({"from": admin})):  # Outcome.Rejected: 70 -> 50
        assert contracts.w3.eth.wait_for_transaction_receipt(tx).status == 1
    early = invoke(node_dir, "node", "recover")
    assert early.exit_code == 1 and "reputation 50 (threshold 60): recovery opens in" in early.output
    clock(rep.functions.recoveryAvailableAt(address).call() - contracts.w3.eth.get_block("latest")["timestamp"])
    done = invoke(node_dir, "node", "recover")
    assert done.exit_code == 0 and "reputation 50 -> 60" in done.output, done.output

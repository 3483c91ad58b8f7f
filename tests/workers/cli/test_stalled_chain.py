"""A task on a chain that mines only on transactions (this module's anvil, like the demo's and the
dev chain docs/requesters.md starts): once the last worker slot is claimed nothing else is sent,
so the validator draw's seed block is never mined. `task advance` mines it and draws."""

import re

import pytest
from cli_support import TOKEN

from workers.chain.view import ChainView
from workers.protocol import Role, Status
from workers.spec import DEMO_CARTPOLE


@pytest.fixture
def spec_file(tmp_path):
    path = tmp_path / "spec.json"
    path.write_bytes(DEMO_CARTPOLE.to_bytes())
    return path


def _claim(w3, contracts, address: str, task_id: int, role: Role):
    w3.provider.make_request("anvil_impersonateAccount", [address])
    try:
        tx = contracts.registry.functions.claimSlot(task_id, role).transact({"from": address})
        assert w3.eth.wait_for_transaction_receipt(tx).status == 1
    finally:
        w3.provider.make_request("anvil_stopImpersonatingAccount", [address])


def test_advance_mines_the_seed_block_and_draws_the_validators(node, invoke, spec_file, contracts, w3):
    requester_dir, _ = node(drl=100)
    workers = {}
    for role, stake in ((Role.SAMPLER, 100), (Role.TRAINER, 500), (Role.VALIDATOR, 200)):
        node_dir, address = node(drl=stake)
        assert invoke(node_dir, "node", "stake", "--role", role.name.lower(), "--amount", str(stake)).exit_code == 0
        workers[role] = address
    created = invoke(requester_dir, "task", "submit", str(spec_file), "--bounty", "10", "--samplers", "1",
                     "--validators", "1")
    assert created.exit_code == 0, created.output
    task_id = int(re.search(r"^task (\d+) created", created.output, re.M).group(1))
    _claim(w3, contracts, workers[Role.SAMPLER], task_id, Role.SAMPLER)
    _claim(w3, contracts, workers[Role.TRAINER], task_id, Role.TRAINER)
    before = ChainView(contracts).task(task_id)
    assert before.status == Status.DRAWING and w3.eth.block_number < before.seed_block  # nothing comes after

    advanced = invoke(requester_dir, "task", "advance", str(task_id))
    assert advanced.exit_code == 0, advanced.output
    assert f"mined block {before.seed_block}" in advanced.output
    assert f"task {task_id}: 1 of 1 validators drawn" in advanced.output and "now active, round 1" in advanced.output
    after = ChainView(contracts).task(task_id)
    assert after.status == Status.ACTIVE and after.filled_validators == 1
    # drawn from the whole pool (earlier tests of this chain staked validators too): its stake is locked
    drawn = next(s for s in ChainView(contracts).slots(task_id) if s.role == Role.VALIDATOR)
    assert drawn.node and drawn.locked_stake == 200 * TOKEN
    assert contracts.stakes.functions.stakeOf(drawn.node, Role.VALIDATOR).call().locked >= 200 * TOKEN

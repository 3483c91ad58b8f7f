"""`decentrl task submit` refuses a bounty under the protocol's minimum for the task's shape
(SPECIFICATION.md 5.2) before it signs or sends anything, naming the minimum read from the chain."""

from workers.spec import DEMO_CARTPOLE


def test_submit_refuses_a_bounty_under_the_minimum_before_signing(node, invoke, tmp_path, contracts):
    spec = tmp_path / "cartpole.json"
    spec.write_bytes(DEMO_CARTPOLE.to_bytes())
    node_dir, address = node(drl=10)
    count = contracts.state.functions.taskCount().call()
    # 2 samplers + 1 trainer + 3 validators over 5 rounds: 30 slot-rounds at 0.01 DRL
    refused = invoke(node_dir, "task", "submit", str(spec), "--bounty", "0.29", "--rounds", "5")
    assert refused.exit_code == 1, refused.output
    assert ("--bounty 0.29 DRL is below the protocol's minimum 0.3 DRL for 2 samplers, 1 trainer and 3 "
            "validators over 5 rounds") in refused.output, refused.output
    assert contracts.state.functions.taskCount().call() == count
    assert contracts.front.functions.nonces(address).call() == 0  # nothing was signed and sent
    accepted = invoke(node_dir, "task", "submit", str(spec), "--bounty", "0.3", "--rounds", "5")
    assert accepted.exit_code == 0, accepted.output
    assert contracts.state.functions.taskCount().call() == count + 1

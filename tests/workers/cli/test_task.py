"""`decentrl task submit/status/result` against a real anvil with the protocol deployed."""

import json
import re

import pytest
from cli_support import TOKEN

from workers.spec import DEMO_CARTPOLE


@pytest.fixture
def spec_file(tmp_path):
    path = tmp_path / "cartpole.json"
    path.write_bytes(DEMO_CARTPOLE.to_bytes())
    return path


def bad_spec(tmp_path, change):
    d = DEMO_CARTPOLE.to_dict()
    change(d)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(d))
    return path


def test_submit_signs_stores_and_creates_the_task(node, invoke, spec_file, contracts):
    node_dir, address = node(drl=2000)
    result = invoke(node_dir, "task", "submit", str(spec_file), "--bounty", "1000", "--rounds", "3")
    assert result.exit_code == 0, result.output
    task_id = int(re.search(r"^task (\d+) created: bounty 1,000 DRL, 2 samplers, 3 validators, 3 rounds",
                            result.output, re.M).group(1))
    t = contracts.state.functions.taskOf(task_id).call()
    assert t.requester == address and t.bounty == 1000 * TOKEN and t.numRounds == 3
    assert t.specDigest == DEMO_CARTPOLE.digest()
    # the bounty moved through the signed permit; the spec is in the node's store under its CID
    assert contracts.token.functions.balanceOf(address).call() == 1000 * TOKEN
    from workers.spec import parse
    from workers.storage import open_store

    stored = open_store(None, node_dir / "store").get(t.specCid)
    assert parse(stored, digest=t.specDigest) == DEMO_CARTPOLE

    status = invoke(node_dir, "task", "status", str(task_id))
    assert status.exit_code == 0, status.output
    assert f"task {task_id}: open, requester {address}, bounty 1,000 DRL" in status.output
    assert "slots: samplers 0/2, trainer 0/1, validators 0/3" in status.output
    assert "round 0 of 3 (rounds start once every slot is filled)" in status.output
    assert status.output.count("(vacant)") == 6
    assert re.search(r"^until the claim deadline, in 3\d{3} s$", status.output, re.M)
    assert "waiting for claims of 2 sampler slots and the trainer slot" in status.output


def test_submit_through_a_relayer_costs_the_requester_no_eth(node, invoke, spec_file, contracts, w3):
    requester_dir, requester = node(drl=100, eth=0)
    relayer_dir, _ = node()
    result = invoke(requester_dir, "task", "submit", str(spec_file), "--bounty", "100",
                    "--relayer-dir", str(relayer_dir))
    assert result.exit_code == 0, result.output
    assert w3.eth.get_balance(requester) == 0
    assert contracts.token.functions.balanceOf(requester).call() == 0


@pytest.mark.parametrize("change, message", [
    (lambda d: d.update(env_id="NoSuchEnv-v9"), "env_id: "),
    (lambda d: d["ppo"].update(learning_rate=-1.0), "ppo.learning_rate: "),
    (lambda d: d["rollout"].update(steps_per_shard="many"), "rollout.steps_per_shard: "),
    (lambda d: d.pop("seed"), "seed"),
])
def test_bad_specs_name_the_field(tmp_path, node, invoke, change, message):
    node_dir, _ = node(drl=100)
    path = bad_spec(tmp_path, change)
    result = invoke(node_dir, "task", "submit", str(path), "--bounty", "10")
    assert result.exit_code == 1
    assert f"Error: bad spec {path}: {message}" in result.output, result.output


def test_spec_that_is_not_json(tmp_path, node, invoke):
    node_dir, _ = node(drl=100)
    path = tmp_path / "x.json"
    path.write_text("{not json")
    result = invoke(node_dir, "task", "submit", str(path), "--bounty", "10")
    assert result.exit_code == 1 and "(bytes): not valid UTF-8 JSON" in result.output


def test_insufficient_funds(node, invoke, spec_file, contracts):
    node_dir, address = node(drl=5)
    result = invoke(node_dir, "task", "submit", str(spec_file), "--bounty", "10")
    assert result.exit_code == 1
    assert f"insufficient funds: requester {address} holds 5 DRL, the bounty is 10 DRL" in result.output
    no_gas_dir, poor = node(drl=50, eth=0)
    result = invoke(no_gas_dir, "task", "submit", str(spec_file), "--bounty", "10")
    assert result.exit_code == 1 and f"{poor} has no ETH" in result.output
    assert contracts.front.functions.nonces(address).call() == 0


# ipfshttpclient 0.7.0 passes urllib3 2 a deprecated `strict` argument; harmless until urllib3 3
@pytest.mark.filterwarnings("ignore:The 'strict' parameter:FutureWarning")
def test_an_unreachable_ipfs_node_is_named_and_nothing_is_sent(node, invoke, spec_file, contracts):
    import socket

    node_dir, address = node(drl=100)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        api = f"/ip4/127.0.0.1/tcp/{probe.getsockname()[1]}/http"  # a free port: no IPFS node there
    result = invoke(node_dir, "task", "submit", str(spec_file), "--bounty", "10", "--ipfs-api", api)
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert f"Error: cannot publish the task's spec: IPFS node at {api} is unreachable (add)" in result.output
    assert contracts.front.functions.nonces(address).call() == 0  # nothing signed was sent


def test_status_follow_follows_the_task_until_it_ends(node, invoke, spec_file, anvil, deployment_file):
    import threading
    import time

    import click

    from workers.cli.common import Context
    from workers.cli.task import follow_task

    node_dir, _ = node(drl=100)
    submitted = invoke(node_dir, "task", "submit", str(spec_file), "--bounty", "10", "--rounds", "2")
    task_id = int(re.search(r"^task (\d+) created", submitted.output, re.M).group(1))
    outcome = []

    def follow():
        try:
            follow_task(Context(anvil.http_url, str(deployment_file), None, str(node_dir)), task_id, 0.05)
            outcome.append("returned")
        except click.ClickException as exc:
            outcome.append(exc.message)

    follower = threading.Thread(target=follow)
    follower.start()
    time.sleep(0.5)
    assert follower.is_alive() and outcome == []  # an open task: still following
    cancelled = invoke(node_dir, "task", "cancel", str(task_id))
    assert cancelled.exit_code == 0, cancelled.output
    follower.join(10)
    # the command exits 1 with it
    assert outcome == [f"task {task_id} cancelled by its requester before its rounds started; the unspent bounty "
                       "was refunded (decentrl wallet claim)"]


def test_wrong_network(node, invoke, spec_file, deployment_file, tmp_path):
    node_dir, _ = node(drl=100)
    record = json.loads(deployment_file.read_text())
    record["chainId"] = 11155111
    other = tmp_path / "sepolia.json"
    other.write_text(json.dumps(record))
    result = invoke(node_dir, "task", "submit", str(spec_file), "--bounty", "10", deployment=other)
    assert result.exit_code == 1
    assert "wrong network: deployment is for chain 11155111" in result.output


def test_revert_is_decoded(node, invoke, spec_file, contracts, admin, w3):
    """A revert the CLI cannot foresee (its own bounds checks come first) is shown by name."""
    node_dir, _ = node(drl=100)
    registry = contracts.registry
    assert w3.eth.wait_for_transaction_receipt(registry.functions.pause().transact({"from": admin})).status == 1
    try:
        result = invoke(node_dir, "task", "submit", str(spec_file), "--bounty", "10")
    finally:
        assert w3.eth.wait_for_transaction_receipt(registry.functions.unpause().transact({"from": admin})).status == 1
    assert result.exit_code == 1
    assert ("Error: createTaskWithSig reverted: EnforcedPause(): the protocol is paused by its guardian"
            in result.output), result.output


def test_status_and_result_of_unknown_or_unfinished_tasks(node, invoke, spec_file, tmp_path):
    node_dir, _ = node(drl=100)
    missing = invoke(node_dir, "task", "status", "999")
    assert missing.exit_code == 1 and "task 999 not found" in missing.output
    created = invoke(node_dir, "task", "submit", str(spec_file), "--bounty", "10")
    task_id = re.search(r"^task (\d+) created", created.output, re.M).group(1)
    result = invoke(node_dir, "task", "result", task_id, "-o", str(tmp_path / "out"))
    assert result.exit_code == 1 and f"task {task_id} has no checkpoint yet (status open)" in result.output


def test_a_task_nobody_filled_says_how_to_end_it_then_that_it_never_ran(node, invoke, spec_file, w3):
    node_dir, _ = node(drl=100)
    created = invoke(node_dir, "task", "submit", str(spec_file), "--bounty", "10", "--claim-window", "60")
    task_id = re.search(r"^task (\d+) created", created.output, re.M).group(1)
    w3.provider.make_request("evm_increaseTime", [90])
    w3.provider.make_request("evm_mine", [])
    waiting = invoke(node_dir, "task", "status", task_id)
    assert re.search(rf"claim deadline passed \d+ s ago: `decentrl task advance {task_id}` \(anyone may send it\) "
                     "fails the task and refunds its bounty", waiting.output), waiting.output
    assert invoke(node_dir, "task", "advance", task_id).exit_code == 0
    failed = invoke(node_dir, "task", "status", task_id)
    assert f"task {task_id}: failed" in failed.output and "failed before its first round" in failed.output
    assert "ended in round" not in failed.output, failed.output
    followed = invoke(node_dir, "task", "status", task_id, "--follow", "--interval", "0.05")
    assert followed.exit_code == 1
    assert f"task {task_id} failed before its first round" in followed.output, followed.output


def test_amounts_under_a_ten_thousandth_of_a_drl_are_shown_in_wei():
    from workers.cli.common import fmt_drl

    assert fmt_drl(1) == "1 wei" and fmt_drl(99_999_999_999_999) == "99,999,999,999,999 wei"
    assert fmt_drl(10**14) == "0.0001 DRL" and fmt_drl(0) == "0 DRL" and fmt_drl(1500 * TOKEN) == "1,500 DRL"


def test_status_follow_waits_out_a_chain_node_that_does_not_answer(monkeypatch, capsys):
    from types import SimpleNamespace

    from workers.cli import task as task_cli
    from workers.protocol import Phase, Status

    def at(status, round_=0):
        return SimpleNamespace(status=status, round=round_, num_rounds=2, phase=Phase.TRAIN_COMMIT)

    answers = [at(Status.ACTIVE), ConnectionRefusedError(111, "refused"), at(Status.ACTIVE, 1), at(Status.COMPLETED, 1)]

    def look(obj, task_id):
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return None, answer

    monkeypatch.setattr(task_cli, "_task", look)
    task_cli.follow_task(None, 7, 0.01)
    assert answers == []
    assert "task 7 completed after 2 rounds; its policy: decentrl task result 7 -o DIR" in capsys.readouterr().out


def test_inputs_the_cli_cannot_use_are_errors_not_tracebacks(node, invoke, spec_file, tmp_path, deployment_file):
    node_dir, _ = node(drl=100)
    cases = [
        (["task", "submit", str(spec_file), "--bounty", "NaN"], 2,
         "Invalid value for '--bounty': 'NaN' is not a number"),
        (["task", "submit", str(spec_file), "--bounty", "inf"], 2, "'inf' is not a number of DRL"),
        (["task", "status", str(2**256)], 2, "is not in the range 0<=x<="),
        (["task", "spec", "-o", "/proc/decentrl/spec.json"], 1, "cannot write the spec"),
    ]
    for args, code, message in cases:
        result = invoke(node_dir, *args)
        assert result.exit_code == code and isinstance(result.exception, SystemExit), (args, result.output)
        assert message in result.output, (args, result.output)

    broken = tmp_path / "broken.json"
    for text, message in [("{not json", "cannot be read as JSON"), ("[]", "is not a deployment"),
                          (deployment_file.read_text().replace('"TaskRegistry": "0x', '"TaskRegistry": "0x12'),
                           "has an address that is not one")]:
        broken.write_text(text)
        result = invoke(node_dir, "task", "status", "1", deployment=broken)
        assert result.exit_code == 1 and isinstance(result.exception, SystemExit), result.output
        assert f"deployment record {broken} {message}" in result.output, result.output


def test_explorer_on_a_taken_port_is_one_error(node, invoke):
    import socket

    node_dir, _ = node()
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = invoke(node_dir, "explorer", "--port", str(port))
    assert result.exit_code == 1, result.output
    assert result.output == f"Error: cannot serve on 127.0.0.1:{port}: Address already in use\n"

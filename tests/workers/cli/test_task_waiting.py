"""`decentrl task status` says what a task waits for and until when, and why nodes will not claim a
task whose spec they cannot use (workers.chain.waiting, workers.spec_fetch), against the real chain."""

import re

import pytest
from cli_support import TOKEN

from workers.protocol import TaskParams
from workers.spec import DEMO_CARTPOLE
from workers.storage import EmbeddedStore, compute

CIDV0 = "QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG"


def create_raw_task(w3, contracts, admin, spec_cid, spec_digest):
    """A task created straight on the registry, as any client could (no check of its spec)."""
    params = TaskParams(spec_cid=spec_cid, spec_digest=spec_digest, bounty=100 * TOKEN, claim_window=600)
    for call in (contracts.token.functions.approve(contracts.registry.address, params.bounty),
                 contracts.registry.functions.createTask(params.as_tuple())):
        receipt = w3.eth.wait_for_transaction_receipt(call.transact({"from": admin}))
        assert receipt.status == 1
    return contracts.state.functions.taskCount().call()


@pytest.fixture
def requester(node):
    return node()[0]


def test_an_open_task_waits_for_its_unfilled_slots_until_the_claim_deadline(requester, invoke, w3, contracts,
                                                                           admin):
    spec = DEMO_CARTPOLE.to_bytes()
    cid = EmbeddedStore(requester / "store").put(spec)
    task_id = create_raw_task(w3, contracts, admin, cid, DEMO_CARTPOLE.digest())
    result = invoke(requester, "task", "status", str(task_id))
    assert result.exit_code == 0, result.output
    assert "waiting for claims of 2 sampler slots and the trainer slot\n" in result.output
    assert re.search(r"^until the claim deadline, in (5\d\d|600) s$", result.output, re.M), result.output
    assert "nodes cannot use" not in result.output and "could not fetch" not in result.output


def test_past_the_claim_deadline_status_names_task_advance(requester, invoke, w3, contracts, admin):
    cid = EmbeddedStore(requester / "store").put(DEMO_CARTPOLE.to_bytes())
    task_id = create_raw_task(w3, contracts, admin, cid, DEMO_CARTPOLE.digest())
    snapshot = w3.provider.make_request("evm_snapshot", [])["result"]
    try:
        w3.provider.make_request("evm_increaseTime", [700])
        w3.provider.make_request("evm_mine", [])
        result = invoke(requester, "task", "status", str(task_id))
    finally:
        assert w3.provider.make_request("evm_revert", [snapshot])["result"] is True
    assert re.search(rf"^the claim deadline passed \d+ s ago: `decentrl task advance {task_id}` \(anyone may send "
                     r"it\) fails the task and refunds its bounty$", result.output, re.M), result.output


def test_a_cidv0_spec_is_refused_with_the_nodes_reason(requester, invoke, w3, contracts, admin):
    task_id = create_raw_task(w3, contracts, admin, CIDV0, DEMO_CARTPOLE.digest())
    result = invoke(requester, "task", "status", str(task_id))
    assert result.exit_code == 0, result.output
    assert (f"nodes cannot use this task's spec: '{CIDV0}' is not a base32 CIDv1 string (a CIDv0; add with "
            "`--cid-version 1`) — it will not be claimed") in result.output


def test_a_spec_that_does_not_match_its_digest_is_refused(requester, invoke, w3, contracts, admin):
    cid = EmbeddedStore(requester / "store").put(DEMO_CARTPOLE.to_bytes())
    task_id = create_raw_task(w3, contracts, admin, cid, b"\x11" * 32)
    result = invoke(requester, "task", "status", str(task_id))
    assert re.search(r"^nodes cannot use this task's spec: .*the task's specDigest is (11)+: wrong or corrupted "
                     r"spec file — it will not be claimed$", result.output, re.M), result.output


def test_a_spec_the_store_does_not_hold_says_which_store_failed(requester, invoke, w3, contracts, admin):
    cid = compute(b"never published")
    task_id = create_raw_task(w3, contracts, admin, cid, DEMO_CARTPOLE.digest())
    result = invoke(requester, "task", "status", str(task_id))
    assert result.exit_code == 0, result.output
    assert f"could not fetch spec {cid} from the embedded store at {requester / 'store'}: " in result.output
    assert "nodes cannot use" not in result.output


def test_spec_put_publishes_a_checked_spec_without_a_task(requester, invoke, contracts, tmp_path):
    path = tmp_path / "spec.json"
    path.write_bytes(DEMO_CARTPOLE.to_bytes())
    before = contracts.state.functions.taskCount().call()
    result = invoke(requester, "spec", "put", str(path))
    assert result.exit_code == 0, result.output
    cid = compute(DEMO_CARTPOLE.to_bytes())
    assert result.output == f"spec {cid}\ndigest 0x{DEMO_CARTPOLE.digest().hex()}\n"
    assert EmbeddedStore(requester / "store").get(cid) == DEMO_CARTPOLE.to_bytes()
    assert contracts.state.functions.taskCount().call() == before


def test_spec_put_refuses_a_bad_spec_and_publishes_nothing(requester, invoke, tmp_path):
    path = tmp_path / "spec.json"
    path.write_text(DEMO_CARTPOLE.to_bytes().decode().replace('"CartPole-v1"', '"NoSuchEnv-v9"'))
    result = invoke(requester, "spec", "put", str(path))
    assert result.exit_code == 1
    assert f"Error: bad spec {path}: env_id: " in result.output
    assert not (requester / "store" / "blocks").exists()


def test_task_list_shows_the_requesters_own_tasks(node, invoke, tmp_path, w3, contracts, admin):
    requester, address = node(drl=300)
    other, _ = node(drl=300)
    path = tmp_path / "spec.json"
    path.write_bytes(DEMO_CARTPOLE.to_bytes())
    mine = [int(re.search(r"^task (\d+) created", invoke(requester, "task", "submit", str(path), "--bounty",
                                                         "100", "--rounds", "2").output, re.M).group(1))
            for _ in range(2)]
    assert invoke(other, "task", "submit", str(path), "--bounty", "100").exit_code == 0
    assert invoke(requester, "task", "cancel", str(mine[1])).exit_code == 0
    listed = invoke(requester, "task", "list")
    assert listed.exit_code == 0, listed.output
    rows = [line.split() for line in listed.output.splitlines()[1:] if line[:6].strip().isdigit()]
    assert rows == [[str(mine[0]), "open", "0/2", "100", "DRL", compute(DEMO_CARTPOLE.to_bytes())]]
    assert "(1 ended task not shown: --all)" in listed.output
    everything = invoke(other, "task", "list", "--all", "--requester", address)
    assert [line.split()[:2] for line in everything.output.splitlines()[1:]] == [[str(mine[0]), "open"],
                                                                                [str(mine[1]), "cancelled"]]


def test_the_explorer_shows_what_the_task_waits_for_and_why_its_spec_is_refused(requester, w3, contracts, admin):
    from workers.explorer.api import ExplorerApi

    task_id = create_raw_task(w3, contracts, admin, CIDV0, DEMO_CARTPOLE.digest())
    api = ExplorerApi(contracts, EmbeddedStore(requester / "store"))
    task = api.task(task_id)
    assert task["spec_problem"].startswith("nodes cannot use this task's spec: ")
    assert task["spec_problem"].endswith(" — it will not be claimed")
    assert task["waiting"]["waiting_for"] == "claims of 2 sampler slots and the trainer slot"
    assert task["waiting"]["lines"][0] == "waiting for claims of 2 sampler slots and the trainer slot"
    assert [(p["role"], p["slot"], p["node"]) for p in task["waiting"]["pending"]] == [
        ("sampler", 0, None), ("sampler", 1, None), ("trainer", 0, None)]

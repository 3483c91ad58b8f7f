"""`decentrl dispute open / prove / status / claim` on a real network: anvil with the protocol
deployed as every path deploys it (disputes on, 1 h dispute window), a Redis, a shared store, and
one round of a one-validator task played by the fraud matrix's nodes (tests/workers/fraud):
sampler1 stores a shard whose episode 1 carries wrong seeds (a fault the chain checks) and the
only validator accepts everything, so both shards and the checkpoint are Accepted.

Each test starts from that round (an anvil snapshot, reverted after it) and acts through the
command line as a fresh disputer, or as a node of the task."""
import dataclasses
import itertools
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner

HERE = Path(__file__).resolve().parent
if str(HERE.parent / "fraud") not in sys.path:
    sys.path.append(str(HERE.parent / "fraud"))

import fraud_faults as faults  # noqa: E402
from fraud_world import Cheat, FraudNet, outcome, play_round, start_task  # noqa: E402

from workers.amounts import fmt_drl  # noqa: E402
from workers.chain.keystore import PASSWORD_ENV  # noqa: E402
from workers.cli import cli  # noqa: E402
from workers.localnet.chain import TOKEN  # noqa: E402
from workers.protocol import DisputeStatus, Phase, Role, Status, Verdict  # noqa: E402
from workers.roles import sampler as sampler_role  # noqa: E402
from workers.roles.fault_proof import Fault  # noqa: E402

BAD_EPISODE = 1
MIN_BOND = 100 * TOKEN


def wrong_seeds_in_one_episode(spec, task_id, round_, shard, policy_bytes):
    """Rolls out honestly, then labels episode BAD_EPISODE with another env seed than its
    coordinates derive, and bundles what it stores under the root of what it stores."""
    honest = faults.HONEST_SHARD(spec, task_id, round_, shard, policy_bytes)
    episodes = [dataclasses.replace(ep, env_seed=ep.env_seed ^ 1) if i == BAD_EPISODE else ep
                for i, ep in enumerate(honest.episodes)]
    return sampler_role.bundle_shard(task_id, round_, shard, episodes)


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    net = FraudNet(tmp_path_factory.mktemp("dispute-cli"))
    try:
        for name, role in [("sampler0", "sampler"), ("sampler1", "sampler"), ("trainer", "trainer"),
                           ("liar", "validator")]:
            net.add_node(name, role)
        nodes = {"sampler": [net.node("sampler0"), net.node("sampler1")], "trainer": [net.node("trainer")],
                 "validator": [net.node("liar")]}
        task_id = net.create_task(num_validators=1)
        start_task(net, task_id, nodes["sampler"], nodes["trainer"][0], nodes["validator"])
        block = net.w3.eth.block_number + 1
        play_round(net, task_id, nodes,
                   Cheat("sampler1", faults.SHARD, wrong_seeds_in_one_episode, phases=(Phase.SAMPLE_COMMIT,)),
                   Cheat("liar", faults.VERIFY, faults.accept_everything, phases=(Phase.ATTEST,)))
        seen = outcome(net, task_id, block)
        assert seen.task.status == Status.COMPLETED
        state = net.deployment.state.functions
        slot = {name: state.membershipOf(task_id, net.node(name).address).call().slot
                for name in ("sampler0", "sampler1")}
        for name in ("sampler0", "sampler1"):
            assert seen.verdicts[(net.node(name).address, Role.SAMPLER)] == Verdict.ACCEPTED
        yield SimpleNamespace(net=net, task_id=task_id, seen=seen, slot=slot, block=block, names=itertools.count())
    finally:
        net.stop()


@pytest.fixture(autouse=True)
def snapshot(world):
    """Every test starts from the played round."""
    w3 = world.net.w3
    taken = w3.provider.make_request("evm_snapshot", [])["result"]
    yield
    w3.provider.make_request("evm_revert", [taken])


def run(world, node_dir, *args, rpc=None):
    net = world.net
    return CliRunner().invoke(cli, ["--rpc", rpc or net.anvil.http_url, "--deployment", str(net.deployment_path),
                                    "--node-dir", str(node_dir), "--store-dir", str(net.store_dir), *args],
                              env={PASSWORD_ENV: net.password, "REDIS_URL": None}, catch_exceptions=False)


def disputer(world, drl: int = 1_000):
    """A fresh account with a keystore (ETH and `drl` DRL)."""
    return world.net.account(f"disputer{next(world.names)}", drl=drl)


def open_dispute(world, who, name: str, *extra) -> int:
    out = run(world, who.node_dir, "dispute", "open", str(world.task_id), "1", "--role", "sampler", "--slot",
              str(world.slot[name]), *extra)
    assert out.exit_code == 0, out.output
    return world.net.deployment.state.functions.disputeCount().call()


def pass_window(world) -> None:
    net, state = world.net, world.net.deployment.state.functions
    end = state.windowEndOf(world.task_id, 0).call()
    net.w3.provider.make_request("evm_increaseTime",
                                 [end - net.deployment.registry.functions.protocolTime().call() + 1])
    net.mine()


# -- open --------------------------------------------------------------------------------------

def test_open_approves_and_posts_the_minimum_bond(world):
    d = world.net.deployment
    who = disputer(world)
    before = d.token.functions.balanceOf(who.address).call()
    out = run(world, who.node_dir, "dispute", "open", str(world.task_id), "1", "--role", "sampler", "--slot",
              str(world.slot["sampler0"]))
    assert out.exit_code == 0, out.output
    dispute_id = d.state.functions.disputeCount().call()
    assert f"dispute {dispute_id} opened: task {world.task_id} round 1 sampler slot {world.slot['sampler0']}, " \
           "verdict accepted disputed, evidence whole, bond 100 DRL" in out.output
    assert "dispute window of the round ends" in out.output
    assert f"decentrl dispute status {dispute_id}" in out.output
    assert f"decentrl dispute prove {dispute_id}" in out.output
    dispute = d.state.functions.disputeOf(dispute_id).call()
    assert (dispute.disputer, dispute.bond, dispute.status) == (who.address, MIN_BOND, DisputeStatus.DRAWING)
    assert (dispute.taskId, dispute.round, dispute.role, dispute.slot) == (world.task_id, 0, Role.SAMPLER,
                                                                            world.slot["sampler0"])
    assert before - d.token.functions.balanceOf(who.address).call() == MIN_BOND


def test_open_with_an_existing_allowance_sends_only_the_dispute(world):
    d = world.net.deployment
    who = disputer(world)
    who.sender.send(d.token.functions.approve(d.disputes.address, 150 * TOKEN))
    nonce = world.net.w3.eth.get_transaction_count(who.address)
    open_dispute(world, who, "sampler0", "--bond", "150")
    assert world.net.w3.eth.get_transaction_count(who.address) == nonce + 1
    dispute_id = d.state.functions.disputeCount().call()
    assert d.state.functions.disputeOf(dispute_id).call().bond == 150 * TOKEN


def test_open_states_the_episode_it_says_failed(world):
    d = world.net.deployment
    dispute_id = open_dispute(world, disputer(world), "sampler1", "--evidence", "episode", "--item", str(BAD_EPISODE))
    dispute = d.state.functions.disputeOf(dispute_id).call()
    assert (dispute.evidence, dispute.item) == (1, BAD_EPISODE)
    stated = d.disputes.events.EvidenceStated().get_logs(from_block=world.block,
                                                         argument_filters={"disputeId": dispute_id})
    assert [(e.args.evidence, e.args.item) for e in stated] == [(1, BAD_EPISODE)]


def test_open_refuses_a_bond_below_the_minimum(world):
    who = disputer(world)
    out = run(world, who.node_dir, "dispute", "open", str(world.task_id), "1", "--role", "sampler", "--slot", "0",
              "--bond", "50")
    assert out.exit_code == 1
    assert "bond too low: 50 DRL; post at least the minimum bond of 100 DRL (--bond)" in out.output
    assert world.net.deployment.state.functions.disputeCount().call() == 0


def test_open_after_the_window_says_the_verdicts_are_final(world):
    pass_window(world)
    out = run(world, disputer(world).node_dir, "dispute", "open", str(world.task_id), "1", "--role", "trainer",
              "--slot", "0")
    assert out.exit_code == 1
    assert f"the dispute window of task {world.task_id} round 1 closed at" in out.output
    assert "its verdicts are final" in out.output


def test_open_a_disputed_verdict_again_is_refused_with_the_decoded_error(world):
    open_dispute(world, disputer(world), "sampler0")
    out = run(world, disputer(world).node_dir, "dispute", "open", str(world.task_id), "1", "--role", "sampler",
              "--slot", str(world.slot["sampler0"]))
    assert out.exit_code == 1
    assert "openDispute reverted: AlreadyDisputed(" in out.output
    assert "decentrl dispute status" in out.output  # the hint says where to look


def test_open_bad_input_says_what_to_fix(world):
    who = disputer(world)
    unknown = run(world, who.node_dir, "dispute", "open", "99", "1", "--role", "sampler", "--slot", "0")
    assert unknown.exit_code == 1 and "task 99 not found" in unknown.output
    beyond = run(world, who.node_dir, "dispute", "open", str(world.task_id), "2", "--role", "sampler", "--slot", "0")
    assert beyond.exit_code == 1 and "has rounds 1..1 and sampler slots 0..1" in beyond.output
    no_item = run(world, who.node_dir, "dispute", "open", str(world.task_id), "1", "--role", "sampler", "--slot",
                  "0", "--evidence", "episode")
    assert no_item.exit_code == 2 and "--evidence episode needs --item N" in no_item.output
    wrong_role = run(world, who.node_dir, "dispute", "open", str(world.task_id), "1", "--role", "sampler",
                     "--slot", "0", "--evidence", "chunk", "--item", "0")
    assert wrong_role.exit_code == 2 and "--evidence chunk is a trainer's, not a sampler's" in wrong_role.output
    too_far = run(world, who.node_dir, "dispute", "open", str(world.task_id), "1", "--role", "sampler", "--slot",
                  "0", "--evidence", "episode", "--item", str(2**32))
    assert too_far.exit_code == 1 and "openDispute reverted: InvalidEvidence(" in too_far.output
    assert "a sampler's evidence is an episode" in too_far.output


def test_open_without_funds_for_the_bond(world):
    out = run(world, disputer(world, drl=10).node_dir, "dispute", "open", str(world.task_id), "1", "--role",
              "sampler", "--slot", "0")
    assert out.exit_code == 1 and "insufficient funds" in out.output and "the bond is 100 DRL" in out.output


def test_an_unreachable_rpc_is_one_line(world):
    out = run(world, disputer(world).node_dir, "dispute", "status", "1", rpc="http://127.0.0.1:9")
    assert out.exit_code == 1
    assert out.output.strip() == "Error: cannot reach the RPC at http://127.0.0.1:9: ConnectionRefusedError"


# -- prove -------------------------------------------------------------------------------------

def test_prove_settles_the_dispute_with_the_faulty_episode(world):
    d = world.net.deployment
    who = disputer(world)
    dispute_id = open_dispute(world, who, "sampler1")
    out = run(world, who.node_dir, "dispute", "prove", str(dispute_id))
    assert out.exit_code == 0, out.output
    assert f"episode {BAD_EPISODE} of task {world.task_id} round 1 sampler slot {world.slot['sampler1']}, " \
           "verdict accepted: wrong seeds proven" in out.output
    assert f"dispute {dispute_id} upheld" in out.output
    assert d.state.functions.disputeOf(dispute_id).call().status == DisputeStatus.UPHELD
    proven = d.disputes.events.FaultProven().get_logs(from_block=world.block)
    assert [(e.args.disputeId, e.args.prover, e.args.fault) for e in proven] == [
        (dispute_id, who.address, Fault.WRONG_SEEDS)]


def test_prove_finds_nothing_in_an_honest_shard(world):
    who = disputer(world)
    dispute_id = open_dispute(world, who, "sampler0")
    out = run(world, who.node_dir, "dispute", "prove", str(dispute_id))
    assert out.exit_code == 1
    assert "no episode of this shard has a fault the chain can check; the jury decides" in out.output
    assert world.net.deployment.state.functions.disputeOf(dispute_id).call().status == DisputeStatus.DRAWING


def test_prove_a_given_episode_without_a_fault(world):
    who = disputer(world)
    dispute_id = open_dispute(world, who, "sampler1")
    out = run(world, who.node_dir, "dispute", "prove", str(dispute_id), "--item", "0")
    assert out.exit_code == 1
    assert "episode 0 of this shard has no fault the chain can check; the jury decides" in out.output
    given = run(world, who.node_dir, "dispute", "prove", str(dispute_id), "--item", str(BAD_EPISODE))
    assert given.exit_code == 0, given.output
    assert f"episode {BAD_EPISODE} " in given.output and "wrong seeds proven" in given.output


def test_prove_refuses_what_cannot_be_proven(world):
    who = disputer(world)
    unknown = run(world, who.node_dir, "dispute", "prove", "7")
    assert unknown.exit_code == 1 and "dispute 7 not found (no dispute exists yet)" in unknown.output
    out = run(world, who.node_dir, "dispute", "open", str(world.task_id), "1", "--role", "trainer", "--slot", "0")
    assert out.exit_code == 0, out.output
    trainer = run(world, who.node_dir, "dispute", "prove", "1")
    assert trainer.exit_code == 1 and "only a sampler's episode can be proven on-chain" in trainer.output
    dispute_id = open_dispute(world, who, "sampler1")
    assert run(world, who.node_dir, "dispute", "prove", str(dispute_id)).exit_code == 0
    settled = run(world, who.node_dir, "dispute", "prove", str(dispute_id))
    assert settled.exit_code == 1 and f"dispute {dispute_id} is settled (upheld)" in settled.output


def test_prove_without_the_store_says_where_to_fetch_from(world):
    who = disputer(world)
    dispute_id = open_dispute(world, who, "sampler1")
    out = run(world, who.node_dir, "dispute", "prove", str(dispute_id), "--ipfs-api", "/ip4/127.0.0.1/tcp/9",
              "--timeout", "2")
    assert out.exit_code == 1
    assert "cannot fetch the shard" in out.output
    assert "(give --ipfs-api or --store-dir where it is stored)" in out.output


# -- status ------------------------------------------------------------------------------------

def test_status_shows_the_dispute_on_one_screen(world):
    who = disputer(world)
    dispute_id = open_dispute(world, who, "sampler1", "--evidence", "episode", "--item", str(BAD_EPISODE))
    out = run(world, who.node_dir, "dispute", "status", str(dispute_id))
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    assert lines[0] == f"dispute {dispute_id}: drawing"
    cheat = world.net.node("sampler1").address
    assert f"  disputed    task {world.task_id} round 1 sampler slot {world.slot['sampler1']}, verdict accepted " \
           f"(submitter {cheat})" in lines
    assert f"  evidence    episode {BAD_EPISODE}" in lines
    assert f"  disputer    {who.address}, bond 100 DRL" in lines
    assert any(line.startswith("  round       dispute window ends ") and line.endswith("1 dispute(s) of the round open")
               for line in lines)
    assert "  jurors      0 of 3 drawn; draw seeded by block" in out.output
    assert lines[-1] == "  outcome     pending"

    assert run(world, who.node_dir, "dispute", "prove", str(dispute_id)).exit_code == 0
    after = run(world, who.node_dir, "dispute", "status", str(dispute_id)).output.splitlines()
    assert after[0] == f"dispute {dispute_id}: upheld"
    assert after[-1].startswith("  outcome     upheld: the verdict was wrong")


def test_status_of_a_task_lists_its_disputes(world):
    who = disputer(world)
    assert run(world, who.node_dir, "dispute", "status", "--task", str(world.task_id)).output.strip() == \
        f"task {world.task_id}: no dispute"
    first = open_dispute(world, who, "sampler0")
    second = open_dispute(world, who, "sampler1")
    out = run(world, who.node_dir, "dispute", "status", "--task", str(world.task_id))
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    assert [line.split(":")[0] for line in lines] == [f"dispute {first}", f"dispute {second}"]
    assert all("drawing" in line and "bond 100 DRL" in line for line in lines)


def test_status_needs_a_dispute_or_a_task(world):
    out = run(world, disputer(world).node_dir, "dispute", "status")
    assert out.exit_code == 2 and "give a DISPUTE_ID or --task T" in out.output
    unknown = run(world, disputer(world).node_dir, "dispute", "status", "5")
    assert unknown.exit_code == 1 and "dispute 5 not found" in unknown.output


# -- claim -------------------------------------------------------------------------------------

def test_claim_withdraws_the_bond_and_award_of_an_upheld_dispute(world):
    d = world.net.deployment
    who = disputer(world)
    dispute_id = open_dispute(world, who, "sampler1")
    assert run(world, who.node_dir, "dispute", "prove", str(dispute_id)).exit_code == 0
    owed = d.state.functions.owedOf(who.address).call()
    assert owed > MIN_BOND  # the bond back and an award from the slashed sampler
    before = d.token.functions.balanceOf(who.address).call()
    out = run(world, who.node_dir, "dispute", "claim")
    assert out.exit_code == 0, out.output
    assert "withdrew " in out.output and "owed by the DisputeManager" in out.output
    assert d.token.functions.balanceOf(who.address).call() - before == owed
    assert d.state.functions.owedOf(who.address).call() == 0


def test_claim_releases_held_pay_once_the_window_passed(world):
    d = world.net.deployment
    node = world.net.node("sampler0")
    earned = world.seen.earned[node.address]
    vault = d.vault.functions
    assert vault.heldOf(world.task_id, 0, node.address).call() == earned > 0
    early = run(world, node.node_dir, "dispute", "claim")
    assert early.exit_code == 0, early.output
    assert f"{fmt_drl(earned)} of task {world.task_id} round 1 held for its dispute window, until " in early.output
    assert vault.heldOf(world.task_id, 0, node.address).call() == earned
    nothing_yet = run(world, node.node_dir, "wallet", "claim")
    assert nothing_yet.exit_code == 1 and "can claim 0 DRL" in nothing_yet.output
    assert "`decentrl dispute claim` shows it and releases what is due" in nothing_yet.output

    pass_window(world)
    out = run(world, node.node_dir, "dispute", "claim")
    assert out.exit_code == 0, out.output
    assert f"released {fmt_drl(earned)} of task {world.task_id} round 1 (tx " in out.output
    assert "`decentrl wallet claim` withdraws it" in out.output
    assert vault.heldOf(world.task_id, 0, node.address).call() == 0
    assert vault.claimableOf(node.address).call() == earned
    before = d.token.functions.balanceOf(node.address).call()
    assert run(world, node.node_dir, "wallet", "claim").exit_code == 0
    assert d.token.functions.balanceOf(node.address).call() - before == earned


def test_claim_waits_for_an_open_dispute_of_the_round(world):
    d = world.net.deployment
    node = world.net.node("trainer")
    open_dispute(world, disputer(world), "sampler0")
    pass_window(world)
    out = run(world, node.node_dir, "dispute", "claim")
    assert out.exit_code == 0, out.output
    assert "held: 1 dispute(s) of the round still open" in out.output
    assert d.vault.functions.heldOf(world.task_id, 0, node.address).call() == world.seen.earned[node.address]


def test_claim_with_nothing_to_collect(world):
    who = disputer(world)
    out = run(world, who.node_dir, "dispute", "claim")
    assert out.exit_code == 0, out.output
    assert out.output.strip() == f"nothing owed to {who.address} and no pay held"

"""A whole CartPole task (2 rounds, reduced steps) run by real nodes reaches Completed, and every
node is paid exactly as SPECIFICATION.md section 6 says (all work accepted: one slot share per
role and round; the rest refunded to the requester)."""
from network import registry_events

from workers.chain.view import ChainView
from workers.node.handlers.context import Secrets
from workers.protocol import Role, Status, Verdict, encode_vote
from workers.roles.trainer import verify_checkpoint

SHARES = {Role.SAMPLER: 2000, Role.TRAINER: 7000, Role.VALIDATOR: 1000}


def slot_share(params, role):
    slots = {Role.SAMPLER: params.num_samplers, Role.TRAINER: 1, Role.VALIDATOR: params.num_validators}[role]
    round_pool = params.bounty * SHARES[role] // 10000 // params.num_rounds
    return round_pool // slots


def test_task_reaches_completed_with_every_submission_accepted(run):
    view = ChainView(run.net.deployment)
    task = view.task(run.task_id)
    assert task.status == Status.COMPLETED and task.round == run.params.num_rounds - 1
    verdicts = [e for e in registry_events(run.net) if e.name == "VerdictReached"]
    by_round = {r: sorted((Role(e.args["role"]), e.args["slot"], Verdict(e.args["verdict"]))
                          for e in verdicts if e.args["round"] == r) for r in range(run.params.num_rounds)}
    want = [(Role.SAMPLER, 0, Verdict.ACCEPTED), (Role.SAMPLER, 1, Verdict.ACCEPTED),
            (Role.TRAINER, 0, Verdict.ACCEPTED)]
    assert by_round == {0: want, 1: want}
    print(f"\nE2E task {run.task_id}: rounds={run.params.num_rounds} wall_s={run.wall_s:.1f}")


def test_every_node_is_paid_its_slot_shares_and_the_rest_is_refunded(run):
    view, params = ChainView(run.net.deployment), run.params
    rounds = params.num_rounds
    for node in run.net.nodes:
        role = {"sampler": Role.SAMPLER, "trainer": Role.TRAINER, "validator": Role.VALIDATOR}[node.role]
        # disputes on, as deployed: each round's share is held for the round's dispute window (the
        # node releases it afterwards: tests/workers/disputes), nothing is claimable yet
        held = [view.read(run.net.deployment.vault, "heldOf", run.task_id, r, node.address) for r in range(rounds)]
        assert held == [slot_share(params, role)] * rounds, node.name
        assert view.claimable(node.address) == 0, node.name
        assert view.stake(node.address, role).locked == 0, node.name
        assert view.score(node.address) == 70 + 2 * rounds, node.name
        print(f"payout {node.name}: {sum(held) / 10**18:.4f} DRL (held for the dispute window)")
    settled = next(e for e in registry_events(run.net) if e.name == "TaskSettled")
    paid = [rounds * params.num_samplers * slot_share(params, Role.SAMPLER),
            rounds * slot_share(params, Role.TRAINER),
            rounds * params.num_validators * slot_share(params, Role.VALIDATOR)]
    assert list(settled.args["paidByRole"]) == paid
    assert settled.args["refund"] == params.bounty - sum(paid)
    assert view.claimable(run.net.admin) == params.bounty - sum(paid)  # the refund is not held
    assert view.read(run.net.deployment.vault, "heldTotalOf", run.task_id) == sum(paid)


def test_final_checkpoint_is_stored_and_matches_its_root(run):
    task = ChainView(run.net.deployment).task(run.task_id)
    result = verify_checkpoint(run.store.get(task.checkpoint_cid), task.checkpoint_root)
    assert (result.task_id, result.round) == (run.task_id, run.params.num_rounds - 1)
    assert [slot for slot, _ in result.inputs] == [0, 1]


def test_the_trainer_pinned_the_final_policy_only(run):
    """Its worker took the task's TaskSettled and pinned the final checkpoint; round 0's checkpoint
    (512 env steps, under ppo.checkpoint_every) expires with the retention."""
    view = ChainView(run.net.deployment)
    checkpoints = [view.submissions(run.task_id, r) for r in range(run.params.num_rounds)]
    cids = [next(s.cid for s in subs if s.role == Role.TRAINER) for subs in checkpoints]
    assert cids[-1] == view.task(run.task_id).checkpoint_cid
    pinned = {entry.cid: entry.pinned for entry in run.store.list()}
    assert [pinned.get(cid) for cid in cids] == [False, True]


def honest_votes(run) -> list[int]:
    """Each round's vote of an honest validator on the run's honest work: accept, or "plant" for the
    submissions whose draws forced them (SPECIFICATION.md 5.5.3; the chain's forcedMask)."""
    state = run.net.deployment.state.functions
    forced = [state.forcedMask(run.task_id, r).call() for r in range(run.params.num_rounds)]
    return [encode_vote(0b111 & ~f, f) for f in forced]


def test_nodes_noted_their_work(run):
    trainer = Secrets(run.net.node("trainer").node_dir / "secrets.sqlite")
    work = [n for n in trainer.notes(run.task_id) if n["kind"] == "work"]
    assert [n["round"] for n in work] == [0, 1]
    for node in (n for n in run.net.nodes if n.role == "sampler"):
        work = [n for n in Secrets(node.node_dir / "secrets.sqlite").notes(run.task_id) if n["kind"] == "work"]
        # round 1's shard was rolled out while the validators judged round 0 (round 0's, while the
        # task filled, when the sampler's worker saw its slot before the draw: not asserted)
        assert [n["round"] for n in work] == [0, 1] and "sampled_ahead_s" in work[1]["data"], node.name
    for node in (n for n in run.net.nodes if n.role == "validator"):
        secrets = Secrets(node.node_dir / "secrets.sqlite")
        notes = [n["data"] for n in secrets.notes(run.task_id) if n["kind"] == "verdict"]
        assert [n["bitmap"] for n in notes] == honest_votes(run), node.name
        # each round's shards were judged by its TrainCommit job, ahead of the vote (while the trainer
        # trained, or after: this spec trains in moments; tests/workers/fraud/test_early_checks.py)
        assert [n["samplers_judged_early"] for n in notes] == [[0, 1], [0, 1]], node.name


def test_three_validators_vote_alone_where_an_aggregate_would_cost_more(run):
    """SPECIFICATION.md 5.5.2: a round with fewer validators than aggregation.MIN_AGGREGATE_SIGNERS
    is voted alone, one Attested per validator slot (the same honest vote), with no aggregate;
    the folder tests/workers/aggregation runs rounds that aggregate."""
    events = registry_events(run.net)
    votes = honest_votes(run)
    for round_ in range(run.params.num_rounds):
        aggregates = [e.args for e in events if e.name == "AggregateAttested" and e.args["round"] == round_]
        singles = [e.args for e in events if e.name == "Attested" and e.args["round"] == round_]
        assert sorted((a["slot"], a["acceptBitmap"]) for a in singles) == [(v, votes[round_]) for v in range(3)], round_
        assert aggregates == [], round_


def test_the_example_client_follows_the_task_to_its_checkpoint(run):
    """examples/client.py (plain web3.py, docs/integrating.md) reads the same end from the events."""
    import subprocess
    import sys
    from pathlib import Path

    client = Path(__file__).resolve().parents[3] / "examples" / "client.py"
    task = ChainView(run.net.deployment).task(run.task_id)
    followed = subprocess.run([sys.executable, str(client), "--rpc", run.net.anvil.http_url, "--deployment",
                               str(run.net.deployment_path), "follow", str(run.task_id), "--follow-seconds", "5"],
                              capture_output=True, text=True, timeout=120)
    assert followed.returncode == 0, followed.stderr
    lines = followed.stdout.splitlines()
    finalized = [line for line in lines if line.startswith("RoundFinalized")]
    assert len(finalized) == run.params.num_rounds and finalized[-1].endswith(
        f"checkpoint {task.checkpoint_cid} root 0x{bytes(task.checkpoint_root).hex()}")
    assert lines[-1] == f"result: Completed, checkpoint {task.checkpoint_cid}"

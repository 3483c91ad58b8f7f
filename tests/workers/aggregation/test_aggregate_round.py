"""Validators aggregate on a real network (conftest.py): they seal their votes, then open them; a
garbage relay entry (a wrong signature and salt) is left out of the aggregate and its slot opens
its vote alone; an aggregator that never aggregates makes the others fall back
to `attest` before the deadline; every round finalizes with every submission accepted and every
node paid (SPECIFICATION.md 5.5.2)."""
from workers.chain.view import ChainView
from workers.explorer.history import ChainLog, task_history
from workers.node.handlers.relay import bls_key, ensure_bls_key, registered_key
from workers.protocol import Phase, Role, Status, Verdict, encode_vote
from workers.roles.aggregation import choose_aggregator


def history(run):
    log = ChainLog(run.net.deployment)
    log.refresh()
    return task_history(log, run.task_id)


def slots(run):
    return {n.name: run.net.deployment.state.functions.membershipOf(run.task_id, n.address).call().slot
            for n in run.net.nodes if n.role == "validator"}


def aggregator_of(run, round_):
    return choose_aggregator(run.task_id, round_, range(run.params.num_validators))


def test_the_task_completes_with_every_submission_accepted(run):
    h = history(run)
    assert h.status == Status.COMPLETED and len(h.rounds) == run.params.num_rounds
    for r in h.rounds:
        assert r.finalized
        assert [(s.role, s.verdict) for s in r.submissions] == [(Role.SAMPLER, Verdict.ACCEPTED),
                                                                 (Role.TRAINER, Verdict.ACCEPTED)], r.round


def test_garbage_is_left_out_of_the_aggregate_and_its_slot_votes_alone(run):
    mine = slots(run)
    shared = (1 << mine["val-a"]) | (1 << mine["val-b"])
    rounds = [r for r in history(run).rounds if aggregator_of(run, r.round) != mine["loner"]]
    assert len(rounds) == 2
    for r in rounds:
        assert run.garbage[r.round] == mine["loner"]
        kinds = [(a.validator is None, a.signer_bitmap, a.accept_bitmap) for a in r.attestations]
        # One aggregate of the two shared-relay validators, then the loner's own vote: both the
        # honest vote, "plant" for the submissions the draws forced (SPECIFICATION.md 5.5.3).
        forced = run.net.deployment.state.functions.forcedMask(run.task_id, r.round).call()
        vote = encode_vote(run.honest & ~forced, forced)
        assert kinds == [(True, shared, vote), (False, 1 << mine["loner"], vote)], r.round
    aggregators = {n.name: (n.node_dir / "logs" / "validator.log").read_text() for n in run.net.nodes
                   if n.name in ("val-a", "val-b")}
    # the chain names the slot whose sealed vote the garbage salt does not open
    assert any(f"SignerCommitmentMismatch): dropping slots [{mine['loner']}]" in text
               for text in aggregators.values())


def test_a_silent_aggregator_costs_gas_not_liveness(run):
    mine = slots(run)
    [r] = [r for r in history(run).rounds if aggregator_of(run, r.round) == mine["loner"]]
    assert all(a.validator is not None for a in r.attestations), "no aggregate: the loner never sent one"
    assert sorted(a.slot for a in r.attestations) == [0, 1, 2]
    attest_mark = next(p for p in r.phases if p.phase == Phase.ATTEST_REVEAL)
    block_time = run.net.w3.eth.get_block
    votes = [e for e in run.net.deployment.registry.events.Attested().get_logs(from_block=attest_mark.block)
             if e.args.taskId == run.task_id and e.args.round == r.round]
    assert len(votes) == 3
    assert all(block_time(e.blockNumber).timestamp <= attest_mark.deadline for e in votes)


def test_every_node_is_paid_for_every_round(run):
    view, params = ChainView(run.net.deployment), run.params
    shares = run.net.deployment.config.functions.roleShares().call()
    for node in run.net.nodes:
        role = {"sampler": Role.SAMPLER, "trainer": Role.TRAINER, "validator": Role.VALIDATOR}[node.role]
        slots_ = {Role.SAMPLER: params.num_samplers, Role.TRAINER: 1, Role.VALIDATOR: params.num_validators}[role]
        share = params.bounty * shares[role] // 10_000 // params.num_rounds // slots_
        # held for each round's dispute window (disputes on, as deployed)
        held = [view.read(run.net.deployment.vault, "heldOf", run.task_id, r, node.address)
                for r in range(params.num_rounds)]
        assert held == [share] * params.num_rounds, node.name
        assert view.claimable(node.address) == 0, node.name
        assert view.score(node.address) == 70 + 2 * params.num_rounds, node.name


def test_validators_registered_their_keys_once(run):
    d = run.net.deployment
    for node in run.net.nodes:
        key = registered_key(d, node.address)
        if node.role == "validator":
            assert key == (tuple(bls_key(node.account).pubkey_g2), tuple(bls_key(node.account).pubkey_g1))
            assert ensure_bls_key(d, node.sender, node.account) is None  # idempotent: nothing sent
        else:
            assert key == ((0, 0, 0, 0), (0, 0))

"""One honest validator suffices (SPECIFICATION.md 5.5, 13), on a real network: anvil with the
DisputeManager active, a real Redis, nodes as Celery worker processes under their Supervisors.

Round 0 of a three-validator task is played in-process with the fraud matrix's nodes: sampler1
doubles the rewards of ONE episode — one the detector's secret challenges cover — and two lazy
validators accept everything, so the shard is Accepted 2-1 and the detector, which saw the fault,
dissents. Then the detector, the honest task nodes and three juror validators (staked after the
task's draw) run as real processes. Nobody tells the detector what to do: its own node opens the
dispute naming that episode, offers it to proveFault (doubled rewards are not a fault the chain can
check), and the jurors re-execute the named episode and uphold. The cheat is slashed, both lazy
validators lose their round pay, the detector gets its bond back, the winner's part of the slash
and, after the window, its held round pay; no honest node loses anything."""
import fraud_faults as faults
import pytest
from dispute_world import BOND, disputes_net, start_nodes, wait_for
from fraud_world import SPEC, Cheat, as_node, outcome, play_round, slot_share, start_task

from workers.protocol import DisputeStatus, Evidence, Phase, Role, Verdict
from workers.roles.challenges import challenged_indices


@pytest.fixture
def net(tmp_path):
    net = disputes_net(tmp_path)
    yield net
    net.stop()


def test_the_only_honest_validator_of_three_detects_a_sampled_cheat_and_comes_out_ahead(net, request):
    d = net.deployment
    state, stakes, reputation = d.state.functions, d.stakes.functions, d.reputation.functions
    for name, role in [("sampler0", "sampler"), ("sampler1", "sampler"), ("trainer", "trainer"),
                       ("lazy0", "validator"), ("lazy1", "validator"), ("detector", "validator")]:
        net.add_node(name, role)
    validators = [net.node("lazy0"), net.node("lazy1"), net.node("detector")]
    nodes = {"sampler": [net.node("sampler0"), net.node("sampler1")], "trainer": [net.node("trainer")],
             "validator": validators}
    task_id = net.create_task(num_validators=3)
    start_task(net, task_id, nodes["sampler"], nodes["trainer"][0], validators)
    detector, cheat, lazies = net.node("detector"), net.node("sampler1"), validators[:2]
    jurors = [net.add_node(f"juror{i}", "validator") for i in range(3)]
    cheat_slot = state.membershipOf(task_id, cheat.address).call().slot
    with as_node(detector) as ctx:
        seed = ctx.secrets.challenge_seed(task_id, 0)  # drawn now, kept for its verification
    picked = {}

    def in_a_challenged_episode(n: int) -> int:
        picked["episode"] = challenged_indices(seed, task_id, 0, cheat_slot, n, SPEC.challenges_per_sampler)[0]
        return picked["episode"]

    before = {n.name: (stakes.stakeOf(n.address, role).call().staked, reputation.scoreOf(n.address).call())
              for n, role in [(cheat, Role.SAMPLER), *((v, Role.VALIDATOR) for v in validators)]}
    block = net.w3.eth.block_number + 1
    play_round(net, task_id, nodes,
               Cheat("sampler1", faults.SHARD, faults.fabricated_rewards_in(in_a_challenged_episode),
                     phases=(Phase.SAMPLE_COMMIT,)),
               *(Cheat(v.name, faults.VERIFY, faults.accept_everything, phases=(Phase.ATTEST,)) for v in lazies))
    seen = outcome(net, task_id, block)
    assert seen.verdicts[(cheat.address, Role.SAMPLER)] == Verdict.ACCEPTED  # 2-1: the lazy majority's doing
    dissents = d.registry.events.Dissented().get_logs(from_block=block)
    assert [(e.args.validator, e.args.dissentBitmap) for e in dissents] == [(detector.address, 1 << cheat_slot)]
    assert seen.slashed == {} and detector.address not in seen.vacated  # a head-count slashes nobody

    start_nodes(net, request, ["detector", "sampler0", "trainer", *(j.name for j in jurors)])
    disputed = lambda: state.disputeIdOf(task_id, 0, Role.SAMPLER, cheat_slot).call()  # noqa: E731
    wait_for("the detector's node opening the dispute", lambda: disputed() != 0)
    dispute_id = disputed()
    dispute = state.disputeOf(dispute_id).call()
    assert (dispute.disputer, dispute.evidence, dispute.item) == (detector.address, Evidence.EPISODE,
                                                                  picked["episode"])
    wait_for("the jurors' verdict", lambda: state.disputeOf(dispute_id).call().status == DisputeStatus.UPHELD)
    assert d.disputes.events.FaultProven().get_logs(from_block=block) == []  # the jurors judged it, not a proof
    votes = {e.args.juror: e.args.uphold for e in d.disputes.events.JurorVoted().get_logs(from_block=block)}
    assert votes == {j.address: True for j in jurors}

    slash_bps = d.config.functions.slashBps().call()
    min_stake = {role: stakes.minStake(role).call() for role in (Role.SAMPLER, Role.VALIDATOR)}
    stake, score = before["sampler1"]
    taken = min_stake[Role.SAMPLER] * slash_bps // 10_000
    assert stakes.stakeOf(cheat.address, Role.SAMPLER).call().staked == stake - taken
    assert reputation.scoreOf(cheat.address).call() == score + 2 - 20  # accepted at the verdict, then convicted
    # the lazy ones also miss any forced error the detector found in the honest work (5.5.3): then
    # they were not paid nor marked up at the verdict
    missed = {e.args.node for e in d.registry.events.PlantMissed().get_logs(from_block=block)}
    for lazy in lazies:  # an acceptance may honestly miss a sampled fault: it costs the pay, not stake
        stake, score = before[lazy.name]
        assert stakes.stakeOf(lazy.address, Role.VALIDATOR).call().staked == stake
        assert reputation.scoreOf(lazy.address).call() == score + (0 if lazy.address in missed else 2)
        assert d.vault.functions.heldOf(task_id, 0, lazy.address).call() == 0  # its pay reclaimed
        assert d.vault.functions.claimableOf(lazy.address).call() == 0

    # The detector: its bond back and the winner's part of the slashes now, its round pay after the window.
    award = state.owedOf(detector.address).call() - BOND
    assert award > 0
    kept = (stakes.stakeOf(detector.address, Role.VALIDATOR).call().staked, reputation.scoreOf(detector.address).call())
    assert kept == before["detector"]
    share = slot_share(net, Role.VALIDATOR, 3)
    window_end = state.windowEndOf(task_id, 0).call()
    net.w3.provider.make_request("evm_increaseTime", [window_end - d.registry.functions.protocolTime().call() + 1])
    net.mine()
    vault = d.vault.functions
    wait_for("the detector's held pay released by its own node",
             lambda: vault.heldOf(task_id, 0, detector.address).call() == 0, timeout=60)
    assert vault.claimableOf(detector.address).call() == share
    # Ahead of the lazy validators (each lost its pay) and of accepting along with them.
    assert share + award > share
    honest = [net.node("sampler0"), net.node("trainer"), detector]
    slashed = {e.args.node for e in d.stakes.events.Slashed().get_logs(from_block=block)}
    assert slashed == {cheat.address}
    assert not slashed & {n.address for n in honest}

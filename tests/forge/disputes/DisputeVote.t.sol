// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {DisputeFixture} from "./DisputeFixture.sol";
import {IDisputeManager} from "../../../contracts/interfaces/IDisputeManager.sol";
import {ITaskRegistry} from "../../../contracts/interfaces/ITaskRegistry.sol";
import {Role} from "../../../contracts/libraries/Types.sol";

/// @notice SPECIFICATION.md "Disputes": the juror draw, the vote and its settlement both ways.
contract DisputeVoteTest is DisputeFixture {
    function test_draw_seats_2n_plus_1_outsiders_and_locks_them() public {
        uint256 taskId = _decidedRound(ACCEPT_ALL);
        uint256 id = _open(taskId, Role.Trainer, 0);
        _drawJurors(id);
        IDisputeManager.Dispute memory d = stateView.disputeOf(id);
        assertEq(uint256(d.status), uint256(IDisputeManager.Status.Voting), "voting");
        assertEq(d.jurorCount, JURORS, "all seats filled");
        for (uint256 s = 0; s < JURORS; ++s) {
            address j = stateView.jurorOf(id, s).node;
            assertTrue(!stateView.membershipOf(taskId, j).assigned, "juror outside the task");
            assertEq(_lockedOf(j, Role.Validator), MIN_VALIDATOR_STAKE, "juror stake locked");
        }
    }

    function test_draw_before_seed_block_reverts() public {
        uint256 taskId = _decidedRound(ACCEPT_ALL);
        uint256 id = _open(taskId, Role.Trainer, 0);
        uint256 seedBlock = stateView.disputeOf(id).seedBlock;
        vm.expectRevert(abi.encodeWithSelector(IDisputeManager.DrawNotReady.selector, id, seedBlock));
        disputes.drawJurors(id);
    }

    function test_stale_seed_rearms() public {
        uint256 taskId = _decidedRound(ACCEPT_ALL);
        uint256 id = _open(taskId, Role.Trainer, 0);
        vm.roll(block.number + 300);
        disputes.drawJurors(id);
        IDisputeManager.Dispute memory d = stateView.disputeOf(id);
        assertEq(d.jurorCount, 0, "nobody drawn from a missing hash");
        assertEq(d.seedBlock, block.number + 1, "re-armed");
    }

    function test_pool_without_outsiders_voids_the_dispute() public {
        uint256 taskId = _decidedRound(ACCEPT_ALL);
        // Every validator outside the task steps out of new assignments.
        for (uint256 i = 0; i < stakes.validatorCount(); ++i) {
            address v = stakes.validatorAt(i);
            if (stateView.membershipOf(taskId, v).assigned) continue;
            vm.prank(v);
            stakes.setNodePaused(true);
        }
        uint256 id = _open(taskId, Role.Trainer, 0);
        _drawJurors(id);
        _assertDisputeStatus(id, IDisputeManager.Status.Void);
        assertEq(stateView.owedOf(disputer), BOND, "bond returned");
        assertEq(stateView.openDisputesOf(taskId, 0), 0, "closed");
    }

    function test_majority_upholds_a_wrong_acceptance() public {
        uint256 taskId = _decidedRound(ACCEPT_ALL);
        address trainer = _trainerOf(taskId);
        uint256 id = _open(taskId, Role.Trainer, 0);
        _drawJurors(id);
        _vote(id, 5, 2);
        _warpPastVote(id);
        uint256 trainerStake = stakes.stakeOf(trainer, Role.Trainer).staked;
        disputes.settle(id);
        _assertDisputeStatus(id, IDisputeManager.Status.Upheld);
        _assertStatus(taskId, ITaskRegistry.Status.Failed);
        assertEq(trainerStake - stakes.stakeOf(trainer, Role.Trainer).staked, MIN_TRAINER_STAKE / 10, "trainer slashed");
        assertEq(vault.heldOf(taskId, 0, trainer), 0, "trainer pay reclaimed");
        assertEq(stateView.paidOf(taskId)[uint8(Role.Trainer)], 0, "trainer paid nothing");
        assertEq(stateView.paidOf(taskId)[uint8(Role.Validator)], 0, "validators who accepted it paid nothing");
        // pot = trainer 50 + 2 minority jurors x 20 = 90 (the accepters lose pay, not stake); jurors' half over 5.
        uint256 pot = MIN_TRAINER_STAKE / 10 + 2 * (MIN_VALIDATOR_STAKE / 10);
        uint256 each = pot / 2 / 5;
        assertEq(stateView.owedOf(stateView.jurorOf(id, 0).node), each, "majority juror award");
        assertEq(stateView.owedOf(stateView.jurorOf(id, 6).node), 0, "minority juror nothing");
        assertEq(stateView.owedOf(disputer), BOND + pot - 5 * each, "disputer: bond + rest of the pot");
        assertEq(reputation.scoreOf(stateView.jurorOf(id, 6).node), 70 - 15, "minority juror marked down");
        assertEq(_lockedOf(stateView.jurorOf(id, 0).node, Role.Validator), 0, "jurors unlocked");
    }

    function test_majority_dismisses_and_the_bond_pays_jurors_and_treasury() public {
        uint256 taskId = _decidedRound(ACCEPT_ALL);
        uint256 id = _open(taskId, Role.Sampler, 1);
        _drawJurors(id);
        _vote(id, 1, 4); // two abstain
        _warpPastVote(id);
        uint256 treasuryBefore = stateView.owedOf(treasury);
        disputes.settle(id);
        _assertDisputeStatus(id, IDisputeManager.Status.Dismissed);
        _assertStatus(taskId, ITaskRegistry.Status.Active);
        uint256 pot = BOND + MIN_VALIDATOR_STAKE / 10; // the bond and the minority juror's slash
        uint256 each = pot / 2 / 4;
        assertEq(stateView.owedOf(stateView.jurorOf(id, 1).node), each, "majority juror award");
        assertEq(stateView.owedOf(treasury) - treasuryBefore, pot - 4 * each, "rest to the treasury");
        assertEq(stateView.owedOf(disputer), 0, "bond lost");
        address abstainer = stateView.jurorOf(id, 6).node;
        assertEq(reputation.scoreOf(abstainer), 70 - 10, "non-voter marked missed");
        assertEq(stakes.stakeOf(abstainer, Role.Validator).staked, MIN_VALIDATOR_STAKE, "non-voter not slashed");
    }

    function test_majority_overturns_a_wrong_rejection() public {
        // Every validator rejected sampler 1's good shard: it was slashed and vacated.
        uint256 taskId = _decidedRound(0x5);
        address sampler = stateView.submissionOf(taskId, 0, Role.Sampler, 1).node;
        uint256 id = _open(taskId, Role.Sampler, 1);
        _drawJurors(id);
        _vote(id, JURORS, 0);
        disputes.settle(id); // everyone voted: no need to wait for the deadline
        _assertDisputeStatus(id, IDisputeManager.Status.Upheld);
        _assertStatus(taskId, ITaskRegistry.Status.Active);
        assertEq(reputation.scoreOf(sampler), 70 - 20 + 2, "wronged sampler marked up");
        assertEq(stateView.paidOf(taskId)[uint8(Role.Validator)], 0, "validators who rejected it lose their pay");
    }

    function test_settle_before_the_deadlines_with_votes_missing_reverts() public {
        uint256 taskId = _decidedRound(ACCEPT_ALL);
        uint256 id = _open(taskId, Role.Trainer, 0);
        _drawJurors(id);
        for (uint256 s = 0; s < 3; ++s) {
            _commit(id, s, true);
        }
        IDisputeManager.Dispute memory d = stateView.disputeOf(id);
        vm.expectRevert(abi.encodeWithSelector(IDisputeManager.VotingOpen.selector, id, d.voteDeadline));
        disputes.settle(id);
        // past the commits, a committed vote not yet revealed keeps it open until the reveals close
        _warpPastCommits(id);
        _reveal(id, 0, true);
        _reveal(id, 1, true);
        vm.expectRevert(abi.encodeWithSelector(IDisputeManager.VotingOpen.selector, id, d.revealDeadline));
        disputes.settle(id);
        _reveal(id, 2, true); // every committed vote is open: no need to wait
        disputes.settle(id);
        _assertDisputeStatus(id, IDisputeManager.Status.Upheld);
    }

    function test_commit_rules() public {
        uint256 taskId = _decidedRound(ACCEPT_ALL);
        uint256 id = _open(taskId, Role.Trainer, 0);
        _drawJurors(id);
        address juror = stateView.jurorOf(id, 0).node;
        vm.expectRevert(abi.encodeWithSelector(IDisputeManager.NotAJuror.selector, id, disputer));
        vm.prank(disputer);
        disputes.commitVote(id, keccak256("x"));
        vm.expectRevert(abi.encodeWithSelector(IDisputeManager.VoteMismatch.selector, id, juror));
        vm.prank(juror);
        disputes.commitVote(id, bytes32(0));
        _commit(id, 0, true);
        vm.expectRevert(abi.encodeWithSelector(IDisputeManager.AlreadyCommitted.selector, id, juror));
        vm.prank(juror);
        disputes.commitVote(id, keccak256("changed my mind"));
        assertEq(stateView.disputeOf(id).commits, 1, "commits");
        assertEq(stateView.jurorOf(id, 0).commitment, _commitment(id, juror, true, _salt(0)), "stored");
        assertTrue(!stateView.jurorOf(id, 0).voted, "a commitment is not a vote");
        _warpPastCommits(id);
        uint256 deadline = stateView.disputeOf(id).voteDeadline;
        address late = stateView.jurorOf(id, 1).node;
        vm.expectRevert(abi.encodeWithSelector(IDisputeManager.VotingClosed.selector, id, deadline));
        vm.prank(late);
        disputes.commitVote(id, keccak256("late"));
    }

    function test_reveal_rules() public {
        uint256 taskId = _decidedRound(ACCEPT_ALL);
        uint256 id = _open(taskId, Role.Trainer, 0);
        _drawJurors(id);
        address juror = stateView.jurorOf(id, 0).node;
        _commit(id, 0, true);
        uint256 voteDeadline = stateView.disputeOf(id).voteDeadline;
        // hidden while others may still commit: nobody can follow an open vote
        vm.expectRevert(abi.encodeWithSelector(IDisputeManager.RevealNotOpen.selector, id, voteDeadline));
        vm.prank(juror);
        disputes.revealVote(id, true, _salt(0));
        _warpPastCommits(id);
        vm.expectRevert(abi.encodeWithSelector(IDisputeManager.VoteMismatch.selector, id, juror));
        vm.prank(juror);
        disputes.revealVote(id, false, _salt(0)); // not the vote committed
        vm.expectRevert(abi.encodeWithSelector(IDisputeManager.VoteMismatch.selector, id, juror));
        vm.prank(juror);
        disputes.revealVote(id, true, keccak256("another salt"));
        address other = stateView.jurorOf(id, 1).node;
        vm.expectRevert(abi.encodeWithSelector(IDisputeManager.NotCommitted.selector, id, other));
        vm.prank(other);
        disputes.revealVote(id, true, _salt(1));
        vm.expectEmit(true, true, false, true, address(disputes));
        emit IDisputeManager.JurorVoted(id, juror, true);
        vm.prank(juror);
        disputes.revealVote(id, true, _salt(0));
        vm.expectRevert(abi.encodeWithSelector(IDisputeManager.AlreadyVoted.selector, id, juror));
        vm.prank(juror);
        disputes.revealVote(id, true, _salt(0));
        assertEq(stateView.disputeOf(id).upholdVotes, 1, "counted once");
    }

    function test_reveals_open_when_every_juror_committed_for_one_vote_window() public {
        uint256 taskId = _decidedRound(ACCEPT_ALL);
        uint256 id = _open(taskId, Role.Trainer, 0);
        _drawJurors(id);
        uint256 started = registry.protocolTime();
        IDisputeManager.Dispute memory d = stateView.disputeOf(id);
        assertEq(d.voteDeadline, started + config.voteWindow(), "commits close");
        assertEq(d.revealDeadline, started + 2 * config.voteWindow(), "reveals close");
        vm.warp(block.timestamp + 1 hours);
        for (uint256 s = 0; s < JURORS; ++s) {
            _commit(id, s, s < 4);
        }
        assertEq(stateView.disputeOf(id).revealDeadline, started + 1 hours + config.voteWindow(), "moved up");
        for (uint256 s = 0; s < 4; ++s) {
            _reveal(id, s, true); // before the commit deadline: everyone committed
        }
        // the last three withhold their reveals (they would lose): past the reveal deadline they
        // are slashed like the minority and marked down more
        _warpPastVote(id);
        address shut = stateView.jurorOf(id, 4).node;
        uint256 revealDeadline = stateView.disputeOf(id).revealDeadline;
        vm.expectRevert(abi.encodeWithSelector(IDisputeManager.VotingClosed.selector, id, revealDeadline));
        vm.prank(shut);
        disputes.revealVote(id, false, _salt(4));
        disputes.settle(id);
        _assertDisputeStatus(id, IDisputeManager.Status.Upheld);
        assertEq(stakes.stakeOf(shut, Role.Validator).staked, MIN_VALIDATOR_STAKE - MIN_VALIDATOR_STAKE / 10,
                 "withheld vote slashed");
        assertEq(reputation.scoreOf(shut), 70 - 20, "withheld vote marked down as Withheld");
        assertEq(stateView.owedOf(shut), 0, "no award");
        // pot = trainer 50 + 3 withheld jurors x 20 (the accepters lose pay, not stake); jurors' half over 4
        uint256 pot = MIN_TRAINER_STAKE / 10 + 3 * (MIN_VALIDATOR_STAKE / 10);
        assertEq(stateView.owedOf(stateView.jurorOf(id, 0).node), pot / 2 / 4, "majority juror award");
    }

    /// The pool a juror draw walks is fixed before its seed is known (SPECIFICATION.md 5.3):
    /// members who join once the seed block is mined change nobody's seat.
    function test_joining_after_the_seed_changes_no_jury() public {
        uint256 taskId = _decidedRound(ACCEPT_ALL);
        for (uint256 i = 0; i < 10; ++i) {
            _stakedNode(string.concat("early", _digit(i)), Role.Validator, MIN_VALIDATOR_STAKE);
        }
        uint256 id = _open(taskId, Role.Trainer, 0);
        vm.roll(stateView.disputeOf(id).seedBlock + 1);
        uint256 before = vm.snapshotState();
        disputes.drawJurors(id);
        bytes32 jury = _jury(id);
        vm.revertToState(before);
        for (uint256 i = 0; i < 5; ++i) {
            _stakedNode(string.concat("late", _digit(i)), Role.Validator, MIN_VALIDATOR_STAKE);
        }
        disputes.drawJurors(id);
        assertEq(_jury(id), jury, "same jury");
    }

    function _jury(uint256 id) private view returns (bytes32 h) {
        for (uint256 s = 0; s < stateView.disputeOf(id).jurorCount; ++s) {
            h = keccak256(abi.encode(h, stateView.jurorOf(id, s).node));
        }
    }

    function test_no_vote_voids_and_marks_every_juror_missed() public {
        uint256 taskId = _decidedRound(ACCEPT_ALL);
        uint256 id = _open(taskId, Role.Trainer, 0);
        _drawJurors(id);
        _warpPastVote(id);
        disputes.settle(id);
        _assertDisputeStatus(id, IDisputeManager.Status.Void);
        assertEq(stateView.owedOf(disputer), BOND, "bond returned");
        assertEq(reputation.scoreOf(stateView.jurorOf(id, 3).node), 60, "missed");
    }
}

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
        IDisputeManager.Dispute memory d = disputes.disputeOf(id);
        assertEq(uint256(d.status), uint256(IDisputeManager.Status.Voting), "voting");
        assertEq(d.jurorCount, JURORS, "all seats filled");
        for (uint256 s = 0; s < JURORS; ++s) {
            address j = disputes.jurorOf(id, s).node;
            assertTrue(!registry.membershipOf(taskId, j).assigned, "juror outside the task");
            assertEq(_lockedOf(j, Role.Validator), MIN_VALIDATOR_STAKE, "juror stake locked");
        }
    }

    function test_draw_before_seed_block_reverts() public {
        uint256 taskId = _decidedRound(ACCEPT_ALL);
        uint256 id = _open(taskId, Role.Trainer, 0);
        uint256 seedBlock = disputes.disputeOf(id).seedBlock;
        vm.expectRevert(abi.encodeWithSelector(IDisputeManager.DrawNotReady.selector, id, seedBlock));
        disputes.drawJurors(id);
    }

    function test_stale_seed_rearms() public {
        uint256 taskId = _decidedRound(ACCEPT_ALL);
        uint256 id = _open(taskId, Role.Trainer, 0);
        vm.roll(block.number + 300);
        disputes.drawJurors(id);
        IDisputeManager.Dispute memory d = disputes.disputeOf(id);
        assertEq(d.jurorCount, 0, "nobody drawn from a missing hash");
        assertEq(d.seedBlock, block.number + 1, "re-armed");
    }

    function test_pool_without_outsiders_voids_the_dispute() public {
        uint256 taskId = _decidedRound(ACCEPT_ALL);
        // Every validator outside the task steps out of new assignments.
        for (uint256 i = 0; i < stakes.validatorCount(); ++i) {
            address v = stakes.validatorAt(i);
            if (registry.membershipOf(taskId, v).assigned) continue;
            vm.prank(v);
            stakes.setNodePaused(true);
        }
        uint256 id = _open(taskId, Role.Trainer, 0);
        _drawJurors(id);
        _assertDisputeStatus(id, IDisputeManager.Status.Void);
        assertEq(disputes.owedOf(disputer), BOND, "bond returned");
        assertEq(disputes.openDisputesOf(taskId, 0), 0, "closed");
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
        assertEq(registry.paidOf(taskId)[uint8(Role.Trainer)], 0, "trainer paid nothing");
        assertEq(registry.paidOf(taskId)[uint8(Role.Validator)], 0, "validators who accepted it paid nothing");
        // pot = trainer 50 + 3 validators x 20 + 2 minority jurors x 20 = 150; jurors' half over 5.
        uint256 pot = MIN_TRAINER_STAKE / 10 + 5 * (MIN_VALIDATOR_STAKE / 10);
        uint256 each = pot / 2 / 5;
        assertEq(disputes.owedOf(disputes.jurorOf(id, 0).node), each, "majority juror award");
        assertEq(disputes.owedOf(disputes.jurorOf(id, 6).node), 0, "minority juror nothing");
        assertEq(disputes.owedOf(disputer), BOND + pot - 5 * each, "disputer: bond + rest of the pot");
        assertEq(reputation.scoreOf(disputes.jurorOf(id, 6).node), 70 - 15, "minority juror marked down");
        assertEq(_lockedOf(disputes.jurorOf(id, 0).node, Role.Validator), 0, "jurors unlocked");
    }

    function test_majority_dismisses_and_the_bond_pays_jurors_and_treasury() public {
        uint256 taskId = _decidedRound(ACCEPT_ALL);
        uint256 id = _open(taskId, Role.Sampler, 1);
        _drawJurors(id);
        _vote(id, 1, 4); // two abstain
        _warpPastVote(id);
        uint256 treasuryBefore = disputes.owedOf(treasury);
        disputes.settle(id);
        _assertDisputeStatus(id, IDisputeManager.Status.Dismissed);
        _assertStatus(taskId, ITaskRegistry.Status.Active);
        uint256 pot = BOND + MIN_VALIDATOR_STAKE / 10; // the bond and the minority juror's slash
        uint256 each = pot / 2 / 4;
        assertEq(disputes.owedOf(disputes.jurorOf(id, 1).node), each, "majority juror award");
        assertEq(disputes.owedOf(treasury) - treasuryBefore, pot - 4 * each, "rest to the treasury");
        assertEq(disputes.owedOf(disputer), 0, "bond lost");
        address abstainer = disputes.jurorOf(id, 6).node;
        assertEq(reputation.scoreOf(abstainer), 70 - 10, "non-voter marked missed");
        assertEq(stakes.stakeOf(abstainer, Role.Validator).staked, MIN_VALIDATOR_STAKE, "non-voter not slashed");
    }

    function test_majority_overturns_a_wrong_rejection() public {
        // Every validator rejected sampler 1's good shard: it was slashed and vacated.
        uint256 taskId = _decidedRound(0x5);
        address sampler = registry.submissionOf(taskId, 0, Role.Sampler, 1).node;
        uint256 id = _open(taskId, Role.Sampler, 1);
        _drawJurors(id);
        _vote(id, JURORS, 0);
        disputes.settle(id); // everyone voted: no need to wait for the deadline
        _assertDisputeStatus(id, IDisputeManager.Status.Upheld);
        _assertStatus(taskId, ITaskRegistry.Status.Active);
        assertEq(reputation.scoreOf(sampler), 70 - 20 + 2, "wronged sampler marked up");
        assertEq(registry.paidOf(taskId)[uint8(Role.Validator)], 0, "validators who rejected it lose their pay");
    }

    function test_settle_before_deadline_with_votes_missing_reverts() public {
        uint256 taskId = _decidedRound(ACCEPT_ALL);
        uint256 id = _open(taskId, Role.Trainer, 0);
        _drawJurors(id);
        _vote(id, 3, 0);
        uint256 deadline = disputes.disputeOf(id).voteDeadline;
        vm.expectRevert(abi.encodeWithSelector(IDisputeManager.VotingOpen.selector, id, deadline));
        disputes.settle(id);
    }

    function test_vote_rules() public {
        uint256 taskId = _decidedRound(ACCEPT_ALL);
        uint256 id = _open(taskId, Role.Trainer, 0);
        _drawJurors(id);
        address juror = disputes.jurorOf(id, 0).node;
        vm.expectRevert(abi.encodeWithSelector(IDisputeManager.NotAJuror.selector, id, disputer));
        vm.prank(disputer);
        disputes.vote(id, true);
        vm.prank(juror);
        disputes.vote(id, true);
        vm.expectRevert(abi.encodeWithSelector(IDisputeManager.AlreadyVoted.selector, id, juror));
        vm.prank(juror);
        disputes.vote(id, false);
        _warpPastVote(id);
        uint256 deadline = disputes.disputeOf(id).voteDeadline;
        address late = disputes.jurorOf(id, 1).node;
        vm.expectRevert(abi.encodeWithSelector(IDisputeManager.VotingClosed.selector, id, deadline));
        vm.prank(late);
        disputes.vote(id, true);
    }

    function test_no_vote_voids_and_marks_every_juror_missed() public {
        uint256 taskId = _decidedRound(ACCEPT_ALL);
        uint256 id = _open(taskId, Role.Trainer, 0);
        _drawJurors(id);
        _warpPastVote(id);
        disputes.settle(id);
        _assertDisputeStatus(id, IDisputeManager.Status.Void);
        assertEq(disputes.owedOf(disputer), BOND, "bond returned");
        assertEq(reputation.scoreOf(disputes.jurorOf(id, 3).node), 60, "missed");
    }
}

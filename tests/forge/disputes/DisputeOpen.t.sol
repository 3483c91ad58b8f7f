// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {DisputeFixture} from "./DisputeFixture.sol";
import {IDisputeManager} from "../../../contracts/interfaces/IDisputeManager.sol";
import {ITaskRegistry} from "../../../contracts/interfaces/ITaskRegistry.sol";
import {Role} from "../../../contracts/libraries/Types.sol";

/// @notice SPECIFICATION.md "Disputes": who may dispute what, when, and with which bond.
contract DisputeOpenTest is DisputeFixture {
    function test_open_within_window_takes_bond_and_arms_draw() public {
        uint256 taskId = _decidedRound(ACCEPT_ALL);
        uint256 before = token.balanceOf(disputer);
        uint256 id = _open(taskId, Role.Sampler, 0);
        IDisputeManager.Dispute memory d = stateView.disputeOf(id);
        assertEq(id, 1, "first dispute id");
        assertEq(uint256(d.status), uint256(IDisputeManager.Status.Drawing), "drawing");
        assertEq(uint256(d.verdict), uint256(ITaskRegistry.Verdict.Accepted), "disputed verdict");
        assertEq(d.submitter, _samplerAt(taskId, 0), "submitter");
        assertEq(d.jurorsWanted, JURORS, "2n + 1 jurors");
        assertEq(d.seedBlock, block.number + 1, "draw armed on the next block");
        assertEq(before - token.balanceOf(disputer), BOND, "bond pulled");
        assertEq(stateView.totalBonds(), BOND, "bond held");
        assertEq(stateView.openDisputesOf(taskId, 0), 1, "one open dispute");
        assertEq(stateView.disputeIdOf(taskId, 0, Role.Sampler, 0), id, "indexed by submission");
        assertEq(uint256(d.evidence), uint256(IDisputeManager.Evidence.Whole), "evidence");
    }

    function test_open_states_its_evidence() public {
        uint256 taskId = _decidedRound(ACCEPT_ALL);
        vm.expectEmit(true, true, true, true, address(disputes));
        emit IDisputeManager.EvidenceStated(1, IDisputeManager.Evidence.Episode, 7);
        vm.prank(disputer);
        uint256 id = disputes.openDispute(taskId, 0, Role.Sampler, 0, BOND, IDisputeManager.Evidence.Episode, 7);
        IDisputeManager.Dispute memory d = stateView.disputeOf(id);
        assertEq(uint256(d.evidence), uint256(IDisputeManager.Evidence.Episode), "kind");
        assertEq(d.item, 7, "item");
        assertEq(d.revealDeadline, 0, "the fields after it are untouched");
        assertEq(d.disputer, disputer, "disputer");
    }

    function test_evidence_must_name_an_item_of_the_disputed_work() public {
        uint256 taskId = _decidedRound(ACCEPT_ALL & ~uint256(1)); // sampler 0 rejected, the rest accepted
        IDisputeManager.Evidence ep = IDisputeManager.Evidence.Episode;
        IDisputeManager.Evidence tr = IDisputeManager.Evidence.Transition;
        IDisputeManager.Evidence ch = IDisputeManager.Evidence.DataChunk;
        IDisputeManager.Evidence whole = IDisputeManager.Evidence.Whole;
        ITaskRegistry.Verdict acc = ITaskRegistry.Verdict.Accepted;
        // A sampler's work has episodes, a trainer's transitions and chunks.
        _expectInvalid(taskId, Role.Sampler, 1, acc, tr, 0);
        _expectInvalid(taskId, Role.Sampler, 1, acc, ch, 0);
        _expectInvalid(taskId, Role.Trainer, 0, acc, ep, 3);
        // Whole names no item; an item is a uint32.
        _expectInvalid(taskId, Role.Sampler, 1, acc, whole, 1);
        _expectInvalid(taskId, Role.Sampler, 1, acc, ep, uint256(type(uint32).max) + 1);
        // Claiming rejected work good names nothing that failed.
        _expectInvalid(taskId, Role.Sampler, 0, ITaskRegistry.Verdict.Rejected, ep, 0);
        vm.prank(disputer);
        disputes.openDispute(taskId, 0, Role.Trainer, 0, BOND, ch, 2);
        vm.prank(disputer);
        disputes.openDispute(taskId, 0, Role.Sampler, 1, BOND, ep, type(uint32).max);
    }

    function _expectInvalid(
        uint256 taskId,
        Role role,
        uint256 slot,
        ITaskRegistry.Verdict verdict,
        IDisputeManager.Evidence evidence,
        uint256 item
    ) private {
        vm.expectRevert(
            abi.encodeWithSelector(IDisputeManager.InvalidEvidence.selector, role, verdict, evidence, item)
        );
        vm.prank(disputer);
        disputes.openDispute(taskId, 0, role, slot, BOND, evidence, item);
    }

    function test_open_at_window_end_is_allowed() public {
        uint256 taskId = _decidedRound(ACCEPT_ALL);
        _warpToProtocolTime(stateView.windowEndOf(taskId, 0));
        _open(taskId, Role.Trainer, 0);
    }

    function test_open_after_window_reverts() public {
        uint256 taskId = _decidedRound(ACCEPT_ALL);
        uint256 end = stateView.windowEndOf(taskId, 0);
        _warpPastWindow(taskId);
        vm.expectRevert(
            abi.encodeWithSelector(IDisputeManager.DisputeWindowClosed.selector, taskId, 0, end)
        );
        _open(taskId, Role.Sampler, 0);
    }

    function test_open_with_bond_too_low_reverts() public {
        uint256 taskId = _decidedRound(ACCEPT_ALL);
        vm.expectRevert(abi.encodeWithSelector(IDisputeManager.BondTooLow.selector, BOND - 1, BOND));
        vm.prank(disputer);
        disputes.openDispute(taskId, 0, Role.Sampler, 0, BOND - 1, IDisputeManager.Evidence.Whole, 0);
    }

    function test_double_dispute_reverts() public {
        uint256 taskId = _decidedRound(ACCEPT_ALL);
        uint256 id = _open(taskId, Role.Sampler, 1);
        vm.expectRevert(
            abi.encodeWithSelector(IDisputeManager.AlreadyDisputed.selector, taskId, 0, Role.Sampler, 1, id)
        );
        _open(taskId, Role.Sampler, 1);
    }

    function test_inconclusive_verdict_is_disputable_as_bad_work() public {
        uint256 taskId = _activeTaskWithMissingVote();
        uint256 id = _open(taskId, Role.Sampler, 0);
        assertEq(uint256(stateView.disputeOf(id).verdict), uint256(ITaskRegistry.Verdict.Inconclusive), "verdict");
    }

    function test_upheld_dispute_of_an_inconclusive_sample_convicts_its_sampler_and_accepter() public {
        uint256 taskId = _activeTaskWithMissingVote();
        address cheat = _samplerAt(taskId, 0);
        address[] memory v = _working(taskId, Role.Validator);
        (address accepter, address rejecter) = (v[0], v[1]);
        uint256 cheatStake = _stakeOf(cheat, Role.Sampler);
        uint256 accepterStake = _stakeOf(accepter, Role.Validator);
        uint256 rejecterStake = _stakeOf(rejecter, Role.Validator);
        uint256 accepterScore = reputation.scoreOf(accepter);
        uint256 rejecterScore = reputation.scoreOf(rejecter);
        uint256 id = _open(taskId, Role.Sampler, 0);
        _drawJurors(id);
        _vote(id, JURORS, 0);
        disputes.settle(id);
        _assertDisputeStatus(id, IDisputeManager.Status.Upheld);
        assertEq(cheatStake - _stakeOf(cheat, Role.Sampler), MIN_SAMPLER_STAKE / 10, "sampler slashed");
        assertEq(reputation.scoreOf(cheat), 70 - 20, "and marked rejected");
        assertEq(_stakeOf(accepter, Role.Validator), accepterStake, "the accepter is not slashed");
        assertEq(reputation.scoreOf(accepter), accepterScore, "nor marked down");
        assertEq(vault.heldOf(taskId, 0, accepter), 0, "but loses its round pay");
        assertEq(_stakeOf(rejecter, Role.Validator), rejecterStake, "the rejecter is left alone");
        assertEq(reputation.scoreOf(rejecter), rejecterScore, "its reputation too");
        // The trainer trains on every revealed shard: bad samples taint the task.
        _assertStatus(taskId, ITaskRegistry.Status.Failed);
    }

    function test_unrevealed_submission_is_not_disputable() public {
        uint256 taskId = _decidedRound(ACCEPT_ALL);
        vm.expectRevert(
            abi.encodeWithSelector(
                IDisputeManager.NotDisputable.selector, taskId, 0, Role.Sampler, 5, ITaskRegistry.Verdict.None
            )
        );
        _open(taskId, Role.Sampler, 5);
    }

    function test_round_without_verdicts_is_not_disputable() public {
        uint256 taskId = _activeTask();
        vm.expectRevert(
            abi.encodeWithSelector(
                IDisputeManager.NotDisputable.selector, taskId, 0, Role.Sampler, 0, ITaskRegistry.Verdict.None
            )
        );
        _open(taskId, Role.Sampler, 0);
    }

    function test_paused_registry_pauses_disputes_and_freezes_the_window() public {
        uint256 taskId = _decidedRound(ACCEPT_ALL);
        uint256 end = stateView.windowEndOf(taskId, 0);
        vm.prank(admin);
        registry.pause();
        vm.expectRevert(abi.encodeWithSelector(IDisputeManager.DisputesPaused.selector));
        _open(taskId, Role.Sampler, 0);
        vm.warp(block.timestamp + 10 days);
        vm.prank(admin);
        registry.unpause();
        assertEq(stateView.windowEndOf(taskId, 0), end, "window in protocol time");
        _open(taskId, Role.Sampler, 0);
    }

    /// @dev Round 0 where one of three validators does not vote and the two others split on
    ///      sampler 0: 1 yes / 1 no of quorum 2 is Inconclusive.
    function _activeTaskWithMissingVote() private returns (uint256 taskId) {
        taskId = _activeTask();
        _workRound(taskId);
        address[] memory v = _working(taskId, Role.Validator);
        _seal(taskId, v[0], ACCEPT_ALL);
        _seal(taskId, v[1], 0x6);
        _expire(taskId);
        _openAll(taskId);
    }
}

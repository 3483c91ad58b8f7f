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
        disputes.openDispute(taskId, 0, Role.Sampler, 0, BOND - 1);
    }

    function test_double_dispute_reverts() public {
        uint256 taskId = _decidedRound(ACCEPT_ALL);
        uint256 id = _open(taskId, Role.Sampler, 1);
        vm.expectRevert(
            abi.encodeWithSelector(IDisputeManager.AlreadyDisputed.selector, taskId, 0, Role.Sampler, 1, id)
        );
        _open(taskId, Role.Sampler, 1);
    }

    function test_inconclusive_verdict_is_not_disputable() public {
        uint256 taskId = _activeTaskWithMissingVote();
        vm.expectRevert(
            abi.encodeWithSelector(
                IDisputeManager.NotDisputable.selector, taskId, 0, Role.Sampler, 0, ITaskRegistry.Verdict.Inconclusive
            )
        );
        _open(taskId, Role.Sampler, 0);
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

// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {DisputeFixture} from "../disputes/DisputeFixture.sol";
import {IDisputeManager} from "../../../contracts/interfaces/IDisputeManager.sol";
import {Role} from "../../../contracts/libraries/Types.sol";

/// @notice StateView.windowEndOf is the dispute window the DisputeManager enforces: 0 until the
///         round has verdicts, then the verdicts' protocol time plus ProtocolConfig's dispute window
///         (read when asked, so a governance change moves it), in protocol time.
contract StateViewWindowTest is DisputeFixture {
    function test_windowEndOf_isZeroBeforeVerdicts() public {
        assertEq(stateView.windowEndOf(1, 0), 0, "no task");
        uint256 taskId = _activeTask();
        assertEq(stateView.windowEndOf(taskId, 0), 0, "round running");
        _workRound(taskId);
        assertEq(stateView.windowEndOf(taskId, 0), 0, "attest phase: no verdicts yet");
        assertEq(stateView.roundFinalizedAt(taskId, 0), 0, "not finalized");
    }

    function test_windowEndOf_isFinalizedAtPlusTheDisputeWindow() public {
        uint256 taskId = _activeTask();
        _workRound(taskId);
        uint256 decidedAt = registry.protocolTime();
        _attestAll(taskId, ACCEPT_ALL);
        assertEq(stateView.roundFinalizedAt(taskId, 0), decidedAt, "finalized at the last vote");
        assertEq(stateView.windowEndOf(taskId, 0), decidedAt + config.disputeWindow(), "finalizedAt + window");
        assertEq(stateView.windowEndOf(taskId, 1), 0, "the next round has none yet");
    }

    function test_windowEndOf_followsTheGovernedWindow() public {
        uint256 taskId = _decidedRound(ACCEPT_ALL);
        uint256 at = stateView.roundFinalizedAt(taskId, 0);
        vm.prank(admin);
        config.setDisputeWindow(3 days);
        assertEq(stateView.windowEndOf(taskId, 0), at + 3 days, "new window");
    }

    function test_windowEndOf_isTheLastMomentTheManagerAcceptsADispute() public {
        uint256 taskId = _decidedRound(ACCEPT_ALL);
        uint256 end = stateView.windowEndOf(taskId, 0);
        _warpToProtocolTime(end);
        _open(taskId, Role.Trainer, 0);
        _warpToProtocolTime(end + 1);
        vm.expectRevert(abi.encodeWithSelector(IDisputeManager.DisputeWindowClosed.selector, taskId, 0, end));
        _open(taskId, Role.Sampler, 0);
    }

    function test_windowEndOf_isTheFirstMomentHeldPayIsReleased() public {
        uint256 taskId = _decidedRound(ACCEPT_ALL);
        uint256 end = stateView.windowEndOf(taskId, 0);
        address s0 = _samplerAt(taskId, 0);
        _warpToProtocolTime(end);
        vm.expectRevert(abi.encodeWithSelector(IDisputeManager.DisputeWindowOpen.selector, taskId, 0, end));
        disputes.releasePay(taskId, 0, s0);
        _warpToProtocolTime(end + 1);
        disputes.releasePay(taskId, 0, s0);
        assertEq(vault.claimableOf(s0), _sampleShare(), "released");
    }
}

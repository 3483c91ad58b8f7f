// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {DisputeFixture} from "./DisputeFixture.sol";
import {IDisputeManager} from "../../../contracts/interfaces/IDisputeManager.sol";
import {ITaskRegistry} from "../../../contracts/interfaces/ITaskRegistry.sol";
import {Role} from "../../../contracts/libraries/Types.sol";

/// @notice SPECIFICATION.md "Disputes": every step of a dispute refuses an id never opened and a
///         dispute in another status (the shared Disputes.load rule of the DisputeManager and
///         JuryLogic); pay is not released for a round without verdicts; owed tokens never go to 0.
contract DisputeGuardsTest is DisputeFixture {
    function _wrongStatus(uint256 id, IDisputeManager.Status status) private pure returns (bytes memory) {
        return abi.encodeWithSelector(IDisputeManager.WrongDisputeStatus.selector, id, status);
    }

    function test_unknownDispute_isRefusedByEveryStep() public {
        bytes memory notFound = abi.encodeWithSelector(IDisputeManager.DisputeNotFound.selector, 99);
        vm.expectRevert(notFound);
        disputes.drawJurors(99);
        vm.expectRevert(notFound);
        disputes.commitVote(99, keccak256("vote"));
        vm.expectRevert(notFound);
        disputes.revealVote(99, true, bytes32(0));
        vm.expectRevert(notFound);
        disputes.settle(99);
        vm.expectRevert(_wrongStatus(99, IDisputeManager.Status.None));
        disputes.proveFault(99, "", new bytes32[](0));
    }

    function test_drawingDispute_takesNoVoteAndDoesNotSettle() public {
        uint256 id = _open(_decidedRound(ACCEPT_ALL), Role.Trainer, 0);
        vm.expectRevert(_wrongStatus(id, IDisputeManager.Status.Drawing));
        vm.prank(extraValidators[0]);
        disputes.commitVote(id, keccak256("vote"));
        vm.expectRevert(_wrongStatus(id, IDisputeManager.Status.Drawing));
        vm.prank(extraValidators[0]);
        disputes.revealVote(id, true, bytes32(0));
        vm.expectRevert(_wrongStatus(id, IDisputeManager.Status.Drawing));
        disputes.settle(id);
    }

    function test_votingDispute_isNotDrawnAgain_andASettledOneNotVotedOn() public {
        uint256 id = _open(_decidedRound(ACCEPT_ALL), Role.Trainer, 0);
        _drawJurors(id);
        vm.roll(block.number + 1);
        vm.expectRevert(_wrongStatus(id, IDisputeManager.Status.Voting));
        disputes.drawJurors(id);
        _vote(id, JURORS, 0);
        disputes.settle(id);
        vm.expectRevert(_wrongStatus(id, IDisputeManager.Status.Upheld));
        disputes.settle(id);
        address juror = stateView.jurorOf(id, 0).node;
        vm.expectRevert(_wrongStatus(id, IDisputeManager.Status.Upheld));
        vm.prank(juror);
        disputes.commitVote(id, keccak256("late"));
    }

    function test_releasePay_ofARoundWithoutVerdicts_reverts() public {
        uint256 taskId = _activeTask();
        address s0 = _samplerAt(taskId, 0);
        vm.expectRevert(
            abi.encodeWithSelector(
                IDisputeManager.NotDisputable.selector, taskId, 0, Role.Sampler, 0, ITaskRegistry.Verdict.None
            )
        );
        disputes.releasePay(taskId, 0, s0);
    }

    function test_withdraw_refusesTheZeroAddressAndNothing() public {
        uint256 id = _open(_decidedRound(ACCEPT_ALL), Role.Trainer, 0);
        _drawJurors(id);
        _vote(id, JURORS, 0);
        disputes.settle(id);
        uint256 owed = stateView.owedOf(disputer);
        vm.expectRevert(abi.encodeWithSelector(IDisputeManager.ZeroAddress.selector));
        vm.prank(disputer);
        disputes.withdraw(address(0), owed);
        vm.expectRevert(abi.encodeWithSelector(IDisputeManager.InsufficientOwed.selector, disputer, owed, 0));
        vm.prank(disputer);
        disputes.withdraw(disputer, 0);
        assertEq(stateView.owedOf(disputer), owed, "still owed");
    }
}

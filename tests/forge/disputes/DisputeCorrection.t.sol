// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {DisputeFixture} from "./DisputeFixture.sol";
import {IDisputeManager} from "../../../contracts/interfaces/IDisputeManager.sol";
import {ITaskRegistry} from "../../../contracts/interfaces/ITaskRegistry.sol";
import {Role} from "../../../contracts/libraries/Types.sol";

/// @notice SPECIFICATION.md "Disputes", an upheld verdict: only the validators whose vote made the
///         wrong verdict lose their round pay; one who voted the other way or did not vote at all is
///         left alone by the dispute.
contract DisputeCorrectionTest is DisputeFixture {
    uint256 private _failedTask;

    /// @dev Round 0 with sampler 0 accepted by the validators at every slot but `other` (attesting
    ///      `ACCEPT_ALL`); the one at `other` (returned) attests `otherBitmap`, or does not vote when
    ///      `otherVotes` is false.
    function _round(uint256 other, bool otherVotes, uint256 otherBitmap)
        private
        returns (uint256 taskId, address otherNode)
    {
        taskId = _activeTask();
        otherNode = _validatorAt(taskId, other);
        _workRound(taskId);
        for (uint256 v = 0; v < NUM_VALIDATORS; ++v) {
            if (v != other) _seal(taskId, _validatorAt(taskId, v), ACCEPT_ALL);
        }
        if (otherVotes) _seal(taskId, _validatorAt(taskId, other), otherBitmap);
        else _expire(taskId);
        _openAll(taskId);
        assertEq(uint256(stateView.submissionOf(taskId, 0, Role.Sampler, 0).verdict), 1, "sampler 0 accepted");
    }

    function _uphold(uint256 taskId) private {
        uint256 id = _open(taskId, Role.Sampler, 0);
        _drawJurors(id);
        _vote(id, JURORS, 0);
        disputes.settle(id);
        _assertDisputeStatus(id, IDisputeManager.Status.Upheld);
    }

    /// @dev An accepter of work proven bad loses its round pay, not stake or reputation: its sampled
    ///      challenges may honestly have missed the fault.
    function _assertPenalised(address v, uint256 stakeBefore, uint256 scoreBefore) private view {
        assertEq(_stakeOf(v, Role.Validator), stakeBefore, "an accepter is not slashed");
        assertEq(reputation.scoreOf(v), scoreBefore, "nor marked down");
        assertEq(vault.heldOf(_failedTask, 0, v), 0, "its round pay is reclaimed");
    }

    function test_aValidatorWhoRejectedTheBadWorkIsNotPenalisedAgain() public {
        (uint256 taskId, address dissenter) = _round(2, true, 0x6); // slot 2 rejected sampler 0, outvoted
        address[3] memory v = [_validatorAt(taskId, 0), _validatorAt(taskId, 1), dissenter];
        assertEq(stateView.attesterOf(taskId, 0, 2), dissenter, "its vote recorded");
        uint256[3] memory stakeBefore = [_stakeOf(v[0], Role.Validator), _stakeOf(v[1], Role.Validator), _stakeOf(v[2], Role.Validator)];
        uint256[3] memory scoreBefore = [reputation.scoreOf(v[0]), reputation.scoreOf(v[1]), reputation.scoreOf(v[2])];
        _failedTask = taskId;
        _uphold(taskId);
        _assertPenalised(v[0], stakeBefore[0], scoreBefore[0]);
        _assertPenalised(v[1], stakeBefore[1], scoreBefore[1]);
        assertEq(_stakeOf(v[2], Role.Validator), stakeBefore[2], "the dissenter is not slashed by the dispute");
        assertEq(reputation.scoreOf(v[2]), scoreBefore[2], "nor marked down");
        _assertStatus(taskId, ITaskRegistry.Status.Failed);
    }

    function test_aValidatorWhoDidNotVoteIsNotPenalisedByTheDispute() public {
        (uint256 taskId, address silent) = _round(1, false, 0);
        assertEq(stateView.attesterOf(taskId, 0, 1), address(0), "no vote recorded");
        uint256 stakeBefore = _stakeOf(silent, Role.Validator);
        address v0 = _validatorAt(taskId, 0);
        uint256 v0Stake = _stakeOf(v0, Role.Validator);
        uint256 v0Score = reputation.scoreOf(v0);
        _failedTask = taskId;
        _uphold(taskId);
        _assertPenalised(v0, v0Stake, v0Score);
        assertEq(_stakeOf(silent, Role.Validator), stakeBefore, "the silent validator is not slashed by the dispute");
    }
}

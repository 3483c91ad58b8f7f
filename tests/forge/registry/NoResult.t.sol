// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {RegistryFixture} from "../base/RegistryFixture.sol";
import {ITaskRegistry} from "../../../contracts/interfaces/ITaskRegistry.sol";
import {Role} from "../../../contracts/libraries/Types.sol";

/// @notice SPECIFICATION.md 5.1: a task is Completed only with an accepted checkpoint. One whose last
///         round is finalized while no round ever accepted a checkpoint ends NoResult, and settles
///         like any other end: stakes unlocked, everything not earned refunded. (Two rounds in a row
///         without a checkpoint fail a task first, so NoResult ends one-round tasks, and any task
///         whose only idle round is its first and last.)
contract NoResultTest is RegistryFixture {
    /// @dev The 2 samplers' bits: the trainer (bit 2) rejected.
    uint256 private constant SAMPLERS_ONLY = 0x3;

    function _oneRoundTask() private returns (uint256 taskId) {
        ITaskRegistry.TaskParams memory p = _params();
        p.numRounds = 1;
        taskId = _createTask(p);
        _fillSlots(taskId);
        _draw(taskId);
    }

    function _sum(uint256[3] memory a) private pure returns (uint256) {
        return a[0] + a[1] + a[2];
    }

    function test_oneRoundWithTheCheckpointRejectedEndsNoResultAndRefunds() public {
        uint256 taskId = _oneRoundTask();
        _workRound(taskId);
        address[] memory vs = _working(taskId, Role.Validator);
        for (uint256 i = 0; i < vs.length; ++i) {
            _seal(taskId, vs[i], SAMPLERS_ONLY);
        }
        _openDraws(taskId);
        for (uint256 i = 0; i + 1 < vs.length; ++i) {
            _open(taskId, vs[i]);
        }
        uint256[3] memory paid;
        paid[uint8(Role.Sampler)] = 6_000e18; // both samplers accepted: the whole sampler pool
        paid[uint8(Role.Validator)] = 3_000e18; // every validator agreed with the quorum
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.TaskStatusChanged(taskId, ITaskRegistry.Status.NoResult);
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.TaskSettled(taskId, ITaskRegistry.Status.NoResult, paid, BOUNTY - _sum(paid));
        _open(taskId, vs[vs.length - 1]);

        _assertStatus(taskId, ITaskRegistry.Status.NoResult);
        assertEq(uint256(ITaskRegistry.Status.NoResult), 7, "appended after Failed");
        assertEq(_task(taskId).checkpointRoot, bytes32(0), "no checkpoint");
        assertEq(vault.claimableOf(requester), 21_000e18, "the trainer's unearned share is refunded");
        assertEq(vault.escrowOf(taskId), 0, "escrow emptied");
        assertEq(_lockedOf(trainers[0], Role.Trainer), 0, "trainer released");
        assertEq(_lockedOf(samplers[0], Role.Sampler), 0, "sampler released");
        assertEq(_lockedOf(vs[0], Role.Validator), 0, "validator released");
    }

    function test_oneIdleRoundEndsNoResultWithTheWholeBountyRefunded() public {
        uint256 taskId = _oneRoundTask();
        _expire(taskId); // no sampler committed: nothing to train on, the round is idle

        _assertStatus(taskId, ITaskRegistry.Status.NoResult);
        assertEq(_task(taskId).idleRounds, 1, "one idle round, not two");
        assertEq(vault.claimableOf(requester), BOUNTY, "everything refunded");
        assertEq(_lockedOf(trainers[0], Role.Trainer), 0, "trainer released");
    }

    function test_oneRoundWithAnAcceptedCheckpointCompletes() public {
        uint256 taskId = _oneRoundTask();
        _runRound(taskId, ACCEPT_ALL);
        _assertStatus(taskId, ITaskRegistry.Status.Completed);
        assertEq(_task(taskId).checkpointRoot, _root(trainers[0], 0), "its checkpoint");
    }

    function test_aLastRoundRejectedAfterAnAcceptedCheckpointCompletes() public {
        ITaskRegistry.TaskParams memory p = _params();
        p.numRounds = 2;
        uint256 taskId = _createTask(p);
        _fillSlots(taskId);
        _draw(taskId);
        _runRound(taskId, ACCEPT_ALL);
        _runRound(taskId, SAMPLERS_ONLY);
        _assertStatus(taskId, ITaskRegistry.Status.Completed);
        assertEq(_task(taskId).checkpointRoot, _root(trainers[0], 0), "round 0's checkpoint is the result");
    }

    function test_twoRoundsWithoutACheckpointStillFail() public {
        uint256 taskId = _activeTask();
        _runRound(taskId, SAMPLERS_ONLY);
        _commitSamplers(taskId);
        _revealSamplers(taskId);
        _attestAll(taskId, SAMPLERS_ONLY); // the rejected trainer was vacated: no trainer this round
        _assertStatus(taskId, ITaskRegistry.Status.Failed);
    }
}

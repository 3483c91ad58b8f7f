// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {RegistryFixture} from "../base/RegistryFixture.sol";
import {ITaskRegistry} from "../../../contracts/interfaces/ITaskRegistry.sol";
import {Role} from "../../../contracts/libraries/Types.sol";

/// @notice SPECIFICATION.md 5.1 and 6: how tasks end and where the bounty goes.
contract SettlementTest is RegistryFixture {
    uint256 private constant SAMPLER_SHARE = 6_000e18;
    uint256 private constant TRAINER_SHARE = 21_000e18;
    uint256 private constant VALIDATOR_PER_ROUND = 333_333333333333333333; // 333.33.. DRL, 1 wei of dust a round

    uint256 private taskId;

    function setUp() public override {
        super.setUp();
        taskId = _activeTask();
    }

    function _sum(uint256[3] memory a) private pure returns (uint256) {
        return a[0] + a[1] + a[2];
    }

    function test_completedTaskPaysEachRoleItsShareAndRefundsDust() public {
        _runRound(taskId, ACCEPT_ALL);
        _runRound(taskId, ACCEPT_ALL);
        _workRound(taskId);
        address v0 = _validatorAt(taskId, 0);
        address v1 = _validatorAt(taskId, 1);
        address v2 = _validatorAt(taskId, 2);
        _seal(taskId, v0, ACCEPT_ALL);
        _seal(taskId, v1, ACCEPT_ALL);
        _seal(taskId, v2, ACCEPT_ALL);
        _openDraws(taskId); // the workers' draws of round 2 (forced errors): the last vote ends the task
        _open(taskId, v0);
        _open(taskId, v1);

        uint256[3] memory expected;
        expected[uint8(Role.Sampler)] = SAMPLER_SHARE;
        expected[uint8(Role.Trainer)] = TRAINER_SHARE;
        expected[uint8(Role.Validator)] = 9 * VALIDATOR_PER_ROUND;
        uint256 dust = BOUNTY - _sum(expected);
        assertEq(dust, 3, "one wei per round from the validator split");
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.TaskStatusChanged(taskId, ITaskRegistry.Status.Completed);
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.TaskSettled(taskId, ITaskRegistry.Status.Completed, expected, dust);
        _openAt(taskId, 2, v2, ACCEPT_ALL);

        _assertStatus(taskId, ITaskRegistry.Status.Completed);
        assertEq(_task(taskId).round, 2, "last round index");
        assertEq(vault.escrowOf(taskId), 0, "escrow emptied");
        assertEq(vault.claimableOf(requester), dust, "dust refunded");
        assertEq(vault.claimableOf(trainers[0]), TRAINER_SHARE, "trainer earned its share");
        assertEq(vault.claimableOf(samplers[0]), SAMPLER_SHARE / 2, "sampler earned half the sampler share");
        assertEq(vault.claimableOf(v0), 3 * VALIDATOR_PER_ROUND, "validator earned a third");
        assertEq(_lockedOf(trainers[0], Role.Trainer), 0, "trainer released");
        assertEq(_lockedOf(samplers[1], Role.Sampler), 0, "sampler released");
        assertEq(_lockedOf(v2, Role.Validator), 0, "validator released");
    }

    function test_earningsCanBeWithdrawnAfterCompletion() public {
        ITaskRegistry.TaskParams memory p = _params();
        p.numRounds = 1;
        _stake(samplers[0], Role.Sampler, MIN_SAMPLER_STAKE);
        _stake(samplers[1], Role.Sampler, MIN_SAMPLER_STAKE);
        _stake(trainers[0], Role.Trainer, MIN_TRAINER_STAKE);
        for (uint256 i = 0; i < 3; ++i) {
            _stake(validators[i], Role.Validator, MIN_VALIDATOR_STAKE);
        }
        uint256 single = _createTask(p);
        _fillSlots(single);
        _draw(single);
        _runRound(single, ACCEPT_ALL);
        _assertStatus(single, ITaskRegistry.Status.Completed);
        uint256 earned = vault.claimableOf(trainers[0]);
        assertEq(earned, BOUNTY * 7 / 10, "whole trainer share in one round");
        vm.prank(trainers[0]);
        vault.withdraw(trainers[0], earned);
        assertEq(token.balanceOf(trainers[0]), earned, "withdrawn");
    }

    function test_twoIdleRoundsInARowFailTheTaskKeepingEarnings() public {
        _runRound(taskId, 0x3); // trainer rejected and vacated
        assertEq(_task(taskId).idleRounds, 1, "first idle round");
        _commitSamplers(taskId);
        _revealSamplers(taskId);
        _assertPhase(taskId, 1, ITaskRegistry.Phase.Attest); // no trainer
        _attestAll(taskId, 0x3);

        _assertStatus(taskId, ITaskRegistry.Status.Failed);
        uint256[3] memory paid = stateView.paidOf(taskId);
        assertEq(paid[uint8(Role.Sampler)], 2 * 2_000e18, "samplers keep two rounds of pay");
        assertEq(paid[uint8(Role.Trainer)], 0, "trainer earned nothing");
        assertEq(paid[uint8(Role.Validator)], 6 * VALIDATOR_PER_ROUND, "validators keep two rounds of pay");
        assertEq(vault.claimableOf(requester), BOUNTY - _sum(paid), "the rest is refunded");
        assertEq(vault.escrowOf(taskId), 0, "escrow emptied");
        assertEq(_lockedOf(samplers[0], Role.Sampler), 0, "sampler released");
    }

    function test_acceptedCheckpointResetsIdleCount() public {
        _commitSamplers(taskId);
        _revealSamplers(taskId);
        _expire(taskId); // trainer missed the commit
        _claim(taskId, trainers[1], Role.Trainer); // starts next round
        _attestAll(taskId, ACCEPT_ALL);
        assertEq(_task(taskId).idleRounds, 1, "idle round");
        _runRound(taskId, ACCEPT_ALL);
        assertEq(_task(taskId).idleRounds, 0, "reset by an accepted checkpoint");
        assertEq(_task(taskId).checkpointRoot, _root(trainers[1], 1), "new trainer's checkpoint");
        _assertStatus(taskId, ITaskRegistry.Status.Active);
    }

    function test_singleIdleLastRoundCompletes() public {
        _runRound(taskId, ACCEPT_ALL);
        _runRound(taskId, ACCEPT_ALL);
        _runRound(taskId, 0x3); // last round: trainer rejected
        _assertStatus(taskId, ITaskRegistry.Status.Completed);
        assertEq(stateView.paidOf(taskId)[uint8(Role.Trainer)], 2 * 7_000e18, "two rounds earned");
    }

    /// @dev SPECIFICATION.md 5.1/5.6: two rounds in a row without an accepted checkpoint fail the task.
    ///      When the second idle round is the task's last, RoundLogic checks completion first.
    function test_twoIdleRoundsEndingOnLastRoundFailTheTask() public {
        ITaskRegistry.TaskParams memory p = _params();
        p.numRounds = 2;
        _stake(samplers[0], Role.Sampler, MIN_SAMPLER_STAKE);
        _stake(samplers[1], Role.Sampler, MIN_SAMPLER_STAKE);
        _stake(trainers[0], Role.Trainer, MIN_TRAINER_STAKE);
        for (uint256 i = 0; i < 3; ++i) {
            _stake(validators[i], Role.Validator, MIN_VALIDATOR_STAKE);
        }
        uint256 two = _createTask(p);
        _fillSlots(two);
        _draw(two);
        _runRound(two, 0x3); // trainer rejected
        _commitSamplers(two);
        _revealSamplers(two);
        _attestAll(two, 0x3); // still no checkpoint
        assertEq(_task(two).idleRounds, 2, "two idle rounds in a row");
        _assertStatus(two, ITaskRegistry.Status.Failed);
    }
}

// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {RegistryFixture} from "../base/RegistryFixture.sol";
import {ITaskRegistry} from "../../../contracts/interfaces/ITaskRegistry.sol";
import {Role, Outcome} from "../../../contracts/libraries/Types.sol";
import {Pausable} from "@openzeppelin/contracts/utils/Pausable.sol";

/// @notice SPECIFICATION.md 5.3 (claims) and 5.1 (cancellation before work starts).
contract AssignmentTest is RegistryFixture {
    uint256 private taskId;

    function setUp() public override {
        super.setUp();
        taskId = _createTask();
    }

    // ------------------------------------------------------------ claims

    function test_claimSlot_assignsFirstVacantSamplerSlotAndLocksStake() public {
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.SlotAssigned(taskId, samplers[0], Role.Sampler, 0, 0);
        uint256 slot = _claim(taskId, samplers[0], Role.Sampler);

        assertEq(slot, 0, "slot");
        ITaskRegistry.Slot memory s = stateView.slotOf(taskId, Role.Sampler, 0);
        assertEq(s.node, samplers[0], "node");
        assertEq(s.sinceRound, 0, "since");
        assertEq(s.lockedStake, MIN_SAMPLER_STAKE, "locked in slot");
        assertEq(_lockedOf(samplers[0], Role.Sampler), MIN_SAMPLER_STAKE, "locked in stake manager");
        ITaskRegistry.Membership memory m = stateView.membershipOf(taskId, samplers[0]);
        assertTrue(m.assigned, "member");
        assertEq(uint256(m.role), uint256(Role.Sampler), "member role");
        assertEq(m.slot, 0, "member slot");
        assertEq(_task(taskId).filledSamplers, 1, "filled");
    }

    function test_claimSlot_secondSamplerTakesNextSlot() public {
        _claim(taskId, samplers[0], Role.Sampler);
        assertEq(_claim(taskId, samplers[1], Role.Sampler), 1, "slot 1");
    }

    function test_claimSlot_trainerTakesTheTrainerSlot() public {
        assertEq(_claim(taskId, trainers[0], Role.Trainer), 0, "slot");
        assertTrue(_task(taskId).trainerFilled, "trainer filled");
        assertEq(_lockedOf(trainers[0], Role.Trainer), MIN_TRAINER_STAKE, "locked");
        _assertStatus(taskId, ITaskRegistry.Status.Open);
    }

    function test_claimSlot_lastClaimMovesTaskToDrawingAndArmsDraw() public {
        _claim(taskId, samplers[0], Role.Sampler);
        _claim(taskId, trainers[0], Role.Trainer);
        uint256 nextBlock = vm.getBlockNumber() + 1;
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.TaskStatusChanged(taskId, ITaskRegistry.Status.Drawing);
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.DrawArmed(taskId, nextBlock);
        _claim(taskId, samplers[1], Role.Sampler);

        _assertStatus(taskId, ITaskRegistry.Status.Drawing);
        assertEq(_task(taskId).seedBlock, nextBlock, "seed block");
    }

    function test_claimSlot_validatorsCannotClaim() public {
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.ValidatorsAreDrawn.selector));
        _claim(taskId, validators[0], Role.Validator);
    }

    function test_claimSlot_revertsForUnknownTask() public {
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.TaskNotFound.selector, 99));
        _claim(99, samplers[0], Role.Sampler);
    }

    function test_claimSlot_revertsWhileDrawing() public {
        _fillSlots(taskId);
        vm.expectRevert(
            abi.encodeWithSelector(ITaskRegistry.WrongStatus.selector, taskId, ITaskRegistry.Status.Drawing)
        );
        _claim(taskId, samplers[2], Role.Sampler);
    }

    function test_claimSlot_revertsOnCancelledTask() public {
        vm.prank(requester);
        registry.cancelTask(taskId);
        vm.expectRevert(
            abi.encodeWithSelector(ITaskRegistry.WrongStatus.selector, taskId, ITaskRegistry.Status.Cancelled)
        );
        _claim(taskId, samplers[0], Role.Sampler);
    }

    function test_claimSlot_requesterCannotWorkOnOwnTask() public {
        _stake(requester, Role.Sampler, MIN_SAMPLER_STAKE);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.RequesterCannotWork.selector, taskId));
        _claim(taskId, requester, Role.Sampler);
    }

    function test_claimSlot_nodeHoldsAtMostOneSlotPerTask() public {
        _stake(samplers[0], Role.Trainer, MIN_TRAINER_STAKE);
        _claim(taskId, samplers[0], Role.Sampler);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.AlreadyAssigned.selector, taskId, samplers[0]));
        _claim(taskId, samplers[0], Role.Trainer);
    }

    function test_claimSlot_rejectsPausedNode() public {
        vm.prank(samplers[0]);
        stakes.setNodePaused(true);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.NodePaused.selector, samplers[0]));
        _claim(taskId, samplers[0], Role.Sampler);
    }

    function test_claimSlot_rejectsNodeWithoutUnlockedStake() public {
        _claim(taskId, samplers[0], Role.Sampler);
        uint256 other = _createTask();
        vm.expectRevert(
            abi.encodeWithSelector(
                ITaskRegistry.InsufficientStake.selector, samplers[0], Role.Sampler, 0, MIN_SAMPLER_STAKE
            )
        );
        _claim(other, samplers[0], Role.Sampler);
    }

    function test_claimSlot_stakeCoversConcurrentAssignments() public {
        _stake(samplers[0], Role.Sampler, MIN_SAMPLER_STAKE);
        _claim(taskId, samplers[0], Role.Sampler);
        uint256 other = _createTask();
        _claim(other, samplers[0], Role.Sampler);
        assertEq(_lockedOf(samplers[0], Role.Sampler), 2 * MIN_SAMPLER_STAKE, "two locks");
    }

    function test_claimSlot_rejectsNodeBelowReputationThreshold() public {
        _recordOutcome(samplers[0], Outcome.Missed, 2); // 70 -> 50
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.ReputationTooLow.selector, samplers[0], 50, 60));
        _claim(taskId, samplers[0], Role.Sampler);
    }

    function test_claimSlot_acceptsNodeExactlyAtThreshold() public {
        _recordOutcome(samplers[0], Outcome.Missed, 1); // 70 -> 60
        _claim(taskId, samplers[0], Role.Sampler);
        assertTrue(stateView.membershipOf(taskId, samplers[0]).assigned, "assigned at threshold");
    }

    function test_claimSlot_revertsWhenTrainerSlotTaken() public {
        _claim(taskId, trainers[0], Role.Trainer);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.NoVacantSlot.selector, taskId, Role.Trainer));
        _claim(taskId, trainers[1], Role.Trainer);
    }

    function test_claimSlot_aLostRaceStopsBeforeTheEligibilityChecks() public {
        // A lost race is mined as a revert: it must not pay for the stake and reputation calls
        // first, so even a paused node learns only that the slot is gone.
        _claim(taskId, trainers[0], Role.Trainer);
        vm.prank(trainers[1]);
        stakes.setNodePaused(true);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.NoVacantSlot.selector, taskId, Role.Trainer));
        _claim(taskId, trainers[1], Role.Trainer);
    }

    function test_claimSlot_revertsWhenSamplerSlotsFullOnActiveTask() public {
        _fillSlots(taskId);
        _draw(taskId);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.NoVacantSlot.selector, taskId, Role.Sampler));
        _claim(taskId, samplers[2], Role.Sampler);
    }

    function test_claimSlot_revertsWhilePaused() public {
        vm.prank(admin);
        registry.pause();
        vm.expectRevert(abi.encodeWithSelector(Pausable.EnforcedPause.selector));
        _claim(taskId, samplers[0], Role.Sampler);
    }

    // ------------------------------------------------------------ cancellation

    function test_cancelTask_refundsWholeBountyAndReleasesStakes() public {
        _claim(taskId, samplers[0], Role.Sampler);
        _claim(taskId, trainers[0], Role.Trainer);
        uint256[3] memory none;
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.TaskStatusChanged(taskId, ITaskRegistry.Status.Cancelled);
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.TaskSettled(taskId, ITaskRegistry.Status.Cancelled, none, BOUNTY);
        vm.prank(requester);
        registry.cancelTask(taskId);

        _assertStatus(taskId, ITaskRegistry.Status.Cancelled);
        assertEq(vault.escrowOf(taskId), 0, "escrow emptied");
        assertEq(vault.claimableOf(requester), BOUNTY, "refund claimable");
        assertEq(_lockedOf(samplers[0], Role.Sampler), 0, "sampler unlocked");
        assertEq(_lockedOf(trainers[0], Role.Trainer), 0, "trainer unlocked");
    }

    function test_cancelTask_whileDrawingReleasesDrawnValidators() public {
        _fillSlots(taskId);
        vm.prank(validators[0]);
        stakes.setNodePaused(true); // the draw can fill only two of three slots
        _draw(taskId);
        assertEq(_task(taskId).filledValidators, 2, "partial draw");

        vm.prank(requester);
        registry.cancelTask(taskId);
        _assertStatus(taskId, ITaskRegistry.Status.Cancelled);
        assertEq(_lockedOf(validators[1], Role.Validator), 0, "validator 1 unlocked");
        assertEq(_lockedOf(validators[2], Role.Validator), 0, "validator 2 unlocked");
        assertEq(vault.claimableOf(requester), BOUNTY, "refund");
    }

    function test_cancelTask_worksWhilePaused() public {
        vm.prank(admin);
        registry.pause();
        vm.prank(requester);
        registry.cancelTask(taskId);
        _assertStatus(taskId, ITaskRegistry.Status.Cancelled);
    }

    function test_cancelTask_onlyRequester() public {
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.NotRequester.selector, taskId, relayer));
        vm.prank(relayer);
        registry.cancelTask(taskId);
    }

    function test_cancelTask_revertsForUnknownTask() public {
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.TaskNotFound.selector, 7));
        vm.prank(requester);
        registry.cancelTask(7);
    }

    function test_cancelTask_revertsOnceRoundsStarted() public {
        _fillSlots(taskId);
        _draw(taskId);
        vm.expectRevert(
            abi.encodeWithSelector(ITaskRegistry.WrongStatus.selector, taskId, ITaskRegistry.Status.Active)
        );
        vm.prank(requester);
        registry.cancelTask(taskId);
    }

    function test_cancelTask_cannotCancelTwice() public {
        vm.prank(requester);
        registry.cancelTask(taskId);
        vm.expectRevert(
            abi.encodeWithSelector(ITaskRegistry.WrongStatus.selector, taskId, ITaskRegistry.Status.Cancelled)
        );
        vm.prank(requester);
        registry.cancelTask(taskId);
    }
}

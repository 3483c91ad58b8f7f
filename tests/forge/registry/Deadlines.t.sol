// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {RegistryFixture} from "../base/RegistryFixture.sol";
import {ITaskRegistry} from "../../../contracts/interfaces/ITaskRegistry.sol";
import {Role, Outcome} from "../../../contracts/libraries/Types.sol";
import {Pausable} from "@openzeppelin/contracts/utils/Pausable.sol";

/// @notice SPECIFICATION.md 5.4 ("Who is expected"), 5.6 (missed deadlines) and 7 (protocol time).
contract DeadlinesTest is RegistryFixture {
    uint256 private taskId;
    address private s0;
    address private s1;
    address private tr;

    function setUp() public override {
        super.setUp();
        taskId = _activeTask();
        s0 = samplers[0];
        s1 = samplers[1];
        tr = trainers[0];
    }

    function _stakedOf(address node, Role role) private view returns (uint256) {
        return stakes.stakeOf(node, role).staked;
    }

    /// @dev Round 0 where s1 misses its commit, so round 1 opens with sampler slot 1 vacant.
    function _toRoundOneWithVacantSamplerSlot() private {
        _commit(taskId, s0);
        _expire(taskId);
        _reveal(taskId, s0);
        _commit(taskId, tr);
        _reveal(taskId, tr);
        _attestAll(taskId, ACCEPT_ALL);
        _assertPhase(taskId, 1, ITaskRegistry.Phase.SampleCommit);
    }

    /// @dev Round 0 where validator slot 0 misses its vote commit, so round 1 opens with a draw armed.
    function _toRoundOneWithVacantValidatorSlot() private returns (address missed) {
        _workRound(taskId);
        missed = _validatorAt(taskId, 0);
        _seal(taskId, _validatorAt(taskId, 1), ACCEPT_ALL);
        _seal(taskId, _validatorAt(taskId, 2), ACCEPT_ALL);
        _expire(taskId);
        _openAll(taskId);
        _assertPhase(taskId, 1, ITaskRegistry.Phase.SampleCommit);
        assertEq(_task(taskId).filledValidators, 2, "one validator vacated");
    }

    // ------------------------------------------------------------ advance preconditions

    function test_advance_revertsAtThePhaseDeadline() public {
        uint256 deadline = _task(taskId).phaseDeadline;
        _warpToProtocolTime(deadline);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.DeadlineNotReached.selector, taskId, deadline));
        registry.advance(taskId);
    }

    function test_advance_revertsForUnknownTask() public {
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.TaskNotFound.selector, 3));
        registry.advance(3);
    }

    function test_advance_revertsOnSettledTask() public {
        uint256 other = _createTask();
        vm.prank(requester);
        registry.cancelTask(other);
        vm.expectRevert(
            abi.encodeWithSelector(ITaskRegistry.WrongStatus.selector, other, ITaskRegistry.Status.Cancelled)
        );
        registry.advance(other);
    }

    function test_advance_revertsWhilePaused() public {
        _warpPastPhase(taskId);
        vm.prank(admin);
        registry.pause();
        vm.expectRevert(abi.encodeWithSelector(Pausable.EnforcedPause.selector));
        registry.advance(taskId);
    }

    // ------------------------------------------------------------ claim deadline

    function test_advance_failsOpenTaskPastClaimDeadlineWithFullRefund() public {
        uint256 open = _createTask();
        _claim(open, samplers[2], Role.Sampler);
        uint256 claimDeadline = _task(open).claimDeadline;
        _warpToProtocolTime(claimDeadline);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.DeadlineNotReached.selector, open, claimDeadline));
        registry.advance(open);

        _warpToProtocolTime(claimDeadline + 1);
        uint256[3] memory none;
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.TaskSettled(open, ITaskRegistry.Status.Failed, none, BOUNTY);
        registry.advance(open);
        _assertStatus(open, ITaskRegistry.Status.Failed);
        assertEq(vault.claimableOf(requester), BOUNTY, "refund");
        assertEq(_lockedOf(samplers[2], Role.Sampler), 0, "claim released");
    }

    function test_advance_failsDrawingTaskPastClaimDeadline() public {
        _stake(samplers[0], Role.Sampler, MIN_SAMPLER_STAKE);
        _stake(samplers[1], Role.Sampler, MIN_SAMPLER_STAKE);
        _stake(trainers[0], Role.Trainer, MIN_TRAINER_STAKE);
        uint256 drawing = _createTask();
        _fillSlots(drawing);
        _assertStatus(drawing, ITaskRegistry.Status.Drawing);
        _warpToProtocolTime(_task(drawing).claimDeadline + 1);
        registry.advance(drawing);
        _assertStatus(drawing, ITaskRegistry.Status.Failed);
        assertEq(_lockedOf(trainers[0], Role.Trainer), MIN_TRAINER_STAKE, "only the active task's lock left");
        assertEq(vault.claimableOf(requester), BOUNTY, "refund");
    }

    // ------------------------------------------------------------ laggards

    function test_advance_vacatesSamplerThatMissedCommitWithoutSlash() public {
        _commit(taskId, s0);
        _warpPastPhase(taskId);
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.SlotVacated(taskId, s1, Role.Sampler, 1, Outcome.Missed);
        registry.advance(taskId);

        assertTrue(!stateView.membershipOf(taskId, s1).assigned, "vacated");
        assertEq(_samplerAt(taskId, 1), address(0), "slot free");
        assertEq(_lockedOf(s1, Role.Sampler), 0, "stake unlocked");
        assertEq(_stakedOf(s1, Role.Sampler), MIN_SAMPLER_STAKE, "not slashed");
        assertEq(reputation.scoreOf(s1), 60, "missed costs 10");
        assertEq(_samplerAt(taskId, 0), s0, "committer kept");
        _assertPhase(taskId, 0, ITaskRegistry.Phase.SampleReveal);
        assertEq(_task(taskId).pending, 1, "one reveal expected");
    }

    function test_advance_vacatesSamplerThatMissedReveal() public {
        _commitSamplers(taskId);
        _reveal(taskId, s0);
        _warpPastPhase(taskId);
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.SlotVacated(taskId, s1, Role.Sampler, 1, Outcome.Withheld);
        registry.advance(taskId);
        assertEq(reputation.scoreOf(s1), 50, "withholding a reveal costs 20");
        assertEq(_stakeOf(s1, Role.Sampler), MIN_SAMPLER_STAKE * 9 / 10, "and 10% of the locked stake");
        assertEq(_samplerAt(taskId, 1), address(0), "slot free");
        assertEq(_samplerAt(taskId, 0), s0, "revealer kept");
        _assertPhase(taskId, 0, ITaskRegistry.Phase.TrainCommit);
    }

    function test_advance_vacatesTrainerThatMissedCommit() public {
        _commitSamplers(taskId);
        _revealSamplers(taskId);
        _warpPastPhase(taskId);
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.SlotVacated(taskId, tr, Role.Trainer, 0, Outcome.Missed);
        registry.advance(taskId);
        assertTrue(!_task(taskId).trainerFilled, "trainer slot free");
        assertEq(_lockedOf(tr, Role.Trainer), 0, "stake unlocked");
        _assertPhase(taskId, 0, ITaskRegistry.Phase.Attest);
        assertEq(_task(taskId).revealedMask, 0x3, "samplers still attested");
    }

    function test_advance_vacatesTrainerThatMissedReveal() public {
        _commitSamplers(taskId);
        _revealSamplers(taskId);
        _commit(taskId, tr);
        _warpPastPhase(taskId);
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.SlotVacated(taskId, tr, Role.Trainer, 0, Outcome.Withheld);
        registry.advance(taskId);
        assertEq(reputation.scoreOf(tr), 50, "withholding a reveal costs 20");
        assertEq(_stakeOf(tr, Role.Trainer), MIN_TRAINER_STAKE * 9 / 10, "and 10% of the locked stake");
        _assertPhase(taskId, 0, ITaskRegistry.Phase.Attest);
    }

    function test_advance_vacatesValidatorThatMissedAttestAndArmsRedraw() public {
        _workRound(taskId);
        address missed = _validatorAt(taskId, 0);
        _seal(taskId, _validatorAt(taskId, 1), ACCEPT_ALL);
        _seal(taskId, _validatorAt(taskId, 2), ACCEPT_ALL);
        _warpPastPhase(taskId);
        uint256 nextBlock = vm.getBlockNumber() + 1;
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.DrawArmed(taskId, nextBlock);
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.SlotVacated(taskId, missed, Role.Validator, 0, Outcome.Missed);
        registry.advance(taskId);

        assertEq(_task(taskId).seedBlock, nextBlock, "redraw armed");
        assertEq(_lockedOf(missed, Role.Validator), 0, "unlocked");
        _openAll(taskId);
        assertEq(uint256(stateView.submissionOf(taskId, 0, Role.Trainer, 0).verdict),
            uint256(ITaskRegistry.Verdict.Accepted), "two of three is a quorum");
        _draw(taskId);
        assertEq(_task(taskId).filledValidators, 3, "slot refilled");
    }

    function test_advance_attestWithoutAnyVotePaysNoValidator() public {
        _workRound(taskId);
        _expire(taskId); // nobody sealed: AttestReveal expects nobody and the round ends
        assertEq(_task(taskId).filledValidators, 0, "all vacated");
        uint256[3] memory paid = stateView.paidOf(taskId);
        assertEq(paid[uint8(Role.Validator)], 0, "no validator paid");
        assertEq(paid[uint8(Role.Trainer)], 0, "no verdict, no pay");
        assertEq(uint256(stateView.submissionOf(taskId, 0, Role.Sampler, 0).verdict),
            uint256(ITaskRegistry.Verdict.Inconclusive), "inconclusive");
    }

    // ------------------------------------------------------------ joining mid-round

    function test_samplerJoiningDuringSampleCommitWorksThisRound() public {
        _toRoundOneWithVacantSamplerSlot();
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.SlotAssigned(taskId, samplers[2], Role.Sampler, 1, 1);
        _claim(taskId, samplers[2], Role.Sampler);
        assertEq(_task(taskId).pending, 2, "joiner expected");

        _commit(taskId, s0);
        _assertPhase(taskId, 1, ITaskRegistry.Phase.SampleCommit);
        _commit(taskId, samplers[2]);
        _assertPhase(taskId, 1, ITaskRegistry.Phase.SampleReveal);
    }

    function test_samplerJoiningAfterCommitDeadlineStartsNextRound() public {
        _toRoundOneWithVacantSamplerSlot();
        _warpPastPhase(taskId);
        _claim(taskId, samplers[2], Role.Sampler);
        assertEq(stateView.slotOf(taskId, Role.Sampler, 1).sinceRound, 2, "since next round");
        assertEq(_task(taskId).pending, 1, "joiner not expected");

        registry.advance(taskId); // s0 missed; the joiner was not expected
        assertTrue(!stateView.membershipOf(taskId, s0).assigned, "s0 vacated");
        assertTrue(stateView.membershipOf(taskId, samplers[2]).assigned, "joiner kept");
        assertEq(reputation.scoreOf(samplers[2]), 70, "joiner not penalised");
    }

    function test_trainerJoiningBeforeTrainCommitWorksThisRound() public {
        _commitSamplers(taskId);
        _revealSamplers(taskId);
        _expire(taskId); // trainer missed
        _attestAll(taskId, ACCEPT_ALL);
        _assertPhase(taskId, 1, ITaskRegistry.Phase.SampleCommit);

        _claim(taskId, trainers[1], Role.Trainer);
        assertEq(stateView.slotOf(taskId, Role.Trainer, 0).sinceRound, 1, "works this round");
        assertEq(_task(taskId).pending, 2, "samplers only for now");
        _commitSamplers(taskId);
        _revealSamplers(taskId);
        _assertPhase(taskId, 1, ITaskRegistry.Phase.TrainCommit);
        assertEq(_task(taskId).pending, 1, "trainer expected");
        _commit(taskId, trainers[1]);
        _assertPhase(taskId, 1, ITaskRegistry.Phase.TrainReveal);
    }

    function test_trainerJoiningAfterTrainCommitStartsNextRound() public {
        _commitSamplers(taskId);
        _revealSamplers(taskId);
        _expire(taskId); // trainer missed; Attest now
        _claim(taskId, trainers[1], Role.Trainer);
        assertEq(stateView.slotOf(taskId, Role.Trainer, 0).sinceRound, 1, "since next round");
        assertEq(_task(taskId).pending, 3, "validators only");
    }

    function test_validatorDrawnBeforeAttestWorksThisRound() public {
        _toRoundOneWithVacantValidatorSlot();
        _draw(taskId);
        ITaskRegistry.Slot memory slot = stateView.slotOf(taskId, Role.Validator, 0);
        assertEq(slot.sinceRound, 1, "works this round");
        assertEq(_task(taskId).pending, 2, "samplers only for now");
        _workRound(taskId);
        assertEq(_task(taskId).pending, 3, "three validators expected");
    }

    function test_validatorDrawnDuringAttestWorksThisRound() public {
        _toRoundOneWithVacantValidatorSlot();
        _workRound(taskId);
        assertEq(_task(taskId).pending, 2, "two validators");
        _draw(taskId);
        assertEq(stateView.slotOf(taskId, Role.Validator, 0).sinceRound, 1, "works this round");
        assertEq(_task(taskId).pending, 3, "drawn validator expected");
        _attestAll(taskId, ACCEPT_ALL);
        _assertPhase(taskId, 2, ITaskRegistry.Phase.SampleCommit);
    }

    function test_validatorDrawnAfterAttestDeadlineStartsNextRound() public {
        _toRoundOneWithVacantValidatorSlot();
        _workRound(taskId);
        _seal(taskId, _validatorAt(taskId, 1), ACCEPT_ALL);
        _warpPastPhase(taskId);
        _draw(taskId);
        address drawn = _validatorAt(taskId, 0);
        assertEq(stateView.slotOf(taskId, Role.Validator, 0).sinceRound, 2, "since next round");
        assertEq(_task(taskId).pending, 1, "not expected");

        registry.advance(taskId);
        _openAll(taskId);
        assertTrue(stateView.membershipOf(taskId, drawn).assigned, "late joiner kept");
        assertEq(_validatorAt(taskId, 2), address(0), "non-voter vacated");
    }

    // ------------------------------------------------------------ protocol time

    function test_pause_freezesProtocolTime() public {
        uint256 before = registry.protocolTime();
        vm.prank(admin);
        registry.pause();
        vm.warp(vm.getBlockTimestamp() + 3 days);
        assertEq(registry.protocolTime(), before, "frozen while paused");
        vm.prank(admin);
        registry.unpause();
        assertEq(registry.protocolTime(), before, "pause not counted");
        vm.warp(vm.getBlockTimestamp() + 10);
        assertEq(registry.protocolTime(), before + 10, "runs again");
    }

    function test_pause_pausesAccumulate() public {
        uint256 before = registry.protocolTime();
        for (uint256 i = 0; i < 2; ++i) {
            vm.prank(admin);
            registry.pause();
            vm.warp(vm.getBlockTimestamp() + 1 days);
            vm.prank(admin);
            registry.unpause();
            vm.warp(vm.getBlockTimestamp() + 5);
        }
        assertEq(registry.protocolTime(), before + 10, "only unpaused time counts");
    }

    function test_pause_shiftsPhaseDeadlines() public {
        uint256 deadline = _task(taskId).phaseDeadline;
        vm.warp(vm.getBlockTimestamp() + COMMIT_WINDOW / 2);
        vm.prank(admin);
        registry.pause();
        vm.warp(vm.getBlockTimestamp() + 2 days);
        vm.prank(admin);
        registry.unpause();

        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.DeadlineNotReached.selector, taskId, deadline));
        registry.advance(taskId);
        _commit(taskId, s0); // wall clock is two days past the deadline, protocol time is not
        assertEq(stateView.submissionOf(taskId, 0, Role.Sampler, 0).node, s0, "committed in time");
    }

    function test_pause_shiftsClaimDeadline() public {
        uint256 open = _createTask();
        uint256 claimDeadline = _task(open).claimDeadline;
        vm.prank(admin);
        registry.pause();
        vm.warp(vm.getBlockTimestamp() + CLAIM_WINDOW + 1);
        vm.prank(admin);
        registry.unpause();
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.DeadlineNotReached.selector, open, claimDeadline));
        registry.advance(open);
    }
}

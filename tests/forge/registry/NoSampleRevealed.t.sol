// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {RegistryFixture} from "../base/RegistryFixture.sol";
import {ITaskRegistry} from "../../../contracts/interfaces/ITaskRegistry.sol";
import {Role, Outcome} from "../../../contracts/libraries/Types.sol";

/// @notice SPECIFICATION.md 5.4 ("Who is expected") and 5.6: a round in which no sample is revealed
///         has nothing to train on and nothing to attest. Nobody is expected in TrainCommit,
///         TrainReveal or Attest, so neither the trainer nor the validators are penalised; the round
///         ends at once without a new checkpoint and counts as an idle round.
contract NoSampleRevealedTest is RegistryFixture {
    uint256 private taskId;
    address private tr;

    function setUp() public override {
        super.setUp();
        taskId = _activeTask();
        tr = trainers[0];
    }

    /// @dev The trainer and every validator still hold their slot, their locked stake and the
    ///      starting reputation: nobody was vacated or penalised but the samplers.
    function _assertTrainerAndValidatorsUntouched() private view {
        assertEq(_trainerOf(taskId), tr, "trainer keeps its slot");
        assertTrue(_task(taskId).trainerFilled, "trainer slot filled");
        assertEq(_lockedOf(tr, Role.Trainer), MIN_TRAINER_STAKE, "trainer stake still locked");
        assertEq(reputation.scoreOf(tr), 70, "trainer not penalised");
        assertEq(_task(taskId).filledValidators, NUM_VALIDATORS, "validators keep their slots");
        for (uint256 i = 0; i < NUM_VALIDATORS; ++i) {
            assertEq(reputation.scoreOf(validators[i]), 70, "validator not penalised");
            assertEq(_lockedOf(validators[i], Role.Validator), MIN_VALIDATOR_STAKE, "validator stake still locked");
        }
    }

    /// @dev advance() vacates both samplers for `reason` (Missed: no commit; Withheld: committed,
    ///      no reveal) and finalizes round 0 without a checkpoint.
    function _advanceExpectingSamplersVacatedAndIdleRound(Outcome reason) private {
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.SlotVacated(taskId, samplers[0], Role.Sampler, 0, reason);
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.SlotVacated(taskId, samplers[1], Role.Sampler, 1, reason);
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.RoundFinalized(taskId, 0, bytes32(0), "");
        registry.advance(taskId);
    }

    function test_noSamplerCommitted_trainerNotExpectedNorPenalised() public {
        _warpPastPhase(taskId);
        _advanceExpectingSamplersVacatedAndIdleRound(Outcome.Missed);

        _assertTrainerAndValidatorsUntouched();
        assertEq(_task(taskId).filledSamplers, 0, "samplers vacated");
        _assertPhase(taskId, 1, ITaskRegistry.Phase.SampleCommit);
    }

    function test_noSampleRevealed_trainerNotExpectedNorPenalised() public {
        _commitSamplers(taskId);
        _warpPastPhase(taskId);
        _advanceExpectingSamplersVacatedAndIdleRound(Outcome.Withheld);

        _assertTrainerAndValidatorsUntouched();
        assertEq(reputation.scoreOf(samplers[0]), 50, "a sampler that withheld its reveal costs 20");
        assertEq(_stakeOf(samplers[0], Role.Sampler), MIN_SAMPLER_STAKE * 9 / 10, "and is slashed 10%");
        _assertPhase(taskId, 1, ITaskRegistry.Phase.SampleCommit);
    }

    function test_oneRevealedSampleStillExpectsTheTrainer() public {
        _commitSamplers(taskId);
        _reveal(taskId, samplers[0]);
        _expire(taskId); // samplers[1] missed its reveal
        _assertPhase(taskId, 0, ITaskRegistry.Phase.TrainCommit);
        assertEq(_task(taskId).pending, 1, "trainer expected");
        _expire(taskId);
        assertEq(reputation.scoreOf(tr), 60, "a trainer with data that misses is penalised");
        assertTrue(!_task(taskId).trainerFilled, "and vacated");
    }

    function test_trainerCannotCommitInARoundWithoutSamples() public {
        _expire(taskId);
        vm.expectRevert(
            abi.encodeWithSelector(ITaskRegistry.WrongPhase.selector, taskId, ITaskRegistry.Phase.SampleCommit)
        );
        vm.prank(tr);
        registry.commit(taskId, bytes32(uint256(1)));
    }

    function test_validatorsHaveNothingToAttest() public {
        _commitSamplers(taskId);
        _expire(taskId);
        address v = _validatorAt(taskId, 0);
        vm.expectRevert(
            abi.encodeWithSelector(ITaskRegistry.WrongPhase.selector, taskId, ITaskRegistry.Phase.SampleCommit)
        );
        _sealAt(taskId, 0, v, ACCEPT_ALL);
        assertTrue(!registry.attestationOf(taskId, 0, 0).voted, "no vote in round 0");
        uint256[3] memory paid = stateView.paidOf(taskId);
        assertEq(paid[0] + paid[1] + paid[2], 0, "nothing paid for a round without work");
    }

    function test_roundWithoutSampleIsIdleAndKeepsTheCheckpoint() public {
        _runRound(taskId, ACCEPT_ALL);
        bytes32 checkpoint = _root(tr, 0);
        assertEq(_task(taskId).checkpointRoot, checkpoint, "round 0 checkpoint");

        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.RoundFinalized(taskId, 1, checkpoint, RESULT_CID);
        _expire(taskId); // round 1: no sampler committed
        ITaskRegistry.Task memory t = _task(taskId);
        assertEq(t.idleRounds, 1, "idle round");
        assertEq(t.checkpointRoot, checkpoint, "previous checkpoint stays");
        _assertPhase(taskId, 2, ITaskRegistry.Phase.SampleCommit);
        assertEq(t.phaseDeadline, registry.protocolTime() + COMMIT_WINDOW, "next round's SampleCommit opened");
        assertEq(stateView.paidOf(taskId)[uint8(Role.Trainer)], 7_000e18, "only round 0 earned");
    }

    function test_idleCountResetsWhenTheNextRoundIsAccepted() public {
        _commitSamplers(taskId);
        _expire(taskId); // round 0: no sample revealed, samplers slashed (withheld) and vacated
        // Withholding put both below the reputation threshold: the spare and a new sampler take over.
        _claim(taskId, samplers[2], Role.Sampler);
        _claim(taskId, _stakedNode("sampler3", Role.Sampler, MIN_SAMPLER_STAKE), Role.Sampler);
        _runRound(taskId, ACCEPT_ALL);
        assertEq(_task(taskId).idleRounds, 0, "reset by an accepted checkpoint");
        assertEq(_task(taskId).checkpointRoot, _root(tr, 1), "the same trainer's checkpoint");
        _assertStatus(taskId, ITaskRegistry.Status.Active);
    }

    function test_twoRoundsWithoutSampleFailTheTaskWithoutPenalisingTrainer() public {
        _expire(taskId); // round 0: samplers missed
        uint256[3] memory none;
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.RoundFinalized(taskId, 1, bytes32(0), "");
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.TaskSettled(taskId, ITaskRegistry.Status.Failed, none, BOUNTY);
        _expire(taskId); // round 1: nobody claimed the vacant sampler slots

        _assertStatus(taskId, ITaskRegistry.Status.Failed);
        assertEq(_task(taskId).idleRounds, 2, "two idle rounds in a row");
        assertEq(vault.claimableOf(requester), BOUNTY, "full refund");
        assertEq(_lockedOf(tr, Role.Trainer), 0, "trainer released");
        assertEq(reputation.scoreOf(tr), 70, "trainer never penalised");
        for (uint256 i = 0; i < NUM_VALIDATORS; ++i) {
            assertEq(_lockedOf(validators[i], Role.Validator), 0, "validator released");
            assertEq(reputation.scoreOf(validators[i]), 70, "validator never penalised");
        }
    }
}

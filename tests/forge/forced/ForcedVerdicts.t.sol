// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {ForcedFixture} from "../base/ForcedFixture.sol";
import {ITaskRegistry} from "../../../contracts/interfaces/ITaskRegistry.sol";
import {Role, Outcome} from "../../../contracts/libraries/Types.sol";

/// @notice SPECIFICATION.md 5.5.3, verdicts: a "plant" answer is a yes to forced work (the worker
///         is not hurt by validators that missed its plant) and a no to unforced work (a plant there
///         is a fault); a worker that withholds its draw is removed and its work judged unforced.
contract ForcedVerdictsTest is ForcedFixture {
    uint256 private constant PLANT_S0 = (ACCEPT_ALL & ~S0) | (S0 << 64); // accepts the rest
    uint256 private constant REJECT_S0 = ACCEPT_ALL & ~S0;

    function test_forcedWorkWithAPlantQuorumIsAcceptedAndPaid() public {
        uint256 taskId = _roundOneAttest(S0);
        address s0 = _samplerAt(taskId, 0);
        _sealVotes(taskId, [PLANT_S0, PLANT_S0, PLANT_S0]);
        uint256 before = vault.claimableOf(s0);
        address last = _openAllButLastVote(taskId);
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.VerdictReached(taskId, 1, s0, Role.Sampler, 0, ITaskRegistry.Verdict.Accepted, 3, 0);
        _open(taskId, last);
        assertEq(uint256(_verdictOf(taskId, 1, S0)), uint256(ITaskRegistry.Verdict.Accepted), "accepted");
        assertEq(vault.claimableOf(s0) - before, SAMPLER_PAY, "paid");
        assertEq(_samplerAt(taskId, 0), s0, "keeps its slot");
    }

    function test_forcedWorkWithARejectQuorumIsRejected() public {
        uint256 taskId = _roundOneAttest(S0);
        address s0 = _samplerAt(taskId, 0);
        _sealVotes(taskId, [REJECT_S0, REJECT_S0, PLANT_S0]);
        address last = _openAllButLastVote(taskId);
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.VerdictReached(taskId, 1, s0, Role.Sampler, 0, ITaskRegistry.Verdict.Rejected, 1, 2);
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.SlotVacated(taskId, s0, Role.Sampler, 0, Outcome.Rejected);
        _open(taskId, last);
        assertEq(_stakeOf(s0, Role.Sampler), MIN_SAMPLER_STAKE * 9 / 10, "slashed");
    }

    function test_forcedWorkWithTwoPlantsAndAReject_isAccepted() public {
        uint256 taskId = _roundOneAttest(S0);
        address s0 = _samplerAt(taskId, 0);
        _sealVotes(taskId, [REJECT_S0, PLANT_S0, PLANT_S0]);
        address last = _openAllButLastVote(taskId);
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.VerdictReached(taskId, 1, s0, Role.Sampler, 0, ITaskRegistry.Verdict.Accepted, 2, 1);
        _open(taskId, last);
    }

    function test_unforcedWorkWithPlantAnswersIsRejected() public {
        uint256 taskId = _roundOneAttest(0);
        address s0 = _samplerAt(taskId, 0);
        _sealVotes(taskId, [PLANT_S0, PLANT_S0, PLANT_S0]);
        address last = _openAllButLastVote(taskId);
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.VerdictReached(taskId, 1, s0, Role.Sampler, 0, ITaskRegistry.Verdict.Rejected, 0, 3);
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.SlotVacated(taskId, s0, Role.Sampler, 0, Outcome.Rejected);
        _open(taskId, last);
        assertEq(_stakeOf(s0, Role.Sampler), MIN_SAMPLER_STAKE * 9 / 10, "slashed");
    }

    function test_theSameAnswersMeanAcceptOnForcedAndRejectOnUnforcedWork() public {
        // Sampler 0 forced, sampler 1 not; every validator answers "plant" on both.
        uint256 both = TR | ((S0 | S1) << 64);
        uint256 taskId = _decideRoundOne(S0, [both, both, both]);
        assertEq(uint256(_verdictOf(taskId, 1, S0)), uint256(ITaskRegistry.Verdict.Accepted), "forced: accepted");
        assertEq(uint256(_verdictOf(taskId, 1, S1)), uint256(ITaskRegistry.Verdict.Rejected), "unforced: rejected");
        assertEq(uint256(_verdictOf(taskId, 1, TR)), uint256(ITaskRegistry.Verdict.Accepted), "trainer accepted");
    }

    // ------------------------------------------------------------ the recorded vote

    function test_aVoteKeepsPlantAnswersOnlyForRevealedWorkItDoesNotAccept() public {
        uint256 taskId = _activeTask();
        _workRound(taskId);
        address v0 = _validatorAt(taskId, 0);
        address v1 = _validatorAt(taskId, 1);
        uint256 allBoth = ACCEPT_ALL | ((ACCEPT_ALL | 0x8) << 64); // every bit accepted and planted, and an unrevealed one
        uint256 mixed = S1 | ((S0 | S1 | 0x10) << 64) | (uint256(1) << 200); // accept S1; plant S0 (S1: accepted)
        _seal(taskId, v0, allBoth);
        _seal(taskId, v1, mixed);
        _seal(taskId, _validatorAt(taskId, 2), ACCEPT_ALL);
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.Attested(taskId, 0, v0, 0, ACCEPT_ALL);
        _open(taskId, v0);
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.Attested(taskId, 0, v1, 1, S1 | (S0 << 64));
        _open(taskId, v1);
        ITaskRegistry.Attestation memory a = stateView.attestationOf(taskId, 0, 0);
        assertEq(a.acceptBitmap, ACCEPT_ALL, "both bits: accepted");
        assertEq(a.plantBitmap, 0, "and no plant answer");
        a = stateView.attestationOf(taskId, 0, 1);
        assertEq(a.acceptBitmap, S1, "accept");
        assertEq(a.plantBitmap, S0, "plant: revealed and not accepted only");
    }

    // ------------------------------------------------------------ withheld draws

    function test_aWorkerThatNeverOpensItsDrawIsWithheldAndJudgedUnforced() public {
        // Sampler 0 was forced and planted; every validator found the plant; it never opens its draw.
        uint256 taskId = _roundOneAttest(S0);
        address s0 = _samplerAt(taskId, 0);
        _sealVotes(taskId, [PLANT_S0, PLANT_S0, PLANT_S0]);
        _openDraw(taskId, _samplerAt(taskId, 1));
        _openDraw(taskId, _trainerOf(taskId));
        for (uint256 v = 0; v < 3; ++v) {
            _open(taskId, _validatorAt(taskId, v));
        }
        _assertPhase(taskId, 1, ITaskRegistry.Phase.AttestReveal);
        assertEq(_task(taskId).pending, 1, "sampler 0's draw");
        uint256 scoreBefore = reputation.scoreOf(s0);
        uint256 claimableBefore = vault.claimableOf(s0);
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.SlotVacated(taskId, s0, Role.Sampler, 0, Outcome.Withheld);
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.VerdictReached(taskId, 1, s0, Role.Sampler, 0, ITaskRegistry.Verdict.Rejected, 0, 3);
        _expire(taskId);
        _assertPhase(taskId, 2, ITaskRegistry.Phase.SampleCommit);
        assertEq(stateView.forcedMask(taskId, 1), 0, "never opened: not forced");
        assertEq(_samplerAt(taskId, 0), address(0), "vacated");
        assertEq(_stakeOf(s0, Role.Sampler), MIN_SAMPLER_STAKE * 9 / 10, "slashed once");
        assertEq(_lockedOf(s0, Role.Sampler), 0, "released");
        assertEq(reputation.scoreOf(s0), scoreBefore - 20, "marked Withheld once");
        assertEq(vault.claimableOf(s0), claimableBefore, "not paid");
        assertEq(_task(taskId).filledSamplers, 1, "one sampler left");
        // The validators that found the plant agreed with the rejection: paid.
        assertEq(vault.claimableOf(_validatorAt(taskId, 0)), 2 * VALIDATOR_PAY, "validator paid both rounds");
    }

    function test_aWithheldWorkersAcceptedWorkEarnsItNothing() public {
        uint256 taskId = _roundOneAttest(0);
        address s0 = _samplerAt(taskId, 0);
        _sealVotes(taskId, [ACCEPT_ALL, ACCEPT_ALL, ACCEPT_ALL]);
        _openDraw(taskId, _samplerAt(taskId, 1));
        _openDraw(taskId, _trainerOf(taskId));
        uint256 claimableBefore = vault.claimableOf(s0);
        uint256 paidBefore = stateView.paidOf(taskId)[uint8(Role.Sampler)];
        _expire(taskId); // the votes are still sealed too: the validators are withheld as well
        assertEq(uint256(_verdictOf(taskId, 1, S0)), uint256(ITaskRegistry.Verdict.Inconclusive), "no vote opened");
        assertEq(vault.claimableOf(s0), claimableBefore, "not paid");
        assertEq(stateView.paidOf(taskId)[uint8(Role.Sampler)], paidBefore, "nothing paid to samplers");
    }

    function test_aWithheldTrainersAcceptedCheckpointIsKeptButNotPaid() public {
        uint256 taskId = _roundOneAttest(0);
        address tr = _trainerOf(taskId);
        _sealVotes(taskId, [ACCEPT_ALL, ACCEPT_ALL, ACCEPT_ALL]);
        _openDraw(taskId, _samplerAt(taskId, 0));
        _openDraw(taskId, _samplerAt(taskId, 1));
        for (uint256 v = 0; v < 3; ++v) {
            _open(taskId, _validatorAt(taskId, v));
        }
        uint256 claimableBefore = vault.claimableOf(tr);
        uint256 s1Before = vault.claimableOf(_samplerAt(taskId, 1));
        _expire(taskId);
        assertEq(uint256(_verdictOf(taskId, 1, TR)), uint256(ITaskRegistry.Verdict.Accepted), "accepted work");
        assertEq(_task(taskId).checkpointRoot, _root(tr, 1), "its checkpoint is the task's");
        assertEq(_task(taskId).idleRounds, 0, "not idle");
        assertEq(_trainerOf(taskId), address(0), "the trainer is removed");
        assertEq(vault.claimableOf(tr), claimableBefore, "and not paid");
        assertEq(_stakeOf(tr, Role.Trainer), MIN_TRAINER_STAKE * 9 / 10, "slashed");
        assertEq(vault.claimableOf(_samplerAt(taskId, 1)) - s1Before, SAMPLER_PAY, "the others are paid");
    }
}

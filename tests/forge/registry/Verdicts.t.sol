// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {RegistryFixture} from "../base/RegistryFixture.sol";
import {ITaskRegistry} from "../../../contracts/interfaces/ITaskRegistry.sol";
import {Role, Outcome} from "../../../contracts/libraries/Types.sol";

/// @notice SPECIFICATION.md 5.5: the quorum tally, verdicts, slashing and per-round pay.
contract VerdictsTest is RegistryFixture {
    uint256 private constant SAMPLER_POOL = 2_000e18; // 30,000 * 20% / 3 rounds
    uint256 private constant TRAINER_POOL = 7_000e18; // 30,000 * 70% / 3 rounds
    uint256 private constant VALIDATOR_POOL = 1_000e18; // 30,000 * 10% / 3 rounds
    uint256 private constant REJECT_SAMPLER_0 = 0x6;
    uint256 private constant REJECT_TRAINER = 0x3;

    uint256 private taskId;
    address private s0;
    address private s1;
    address private tr;
    address[3] private v;

    function setUp() public override {
        super.setUp();
        taskId = _activeTask();
        s0 = samplers[0];
        s1 = samplers[1];
        tr = trainers[0];
        for (uint256 i = 0; i < 3; ++i) {
            v[i] = _validatorAt(taskId, i);
        }
        _workRound(taskId);
    }

    function _verdict(Role role, uint256 slot) private view returns (uint256) {
        return uint256(stateView.submissionOf(taskId, 0, role, slot).verdict);
    }

    function _claimable(address node) private view returns (uint256) {
        return vault.claimableOf(node);
    }

    function test_unanimousAcceptancePaysEveryoneAndRaisesReputation() public {
        _seal(taskId, v[0], ACCEPT_ALL);
        _seal(taskId, v[1], ACCEPT_ALL);
        _seal(taskId, v[2], ACCEPT_ALL);
        _open(taskId, v[0]);
        _open(taskId, v[1]);
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.VerdictReached(taskId, 0, s0, Role.Sampler, 0, ITaskRegistry.Verdict.Accepted, 3, 0);
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.VerdictReached(taskId, 0, s1, Role.Sampler, 1, ITaskRegistry.Verdict.Accepted, 3, 0);
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.VerdictReached(taskId, 0, tr, Role.Trainer, 0, ITaskRegistry.Verdict.Accepted, 3, 0);
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.RewardEarned(taskId, 0, s0, Role.Sampler, SAMPLER_POOL / 2);
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.RewardEarned(taskId, 0, s1, Role.Sampler, SAMPLER_POOL / 2);
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.RewardEarned(taskId, 0, tr, Role.Trainer, TRAINER_POOL);
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.RewardEarned(taskId, 0, v[0], Role.Validator, VALIDATOR_POOL / 3);
        _openAt(taskId, 0, v[2], ACCEPT_ALL);

        assertEq(_claimable(s0), SAMPLER_POOL / 2, "sampler 0 pay");
        assertEq(_claimable(tr), TRAINER_POOL, "trainer pay");
        for (uint256 i = 0; i < 3; ++i) {
            assertEq(_claimable(v[i]), VALIDATOR_POOL / 3, "validator pay");
            assertEq(reputation.scoreOf(v[i]), 72, "validator +2");
        }
        assertEq(reputation.scoreOf(s0), 72, "sampler +2");
        assertEq(reputation.scoreOf(tr), 72, "trainer +2");
        ITaskRegistry.Task memory t = _task(taskId);
        assertEq(t.checkpointRoot, _root(tr, 0), "checkpoint root");
        assertEq(keccak256(bytes(t.checkpointCid)), keccak256(bytes(RESULT_CID)), "checkpoint cid");
        assertEq(t.idleRounds, 0, "not idle");
        uint256[3] memory paid = stateView.paidOf(taskId);
        assertEq(paid[uint8(Role.Sampler)], SAMPLER_POOL, "paid samplers");
        assertEq(paid[uint8(Role.Trainer)], TRAINER_POOL, "paid trainer");
        assertEq(paid[uint8(Role.Validator)], 3 * (VALIDATOR_POOL / 3), "paid validators");
    }

    function test_rejectedSamplerIsSlashedToTreasuryAndVacated() public {
        uint256 slash = MIN_SAMPLER_STAKE / 10;
        _seal(taskId, v[0], REJECT_SAMPLER_0);
        _seal(taskId, v[1], REJECT_SAMPLER_0);
        _seal(taskId, v[2], REJECT_SAMPLER_0);
        _open(taskId, v[0]);
        _open(taskId, v[1]);
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.VerdictReached(taskId, 0, s0, Role.Sampler, 0, ITaskRegistry.Verdict.Rejected, 0, 3);
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.SlotVacated(taskId, s0, Role.Sampler, 0, Outcome.Rejected);
        _openAt(taskId, 0, v[2], REJECT_SAMPLER_0);

        assertEq(_verdict(Role.Sampler, 0), uint256(ITaskRegistry.Verdict.Rejected), "verdict");
        assertEq(token.balanceOf(treasury), slash, "slash to treasury");
        assertEq(stakes.stakeOf(s0, Role.Sampler).staked, MIN_SAMPLER_STAKE - slash, "stake slashed");
        assertEq(_lockedOf(s0, Role.Sampler), 0, "unlocked");
        assertEq(reputation.scoreOf(s0), 50, "rejected costs 20");
        assertEq(_samplerAt(taskId, 0), address(0), "slot free");
        assertEq(_claimable(s0), 0, "no pay");
        assertEq(_claimable(s1), SAMPLER_POOL / 2, "the accepted sampler earns its own slot share only");
        assertEq(_claimable(tr), TRAINER_POOL, "trainer accepted");
    }

    function test_rejectedTrainerKeepsPreviousCheckpointAndCountsIdleRound() public {
        _attestAll(taskId, REJECT_TRAINER);
        ITaskRegistry.Task memory t = _task(taskId);
        assertEq(_verdict(Role.Trainer, 0), uint256(ITaskRegistry.Verdict.Rejected), "verdict");
        assertEq(t.checkpointRoot, bytes32(0), "initial checkpoint kept");
        assertEq(t.idleRounds, 1, "idle round");
        assertTrue(!t.trainerFilled, "trainer vacated");
        assertEq(token.balanceOf(treasury), MIN_TRAINER_STAKE / 10, "trainer slashed");
        assertEq(stateView.paidOf(taskId)[uint8(Role.Trainer)], 0, "trainer unpaid");
        assertEq(_claimable(s0), SAMPLER_POOL / 2, "samplers still paid");
    }

    function test_splitVoteIsInconclusiveWithoutPayOrPenalty() public {
        _seal(taskId, v[0], ACCEPT_ALL);
        _seal(taskId, v[1], 0);
        _expire(taskId); // v[2] never sealed: Missed
        _open(taskId, v[0]);
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.VerdictReached(taskId, 0, s0, Role.Sampler, 0, ITaskRegistry.Verdict.Inconclusive, 1, 1);
        _openAt(taskId, 0, v[1], 0);

        assertEq(_verdict(Role.Sampler, 0), uint256(ITaskRegistry.Verdict.Inconclusive), "sampler");
        assertEq(_verdict(Role.Trainer, 0), uint256(ITaskRegistry.Verdict.Inconclusive), "trainer");
        assertEq(_claimable(s0), 0, "no pay");
        assertEq(reputation.scoreOf(s0), 70, "no penalty");
        assertEq(_samplerAt(taskId, 0), s0, "kept");
        assertEq(token.balanceOf(treasury), 0, "no slash");
        assertEq(_task(taskId).idleRounds, 1, "no checkpoint");
        assertEq(_claimable(v[0]), VALIDATOR_POOL / 3, "voters agree with no decided verdict: one slot share");
        assertEq(_claimable(v[1]), VALIDATOR_POOL / 3, "voters agree with no decided verdict: one slot share");
        assertEq(_validatorAt(taskId, 2), address(0), "non-voter vacated");
    }

    function test_validatorRejectingAcceptedWorkDissents_unpaidButNeitherSlashedNorReplaced() public {
        _seal(taskId, v[0], ACCEPT_ALL);
        _seal(taskId, v[1], ACCEPT_ALL);
        _seal(taskId, v[2], REJECT_TRAINER);
        _open(taskId, v[0]);
        _open(taskId, v[1]);
        uint256 stakeBefore = _stakeOf(v[2], Role.Validator);
        uint256 trainerBit = ACCEPT_ALL & ~REJECT_TRAINER;
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.Dissented(taskId, 0, v[2], 2, trainerBit);
        _openAt(taskId, 0, v[2], REJECT_TRAINER);

        assertEq(_verdict(Role.Trainer, 0), uint256(ITaskRegistry.Verdict.Accepted), "2 of 3 accept");
        assertEq(token.balanceOf(treasury), 0, "nobody slashed");
        assertEq(_stakeOf(v[2], Role.Validator), stakeBefore, "the dissenter keeps its stake");
        assertEq(reputation.scoreOf(v[2]), 70, "and its reputation");
        assertEq(_validatorAt(taskId, 2), v[2], "and its slot");
        assertEq(_claimable(v[2]), 0, "but is not paid for the round");
        assertEq(_claimable(v[0]), VALIDATOR_POOL / 3, "agreeing validators earn one slot share each");
        assertEq(_task(taskId).seedBlock, 0, "no redraw");
    }

    function test_validatorAcceptingRejectedWorkIsUnpaidButNeitherSlashedNorReplaced() public {
        _seal(taskId, v[0], REJECT_SAMPLER_0);
        _seal(taskId, v[1], REJECT_SAMPLER_0);
        _seal(taskId, v[2], ACCEPT_ALL);
        _open(taskId, v[0]);
        _open(taskId, v[1]);
        uint256 stakeBefore = _stakeOf(v[2], Role.Validator);
        _openAt(taskId, 0, v[2], ACCEPT_ALL);
        assertEq(_verdict(Role.Sampler, 0), uint256(ITaskRegistry.Verdict.Rejected), "2 of 3 reject");
        assertEq(_claimable(v[2]), 0, "unpaid: its acceptance may have missed what the others caught");
        assertEq(_stakeOf(v[2], Role.Validator), stakeBefore, "not slashed");
        assertEq(reputation.scoreOf(v[2]), 70, "not marked down");
        assertEq(_validatorAt(taskId, 2), v[2], "keeps its slot");
        assertEq(token.balanceOf(treasury), MIN_SAMPLER_STAKE / 10, "only the rejected sampler is slashed");
    }
}

/// @notice Bits of unrevealed work carry no vote.
contract UnrevealedBitsTest is RegistryFixture {
    function test_bitsOfUnrevealedSubmissionsAreIgnored() public {
        uint256 taskId = _activeTask();
        _commitSamplers(taskId);
        _reveal(taskId, samplers[0]);
        _expire(taskId); // samplers[1] committed but never revealed
        _commit(taskId, trainers[0]);
        _reveal(taskId, trainers[0]);
        assertEq(_task(taskId).revealedMask, 0x5, "sampler 1 not open to attestation");
        address v0 = _validatorAt(taskId, 0);
        _seal(taskId, v0, ACCEPT_ALL);
        _seal(taskId, _validatorAt(taskId, 1), 0x5);
        _seal(taskId, _validatorAt(taskId, 2), 0x5);
        _open(taskId, v0);
        assertEq(registry.attestationOf(taskId, 0, 0).acceptBitmap, 0x5, "bit 1 dropped");
        _openAll(taskId);
        assertEq(
            uint256(stateView.submissionOf(taskId, 0, Role.Sampler, 1).verdict),
            uint256(ITaskRegistry.Verdict.None),
            "no verdict on unrevealed work"
        );
    }
}

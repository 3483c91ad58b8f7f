// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {BlsFixture} from "../base/BlsFixture.sol";
import {ITaskRegistry} from "../../../contracts/interfaces/ITaskRegistry.sol";
import {Role} from "../../../contracts/libraries/Types.sol";

/// @notice Differential fuzz: a round whose sealed votes are opened partly by one BLS aggregate and
///         partly by single `attest` calls ends exactly as the same votes cast one by one — same verdicts,
///         same pay, same reputation, same slashes, each vote counted once.
contract AggregateEquivalenceTest is BlsFixture {
    uint256 private taskId;

    function setUp() public override {
        super.setUp();
        _registerValidatorKeys();
        taskId = _activeTask();
        _workRound(taskId);
    }

    struct Outcome {
        uint256[3] paid;
        uint256[8] claimable; // 2 samplers, trainer, 3 validators, treasury, requester escrow
        uint256[6] scores;
        uint256[3] verdicts;
        uint256 round;
        uint256 phase;
    }

    function testFuzz_aggregateEqualsPerVote(uint8 aggMask, uint8 bitmapA, uint8 bitmapB, bool allVote) public {
        uint256 agg = uint256(aggMask) % 8;
        uint256 a = uint256(bitmapA) % 8;
        uint256 b = uint256(bitmapB) % 8;
        // Both paths seal the same votes (slot 2 stays silent unless allVote): Attest ends early
        // when all three seal, at its deadline otherwise.
        for (uint256 v = 0; v < 3; ++v) {
            bool inAgg = (agg >> v) & 1 == 1;
            if (!inAgg && !allVote && v == 2) continue;
            _seal(taskId, _validatorAt(taskId, v), inAgg ? a : b);
        }
        if (_task(taskId).phase == ITaskRegistry.Phase.Attest) _expire(taskId);
        uint256 snap = vm.snapshotState();
        // Path 1: every vote opened by its own transaction.
        _openAll(taskId);
        Outcome memory perVote = _outcome();
        vm.revertToState(snap);
        // Path 2: the slots in `agg` opened by one aggregate, the others alone.
        if (agg != 0) _attestAggregate(taskId, a, agg);
        _openAll(taskId);
        Outcome memory aggregated = _outcome();
        assertEq(keccak256(abi.encode(perVote)), keccak256(abi.encode(aggregated)), "same outcome");
    }

    function _outcome() private view returns (Outcome memory o) {
        o.paid = stateView.paidOf(taskId);
        address[6] memory nodes = [samplers[0], samplers[1], trainers[0], validators[0], validators[1], validators[2]];
        for (uint256 i = 0; i < 6; ++i) {
            o.claimable[i] = vault.claimableOf(nodes[i]);
            o.scores[i] = reputation.scoreOf(nodes[i]);
        }
        o.claimable[6] = token.balanceOf(treasury);
        o.claimable[7] = vault.escrowOf(taskId);
        o.verdicts[0] = uint256(stateView.submissionOf(taskId, 0, Role.Sampler, 0).verdict);
        o.verdicts[1] = uint256(stateView.submissionOf(taskId, 0, Role.Sampler, 1).verdict);
        o.verdicts[2] = uint256(stateView.submissionOf(taskId, 0, Role.Trainer, 0).verdict);
        ITaskRegistry.Task memory t = _task(taskId);
        o.round = t.round;
        o.phase = uint256(t.phase);
    }
}

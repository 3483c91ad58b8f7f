// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {RegistryFixture} from "./RegistryFixture.sol";
import {ITaskRegistry} from "../../../contracts/interfaces/ITaskRegistry.sol";
import {Role} from "../../../contracts/libraries/Types.sol";

/// @notice Helpers for forced errors (SPECIFICATION.md 5.5.3): a round whose draws are forced or not
///         as a test wants (each worker's secret for the next round is picked against the seed that
///         round will get, the hash of the block before its SampleCommit begins: the current block's
///         parent, as forge does not mine between calls), and votes with "plant" answers.
/// @dev Submission bits of the default task: sampler slots 0 and 1 are bits 0 and 1, the trainer bit 2.
abstract contract ForcedFixture is RegistryFixture {
    uint256 internal constant S0 = 0x1;
    uint256 internal constant S1 = 0x2;
    uint256 internal constant TR = 0x4;
    uint256 internal constant SAMPLER_PAY = 1_000e18; // 30,000 * 20% / 3 rounds / 2 slots
    uint256 internal constant TRAINER_PAY = 7_000e18; // 30,000 * 70% / 3 rounds
    uint256 internal constant VALIDATOR_PAY = uint256(1_000e18) / 3; // 30,000 * 10% / 3 rounds / 3 slots

    /// @dev The vote that answers "plant" for the submissions `bits`.
    function _plant(uint256 bits) internal pure returns (uint256) {
        return bits << 64;
    }

    /// @dev The specified draw: uint256(keccak256(abi.encode(secret, seed))) % 10_000 < bps.
    function _drawIsForced(bytes32 secret, bytes32 seed, uint256 bps) internal pure returns (bool) {
        return uint256(keccak256(abi.encode(secret, seed))) % 10_000 < bps;
    }

    /// @dev Picks the secrets the default workers of `taskId` commit in this round for the next one,
    ///      so that each one's draw there is forced exactly when its bit of `forcedBits` is set (at
    ///      the current forcedErrorBps); returns the seed they were picked against. Call before the
    ///      round's commits, and let the round end in this block.
    function _pickNextDraws(uint256 taskId, uint256 forcedBits) internal returns (bytes32 seed) {
        uint256 next = _task(taskId).round + 1;
        seed = blockhash(block.number - 1);
        uint256 bps = config.forcedErrorBps();
        address[3] memory nodes = [_samplerAt(taskId, 0), _samplerAt(taskId, 1), _trainerOf(taskId)];
        for (uint256 i = 0; i < 3; ++i) {
            bool want = (forcedBits >> i) & 1 == 1;
            for (uint256 k = 0;; ++k) {
                bytes32 secret = keccak256(abi.encode("picked", taskId, nodes[i], next, k));
                if (_drawIsForced(secret, seed, bps) == want) {
                    chosenSecret[taskId][nodes[i]][next] = secret;
                    break;
                }
            }
        }
    }

    /// @dev A default task whose round 0 everyone worked and accepted, with round 1's draws forced
    ///      exactly for `forcedBits`; round 1 is worked and left in its Attest phase.
    function _roundOneAttest(uint256 forcedBits) internal returns (uint256 taskId) {
        taskId = _activeTask();
        bytes32 seed = _pickNextDraws(taskId, forcedBits);
        _runRound(taskId, ACCEPT_ALL);
        assertEq(stateView.roundSeed(taskId, 1), seed, "round 1's seed is the one the secrets were picked against");
        _workRound(taskId);
        _assertPhase(taskId, 1, ITaskRegistry.Phase.Attest);
    }

    /// @dev Validator slots 0, 1 and 2 seal `votes[v]` (Attest closes with the last).
    function _sealVotes(uint256 taskId, uint256[3] memory votes) internal {
        for (uint256 v = 0; v < 3; ++v) {
            _seal(taskId, _validatorAt(taskId, v), votes[v]);
        }
    }

    /// @dev Round 1 of `_roundOneAttest(forcedBits)` voted `votes` by slots 0..2, every draw and vote
    ///      opened: the round is finalized.
    function _decideRoundOne(uint256 forcedBits, uint256[3] memory votes) internal returns (uint256 taskId) {
        taskId = _roundOneAttest(forcedBits);
        _sealVotes(taskId, votes);
        _openAll(taskId);
        _assertPhase(taskId, 2, ITaskRegistry.Phase.SampleCommit);
        assertEq(stateView.forcedMask(taskId, 1), forcedBits, "forced as picked");
    }

    /// @dev AttestReveal: opens every draw and every sealed vote but the last slot's, and returns
    ///      that validator (whose opening then finalizes the round: expect its events first).
    function _openAllButLastVote(uint256 taskId) internal returns (address last) {
        _openDraws(taskId);
        ITaskRegistry.Task memory t = _task(taskId);
        uint256 lastSlot;
        for (uint256 v = 0; v < t.numValidators; ++v) {
            if (stateView.attestCommitmentOf(taskId, t.round, v) != bytes32(0)) lastSlot = v;
        }
        for (uint256 v = 0; v < lastSlot; ++v) {
            if (stateView.attestCommitmentOf(taskId, t.round, v) != bytes32(0)) _open(taskId, _validatorAt(taskId, v));
        }
        last = _validatorAt(taskId, lastSlot);
    }

    function _verdictOf(uint256 taskId, uint256 round, uint256 bit) internal view returns (ITaskRegistry.Verdict) {
        Role role = bit == TR ? Role.Trainer : Role.Sampler;
        return stateView.submissionOf(taskId, round, role, bit == S1 ? 1 : 0).verdict;
    }
}

// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {ITaskRegistry} from "../interfaces/ITaskRegistry.sol";
import {IStakeManager} from "../interfaces/IStakeManager.sol";
import {Role} from "./Types.sol";
import {BN254} from "./BN254.sol";
import {TaskStorage, AggregateVotes, AggregateKey, Ballot, Context} from "./TaskStorage.sol";

/// @title AggregateAttest
/// @notice Records one BLS aggregate attestation: several validator slots of a task vote the same
///         bitmap with one signature (SPECIFICATION.md 5.5.1), checked against the task's aggregate
///         key (AggregateKeys).
/// @dev An external library run by delegatecall on the registry's storage (like RoundLogic), so
///      `address(this)` in the signed message is the registry.
///      Its cost does not grow with the signers: the signers' key is the task's key minus the keys
///      of the slots in the mask that did not sign (the idea of EigenLayer's BLSSignatureChecker).
library AggregateAttest {
    /// @notice Domain tag of the attestation message.
    bytes32 internal constant ATTEST_DOMAIN = keccak256("decentrl.attest.v1");

    /// @notice The 32-byte message validators sign for `registry`: keccak256(abi.encode(ATTEST_DOMAIN,
    ///         chain id, registry, taskId, round, acceptBitmap)).
    function message(address registry, uint256 taskId, uint256 round, uint256 acceptBitmap)
        internal
        view
        returns (bytes32)
    {
        return keccak256(abi.encode(ATTEST_DOMAIN, block.chainid, registry, taskId, round, acceptBitmap));
    }

    /// @notice Checks the task is Active in the Attest phase of `round` before its deadline, the
    ///         signers and the signature, and records their vote as one ballot.
    /// @param c The registry's context (its StakeManager, protocol time). While disputes are on,
    ///        each signer is recorded as its slot's attester this round.
    /// @param signerBitmap Bit v set: validator slot v signed. Every signer must be in the task's BLS
    ///        mask, be expected this round and not have voted yet (else the whole call reverts).
    /// @param sigma Sum of the signers' signatures of `message(registry, taskId, round, acceptBitmap)` (G1).
    /// @param apk2 Sum of the signers' G2 keys; checked against the sum of their G1 keys.
    /// @return signers How many slots voted (each counts as one expected action of the phase).
    function record(
        TaskStorage storage s,
        Context memory c,
        uint256 taskId,
        uint256 round,
        uint256 acceptBitmap,
        uint256 signerBitmap,
        uint256[2] calldata sigma,
        uint256[4] calldata apk2
    ) external returns (uint256 signers) {
        ITaskRegistry.Task storage t = s.tasks[taskId];
        _checkOpen(t, taskId, round, c.now);
        _verify(s, c.stakes, t, taskId, round, acceptBitmap, signerBitmap, sigma, apk2);
        AggregateVotes storage agg = s.aggregates[taskId][round];
        signers = _popcount(signerBitmap);
        // Only bits of revealed submissions mean anything; both masks fit 64 bits by construction.
        uint64 bitmap = uint64(acceptBitmap & t.revealedMask);
        agg.votedMask |= uint64(signerBitmap);
        agg.ballots[agg.count] = Ballot(uint64(signerBitmap), bitmap);
        agg.count += 1;
        if (s.disputeManager != address(0)) _recordVoters(s, taskId, round, t.numValidators, signerBitmap);
        emit ITaskRegistry.AggregateAttested(taskId, round, signerBitmap, bitmap);
    }

    /// @dev The checks `attest` makes of the task: it exists, is Active, Attest phase of `round`, before the deadline.
    function _checkOpen(ITaskRegistry.Task storage t, uint256 taskId, uint256 round, uint256 now_) private view {
        if (t.status == ITaskRegistry.Status.None) revert ITaskRegistry.TaskNotFound(taskId);
        if (t.status != ITaskRegistry.Status.Active) revert ITaskRegistry.WrongStatus(taskId, t.status);
        if (t.phase != ITaskRegistry.Phase.Attest) revert ITaskRegistry.WrongPhase(taskId, t.phase);
        if (round != t.round) revert ITaskRegistry.RoundMismatch(taskId, round, t.round);
        if (now_ > t.phaseDeadline) revert ITaskRegistry.DeadlinePassed(taskId, t.phaseDeadline);
    }

    /// @dev Checks the signers (`_checkSigners`) and the signature over their key.
    function _verify(
        TaskStorage storage s,
        IStakeManager stakes,
        ITaskRegistry.Task storage t,
        uint256 taskId,
        uint256 round,
        uint256 acceptBitmap,
        uint256 signerBitmap,
        uint256[2] calldata sigma,
        uint256[4] calldata apk2
    ) private view {
        uint256 mask = _checkSigners(s, t, taskId, round, signerBitmap, s.aggregates[taskId][round].votedMask);
        uint256[2] memory apk1 = _signersKey(s, stakes, taskId, mask & ~signerBitmap);
        if (!BN254.verify(sigma, apk1, apk2, message(address(this), taskId, round, acceptBitmap))) {
            revert ITaskRegistry.InvalidAggregateSignature(taskId, round, signerBitmap);
        }
    }

    /// @dev Checks `signerBitmap` names slots of the task's BLS mask that are expected this round and
    ///      have not voted, in O(1) unless a validator voted alone this round; returns the mask.
    ///      Why the count check suffices (SPECIFICATION.md 5.5.1): while the Attest phase is open no
    ///      validator slot is vacated, so the held slots (filledValidators) include the disjoint sets
    ///      of expected slots that have not acted (pending), slots that voted alone and slots that
    ///      voted in an aggregate. If filledValidators == pending + |aggregated|, nobody voted alone
    ///      and every held slot is either pending or aggregated: a signer in the mask (held) and not
    ///      aggregated is pending, i.e. expected this round and not yet voted.
    function _checkSigners(
        TaskStorage storage s,
        ITaskRegistry.Task storage t,
        uint256 taskId,
        uint256 round,
        uint256 signerBitmap,
        uint256 aggregated
    ) private view returns (uint256 mask) {
        if (signerBitmap == 0 || signerBitmap >> t.numValidators != 0) {
            revert ITaskRegistry.InvalidSignerBitmap(taskId, signerBitmap);
        }
        mask = s.aggregateKeys[taskId].mask;
        if (signerBitmap & ~mask != 0) _refuseOutsideMask(s, taskId, signerBitmap, mask);
        if (signerBitmap & aggregated != 0) {
            revert ITaskRegistry.AlreadyAttested(taskId, _holder(s, taskId, _lowestBit(signerBitmap & aggregated)));
        }
        if (t.filledValidators != t.pending + _popcount(aggregated)) _checkEach(s, taskId, round, signerBitmap);
    }

    /// @dev The slow path, once a validator voted alone this round: each signer's slot and vote.
    function _checkEach(TaskStorage storage s, uint256 taskId, uint256 round, uint256 signerBitmap) private view {
        for (uint256 v = 0; signerBitmap >> v != 0; ++v) {
            if ((signerBitmap >> v) & 1 == 0) continue;
            ITaskRegistry.Slot storage slot = s.slots[taskId][Role.Validator][v];
            // Unreachable while the phase is open (a slot joining Attest before its deadline works
            // this round); kept so that an aggregate can never count a node `attest` would refuse.
            if (slot.sinceRound > round) revert ITaskRegistry.NotExpectedThisRound(taskId, round, slot.sinceRound);
            if (s.attestations[taskId][round][v].voted) revert ITaskRegistry.AlreadyAttested(taskId, slot.node);
        }
    }

    /// @dev The signers' G1 key: the task's key minus the keys of the mask's slots that did not sign.
    function _signersKey(TaskStorage storage s, IStakeManager stakes, uint256 taskId, uint256 absent)
        private
        view
        returns (uint256[2] memory apk)
    {
        apk = s.aggregateKeys[taskId].apk;
        if (absent == 0) return apk;
        address[] memory nodes = new address[](_popcount(absent));
        uint256 count = 0;
        for (uint256 v = 0; absent >> v != 0; ++v) {
            if ((absent >> v) & 1 == 0) continue;
            nodes[count] = s.slots[taskId][Role.Validator][v].node;
            // count < popcount(absent) <= 64: no overflow.
            unchecked {
                ++count;
            }
        }
        // Every slot in the mask is held by a node whose (write-once) key was added when it joined.
        apk = BN254.add(apk, BN254.negate(stakes.aggregateBlsKey(nodes)));
    }

    /// @dev Reverts for a signer outside the mask: VacantValidatorSlot when the first is vacant.
    function _refuseOutsideMask(TaskStorage storage s, uint256 taskId, uint256 signerBitmap, uint256 mask)
        private
        view
    {
        uint256 v = _lowestBit(signerBitmap & ~mask);
        if (_holder(s, taskId, v) == address(0)) revert ITaskRegistry.VacantValidatorSlot(taskId, v);
        revert ITaskRegistry.SignersOutsideBlsMask(taskId, signerBitmap, mask);
    }

    /// @dev Records each signer as its slot's attester of `round` (disputes need the voters after
    ///      slots change hands).
    function _recordVoters(TaskStorage storage s, uint256 taskId, uint256 round, uint256 n, uint256 signerBitmap)
        private
    {
        for (uint256 v = 0; v < n; ++v) {
            if ((signerBitmap >> v) & 1 == 1) s.attesters[taskId][round][v] = _holder(s, taskId, v);
        }
    }

    function _holder(TaskStorage storage s, uint256 taskId, uint256 v) private view returns (address) {
        return s.slots[taskId][Role.Validator][v].node;
    }

    /// @dev Index of the lowest set bit of x (x != 0).
    function _lowestBit(uint256 x) private pure returns (uint256 v) {
        while ((x >> v) & 1 == 0) ++v;
    }

    /// @dev Number of set bits of a 64-bit x (SWAR popcount).
    function _popcount(uint256 x) private pure returns (uint256) {
        // x < 2^64 and every step keeps each field's count within its field: no overflow, and the
        // final product is masked to 64 bits before its top byte (the sum) is taken.
        unchecked {
            x -= (x >> 1) & 0x5555555555555555;
            x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333);
            x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0f;
            return ((x * 0x0101010101010101) & 0xffffffffffffffff) >> 56;
        }
    }
}

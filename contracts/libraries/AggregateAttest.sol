// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {ITaskRegistry} from "../interfaces/ITaskRegistry.sol";
import {IStakeManager} from "../interfaces/IStakeManager.sol";
import {Role} from "./Types.sol";
import {BN254} from "./BN254.sol";
import {TaskStorage, AggregateVotes, Ballot, Context} from "./TaskStorage.sol";
import {Tasks} from "./Tasks.sol";
import {Votes} from "./Votes.sol";
import {ForcedErrors} from "./ForcedErrors.sol";

/// @title AggregateAttest
/// @notice Records one BLS aggregate attestation: several validator slots of a task open sealed
///         votes for the same bitmap with one signature (SPECIFICATION.md 5.5.1), checked against
///         the task's aggregate key (AggregateKeys).
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

    /// @notice What an aggregate votes: `acceptBitmap` for validator slots `signerBitmap` (bit v set:
    ///         slot v signed) of `taskId` in `round`.
    struct Vote {
        uint256 taskId;
        uint256 round;
        uint256 acceptBitmap;
        uint256 signerBitmap;
    }

    /// @notice Checks the task is Active in the AttestReveal phase of `round` before its deadline,
    ///         the signers, their sealed votes and the signature, and records their vote as one ballot.
    /// @param c The registry's context (its StakeManager, protocol time). While disputes are on,
    ///        each signer is recorded as its slot's attester this round.
    /// @param v Every signer must be in the task's BLS mask and hold a sealed vote of `v.round` not
    ///        yet opened (else the whole call reverts).
    /// @param sigma Sum of the signers' signatures of `message(registry, taskId, round, acceptBitmap)` (G1).
    /// @param apk2 Sum of the signers' G2 keys; checked against the sum of their G1 keys.
    /// @param salts One per signer in slot order: each signer's commitment opens with (acceptBitmap, salt).
    /// @return signers How many slots voted (each counts as one expected action of the phase).
    function record(
        TaskStorage storage s,
        Context memory c,
        Vote memory v,
        uint256[2] calldata sigma,
        uint256[4] calldata apk2,
        bytes32[] calldata salts
    ) external returns (uint256 signers) {
        ITaskRegistry.Task storage t = s.tasks[v.taskId];
        _checkOpen(t, v.taskId, v.round, c.now);
        uint256 mask = _checkSigners(s, t, v.taskId, v.signerBitmap);
        signers = _open(s, v, salts);
        _verify(s, c.stakes, v, mask, sigma, apk2);
        AggregateVotes storage agg = s.aggregates[v.taskId][v.round];
        // Only bits of revealed submissions mean anything; both masks fit 64 bits by construction.
        (uint64 accept, uint64 plant) = ForcedErrors.split(v.acceptBitmap, t.revealedMask);
        agg.votedMask |= uint64(v.signerBitmap);
        agg.ballots[agg.count] = Ballot(uint64(v.signerBitmap), accept, plant);
        agg.count += 1;
        if (s.disputeManager != address(0)) _recordVoters(s, v.taskId, v.round, t.numValidators, v.signerBitmap);
        emit ITaskRegistry.AggregateAttested(v.taskId, v.round, v.signerBitmap, ForcedErrors.encode(accept, plant));
    }

    /// @dev The checks `attest` makes of the task: it exists, is Active, AttestReveal phase of
    ///      `round`, before the deadline.
    function _checkOpen(ITaskRegistry.Task storage t, uint256 taskId, uint256 round, uint256 now_) private view {
        if (t.status == ITaskRegistry.Status.None) revert ITaskRegistry.TaskNotFound(taskId);
        if (t.status != ITaskRegistry.Status.Active) revert ITaskRegistry.WrongStatus(taskId, t.status);
        if (t.phase != ITaskRegistry.Phase.AttestReveal) revert ITaskRegistry.WrongPhase(taskId, t.phase);
        if (round != t.round) revert ITaskRegistry.RoundMismatch(taskId, round, t.round);
        if (now_ > t.phaseDeadline) revert ITaskRegistry.DeadlinePassed(taskId, t.phaseDeadline);
    }

    /// @dev Checks the aggregate signature against the signers' key (the task's `mask` minus the
    ///      slots that did not sign).
    function _verify(
        TaskStorage storage s,
        IStakeManager stakes,
        Vote memory v,
        uint256 mask,
        uint256[2] calldata sigma,
        uint256[4] calldata apk2
    ) private view {
        uint256[2] memory apk1 = _signersKey(s, stakes, v.taskId, mask & ~v.signerBitmap);
        if (!BN254.verify(sigma, apk1, apk2, message(address(this), v.taskId, v.round, v.acceptBitmap))) {
            revert ITaskRegistry.InvalidAggregateSignature(v.taskId, v.round, v.signerBitmap);
        }
    }

    /// @dev Checks `signerBitmap` names slots of the task's BLS mask; returns the mask.
    function _checkSigners(TaskStorage storage s, ITaskRegistry.Task storage t, uint256 taskId, uint256 signerBitmap)
        private
        view
        returns (uint256 mask)
    {
        if (signerBitmap == 0 || signerBitmap >> t.numValidators != 0) {
            revert ITaskRegistry.InvalidSignerBitmap(taskId, signerBitmap);
        }
        mask = s.aggregateKeys[taskId].mask;
        if (signerBitmap & ~mask != 0) _refuseOutsideMask(s, taskId, signerBitmap, mask);
    }

    /// @dev Opens each signer's sealed vote with the aggregate's bitmap and its salt, and clears it
    ///      (as `attest` does); returns the number of signers. A sealed vote still set is one of
    ///      `round`, committed in its Attest phase by the slot's holder (who was then expected), and
    ///      not yet opened: so each signer is expected this round and has not voted
    ///      (SPECIFICATION.md 5.5.1).
    function _open(TaskStorage storage s, Vote memory v, bytes32[] calldata salts) private returns (uint256 signers) {
        signers = _popcount(v.signerBitmap);
        if (salts.length != signers) revert ITaskRegistry.SaltCountMismatch(v.taskId, signers, salts.length);
        mapping(uint256 => bytes32) storage commitments = s.attestCommitments[v.taskId][v.round];
        uint256 i = 0;
        for (uint256 slot = 0; v.signerBitmap >> slot != 0; ++slot) {
            if ((v.signerBitmap >> slot) & 1 == 0) continue;
            address node = _holder(s, v.taskId, slot);
            bytes32 sealedVote = commitments[slot];
            if (sealedVote == bytes32(0)) _refuseUnsealed(s, v, slot, node);
            if (Tasks.attestCommitment(v.taskId, v.round, node, v.acceptBitmap, salts[i]) != sealedVote) {
                revert ITaskRegistry.SignerCommitmentMismatch(v.taskId, slot);
            }
            delete commitments[slot];
            // i < salts.length == signers <= 64: no overflow.
            unchecked {
                ++i;
            }
        }
    }

    /// @dev Reverts for a signer without a sealed vote: AlreadyAttested when it was opened already,
    ///      NotCommitted when it never committed this round.
    function _refuseUnsealed(TaskStorage storage s, Vote memory v, uint256 slot, address node) private view {
        if (Votes.voted(s, v.taskId, v.round, slot)) revert ITaskRegistry.AlreadyAttested(v.taskId, node);
        revert ITaskRegistry.NotCommitted(v.taskId, node);
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

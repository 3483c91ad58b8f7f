// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {ITaskRegistry} from "../interfaces/ITaskRegistry.sol";
import {IStakeManager} from "../interfaces/IStakeManager.sol";
import {Role} from "./Types.sol";
import {BN254} from "./BN254.sol";
import {TaskStorage, AggregateVotes, Ballot} from "./TaskStorage.sol";

/// @title AggregateAttest
/// @notice Records one BLS aggregate attestation: several validator slots of a task vote the same
///         bitmap with one signature (SPECIFICATION.md 5.5, "Aggregate attestations").
/// @dev An external library run by delegatecall on the registry's storage (like RoundLogic), so
///      `address(this)` in the signed message is the registry. The caller has checked the task is
///      Active, in the Attest phase of `round`, and before the phase deadline.
library AggregateAttest {
    /// @notice Domain tag of the attestation message.
    bytes32 internal constant ATTEST_DOMAIN = keccak256("decentrl.attest.v1");

    /// @notice The 32-byte message validators sign: keccak256(abi.encode(ATTEST_DOMAIN, chain id,
    ///         registry, taskId, round, acceptBitmap)).
    function message(uint256 taskId, uint256 round, uint256 acceptBitmap) internal view returns (bytes32) {
        return keccak256(abi.encode(ATTEST_DOMAIN, block.chainid, address(this), taskId, round, acceptBitmap));
    }

    /// @notice Checks the signers and the signature, and records their vote as one ballot.
    /// @param signerBitmap Bit v set: validator slot v signed. Every signer must hold its slot, be
    ///        expected this round and not have voted yet (else the whole call reverts).
    /// @param sigma Sum of the signers' signatures of `message(taskId, round, acceptBitmap)` (G1).
    /// @param apk2 Sum of the signers' G2 keys; checked against the sum of their G1 keys.
    /// @param recordVoters Disputes are on: record each signer as its slot's attester this round.
    /// @return signers How many slots voted (each counts as one expected action of the phase).
    function record(
        TaskStorage storage s,
        IStakeManager stakes,
        uint256 taskId,
        uint256 acceptBitmap,
        uint256 signerBitmap,
        uint256[2] calldata sigma,
        uint256[4] calldata apk2,
        bool recordVoters
    ) external returns (uint256 signers) {
        ITaskRegistry.Task storage t = s.tasks[taskId];
        uint256 round = t.round;
        {
            address[] memory nodes = _signers(s, taskId, round, t.numValidators, signerBitmap);
            signers = nodes.length;
            if (!BN254.verify(sigma, stakes.aggregateBlsKey(nodes), apk2, message(taskId, round, acceptBitmap))) {
                revert ITaskRegistry.InvalidAggregateSignature(taskId, round, signerBitmap);
            }
        }
        // Only bits of revealed submissions mean anything; both masks fit 64 bits by construction.
        uint64 bitmap = uint64(acceptBitmap & t.revealedMask);
        AggregateVotes storage agg = s.aggregates[taskId][round];
        agg.votedMask |= uint64(signerBitmap);
        agg.ballots[agg.count] = Ballot(uint64(signerBitmap), bitmap);
        agg.count += 1;
        if (recordVoters) _recordVoters(s, taskId, round, t.numValidators, signerBitmap);
        emit ITaskRegistry.AggregateAttested(taskId, round, signerBitmap, bitmap);
    }

    /// @dev Records each signer as its slot's attester of `round` (disputes need the voters after
    ///      slots change hands).
    function _recordVoters(TaskStorage storage s, uint256 taskId, uint256 round, uint256 n, uint256 signerBitmap)
        private
    {
        for (uint256 v = 0; v < n; ++v) {
            if ((signerBitmap >> v) & 1 == 1) s.attesters[taskId][round][v] = s.slots[taskId][Role.Validator][v].node;
        }
    }

    /// @dev The holders of the slots in `signerBitmap`, each checked to hold its slot, to be expected
    ///      this round and not to have voted yet.
    function _signers(TaskStorage storage s, uint256 taskId, uint256 round, uint256 n, uint256 signerBitmap)
        private
        view
        returns (address[] memory nodes)
    {
        if (signerBitmap == 0 || signerBitmap >> n != 0) revert ITaskRegistry.InvalidSignerBitmap(taskId, signerBitmap);
        uint256 aggregated = s.aggregates[taskId][round].votedMask;
        nodes = new address[](n);
        uint256 count;
        for (uint256 v = 0; v < n; ++v) {
            if ((signerBitmap >> v) & 1 == 0) continue;
            ITaskRegistry.Slot storage slot = s.slots[taskId][Role.Validator][v];
            address node = slot.node;
            if (node == address(0)) revert ITaskRegistry.VacantValidatorSlot(taskId, v);
            // Unreachable while the phase is open (a slot joining Attest before its deadline works
            // this round); kept so that an aggregate can never count a node `attest` would refuse.
            if (slot.sinceRound > round) revert ITaskRegistry.NotExpectedThisRound(taskId, round, slot.sinceRound);
            if (s.attestations[taskId][round][v].voted || (aggregated >> v) & 1 == 1) {
                revert ITaskRegistry.AlreadyAttested(taskId, node);
            }
            nodes[count] = node;
            // count <= v < n <= 64: no overflow.
            unchecked {
                ++count;
            }
        }
        // Trim the array to the signers (memory only; its length word is rewritten in place).
        assembly ("memory-safe") {
            mstore(nodes, count)
        }
    }
}

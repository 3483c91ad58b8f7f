// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {MerkleProof} from "@openzeppelin/contracts/utils/cryptography/MerkleProof.sol";
import {IDisputeManager} from "../interfaces/IDisputeManager.sol";
import {EpisodeCheck} from "./EpisodeCheck.sol";

/// @title FaultProver
/// @notice Proves a sampler episode bad on-chain (SPECIFICATION.md 13): the item is under the
///         submission's Merkle root and carries a fault the chain can check itself (EpisodeCheck).
/// @dev An external library: the parser's code stays out of the DisputeManager.
library FaultProver {
    /// @notice The fault of `item`, proven under `root` by `proof`, as an episode of `round` on
    ///         shard `shard`. Reverts NotInRoot when the proof fails and NoFaultProven when the
    ///         episode shows no fault (EpisodeCheck reverts MalformedEpisode on what it cannot parse).
    function prove(
        uint256 disputeId,
        bytes calldata item,
        bytes32[] calldata proof,
        bytes32 root,
        uint256 round,
        uint256 shard
    ) external pure returns (EpisodeCheck.Fault fault) {
        // workers/merkle.py: leaf = keccak256(keccak256(item)), sorted-pair inner nodes.
        bytes32 leaf = keccak256(bytes.concat(keccak256(item)));
        if (!MerkleProof.verifyCalldata(proof, root, leaf)) revert IDisputeManager.NotInRoot(disputeId);
        fault = EpisodeCheck.faultOf(item, round, shard);
        if (fault == EpisodeCheck.Fault.None) revert IDisputeManager.NoFaultProven(disputeId);
    }
}

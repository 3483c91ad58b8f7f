// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title ForcedErrors
/// @notice The rules of forced errors (SPECIFICATION.md 5.5.3) that the registry, its logic
///         libraries and StateView share: a worker's draw commitment, whether a draw is forced,
///         and the vote encoding with its "plant" answers.
/// @dev Truebit's forced errors, adapted: a forced worker plants a known, training-neutral error,
///      so a validator that accepts without checking misses it and earns nothing that round.
library ForcedErrors {
    /// @notice Bit 64 + i of a vote is its "plant" answer for submission i (bit i accepts it).
    uint256 internal constant PLANT_SHIFT = 64;
    /// @notice The draw is taken modulo this (forcedErrorBps is in basis points of it).
    uint256 internal constant DRAW_MODULUS = 10_000;

    /// @notice The commitment a worker's reveal in round `round - 1` carries as its salt, opened by
    ///         `secret` in `round`: keccak256(abi.encode(taskId, round, node, secret)).
    function drawCommitment(uint256 taskId, uint256 round, address node, bytes32 secret)
        internal
        pure
        returns (bytes32)
    {
        return keccak256(abi.encode(taskId, round, node, secret));
    }

    /// @notice Whether a draw opened with `secret` in a round seeded `seed` is forced at `bps`:
    ///         uint256(keccak256(abi.encode(secret, seed))) % 10_000 < bps.
    function isForced(bytes32 secret, bytes32 seed, uint256 bps) internal pure returns (bool) {
        return uint256(keccak256(abi.encode(secret, seed))) % DRAW_MODULUS < bps;
    }

    /// @notice Splits a vote (bit i: accept submission i; bit 64 + i: "plant" for it) into its
    ///         accept and plant bitmaps over the `revealed` submissions; a plant bit beside an
    ///         accept bit is dropped (the vote accepts).
    function split(uint256 vote, uint256 revealed) internal pure returns (uint64 accept, uint64 plant) {
        // revealed fits 64 bits (Task.revealedMask), so both masks do.
        accept = uint64(vote & revealed);
        plant = uint64((vote >> PLANT_SHIFT) & revealed & ~uint256(accept));
    }

    /// @notice The vote of `accept` and `plant` bitmaps, encoded as `attest` takes it.
    function encode(uint64 accept, uint64 plant) internal pure returns (uint256) {
        return uint256(accept) | (uint256(plant) << PLANT_SHIFT);
    }
}

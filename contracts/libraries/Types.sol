// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @notice The three kinds of work a node can be staked and assigned for.
/// @dev The numeric values are part of the ABI (events, calldata): never reorder.
enum Role {
    Sampler,
    Trainer,
    Validator
}

/// @notice Why a node's reputation changed.
enum Outcome {
    Accepted,
    Rejected,
    Missed,
    AgainstQuorum,
    Recovered,
    Withheld // committed and did not reveal: slashed like a rejection (SPECIFICATION.md 5.6)
}

// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title IExtsload
/// @notice Raw reads of a contract's storage (the pattern of Uniswap v4's `extsload`): the cores
///         keep no struct-returning views; readers (StateView, the TaskState and DisputeState
///         libraries) compute the slots of what they need and decode the words.
interface IExtsload {
    /// @notice The word at `slot`.
    function extsload(bytes32 slot) external view returns (bytes32 value);

    /// @notice `count` consecutive words from `startSlot` (a struct's fields, for example).
    function extsload(bytes32 startSlot, uint256 count) external view returns (bytes32[] memory values);
}

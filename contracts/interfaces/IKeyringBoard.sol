// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {ITaskRegistry} from "./ITaskRegistry.sol";

/// @title Where requesters announce the keyrings of encrypted task inputs (SPECIFICATION 5.7)
/// @notice A keyring (the task's data key wrapped for each assigned node) is stored content-
///         addressed off-chain; its CID is posted here by the task's requester, the only account
///         nodes take a keyring from. The registry itself is not involved: the board only reads
///         the task's requester from it.
interface IKeyringBoard {
    /// @notice The caller is not the requester of the task (or the task does not exist).
    error NotRequester(uint256 taskId, address caller);
    /// @notice The CID is empty or longer than 128 bytes (the bounds of a spec CID).
    error InvalidKeyringCid();

    /// @notice The requester posted (or replaced) the task's keyring.
    event KeyringPosted(uint256 indexed taskId, address indexed requester, string cid);

    /// @notice Posts `cid` as the task's current keyring, replacing any earlier one (after an
    ///         assignment change). Only the task's requester (a task id never created has none).
    function postKeyring(uint256 taskId, string calldata cid) external;

    /// @notice The task's current keyring CID ("" before any).
    function keyringOf(uint256 taskId) external view returns (string memory);

    /// @notice The registry whose tasks' requesters may post.
    function registry() external view returns (ITaskRegistry);
}

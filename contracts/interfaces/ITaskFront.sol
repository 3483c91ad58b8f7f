// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {ITaskRegistry} from "./ITaskRegistry.sol";

/// @title ITaskFront
/// @notice Signed ways into the TaskRegistry (the periphery pattern of Uniswap v4-periphery and
///         Permit2): a task funded by an EIP-2612 permit instead of a prior `approve`, and a task
///         created for a requester from their EIP-712 signature, relayed by anyone. The front checks
///         signatures and nonces, submits the permit (its spender is the registry) and calls
///         `TaskRegistry.createTaskFor`; it holds no tokens and no task state.
interface ITaskFront {
    /// @notice An optional EIP-2612 permit for the bounty (spender: the registry; value: the
    ///         bounty); deadline 0 means none.
    struct Permit {
        uint256 deadline;
        uint8 v;
        bytes32 r;
        bytes32 s;
    }

    error SignatureExpired(uint256 deadline);
    error InvalidSignature(address requester);

    /// @notice Same as `TaskRegistry.createTask`, funding the bounty with the caller's permit.
    function createTaskWithPermit(ITaskRegistry.TaskParams calldata params, Permit calldata permit)
        external
        returns (uint256 taskId);

    /// @notice Creates a task on behalf of `requester` from their EIP-712 `CreateTask` signature;
    ///         anyone may relay it. Nonce, deadline, chain id and this contract's address are signed.
    function createTaskWithSig(
        ITaskRegistry.TaskParams calldata params,
        address requester,
        uint256 deadline,
        bytes calldata signature,
        Permit calldata permit
    ) external returns (uint256 taskId);

    /// @notice The EIP-712 digest a requester signs for `createTaskWithSig`.
    function createTaskDigest(ITaskRegistry.TaskParams calldata params, address requester, uint256 nonce, uint256 deadline)
        external
        view
        returns (bytes32);

    /// @notice Next nonce `requester` must sign for `createTaskWithSig`.
    function nonces(address requester) external view returns (uint256);

    function registry() external view returns (ITaskRegistry);
}

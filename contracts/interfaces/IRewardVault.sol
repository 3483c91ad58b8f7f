// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title IRewardVault
/// @notice Holds task bounties in escrow and what each account has earned, until it pulls it.
/// @dev Invariant: token.balanceOf(vault) >= totalEscrow + totalClaimable (equal unless someone
///      sends tokens to the vault directly).
interface IRewardVault {
    error ZeroAmount();
    error ZeroAddress();
    error DepositNotReceived(uint256 expectedBalance, uint256 actualBalance);
    error InsufficientEscrow(uint256 taskId, uint256 escrow, uint256 requested);
    error InsufficientClaimable(address account, uint256 claimable, uint256 requested);
    error NothingHeld(uint256 taskId, uint256 round, address account);

    event Deposited(uint256 indexed taskId, uint256 amount);
    event Credited(uint256 indexed taskId, address indexed account, uint256 amount);
    event Refunded(uint256 indexed taskId, address indexed account, uint256 amount);
    event Withdrawn(address indexed account, address indexed to, uint256 amount);
    event Held(uint256 indexed taskId, uint256 indexed round, address indexed account, uint256 amount);
    event Released(uint256 indexed taskId, uint256 indexed round, address indexed account, uint256 amount);
    event Reclaimed(uint256 indexed taskId, uint256 indexed round, address indexed account, address to, uint256 amount);

    /// @notice Records `amount` already transferred to the vault as the escrow of `taskId`. Escrow role only.
    function recordDeposit(uint256 taskId, uint256 amount) external;

    /// @notice Moves `amount` of the task's escrow to `account`'s claimable balance. Escrow role only.
    function credit(uint256 taskId, address account, uint256 amount) external;

    /// @notice Moves the task's free escrow (escrow not held for a round) to `account`'s claimable
    ///         balance. Escrow role only.
    function refund(uint256 taskId, address account) external returns (uint256 amount);

    /// @notice Earmarks `amount` of the task's free escrow as `account`'s pay for `round`, held until
    ///         that round's dispute window has passed (SPECIFICATION.md, "Disputes"). Escrow role only.
    function hold(uint256 taskId, uint256 round, address account, uint256 amount) external;

    /// @notice Moves `account`'s held pay for `round` to its claimable balance. Escrow role only.
    function release(uint256 taskId, uint256 round, address account) external returns (uint256 amount);

    /// @notice Moves `account`'s held pay for `round` to `to`'s claimable balance (the requester:
    ///         the pay of an overturned verdict goes back to who paid it). Escrow role only.
    function reclaim(uint256 taskId, uint256 round, address account, address to) external returns (uint256 amount);

    /// @notice Pays `amount` of the caller's claimable balance to `to`.
    function withdraw(address to, uint256 amount) external;

    function escrowOf(uint256 taskId) external view returns (uint256);
    function claimableOf(address account) external view returns (uint256);
    function totalEscrow() external view returns (uint256);
    function totalClaimable() external view returns (uint256);
    /// @notice `account`'s pay for `round` of `taskId` still held for the dispute window.
    function heldOf(uint256 taskId, uint256 round, address account) external view returns (uint256);
    /// @notice The part of the task's escrow held for dispute windows.
    function heldTotalOf(uint256 taskId) external view returns (uint256);
}

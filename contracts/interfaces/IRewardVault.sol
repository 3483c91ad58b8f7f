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

    event Deposited(uint256 indexed taskId, uint256 amount);
    event Credited(uint256 indexed taskId, address indexed account, uint256 amount);
    event Refunded(uint256 indexed taskId, address indexed account, uint256 amount);
    event Withdrawn(address indexed account, address indexed to, uint256 amount);

    /// @notice Records `amount` already transferred to the vault as the escrow of `taskId`. Escrow role only.
    function recordDeposit(uint256 taskId, uint256 amount) external;

    /// @notice Moves `amount` of the task's escrow to `account`'s claimable balance. Escrow role only.
    function credit(uint256 taskId, address account, uint256 amount) external;

    /// @notice Moves all remaining escrow of the task to `account`'s claimable balance. Escrow role only.
    function refund(uint256 taskId, address account) external returns (uint256 amount);

    /// @notice Pays `amount` of the caller's claimable balance to `to`.
    function withdraw(address to, uint256 amount) external;

    function escrowOf(uint256 taskId) external view returns (uint256);
    function claimableOf(address account) external view returns (uint256);
    function totalEscrow() external view returns (uint256);
    function totalClaimable() external view returns (uint256);
}

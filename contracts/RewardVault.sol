// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {IRewardVault} from "./interfaces/IRewardVault.sol";

/// @title RewardVault
/// @notice Escrow and pull-payment ledger. Only the TaskRegistry moves escrow; only an account moves
///         its own claimable balance out.
contract RewardVault is IRewardVault, AccessControl, ReentrancyGuard {
    using SafeERC20 for IERC20;

    /// @notice Held by the TaskRegistry.
    bytes32 public constant ESCROW_ROLE = keccak256("ESCROW_ROLE");

    IERC20 public immutable token;

    mapping(uint256 taskId => uint256) private _escrow;
    mapping(address account => uint256) private _claimable;
    uint256 private _totalEscrow;
    uint256 private _totalClaimable;

    constructor(IERC20 token_, address admin) {
        if (address(token_) == address(0) || admin == address(0)) revert ZeroAddress();
        token = token_;
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
    }

    /// @inheritdoc IRewardVault
    function recordDeposit(uint256 taskId, uint256 amount) external onlyRole(ESCROW_ROLE) {
        if (amount == 0) revert ZeroAmount();
        uint256 expected = _totalEscrow + _totalClaimable + amount;
        uint256 balance = token.balanceOf(address(this));
        if (balance < expected) revert DepositNotReceived(expected, balance);
        _escrow[taskId] += amount;
        _totalEscrow += amount;
        emit Deposited(taskId, amount);
    }

    /// @inheritdoc IRewardVault
    function credit(uint256 taskId, address account, uint256 amount) external onlyRole(ESCROW_ROLE) {
        if (account == address(0)) revert ZeroAddress();
        uint256 escrow = _escrow[taskId];
        if (amount > escrow) revert InsufficientEscrow(taskId, escrow, amount);
        _moveToClaimable(taskId, account, amount);
        emit Credited(taskId, account, amount);
    }

    /// @inheritdoc IRewardVault
    function refund(uint256 taskId, address account) external onlyRole(ESCROW_ROLE) returns (uint256 amount) {
        if (account == address(0)) revert ZeroAddress();
        amount = _escrow[taskId];
        _moveToClaimable(taskId, account, amount);
        emit Refunded(taskId, account, amount);
    }

    /// @inheritdoc IRewardVault
    function withdraw(address to, uint256 amount) external nonReentrant {
        if (to == address(0)) revert ZeroAddress();
        if (amount == 0) revert ZeroAmount();
        uint256 claimable = _claimable[msg.sender];
        if (amount > claimable) revert InsufficientClaimable(msg.sender, claimable, amount);
        // amount <= claimable <= totalClaimable: neither subtraction can underflow.
        unchecked {
            _claimable[msg.sender] = claimable - amount;
            _totalClaimable -= amount;
        }
        token.safeTransfer(to, amount);
        emit Withdrawn(msg.sender, to, amount);
    }

    /// @inheritdoc IRewardVault
    function escrowOf(uint256 taskId) external view returns (uint256) {
        return _escrow[taskId];
    }

    /// @inheritdoc IRewardVault
    function claimableOf(address account) external view returns (uint256) {
        return _claimable[account];
    }

    /// @inheritdoc IRewardVault
    function totalEscrow() external view returns (uint256) {
        return _totalEscrow;
    }

    /// @inheritdoc IRewardVault
    function totalClaimable() external view returns (uint256) {
        return _totalClaimable;
    }

    function _moveToClaimable(uint256 taskId, address account, uint256 amount) private {
        // Callers bound amount by _escrow[taskId] <= _totalEscrow.
        unchecked {
            _escrow[taskId] -= amount;
            _totalEscrow -= amount;
        }
        _claimable[account] += amount;
        _totalClaimable += amount;
    }
}

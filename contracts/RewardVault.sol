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
    // Held pay stays part of the task's escrow until it is released or reclaimed.
    mapping(uint256 taskId => mapping(uint256 round => mapping(address account => uint256))) private _held;
    mapping(uint256 taskId => uint256) private _heldTotal;

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
        uint256 free = _escrow[taskId] - _heldTotal[taskId];
        if (amount > free) revert InsufficientEscrow(taskId, free, amount);
        _moveToClaimable(taskId, account, amount);
        emit Credited(taskId, account, amount);
    }

    /// @inheritdoc IRewardVault
    function refund(uint256 taskId, address account) external onlyRole(ESCROW_ROLE) returns (uint256 amount) {
        if (account == address(0)) revert ZeroAddress();
        // _heldTotal[taskId] <= _escrow[taskId] always (hold checks it; release/reclaim lower both).
        amount = _escrow[taskId] - _heldTotal[taskId];
        _moveToClaimable(taskId, account, amount);
        emit Refunded(taskId, account, amount);
    }

    /// @inheritdoc IRewardVault
    function hold(uint256 taskId, uint256 round, address account, uint256 amount) external onlyRole(ESCROW_ROLE) {
        if (account == address(0)) revert ZeroAddress();
        uint256 free = _escrow[taskId] - _heldTotal[taskId];
        if (amount > free) revert InsufficientEscrow(taskId, free, amount);
        _held[taskId][round][account] += amount;
        _heldTotal[taskId] += amount;
        emit Held(taskId, round, account, amount);
    }

    /// @inheritdoc IRewardVault
    function release(uint256 taskId, uint256 round, address account)
        external
        onlyRole(ESCROW_ROLE)
        returns (uint256 amount)
    {
        amount = _unhold(taskId, round, account);
        _moveToClaimable(taskId, account, amount);
        emit Released(taskId, round, account, amount);
    }

    /// @inheritdoc IRewardVault
    function reclaim(uint256 taskId, uint256 round, address account, address to)
        external
        onlyRole(ESCROW_ROLE)
        returns (uint256 amount)
    {
        if (to == address(0)) revert ZeroAddress();
        amount = _unhold(taskId, round, account);
        _moveToClaimable(taskId, to, amount);
        emit Reclaimed(taskId, round, account, to, amount);
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

    /// @inheritdoc IRewardVault
    function heldOf(uint256 taskId, uint256 round, address account) external view returns (uint256) {
        return _held[taskId][round][account];
    }

    /// @inheritdoc IRewardVault
    function heldTotalOf(uint256 taskId) external view returns (uint256) {
        return _heldTotal[taskId];
    }

    function _unhold(uint256 taskId, uint256 round, address account) private returns (uint256 amount) {
        amount = _held[taskId][round][account];
        if (amount == 0) revert NothingHeld(taskId, round, account);
        delete _held[taskId][round][account];
        // amount is part of _heldTotal[taskId] (hold added both).
        unchecked {
            _heldTotal[taskId] -= amount;
        }
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

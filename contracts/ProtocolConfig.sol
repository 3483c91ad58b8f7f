// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {IProtocolConfig} from "./interfaces/IProtocolConfig.sol";
import {Payouts} from "./libraries/Payouts.sol";
import {Role} from "./libraries/Types.sol";

/// @title ProtocolConfig
/// @notice The governable parameters both the task and the dispute side read; see IProtocolConfig.
contract ProtocolConfig is IProtocolConfig, AccessControl {
    bytes32 public constant GOVERNOR_ROLE = keccak256("GOVERNOR_ROLE");

    uint256 public constant MAX_SLASH_BPS = 5000;
    uint256 public constant MIN_DISPUTE_WINDOW = 1 hours;
    uint256 public constant MAX_DISPUTE_WINDOW = 3 days;
    uint256 public constant MIN_VOTE_WINDOW = 10 minutes;
    /// @dev A vote takes up to two windows (commit, then reveal): 3 days of dispute window and
    ///      2 x 36 h stay under the 7-day unbonding period (SPECIFICATION.md, "Disputes", limits).
    uint256 public constant MAX_VOTE_WINDOW = 36 hours;
    uint256 public constant MIN_BOND = 1e18;
    uint256 public constant MAX_BOND = 100_000e18;
    /// @dev Forced errors (SPECIFICATION.md 5.5.3): at most half of the draws are forced. Above one
    ///      half a validator that checks nothing and answers "plant" on every submission would be
    ///      right more often than not, so lazy voting would pay better the higher the rate; at
    ///      exactly one half (the default, a fair coin) a guess is right with probability 1/2, the
    ///      least any rate allows.
    uint256 public constant MAX_FORCED_ERROR_BPS = 5000;
    /// @dev The minimum bounty (SPECIFICATION.md 5.2) may be raised to 1,000 times its default:
    ///      enough for gas prices and token values far from the default's, and never so high that
    ///      the largest task a requester may post (97,000 slot-rounds) costs more than 970,000 DRL.
    uint256 public constant MAX_MIN_BOUNTY_PER_SLOT_ROUND = 10e18;

    // One slot for what a task's creation, every slash and every draw opening read, one for the
    // dispute side.
    uint16 private _samplerBps;
    uint16 private _trainerBps;
    uint16 private _validatorBps;
    uint16 private _slashBps;
    address private _treasury;
    uint16 private _forcedErrorBps;
    uint32 private _disputeWindow;
    uint32 private _voteWindow;
    uint128 private _minBond;
    uint64 private _minBountyPerSlotRound; // read by a task's creation; the 8 bytes left in this slot

    constructor(address admin, address treasury_) {
        if (admin == address(0)) revert ZeroAddress();
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        _grantRole(GOVERNOR_ROLE, admin);
        _setRoleShares(7000, 2000, 1000);
        _setSlashBps(1000);
        _setTreasury(treasury_);
        _setDisputeWindow(1 days);
        _setVoteWindow(1 days);
        _setMinBond(100e18);
        _setForcedErrorBps(5000);
        _setMinBountyPerSlotRound(0.01e18);
    }

    // ---------------------------------------------------------------- governance

    /// @inheritdoc IProtocolConfig
    function setRoleShares(uint256 trainerBps, uint256 samplerBps, uint256 validatorBps)
        external
        onlyRole(GOVERNOR_ROLE)
    {
        _setRoleShares(trainerBps, samplerBps, validatorBps);
    }

    /// @inheritdoc IProtocolConfig
    function setSlashBps(uint256 bps) external onlyRole(GOVERNOR_ROLE) {
        _setSlashBps(bps);
    }

    /// @inheritdoc IProtocolConfig
    function setTreasury(address treasury_) external onlyRole(GOVERNOR_ROLE) {
        _setTreasury(treasury_);
    }

    /// @inheritdoc IProtocolConfig
    function setDisputeWindow(uint256 window) external onlyRole(GOVERNOR_ROLE) {
        _setDisputeWindow(window);
    }

    /// @inheritdoc IProtocolConfig
    function setVoteWindow(uint256 window) external onlyRole(GOVERNOR_ROLE) {
        _setVoteWindow(window);
    }

    /// @inheritdoc IProtocolConfig
    function setMinBond(uint256 bond) external onlyRole(GOVERNOR_ROLE) {
        _setMinBond(bond);
    }

    /// @inheritdoc IProtocolConfig
    function setForcedErrorBps(uint256 bps) external onlyRole(GOVERNOR_ROLE) {
        _setForcedErrorBps(bps);
    }

    /// @inheritdoc IProtocolConfig
    function setMinBountyPerSlotRound(uint256 perSlotRound) external onlyRole(GOVERNOR_ROLE) {
        _setMinBountyPerSlotRound(perSlotRound);
    }

    // ---------------------------------------------------------------- views

    /// @inheritdoc IProtocolConfig
    function roleShares() external view returns (uint16[3] memory shares) {
        shares[uint8(Role.Sampler)] = _samplerBps;
        shares[uint8(Role.Trainer)] = _trainerBps;
        shares[uint8(Role.Validator)] = _validatorBps;
    }

    /// @inheritdoc IProtocolConfig
    function slashBps() external view returns (uint256) {
        return _slashBps;
    }

    /// @inheritdoc IProtocolConfig
    function treasury() external view returns (address) {
        return _treasury;
    }

    /// @inheritdoc IProtocolConfig
    function slashing() external view returns (uint256, address) {
        return (_slashBps, _treasury);
    }

    /// @inheritdoc IProtocolConfig
    function disputeWindow() external view returns (uint256) {
        return _disputeWindow;
    }

    /// @inheritdoc IProtocolConfig
    function voteWindow() external view returns (uint256) {
        return _voteWindow;
    }

    /// @inheritdoc IProtocolConfig
    function minBond() external view returns (uint256) {
        return _minBond;
    }

    /// @inheritdoc IProtocolConfig
    function forcedErrorBps() external view returns (uint256) {
        return _forcedErrorBps;
    }

    /// @inheritdoc IProtocolConfig
    function minBountyPerSlotRound() external view returns (uint256) {
        return _minBountyPerSlotRound;
    }

    // ---------------------------------------------------------------- internals

    function _setRoleShares(uint256 trainerBps, uint256 samplerBps, uint256 validatorBps) private {
        // Bounds keep each role meaningfully paid; the sum is always the whole bounty.
        bool inBounds = trainerBps >= 5000 && trainerBps <= 8500 && samplerBps >= 1000 && samplerBps <= 3500
            && validatorBps >= 500 && validatorBps <= 2000;
        if (!inBounds || trainerBps + samplerBps + validatorBps != Payouts.BPS) {
            revert SharesOutOfBounds(trainerBps, samplerBps, validatorBps);
        }
        // Each is at most 8,500 (bounds above): it fits 16 bits.
        _samplerBps = uint16(samplerBps);
        _trainerBps = uint16(trainerBps);
        _validatorBps = uint16(validatorBps);
        emit RoleSharesSet(trainerBps, samplerBps, validatorBps);
    }

    function _setSlashBps(uint256 bps) private {
        if (bps > MAX_SLASH_BPS) revert SlashBpsOutOfBounds(bps, MAX_SLASH_BPS);
        _slashBps = uint16(bps); // bps <= 5,000
        emit SlashBpsSet(bps);
    }

    function _setTreasury(address treasury_) private {
        if (treasury_ == address(0)) revert ZeroAddress();
        _treasury = treasury_;
        emit TreasurySet(treasury_);
    }

    function _setDisputeWindow(uint256 window) private {
        if (window < MIN_DISPUTE_WINDOW || window > MAX_DISPUTE_WINDOW) {
            revert WindowOutOfBounds(window, MIN_DISPUTE_WINDOW, MAX_DISPUTE_WINDOW);
        }
        _disputeWindow = uint32(window); // at most 3 days
        emit DisputeWindowSet(window);
    }

    function _setVoteWindow(uint256 window) private {
        if (window < MIN_VOTE_WINDOW || window > MAX_VOTE_WINDOW) {
            revert WindowOutOfBounds(window, MIN_VOTE_WINDOW, MAX_VOTE_WINDOW);
        }
        _voteWindow = uint32(window); // at most 36 hours
        emit VoteWindowSet(window);
    }

    function _setMinBond(uint256 bond) private {
        if (bond < MIN_BOND || bond > MAX_BOND) revert BondOutOfBounds(bond, MIN_BOND, MAX_BOND);
        _minBond = uint128(bond); // at most 100,000e18 < 2^77
        emit MinBondSet(bond);
    }

    function _setForcedErrorBps(uint256 bps) private {
        if (bps > MAX_FORCED_ERROR_BPS) revert ForcedErrorBpsOutOfBounds(bps, MAX_FORCED_ERROR_BPS);
        _forcedErrorBps = uint16(bps); // bps <= 5,000
        emit ForcedErrorBpsSet(bps);
    }

    function _setMinBountyPerSlotRound(uint256 perSlotRound) private {
        if (perSlotRound > MAX_MIN_BOUNTY_PER_SLOT_ROUND) {
            revert MinBountyOutOfBounds(perSlotRound, MAX_MIN_BOUNTY_PER_SLOT_ROUND);
        }
        _minBountyPerSlotRound = uint64(perSlotRound); // at most 10e18 < 2^64
        emit MinBountyPerSlotRoundSet(perSlotRound);
    }
}

// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {IReputation} from "./interfaces/IReputation.sol";
import {Outcome} from "./libraries/Types.sol";

/// @title Reputation
/// @notice Per-node score that gates new assignments. Policy (threshold, deltas, cooldown) lives here
///         alone so the TaskRegistry only reports outcomes.
contract Reputation is IReputation, AccessControl {
    bytes32 public constant GOVERNOR_ROLE = keccak256("GOVERNOR_ROLE");
    /// @notice Held by the TaskRegistry: may record outcomes.
    bytes32 public constant REPORTER_ROLE = keccak256("REPORTER_ROLE");

    uint256 public constant MAX_SCORE = 100;
    uint256 public constant START_SCORE = 70;
    uint256 public constant MAX_DELTA = 50;
    uint256 public constant MIN_COOLDOWN = 1 hours;
    uint256 public constant MAX_COOLDOWN = 90 days;
    // Caps the doubling so the cooldown stays finite (base << 8 at most).
    uint256 public constant MAX_COOLDOWN_DOUBLINGS = 8;

    mapping(address node => Record) private _records;
    mapping(Outcome outcome => uint256) private _deltas;
    uint256 private _threshold;
    uint256 private _recoveryCooldown;

    constructor(address admin) {
        if (admin == address(0)) revert ZeroAddress();
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        _grantRole(GOVERNOR_ROLE, admin);
        _setThreshold(60);
        _setDelta(Outcome.Accepted, 2);
        _setDelta(Outcome.Rejected, 20);
        _setDelta(Outcome.Missed, 10);
        _setDelta(Outcome.AgainstQuorum, 15);
        _setDelta(Outcome.Withheld, 20);
        _setRecoveryCooldown(7 days);
    }

    /// @inheritdoc IReputation
    function record(address node, Outcome outcome) external onlyRole(REPORTER_ROLE) {
        if (outcome == Outcome.Recovered) revert NotAReportableOutcome(outcome);
        Record storage r = _load(node);
        uint256 oldScore = r.score;
        uint256 d = _deltas[outcome];
        uint256 newScore;
        if (outcome == Outcome.Accepted) {
            newScore = oldScore + d > MAX_SCORE ? MAX_SCORE : oldScore + d;
        } else {
            newScore = d > oldScore ? 0 : oldScore - d;
            r.lastPenaltyAt = uint64(block.timestamp);
        }
        // newScore <= MAX_SCORE (100), so it fits a uint8.
        r.score = uint8(newScore);
        emit ReputationChanged(node, oldScore, newScore, outcome);
    }

    /// @inheritdoc IReputation
    function recover() external {
        Record storage r = _load(msg.sender);
        uint256 oldScore = r.score;
        if (oldScore >= _threshold) revert NotBelowThreshold(msg.sender, oldScore, _threshold);
        uint256 availableAt = _recoveryAvailableAt(r);
        if (block.timestamp < availableAt) revert RecoveryNotReady(msg.sender, availableAt);
        r.score = uint8(_threshold);
        if (r.recoveries < type(uint8).max) r.recoveries += 1;
        emit ReputationChanged(msg.sender, oldScore, _threshold, Outcome.Recovered);
    }

    /// @inheritdoc IReputation
    function setThreshold(uint256 threshold_) external onlyRole(GOVERNOR_ROLE) {
        _setThreshold(threshold_);
    }

    /// @inheritdoc IReputation
    function setDelta(Outcome outcome, uint256 delta_) external onlyRole(GOVERNOR_ROLE) {
        _setDelta(outcome, delta_);
    }

    /// @inheritdoc IReputation
    function setRecoveryCooldown(uint256 cooldown) external onlyRole(GOVERNOR_ROLE) {
        _setRecoveryCooldown(cooldown);
    }

    /// @inheritdoc IReputation
    function scoreOf(address node) public view returns (uint256) {
        Record storage r = _records[node];
        return r.seen ? r.score : START_SCORE;
    }

    /// @inheritdoc IReputation
    function isEligible(address node) external view returns (bool) {
        return scoreOf(node) >= _threshold;
    }

    /// @inheritdoc IReputation
    function threshold() external view returns (uint256) {
        return _threshold;
    }

    /// @inheritdoc IReputation
    function delta(Outcome outcome) external view returns (uint256) {
        return _deltas[outcome];
    }

    /// @inheritdoc IReputation
    function recordOf(address node) external view returns (Record memory r) {
        r = _records[node];
        if (!r.seen) r.score = uint8(START_SCORE);
    }

    /// @inheritdoc IReputation
    function recoveryAvailableAt(address node) external view returns (uint256) {
        if (scoreOf(node) >= _threshold) return 0;
        return _recoveryAvailableAt(_records[node]);
    }

    function _load(address node) private returns (Record storage r) {
        r = _records[node];
        if (!r.seen) {
            r.seen = true;
            r.score = uint8(START_SCORE);
        }
    }

    function _recoveryAvailableAt(Record storage r) private view returns (uint256) {
        uint256 doublings = r.recoveries < MAX_COOLDOWN_DOUBLINGS ? r.recoveries : MAX_COOLDOWN_DOUBLINGS;
        return uint256(r.lastPenaltyAt) + (_recoveryCooldown << doublings);
    }

    function _setThreshold(uint256 threshold_) private {
        if (threshold_ == 0 || threshold_ > MAX_SCORE) revert ThresholdOutOfBounds(threshold_);
        _threshold = threshold_;
        emit ThresholdSet(threshold_);
    }

    function _setDelta(Outcome outcome, uint256 delta_) private {
        // A penalty of zero would let a failing node keep working forever.
        bool zeroPenalty = outcome != Outcome.Accepted && delta_ == 0;
        if (outcome == Outcome.Recovered || delta_ > MAX_DELTA || zeroPenalty) {
            revert DeltaOutOfBounds(outcome, delta_);
        }
        _deltas[outcome] = delta_;
        emit DeltaSet(outcome, delta_);
    }

    function _setRecoveryCooldown(uint256 cooldown) private {
        if (cooldown < MIN_COOLDOWN || cooldown > MAX_COOLDOWN) revert CooldownOutOfBounds(cooldown);
        _recoveryCooldown = cooldown;
        emit RecoveryCooldownSet(cooldown);
    }
}

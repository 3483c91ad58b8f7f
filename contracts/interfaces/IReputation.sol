// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Outcome} from "../libraries/Types.sol";

/// @title IReputation
/// @notice A score from 0 to 100 per node. Nodes below the threshold get no new assignments; a node
///         that fell below can recover to the threshold after a cooldown that doubles on each use.
interface IReputation {
    /// @param score Current score, 0..100 (a node never seen has the starting score).
    /// @param seen Whether the node has any record yet.
    /// @param recoveries How many times the node has used `recover`.
    /// @param lastPenaltyAt Timestamp of the node's last penalty (0 if none).
    struct Record {
        uint8 score;
        bool seen;
        uint8 recoveries;
        uint64 lastPenaltyAt;
    }

    error ThresholdOutOfBounds(uint256 threshold);
    error DeltaOutOfBounds(Outcome outcome, uint256 delta);
    error CooldownOutOfBounds(uint256 cooldown);
    error NotAReportableOutcome(Outcome outcome);
    error NotBelowThreshold(address node, uint256 score, uint256 threshold);
    error RecoveryNotReady(address node, uint256 availableAt);
    error ZeroAddress();

    event ReputationChanged(address indexed node, uint256 oldScore, uint256 newScore, Outcome indexed outcome);
    event ThresholdSet(uint256 threshold);
    event DeltaSet(Outcome indexed outcome, uint256 delta);
    event RecoveryCooldownSet(uint256 cooldown);

    /// @notice Applies the score change for `outcome` (Accepted raises, the others lower). Reporter only.
    function record(address node, Outcome outcome) external;

    /// @notice Brings the caller back to the threshold once its recovery cooldown has passed.
    function recover() external;

    function setThreshold(uint256 threshold) external;
    function setDelta(Outcome outcome, uint256 delta) external;
    function setRecoveryCooldown(uint256 cooldown) external;

    function scoreOf(address node) external view returns (uint256);
    function isEligible(address node) external view returns (bool);
    function threshold() external view returns (uint256);
    function delta(Outcome outcome) external view returns (uint256);
    function recordOf(address node) external view returns (Record memory);
    /// @notice When `node` may call `recover` (0 if it is not below the threshold).
    function recoveryAvailableAt(address node) external view returns (uint256);
}

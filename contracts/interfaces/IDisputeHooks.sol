// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Role} from "../libraries/Types.sol";

/// @title IDisputeHooks
/// @notice What the TaskRegistry offers its DisputeManager (SPECIFICATION.md, "Disputes"): when a
///         round's verdicts were reached, who attested, and the three effects a dispute has on a
///         task's money and status. Once a dispute manager is set, round pay is held in the vault
///         for the dispute window instead of being credited at the verdict.
interface IDisputeHooks {
    error NotDisputeManager(address caller);
    error DisputeManagerAlreadySet(address current);

    event DisputeManagerSet(address indexed disputeManager);
    event PayReclaimed(uint256 indexed taskId, uint256 indexed round, address indexed node, Role role, uint256 amount);

    /// @notice Sets the dispute manager, once (admin only). From then on round pay is held.
    function setDisputeManager(address disputeManager) external;

    /// @notice Credits `node`'s held pay for `round` to its claimable balance. Dispute manager only.
    function releasePay(uint256 taskId, uint256 round, address node) external returns (uint256);

    /// @notice Gives `node`'s held pay for `round` back to the requester and lowers the task's
    ///         paid amount for `role` by it. Dispute manager only.
    function reclaimPay(uint256 taskId, uint256 round, address node, Role role) external returns (uint256);

    /// @notice Ends an Active task as Failed (an accepted submission was overturned); no-op otherwise.
    ///         Dispute manager only.
    function failTask(uint256 taskId) external;

    function disputeManager() external view returns (address);

    /// @notice Protocol time at which `round`'s verdicts were reached (0 = not yet).
    function roundFinalizedAt(uint256 taskId, uint256 round) external view returns (uint256);

    /// @notice The validator that cast the attestation of `slot` in `round` (0 = none).
    function attesterOf(uint256 taskId, uint256 round, uint256 slot) external view returns (address);
}

// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Role} from "../libraries/Types.sol";

/// @title IDisputeHooks
/// @notice What the TaskRegistry lets its DisputeManager do (SPECIFICATION.md, "Disputes"): the
///         three effects a dispute has on a task's money and status. The dispute side reads the
///         registry's state through `extsload` (TaskState). Once a dispute manager is set, round pay
///         is held in the vault for the dispute window instead of being credited at the verdict.
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
}

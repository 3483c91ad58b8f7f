// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IDisputeManager} from "../interfaces/IDisputeManager.sol";
import {ITaskRegistry} from "../interfaces/ITaskRegistry.sol";
import {Role} from "./Types.sol";
import {DisputeStorage} from "./DisputeStorage.sol";

/// @title Disputes
/// @notice Small rules the DisputeManager and JuryLogic share: finding a dispute in a given status,
///         arming its juror draw, and the key of a disputed submission.
library Disputes {
    /// @notice The dispute, which must exist and be in status `expected`.
    function load(DisputeStorage storage ds, uint256 disputeId, IDisputeManager.Status expected)
        internal
        view
        returns (IDisputeManager.Dispute storage d)
    {
        d = ds.disputes[disputeId];
        if (d.status == IDisputeManager.Status.None) revert IDisputeManager.DisputeNotFound(disputeId);
        if (d.status != expected) revert IDisputeManager.WrongDisputeStatus(disputeId, d.status);
    }

    /// @notice Arms the juror draw on the next block's hash, which the disputer cannot know
    ///         (SPECIFICATION.md 5.3 for the limits).
    function armDraw(uint256 disputeId, IDisputeManager.Dispute storage d) internal {
        d.seedBlock = uint64(block.number + 1);
        emit IDisputeManager.JurorDrawArmed(disputeId, block.number + 1);
    }

    /// @notice Reverts unless `evidence` and `item` can back a dispute of `verdict` on work of
    ///         `role`: a claim that work is bad names an item of that role's work (or Whole); a
    ///         claim that rejected work is good has no item to name (Whole, 0).
    function checkEvidence(
        Role role,
        ITaskRegistry.Verdict verdict,
        IDisputeManager.Evidence evidence,
        uint256 item
    ) internal pure {
        IDisputeManager.Evidence e = evidence;
        bool fits = item <= type(uint32).max;
        if (verdict == ITaskRegistry.Verdict.Rejected || e == IDisputeManager.Evidence.Whole) fits = fits && item == 0;
        if (verdict == ITaskRegistry.Verdict.Rejected) fits = fits && e == IDisputeManager.Evidence.Whole;
        else if (role == Role.Sampler) fits = fits && e != IDisputeManager.Evidence.Transition && e != IDisputeManager.Evidence.DataChunk;
        else fits = fits && e != IDisputeManager.Evidence.Episode;
        if (!fits) revert IDisputeManager.InvalidEvidence(role, verdict, evidence, item);
    }

    /// @notice The key of submission (`role`, `slot`) of `round` in DisputeStorage.disputeOf.
    function submissionKey(uint256 taskId, uint256 round, Role role, uint256 slot) internal pure returns (bytes32) {
        return keccak256(abi.encode(taskId, round, role, slot));
    }
}

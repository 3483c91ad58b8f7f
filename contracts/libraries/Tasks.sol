// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {ITaskRegistry} from "../interfaces/ITaskRegistry.sol";
import {Role} from "./Types.sol";

/// @title Tasks
/// @notice Small rules about a task that the registry and its logic libraries share: how many slots
///         a role has, which phase is a role's work, the status and draw changes with their events,
///         and the commitments a result and a vote are revealed against.
library Tasks {
    function slotCount(ITaskRegistry.Task storage t, Role role) internal view returns (uint256) {
        if (role == Role.Sampler) return t.numSamplers;
        if (role == Role.Trainer) return 1;
        return t.numValidators;
    }

    /// @notice The bit of submission (`role`, `slot`) in a round's bitmaps (votes, revealed, draws):
    ///         sampler slot i is bit i, the trainer bit numSamplers.
    function submissionBit(ITaskRegistry.Task storage t, Role role, uint256 slot) internal view returns (uint256) {
        return 1 << (role == Role.Trainer ? t.numSamplers : slot);
    }

    /// @notice The phase in which `role` does its round's work (commits a result, or seals a vote).
    function workPhase(Role role) internal pure returns (ITaskRegistry.Phase) {
        if (role == Role.Sampler) return ITaskRegistry.Phase.SampleCommit;
        if (role == Role.Trainer) return ITaskRegistry.Phase.TrainCommit;
        return ITaskRegistry.Phase.Attest;
    }

    function setStatus(uint256 taskId, ITaskRegistry.Task storage t, ITaskRegistry.Status status) internal {
        t.status = status;
        emit ITaskRegistry.TaskStatusChanged(taskId, status);
    }

    /// @notice Arms a validator draw on the next block's hash, which is unknown to whoever caused
    ///         the vacancy (SPECIFICATION.md 5.3).
    function armDraw(uint256 taskId, ITaskRegistry.Task storage t) internal {
        t.seedBlock = uint64(block.number + 1);
        emit ITaskRegistry.DrawArmed(taskId, block.number + 1);
    }

    /// @notice The commitment that binds a result (root and CID), its salt and its submitter.
    function commitment(uint256 taskId, uint256 round, address node, bytes32 root, string calldata cid, bytes32 salt)
        internal
        pure
        returns (bytes32)
    {
        return keccak256(abi.encode(taskId, round, node, root, keccak256(bytes(cid)), salt));
    }

    /// @notice The commitment that seals a validator's vote (its accept bitmap) with its salt.
    function attestCommitment(uint256 taskId, uint256 round, address validator, uint256 acceptBitmap, bytes32 salt)
        internal
        pure
        returns (bytes32)
    {
        return keccak256(abi.encode(taskId, round, validator, acceptBitmap, salt));
    }
}

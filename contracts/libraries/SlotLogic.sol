// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {ITaskRegistry} from "../interfaces/ITaskRegistry.sol";
import {Role} from "./Types.sol";
import {Draws} from "./Draws.sol";
import {Tasks} from "./Tasks.sol";
import {AggregateKeys} from "./AggregateKeys.sol";
import {TaskStorage, Context} from "./TaskStorage.sol";

/// @title SlotLogic
/// @notice How a task's slots are filled (SPECIFICATION.md 5.3): samplers and the trainer claim,
///         validators are drawn at random from the draw list, and every assignment locks stake.
/// @dev An external library run by delegatecall on the registry's storage, like RoundLogic: its
///      events are the registry's own (ITaskRegistry).
library SlotLogic {
    /// @notice Gives `node` the first vacant `role` slot of the task (see ITaskRegistry.claimSlot);
    ///         when that fills the last sampler and trainer slot of an Open task, the task moves to
    ///         Drawing and arms the validator draw.
    function claim(TaskStorage storage s, Context memory c, uint256 taskId, Role role, address node)
        external
        returns (uint256 slot)
    {
        if (role == Role.Validator) revert ITaskRegistry.ValidatorsAreDrawn();
        ITaskRegistry.Task storage t = _task(s, taskId);
        if (t.status != ITaskRegistry.Status.Open && t.status != ITaskRegistry.Status.Active) {
            revert ITaskRegistry.WrongStatus(taskId, t.status);
        }
        // A task that missed its claim window can only fail (advance), never fill up late.
        if (t.status == ITaskRegistry.Status.Open) _checkClaimWindow(c, taskId, t);
        if (node == t.requester) revert ITaskRegistry.RequesterCannotWork(taskId);
        if (s.members[taskId][node].assigned) revert ITaskRegistry.AlreadyAssigned(taskId, node);
        // Claims race and a lost one is often mined as a revert: it stops here, before the
        // eligibility check's external calls, which would cost its sender ~20k more gas.
        slot = _firstVacant(s, taskId, t, role);
        Draws.requireEligible(c.stakes, c.reputation, node, role);
        _assign(s, c, taskId, t, role, slot, node);
        if (t.status == ITaskRegistry.Status.Open && t.trainerFilled && t.filledSamplers == t.numSamplers) {
            Tasks.setStatus(taskId, t, ITaskRegistry.Status.Drawing);
            Tasks.armDraw(taskId, t);
        }
    }

    /// @notice Fills vacant validator slots from the draw list as it was before the seed block
    ///         (see ITaskRegistry.drawValidators). Returns whether the task is Drawing and now has
    ///         every validator: the caller then starts its rounds.
    function draw(TaskStorage storage s, Context memory c, uint256 taskId) external returns (bool filled) {
        ITaskRegistry.Task storage t = _task(s, taskId);
        if (t.status != ITaskRegistry.Status.Drawing && t.status != ITaskRegistry.Status.Active) {
            revert ITaskRegistry.WrongStatus(taskId, t.status);
        }
        if (t.status == ITaskRegistry.Status.Drawing) _checkClaimWindow(c, taskId, t);
        uint256 vacancies = t.numValidators - t.filledValidators;
        if (vacancies == 0) revert ITaskRegistry.NoVacancy(taskId);
        uint256 seedBlock = t.seedBlock;
        if (seedBlock == 0 || block.number <= seedBlock) revert ITaskRegistry.DrawNotReady(taskId, seedBlock);
        bytes32 seed = blockhash(seedBlock);
        uint256 poolSize = c.stakes.drawPoolSize(seedBlock); // fixed before the seed is known
        // A seed block older than 256 blocks has no hash any more: re-arm rather than draw from zero.
        if (seed != bytes32(0) && poolSize > 0) {
            uint256 rand = uint256(keccak256(abi.encode(seed, taskId, t.round)));
            // Whether the walk covers the whole list does not matter to a task: its draw is re-armed
            // until every validator slot is filled (or the claim window ends).
            // slither-disable-next-line unused-return
            (Draws.Walk memory w,) = Draws.walk(rand, poolSize, vacancies, Draws.ATTEMPTS_PER_VACANCY);
            while (vacancies > 0) {
                (bool more, address candidate) = Draws.next(w, c.stakes);
                if (!more) break;
                if (_tryDraw(s, c, taskId, t, candidate)) vacancies -= 1;
            }
        }
        if (vacancies > 0) {
            Tasks.armDraw(taskId, t);
            return false;
        }
        t.seedBlock = 0;
        return t.status == ITaskRegistry.Status.Drawing;
    }

    function _tryDraw(TaskStorage storage s, Context memory c, uint256 taskId, ITaskRegistry.Task storage t, address candidate)
        private
        returns (bool)
    {
        if (candidate == t.requester || s.members[taskId][candidate].assigned) return false;
        if (!Draws.eligible(c.stakes, c.reputation, candidate, Role.Validator)) return false;
        _assign(s, c, taskId, t, Role.Validator, _firstVacant(s, taskId, t, Role.Validator), candidate);
        return true;
    }

    function _assign(
        TaskStorage storage s,
        Context memory c,
        uint256 taskId,
        ITaskRegistry.Task storage t,
        Role role,
        uint256 slot,
        address node
    ) private {
        uint256 amount = c.stakes.minStake(role);
        c.stakes.lock(node, role, amount);
        uint256 since = t.round;
        if (t.status == ITaskRegistry.Status.Active) {
            ITaskRegistry.Phase joinPhase = Tasks.workPhase(role);
            // Joining after the role's work phase ended (or its deadline passed) means waiting for
            // the next round; joining during it adds one more expected action.
            bool expired = t.phase == joinPhase && c.now > t.phaseDeadline;
            if (t.phase > joinPhase || expired) since += 1;
            else if (t.phase == joinPhase) t.pending += 1;
        }
        // amount is a stake within uint128 (StakeManager stores stakes as uint128); since <= MAX_ROUNDS.
        s.slots[taskId][role][slot] = ITaskRegistry.Slot(node, uint16(since), uint128(amount));
        s.members[taskId][node] = ITaskRegistry.Membership(true, role, uint8(slot));
        if (role == Role.Sampler) t.filledSamplers += 1;
        else if (role == Role.Trainer) t.trainerFilled = true;
        else {
            t.filledValidators += 1;
            AggregateKeys.joined(s, c.stakes, taskId, slot, node);
        }
        emit ITaskRegistry.SlotAssigned(taskId, node, role, slot, since);
    }

    function _firstVacant(TaskStorage storage s, uint256 taskId, ITaskRegistry.Task storage t, Role role)
        private
        view
        returns (uint256)
    {
        uint256 count = Tasks.slotCount(t, role);
        for (uint256 i = 0; i < count; ++i) {
            if (s.slots[taskId][role][i].node == address(0)) return i;
        }
        revert ITaskRegistry.NoVacantSlot(taskId, role);
    }

    function _checkClaimWindow(Context memory c, uint256 taskId, ITaskRegistry.Task storage t) private view {
        if (c.now > t.claimDeadline) revert ITaskRegistry.DeadlinePassed(taskId, t.claimDeadline);
    }

    function _task(TaskStorage storage s, uint256 taskId) private view returns (ITaskRegistry.Task storage t) {
        t = s.tasks[taskId];
        if (t.status == ITaskRegistry.Status.None) revert ITaskRegistry.TaskNotFound(taskId);
    }
}

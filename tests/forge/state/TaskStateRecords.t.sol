// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {StateBase} from "./StateBase.sol";
import {ITaskRegistry} from "../../../contracts/interfaces/ITaskRegistry.sol";
import {Role} from "../../../contracts/libraries/Types.sol";
import {TaskState} from "../../../contracts/libraries/TaskState.sol";
import {DrawMasks} from "../../../contracts/libraries/TaskStorage.sol";

/// @notice TaskState (and StateView) read back exactly what was written of every other TaskStorage
///         record: slots, memberships, submissions (with their CID), pay, aggregate keys, verdict
///         times, attesters, the forced-error draws and the registry's words.
contract TaskStateRecordsTest is StateBase {
    function testFuzz_slot_roundTrips(uint256 taskId, uint8 role, uint256 index, address node, uint16 since, uint128 locked)
        public
    {
        Role r = Role(role % 3);
        harness.putSlot(taskId, r, index, ITaskRegistry.Slot(node, since, locked));
        ITaskRegistry.Slot memory s = TaskState.slot(target, taskId, r, index);
        assertEq(s.node, node, "node");
        assertEq(s.sinceRound, since, "sinceRound");
        assertEq(s.lockedStake, locked, "lockedStake");
        assertEq(stateView.slotOf(taskId, r, index).lockedStake, locked, "StateView");
        // The same slot of the other roles is another record.
        assertEq(TaskState.slot(target, taskId, Role((uint256(role) + 1) % 3), index).node, address(0), "roles apart");
    }

    function testFuzz_membership_roundTrips(uint256 taskId, address node, bool assigned, uint8 role, uint8 slot) public {
        Role r = Role(role % 3);
        harness.putMembership(taskId, node, ITaskRegistry.Membership(assigned, r, slot));
        ITaskRegistry.Membership memory m = TaskState.membership(target, taskId, node);
        _assertBoolEq(m.assigned, assigned, "assigned");
        assertEq(uint256(m.role), uint256(r), "role");
        assertEq(m.slot, slot, "slot");
        _assertBoolEq(stateView.membershipOf(taskId, node).assigned, assigned, "StateView");
    }

    function testFuzz_submission_roundTrips(uint256 taskId, uint256 round, uint8 role, uint256 index, uint256 seed)
        public
    {
        Role r = Role(role % 3);
        ITaskRegistry.Submission memory sub = ITaskRegistry.Submission({
            commitment: bytes32(_word(seed, 0)),
            root: bytes32(_word(seed, 1)),
            node: address(uint160(_word(seed, 2))),
            revealed: _word(seed, 3) & 1 == 1,
            verdict: ITaskRegistry.Verdict(_word(seed, 4) % 4),
            cid: _string(seed, _lengthOf(_word(seed, 5)))
        });
        harness.putSubmission(taskId, round, r, index, sub);
        ITaskRegistry.Submission memory got = stateView.submissionOf(taskId, round, r, index);
        ITaskRegistry.Submission memory head = TaskState.submissionHead(target, taskId, round, r, index);
        ITaskRegistry.Submission[2] memory reads = [TaskState.submission(target, taskId, round, r, index), got];
        for (uint256 k = 0; k < 3; ++k) {
            ITaskRegistry.Submission memory s = k < 2 ? reads[k] : head;
            assertEq(s.commitment, sub.commitment, "commitment");
            assertEq(s.root, sub.root, "root");
            assertEq(s.node, sub.node, "node");
            _assertBoolEq(s.revealed, sub.revealed, "revealed");
            assertEq(uint256(s.verdict), uint256(sub.verdict), "verdict");
        }
        _assertStringEq(reads[0].cid, sub.cid, "cid");
        _assertStringEq(got.cid, sub.cid, "cid (StateView)");
        assertEq(bytes(head.cid).length, 0, "the head leaves the CID out");
    }

    function testFuzz_paid_roundTrips(uint256 taskId, uint256[3] memory amounts) public {
        harness.putPaid(taskId, amounts);
        uint256[3] memory got = stateView.paidOf(taskId);
        for (uint256 r = 0; r < 3; ++r) assertEq(got[r], amounts[r], "paid by role");
    }

    function testFuzz_aggregateKey_roundTrips(uint256 taskId, uint256[2] memory apk, uint64 mask) public {
        harness.putAggregateKey(taskId, apk, mask);
        (uint256[2] memory got, uint256 gotMask) = stateView.aggregateKeyOf(taskId);
        assertEq(got[0], apk[0], "apk x");
        assertEq(got[1], apk[1], "apk y");
        assertEq(gotMask, mask, "mask");
    }

    function testFuzz_finalizedAtAndAttester_roundTrip(uint256 taskId, uint256 round, uint256 slot, uint256 at, address node)
        public
    {
        harness.putFinalizedAt(taskId, round, at);
        harness.putAttester(taskId, round, slot, node);
        assertEq(stateView.roundFinalizedAt(taskId, round), at, "finalizedAt");
        assertEq(TaskState.finalizedAt(target, taskId, round), at, "finalizedAt (TaskState)");
        assertEq(stateView.attesterOf(taskId, round, slot), node, "attester");
        assertEq(TaskState.attester(target, taskId, round, slot), node, "attester (TaskState)");
    }

    function testFuzz_registryWords_roundTrip(uint256 count, uint256 pausedAt, uint256 pausedTotal, address dm, address front)
        public
    {
        harness.putRegistryWords(count, pausedAt, pausedTotal, dm, front);
        assertEq(stateView.taskCount(), count, "taskCount");
        assertEq(stateView.disputeManager(), dm, "disputeManager");
        assertEq(stateView.taskFront(), front, "taskFront");
        assertEq(TaskState.taskCount(target), count, "taskCount (TaskState)");
        assertEq(TaskState.disputeManager(target), dm, "disputeManager (TaskState)");
        assertEq(TaskState.taskFront(target), front, "taskFront (TaskState)");
    }

    function testFuzz_drawRecords_roundTrip(
        uint256 taskId,
        uint256 round,
        address node,
        bytes32 commitment,
        bytes32 seed,
        uint64 drawn,
        uint64 opened,
        uint64 forced
    ) public {
        harness.putDrawCommitment(taskId, round, node, commitment);
        harness.putRoundSeed(taskId, round, seed);
        harness.putDraws(taskId, round, DrawMasks(drawn, opened, forced));
        assertEq(stateView.drawCommitmentOf(taskId, round, node), commitment, "draw commitment");
        assertEq(TaskState.drawCommitment(target, taskId, round, node), commitment, "draw commitment (TaskState)");
        assertEq(stateView.roundSeed(taskId, round), seed, "round seed");
        assertEq(stateView.drawnMask(taskId, round), drawn, "drawn");
        assertEq(stateView.openedDrawMask(taskId, round), opened, "opened");
        assertEq(stateView.forcedMask(taskId, round), forced, "forced");
        (uint256 o, uint256 f) = stateView.drawsOf(taskId, round);
        assertEq(o, opened, "drawsOf opened");
        assertEq(f, forced, "drawsOf forced");
        // Other rounds and nodes are other records.
        assertEq(stateView.drawCommitmentOf(taskId, round ^ 1, node), bytes32(0), "rounds apart");
        assertEq(stateView.roundSeed(taskId, round ^ 1), bytes32(0), "seeds apart");
        assertEq(stateView.forcedMask(taskId ^ 1, round), 0, "tasks apart");
    }
}

// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {StateBase} from "./StateBase.sol";
import {ITaskRegistry} from "../../../contracts/interfaces/ITaskRegistry.sol";
import {TaskState} from "../../../contracts/libraries/TaskState.sol";

/// @notice TaskState (and StateView over it) decodes a whole Task exactly as solc stored it: every
///         packed field at its offset, and both strings in every storage shape.
contract TaskStateRoundTripTest is StateBase {
    /// @dev A Task whose every field is drawn from `seed` (enums within their range).
    function _randomTask(uint256 seed, uint256 specLength, uint256 checkpointLength)
        internal
        pure
        returns (ITaskRegistry.Task memory t)
    {
        uint256 w0 = _word(seed, 0);
        t.requester = address(uint160(w0));
        t.status = ITaskRegistry.Status(_word(seed, 1) % 8);
        t.phase = ITaskRegistry.Phase(_word(seed, 2) % 5);
        t.round = uint16(w0 >> 160);
        t.numRounds = uint16(w0 >> 176);
        t.numSamplers = uint8(w0 >> 192);
        t.numValidators = uint8(w0 >> 200);
        t.filledSamplers = uint8(w0 >> 208);
        t.filledValidators = uint8(w0 >> 216);
        t.trainerFilled = (w0 >> 224) & 1 == 1;
        t.pending = uint8(w0 >> 232);
        uint256 w3 = _word(seed, 3);
        t.idleRounds = uint8(w3);
        t.revealedMask = uint64(w3 >> 8);
        t.claimDeadline = uint64(w3 >> 72);
        t.phaseDeadline = uint64(w3 >> 136);
        t.seedBlock = uint64(w3 >> 192);
        uint256 w4 = _word(seed, 4);
        t.commitWindow = uint32(w4);
        t.revealWindow = uint32(w4 >> 32);
        t.attestWindow = uint32(w4 >> 64);
        t.sharesBps = [uint16(w4 >> 96), uint16(w4 >> 112), uint16(w4 >> 128)];
        t.bounty = _word(seed, 5);
        t.specDigest = bytes32(_word(seed, 6));
        t.checkpointRoot = bytes32(_word(seed, 7));
        t.specCid = _string(_word(seed, 8), specLength);
        t.checkpointCid = _string(_word(seed, 9), checkpointLength);
    }

    function _assertHeadEq(ITaskRegistry.Task memory a, ITaskRegistry.Task memory b) internal pure {
        assertEq(a.requester, b.requester, "requester");
        assertEq(uint256(a.status), uint256(b.status), "status");
        assertEq(uint256(a.phase), uint256(b.phase), "phase");
        assertEq(a.round, b.round, "round");
        assertEq(a.numRounds, b.numRounds, "numRounds");
        assertEq(a.numSamplers, b.numSamplers, "numSamplers");
        assertEq(a.numValidators, b.numValidators, "numValidators");
        assertEq(a.filledSamplers, b.filledSamplers, "filledSamplers");
        assertEq(a.filledValidators, b.filledValidators, "filledValidators");
        _assertBoolEq(a.trainerFilled, b.trainerFilled, "trainerFilled");
        assertEq(a.pending, b.pending, "pending");
    }

    function _assertTaskEq(ITaskRegistry.Task memory a, ITaskRegistry.Task memory b) internal pure {
        _assertHeadEq(a, b);
        assertEq(a.idleRounds, b.idleRounds, "idleRounds");
        assertEq(a.revealedMask, b.revealedMask, "revealedMask");
        assertEq(a.claimDeadline, b.claimDeadline, "claimDeadline");
        assertEq(a.phaseDeadline, b.phaseDeadline, "phaseDeadline");
        assertEq(a.seedBlock, b.seedBlock, "seedBlock");
        assertEq(a.commitWindow, b.commitWindow, "commitWindow");
        assertEq(a.revealWindow, b.revealWindow, "revealWindow");
        assertEq(a.attestWindow, b.attestWindow, "attestWindow");
        for (uint256 r = 0; r < 3; ++r) assertEq(a.sharesBps[r], b.sharesBps[r], "sharesBps");
        assertEq(a.bounty, b.bounty, "bounty");
        assertEq(a.specDigest, b.specDigest, "specDigest");
        assertEq(a.checkpointRoot, b.checkpointRoot, "checkpointRoot");
        _assertStringEq(a.specCid, b.specCid, "specCid");
        _assertStringEq(a.checkpointCid, b.checkpointCid, "checkpointCid");
    }

    function testFuzz_task_roundTripsEveryField(uint256 taskId, uint256 seed, uint8 specChoice, uint8 checkpointChoice)
        public
    {
        ITaskRegistry.Task memory t = _randomTask(seed, _lengthOf(specChoice), _lengthOf(checkpointChoice));
        harness.putTask(taskId, t);
        _assertTaskEq(TaskState.task(target, taskId), t);
        _assertTaskEq(stateView.taskOf(taskId), t);
    }

    function testFuzz_taskHead_decodesTheFirstWordAlone(uint256 taskId, uint256 seed) public {
        ITaskRegistry.Task memory t = _randomTask(seed, 40, 40);
        harness.putTask(taskId, t);
        ITaskRegistry.Task memory head = TaskState.taskHead(target, taskId);
        _assertHeadEq(head, t);
        assertEq(head.bounty, 0, "nothing past the first word");
        assertEq(bytes(head.specCid).length, 0, "no strings");
    }

    function test_task_roundTripsEveryFieldAtItsMaximum() public {
        ITaskRegistry.Task memory t = _randomTask(0, 300, 31);
        (t.requester, t.status, t.phase) = (address(type(uint160).max), ITaskRegistry.Status.NoResult, ITaskRegistry.Phase.Attest);
        (t.round, t.numRounds, t.numSamplers, t.numValidators) = (type(uint16).max, type(uint16).max, 255, 255);
        (t.filledSamplers, t.filledValidators, t.trainerFilled, t.pending, t.idleRounds) = (255, 255, true, 255, 255);
        (t.revealedMask, t.claimDeadline, t.phaseDeadline, t.seedBlock) =
            (type(uint64).max, type(uint64).max, type(uint64).max, type(uint64).max);
        (t.commitWindow, t.revealWindow, t.attestWindow) = (type(uint32).max, type(uint32).max, type(uint32).max);
        t.sharesBps = [type(uint16).max, type(uint16).max, type(uint16).max];
        (t.bounty, t.specDigest, t.checkpointRoot) = (type(uint256).max, bytes32(type(uint256).max), bytes32(type(uint256).max));
        harness.putTask(7, t);
        _assertTaskEq(TaskState.task(target, 7), t);
    }

    function test_task_neverCreatedReadsAsZeroedTask() public view {
        ITaskRegistry.Task memory t = stateView.taskOf(12345);
        assertEq(uint256(t.status), uint256(ITaskRegistry.Status.None), "status None");
        assertEq(t.requester, address(0), "no requester");
        assertEq(bytes(t.specCid).length + bytes(t.checkpointCid).length, 0, "no strings");
    }

    function test_task_stringsOfEveryShapeRoundTripAndOverwrite() public {
        ITaskRegistry.Task memory t = _randomTask(1, 0, 0);
        // Longest first: each shorter write must read back whole, whatever the longer one left.
        for (uint256 k = LENGTHS.length; k > 0; --k) {
            t.specCid = _string(k, LENGTHS[k - 1]);
            t.checkpointCid = _string(k + 100, LENGTHS[LENGTHS.length - k]);
            harness.putTask(3, t);
            _assertTaskEq(TaskState.task(target, 3), t);
        }
    }
}

// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {StateBase} from "./StateBase.sol";
import {IDisputeManager} from "../../../contracts/interfaces/IDisputeManager.sol";
import {ITaskRegistry} from "../../../contracts/interfaces/ITaskRegistry.sol";
import {Role} from "../../../contracts/libraries/Types.sol";
import {DisputeState} from "../../../contracts/libraries/DisputeState.sol";

/// @notice DisputeState (and StateView over it) decodes every DisputeStorage record exactly as solc
///         stored it: disputes, jurors, the dispute of a submission, open counts, what is owed and
///         the counters.
contract DisputeStateRoundTripTest is StateBase {
    function _randomDispute(uint256 seed) internal pure returns (IDisputeManager.Dispute memory d) {
        uint256 w = _word(seed, 0);
        d.taskId = _word(seed, 1);
        d.round = uint16(w);
        d.role = Role(_word(seed, 2) % 3);
        d.slot = uint8(w >> 16);
        d.verdict = ITaskRegistry.Verdict(_word(seed, 3) % 4);
        d.status = IDisputeManager.Status(_word(seed, 4) % 6);
        d.jurorsWanted = uint8(w >> 24);
        d.jurorCount = uint8(w >> 32);
        d.upholdVotes = uint8(w >> 40);
        d.dismissVotes = uint8(w >> 48);
        d.commits = uint8(w >> 56);
        d.seedBlock = uint64(w >> 64);
        d.voteDeadline = uint64(w >> 128);
        d.revealDeadline = uint64(w >> 192);
        d.evidence = IDisputeManager.Evidence(_word(seed, 8) % 4);
        d.item = uint32(_word(seed, 9));
        d.disputer = address(uint160(_word(seed, 5)));
        d.submitter = address(uint160(_word(seed, 6)));
        d.bond = _word(seed, 7);
    }

    function _assertDisputeEq(IDisputeManager.Dispute memory a, IDisputeManager.Dispute memory b) internal pure {
        assertEq(a.taskId, b.taskId, "taskId");
        assertEq(a.round, b.round, "round");
        assertEq(uint256(a.role), uint256(b.role), "role");
        assertEq(a.slot, b.slot, "slot");
        assertEq(uint256(a.verdict), uint256(b.verdict), "verdict");
        assertEq(uint256(a.status), uint256(b.status), "status");
        assertEq(a.jurorsWanted, b.jurorsWanted, "jurorsWanted");
        assertEq(a.jurorCount, b.jurorCount, "jurorCount");
        assertEq(a.upholdVotes, b.upholdVotes, "upholdVotes");
        assertEq(a.dismissVotes, b.dismissVotes, "dismissVotes");
        assertEq(a.commits, b.commits, "commits");
        assertEq(a.seedBlock, b.seedBlock, "seedBlock");
        assertEq(a.voteDeadline, b.voteDeadline, "voteDeadline");
        assertEq(a.revealDeadline, b.revealDeadline, "revealDeadline");
        assertEq(uint256(a.evidence), uint256(b.evidence), "evidence");
        assertEq(a.item, b.item, "item");
        assertEq(a.disputer, b.disputer, "disputer");
        assertEq(a.submitter, b.submitter, "submitter");
        assertEq(a.bond, b.bond, "bond");
    }

    function testFuzz_dispute_roundTripsEveryField(uint256 disputeId, uint256 seed) public {
        IDisputeManager.Dispute memory d = _randomDispute(seed);
        harness.putDispute(disputeId, d);
        _assertDisputeEq(DisputeState.dispute(target, disputeId), d);
        _assertDisputeEq(stateView.disputeOf(disputeId), d);
    }

    function test_dispute_roundTripsEveryFieldAtItsMaximum() public {
        IDisputeManager.Dispute memory d = _randomDispute(0);
        (d.taskId, d.round, d.role, d.slot) = (type(uint256).max, type(uint16).max, Role.Validator, 255);
        (d.verdict, d.status) = (ITaskRegistry.Verdict.Inconclusive, IDisputeManager.Status.Void);
        (d.jurorsWanted, d.jurorCount, d.upholdVotes, d.dismissVotes, d.commits) = (255, 255, 255, 255, 255);
        (d.seedBlock, d.voteDeadline, d.revealDeadline) = (type(uint64).max, type(uint64).max, type(uint64).max);
        (d.evidence, d.item) = (IDisputeManager.Evidence.DataChunk, type(uint32).max);
        (d.disputer, d.submitter, d.bond) = (address(type(uint160).max), address(type(uint160).max), type(uint256).max);
        harness.putDispute(1, d);
        _assertDisputeEq(stateView.disputeOf(1), d);
    }

    function testFuzz_juror_roundTrips(uint256 disputeId, uint256 seat, address node, uint128 locked, bool voted, bool uphold, bytes32 commitment)
        public
    {
        seat %= 129; // a jury has 2n + 1 <= 129 seats
        harness.putJuror(disputeId, seat, IDisputeManager.Juror(node, locked, voted, uphold, commitment));
        IDisputeManager.Juror[2] memory reads =
            [DisputeState.juror(target, disputeId, seat), stateView.jurorOf(disputeId, seat)];
        for (uint256 k = 0; k < 2; ++k) {
            assertEq(reads[k].node, node, "node");
            assertEq(reads[k].lockedStake, locked, "lockedStake");
            _assertBoolEq(reads[k].voted, voted, "voted");
            _assertBoolEq(reads[k].uphold, uphold, "uphold");
            assertEq(reads[k].commitment, commitment, "commitment");
        }
    }

    function testFuzz_disputeIdOf_readsTheSubmissionsKey(uint256 taskId, uint256 round, uint8 role, uint256 slot, uint256 id)
        public
    {
        Role r = Role(role % 3);
        harness.putDisputeOf(taskId, round, r, slot, id);
        assertEq(stateView.disputeIdOf(taskId, round, r, slot), id, "dispute of the submission");
        assertEq(DisputeState.disputeIdOf(target, taskId, round, r, slot), id, "DisputeState");
        assertEq(stateView.disputeIdOf(taskId, round, Role((uint256(role) + 1) % 3), slot), 0, "another role's is apart");
    }

    function testFuzz_openOwedAndCounters_roundTrip(
        uint256 taskId,
        uint256 round,
        uint256 open,
        address account,
        uint256 owed,
        uint256[3] memory counters
    ) public {
        harness.putOpen(taskId, round, open);
        harness.putOwed(account, owed);
        harness.putDraws(taskId, ~open); // a neighbour no reader decodes
        harness.putDisputeWords(counters[0], counters[1], counters[2]);
        assertEq(stateView.openDisputesOf(taskId, round), open, "open");
        assertEq(stateView.owedOf(account), owed, "owed");
        assertEq(stateView.disputeCount(), counters[0], "disputeCount");
        assertEq(stateView.totalOwed(), counters[1], "totalOwed");
        assertEq(stateView.totalBonds(), counters[2], "totalBonds");
        assertEq(DisputeState.openDisputes(target, taskId, round), open, "open (DisputeState)");
        assertEq(DisputeState.owed(target, account), owed, "owed (DisputeState)");
        assertEq(DisputeState.disputeCount(target), counters[0], "disputeCount (DisputeState)");
    }
}

// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IDisputeManager} from "../interfaces/IDisputeManager.sol";
import {ITaskRegistry} from "../interfaces/ITaskRegistry.sol";
import {IExtsload} from "../interfaces/IExtsload.sol";
import {IStakeManager} from "../interfaces/IStakeManager.sol";
import {IReputation} from "../interfaces/IReputation.sol";
import {Role, Outcome} from "./Types.sol";
import {Payouts} from "./Payouts.sol";
import {Draws} from "./Draws.sol";
import {Disputes} from "./Disputes.sol";
import {StakeSlash} from "./StakeSlash.sol";
import {TaskState} from "./TaskState.sol";
import {DisputeStorage} from "./DisputeStorage.sol";

/// @title JuryLogic
/// @notice A dispute's jury (SPECIFICATION.md 13): the draw of 2n + 1 jurors from validators outside
///         the task and the parties, when their vote is over and how it came out, and what each
///         juror's vote earns or costs it. (The votes themselves, commit then reveal, are small
///         writes on every juror's path: the DisputeManager takes them without a library call.)
/// @dev An external library run by delegatecall on the DisputeManager's storage; its events are
///      the DisputeManager's own (IDisputeManager).
library JuryLogic {
    /// @dev Draws of one dispute at most: after the last, the jurors seated vote (none: void).
    uint256 private constant MAX_JUROR_DRAWS = 8;

    /// @notice What the jury reads from the rest of the protocol.
    struct Court {
        IExtsload registry;
        IStakeManager stakes;
        IReputation reputation;
        uint256 now; // protocol time
        uint256 voteWindow;
    }

    /// @notice Where a draw left the dispute.
    enum Drawn {
        Rearmed, // seats remain and the walk may meet more candidates: drawn again on the next block
        Voting, // every seat filled, or the draw list walked with some seated: the vote has started
        Void // nobody outside the task and the parties can judge
    }

    /// @notice Seats eligible validators from the draw list as it was before the seed block.
    // Every call goes to the protocol's own contracts, which call nothing back (SPECIFICATION.md 10).
    // slither-disable-start reentrancy-no-eth
    function draw(DisputeStorage storage ds, Court memory c, uint256 disputeId) external returns (Drawn) {
        IDisputeManager.Dispute storage d = Disputes.load(ds, disputeId, IDisputeManager.Status.Drawing);
        uint256 seedBlock = d.seedBlock;
        if (block.number <= seedBlock) revert IDisputeManager.DrawNotReady(disputeId, seedBlock);
        bytes32 seed = blockhash(seedBlock);
        uint256 poolSize = c.stakes.drawPoolSize(seedBlock); // fixed before the seed is known
        bool walkedAll = false;
        // A seed block older than 256 blocks has no hash any more: re-arm rather than draw from zero.
        if (seed != bytes32(0) && poolSize > 0) {
            walkedAll = _drawFrom(ds, c, disputeId, d, uint256(keccak256(abi.encode(seed, "dispute", disputeId))), poolSize);
            // A pool with fewer eligible outsiders than seats, but too large to walk in one draw,
            // would be drawn from forever, holding the round's pay: the last draw ends the drawing.
            if (++ds.draws[disputeId] >= MAX_JUROR_DRAWS) walkedAll = true;
        }
        if (d.jurorCount == d.jurorsWanted || (walkedAll && d.jurorCount > 0)) {
            d.status = IDisputeManager.Status.Voting;
            d.seedBlock = 0;
            uint256 deadline = c.now + c.voteWindow;
            d.voteDeadline = uint64(deadline);
            d.revealDeadline = uint64(deadline + c.voteWindow);
            emit IDisputeManager.VotingStarted(disputeId, d.jurorCount, deadline);
            return Drawn.Voting;
        }
        if (walkedAll || poolSize == 0) return Drawn.Void;
        Disputes.armDraw(disputeId, d);
        return Drawn.Rearmed;
    }

    // slither-disable-end reentrancy-no-eth

    /// @notice The vote's outcome, once it is over: every juror revealed; or the commits closed and
    ///         every committed vote is open; or the reveals closed. Reverts VotingOpen before.
    function outcome(DisputeStorage storage ds, uint256 now_, uint256 disputeId)
        external
        view
        returns (IDisputeManager.Status)
    {
        IDisputeManager.Dispute storage d = Disputes.load(ds, disputeId, IDisputeManager.Status.Voting);
        uint256 votes = uint256(d.upholdVotes) + d.dismissVotes;
        bool revealing = d.commits == d.jurorCount || now_ > d.voteDeadline;
        if (votes < d.jurorCount && !(now_ > d.voteDeadline && votes == d.commits) && now_ <= d.revealDeadline) {
            revert IDisputeManager.VotingOpen(disputeId, revealing ? d.revealDeadline : d.voteDeadline);
        }
        if (votes == 0) return IDisputeManager.Status.Void;
        return d.upholdVotes > d.dismissVotes ? IDisputeManager.Status.Upheld : IDisputeManager.Status.Dismissed;
    }

    /// @notice Unlocks every juror. After a vote (`voted`): a juror that never committed counts as
    ///         missed, one that committed and kept its vote shut is slashed and marked Withheld, the
    ///         minority is slashed and marked against the quorum, the majority marked up. Slashed
    ///         stake goes to the DisputeManager (the dispute's pot). Returns (slashed, majority size).
    function release(
        DisputeStorage storage ds,
        IStakeManager stakes,
        IReputation reputation,
        uint256 slashBps,
        uint256 disputeId,
        bool voted,
        bool upheld
    ) external returns (uint256 slashed, uint256 majority) {
        IDisputeManager.Dispute storage d = ds.disputes[disputeId];
        for (uint256 seat = 0; seat < d.jurorCount; ++seat) {
            IDisputeManager.Juror storage j = ds.jurors[disputeId][seat];
            stakes.unlock(j.node, Role.Validator, j.lockedStake);
            if (!voted) {
                emit IDisputeManager.JurorReleased(disputeId, j.node, false, false, 0);
                continue;
            }
            uint256 taken = 0;
            bool withMajority = j.voted && j.uphold == upheld;
            if (!j.voted && j.commitment != bytes32(0)) {
                // Committed and kept its vote shut (seeing the others' open): a reveal would have
                // cost it no more, so this costs it more than a vote with the minority.
                taken = StakeSlash.take(stakes, j.node, Role.Validator, uint256(j.lockedStake) * slashBps / Payouts.BPS, address(this));
                slashed += taken;
                reputation.record(j.node, Outcome.Withheld);
            } else if (!j.voted) {
                reputation.record(j.node, Outcome.Missed);
            } else if (withMajority) {
                majority += 1;
                reputation.record(j.node, Outcome.Accepted);
            } else {
                taken = StakeSlash.take(stakes, j.node, Role.Validator, uint256(j.lockedStake) * slashBps / Payouts.BPS, address(this));
                slashed += taken;
                reputation.record(j.node, Outcome.AgainstQuorum);
            }
            emit IDisputeManager.JurorReleased(disputeId, j.node, j.voted, withMajority, taken);
        }
    }

    // ---------------------------------------------------------------- the draw

    /// @dev Walks the draw list (Draws) and seats the eligible outsiders it meets; returns whether it
    ///      examined the whole list.
    function _drawFrom(
        DisputeStorage storage ds,
        Court memory c,
        uint256 disputeId,
        IDisputeManager.Dispute storage d,
        uint256 rand,
        uint256 poolSize
    ) private returns (bool walkedAll) {
        uint256 vacancies = d.jurorsWanted - d.jurorCount;
        Draws.Walk memory w;
        (w, walkedAll) = Draws.walk(rand, poolSize, vacancies, Draws.ATTEMPTS_PER_VACANCY);
        (address requester, address[] memory voters) = _parties(c.registry, d);
        while (vacancies > 0) {
            (bool more, address candidate) = Draws.next(w, c.stakes);
            if (!more) break;
            if (_excluded(ds, c.registry, disputeId, d, candidate, requester, voters)) continue;
            if (!Draws.eligible(c.stakes, c.reputation, candidate, Role.Validator)) continue;
            _seat(ds, c.stakes, disputeId, d, candidate);
            vacancies -= 1;
        }
    }

    /// @dev The task's requester and the validators who attested in the disputed round.
    function _parties(IExtsload registry, IDisputeManager.Dispute storage d)
        private
        view
        returns (address requester, address[] memory voters)
    {
        uint256 taskId = d.taskId;
        uint256 round = d.round;
        ITaskRegistry.Task memory head = TaskState.taskHead(registry, taskId);
        requester = head.requester;
        voters = new address[](head.numValidators);
        for (uint256 v = 0; v < voters.length; ++v) {
            voters[v] = TaskState.attester(registry, taskId, round, v);
        }
    }

    /// @dev Parties cannot judge: the requester, the disputer, the submitter, the task's members
    ///      and the validators who voted in the disputed round; nor can a juror sit twice.
    function _excluded(
        DisputeStorage storage ds,
        IExtsload registry,
        uint256 disputeId,
        IDisputeManager.Dispute storage d,
        address c,
        address requester,
        address[] memory voters
    ) private view returns (bool) {
        if (c == requester || c == d.disputer || c == d.submitter || ds.seatOf[disputeId][c] != 0) return true;
        if (TaskState.membership(registry, d.taskId, c).assigned) return true;
        for (uint256 i = 0; i < voters.length; ++i) {
            if (voters[i] == c) return true;
        }
        return false;
    }

    function _seat(
        DisputeStorage storage ds,
        IStakeManager stakes,
        uint256 disputeId,
        IDisputeManager.Dispute storage d,
        address node
    ) private {
        uint256 amount = stakes.minStake(Role.Validator);
        stakes.lock(node, Role.Validator, amount);
        uint256 seat = d.jurorCount;
        // amount is a stake, stored by StakeManager as uint128.
        ds.jurors[disputeId][seat] = IDisputeManager.Juror(node, uint128(amount), false, false, bytes32(0));
        ds.seatOf[disputeId][node] = seat + 1;
        d.jurorCount += 1;
        emit IDisputeManager.JurorDrawn(disputeId, node, seat, amount);
    }
}

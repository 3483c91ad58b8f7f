// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Role} from "../libraries/Types.sol";
import {ITaskRegistry} from "./ITaskRegistry.sol";
import {EpisodeCheck} from "../libraries/EpisodeCheck.sol";
import {IExtsload} from "./IExtsload.sol";

/// @title IDisputeManager
/// @notice Disputes of decided verdicts (SPECIFICATION.md, "Disputes"). Within the dispute window
///         after a round's verdicts anyone may dispute one Accepted or Rejected submission by posting
///         a bond. A sampler episode proven (Merkle proof against the revealed root) to carry a fault
///         the chain can check settles the dispute at once; otherwise 2n+1 jurors, drawn from the
///         validator pool outside the task and the parties, vote. The losers' bond and slashed stake
///         pay the winner and the jurors who voted with the majority; the rest goes to the treasury.
/// @dev Its state is read through `extsload` (StateView, DisputeState); its parameters (windows,
///      minimum bond, slash rate, treasury) are ProtocolConfig's.
interface IDisputeManager is IExtsload {
    enum Status {
        None,
        Drawing, // waiting for the juror draw
        Voting, // jurors drawn: votes committed, then revealed
        Upheld, // the verdict was wrong
        Dismissed, // the verdict stands
        Void // no juror could be drawn or none voted: bond returned, verdict stands
    }

    /// @notice What a disputer says is wrong with the disputed work (SPECIFICATION.md 13, "Evidence").
    ///         Jurors re-execute exactly that item; `Whole` names the submission as a whole
    ///         (missing or unparseable data, a blob that does not reach its root, a trace's shape or
    ///         ends) and is the only kind a dispute of a Rejected verdict (the work is good) states.
    enum Evidence {
        Whole,
        Episode, // item = the index of an episode of a sampler's shard
        Transition, // item = j: the trainer's trace transition from state j to state j + 1
        DataChunk // item = the index of a 64-sample chunk of the trainer's pre-update forward pass
    }

    struct Dispute {
        uint256 taskId;
        uint16 round;
        Role role;
        uint8 slot;
        ITaskRegistry.Verdict verdict; // the disputed verdict (Accepted, Rejected or Inconclusive)
        Status status;
        uint8 jurorsWanted; // 2n + 1 for a task with n validators
        uint8 jurorCount;
        uint8 upholdVotes; // revealed
        uint8 dismissVotes; // revealed
        uint8 commits; // votes committed
        uint64 seedBlock; // block whose hash seeds the next juror draw (0 = none armed)
        uint64 voteDeadline; // protocol time: the last to commit a vote
        Evidence evidence; // what the disputer says failed
        uint32 item; // which episode, transition or chunk (0 for Whole)
        uint64 revealDeadline; // protocol time: the last to reveal one
        address disputer;
        address submitter;
        uint256 bond;
    }

    struct Juror {
        address node;
        uint128 lockedStake;
        bool voted; // revealed
        bool uphold;
        bytes32 commitment; // keccak256(abi.encode(disputeId, juror, uphold, salt)); 0 = none
    }

    error ZeroAddress();
    error DisputesPaused();
    error NotDisputable(uint256 taskId, uint256 round, Role role, uint256 slot, ITaskRegistry.Verdict verdict);
    error InvalidEvidence(Role role, ITaskRegistry.Verdict verdict, Evidence evidence, uint256 item);
    error DisputeWindowClosed(uint256 taskId, uint256 round, uint256 windowEnd);
    error DisputeWindowOpen(uint256 taskId, uint256 round, uint256 windowEnd);
    error AlreadyDisputed(uint256 taskId, uint256 round, Role role, uint256 slot, uint256 disputeId);
    error BondTooLow(uint256 bond, uint256 minBond);
    error DisputeNotFound(uint256 disputeId);
    error WrongDisputeStatus(uint256 disputeId, Status status);
    error DrawNotReady(uint256 disputeId, uint256 seedBlock);
    error NotProvable(uint256 disputeId, Role role);
    error NotInRoot(uint256 disputeId);
    error NoFaultProven(uint256 disputeId);
    error NotAJuror(uint256 disputeId, address caller);
    error AlreadyVoted(uint256 disputeId, address juror);
    error AlreadyCommitted(uint256 disputeId, address juror);
    error NotCommitted(uint256 disputeId, address juror);
    error RevealNotOpen(uint256 disputeId, uint256 voteDeadline);
    error VoteMismatch(uint256 disputeId, address juror);
    error VotingClosed(uint256 disputeId, uint256 deadline);
    error VotingOpen(uint256 disputeId, uint256 deadline);
    error DisputesPending(uint256 taskId, uint256 round, uint256 open);
    error InsufficientOwed(address account, uint256 owed, uint256 requested);

    event DisputeOpened(
        uint256 indexed disputeId,
        uint256 indexed taskId,
        address indexed disputer,
        uint256 round,
        Role role,
        uint256 slot,
        ITaskRegistry.Verdict verdict,
        uint256 bond
    );
    event EvidenceStated(uint256 indexed disputeId, Evidence evidence, uint256 item);
    event JurorDrawArmed(uint256 indexed disputeId, uint256 seedBlock);
    event JurorDrawn(uint256 indexed disputeId, address indexed juror, uint256 seat, uint256 lockedStake);
    event VotingStarted(uint256 indexed disputeId, uint256 jurors, uint256 deadline);
    event JurorCommitted(uint256 indexed disputeId, address indexed juror, uint256 commits);
    event JurorVoted(uint256 indexed disputeId, address indexed juror, bool uphold);
    event FaultProven(uint256 indexed disputeId, address indexed prover, EpisodeCheck.Fault fault);
    event DisputeSettled(uint256 indexed disputeId, uint256 indexed taskId, Status outcome, uint256 upholdVotes, uint256 dismissVotes);
    event PartyPenalised(uint256 indexed disputeId, address indexed node, Role role, uint256 slashed, uint256 payReclaimed);
    event JurorReleased(uint256 indexed disputeId, address indexed juror, bool voted, bool withMajority, uint256 slashed);
    event Owed(uint256 indexed disputeId, address indexed account, uint256 amount);
    event Withdrawn(address indexed account, address indexed to, uint256 amount);

    /// @notice Disputes the verdict on submission (`role`, `slot`) of `round`, posting `bond`
    ///         (pulled with transferFrom, at least ProtocolConfig.minBond). Arms a juror draw on the next block.
    ///         A dispute of an Accepted or Inconclusive verdict says the work is bad and names the
    ///         failing item (`evidence`, `item`: an Episode of a sampler's shard, a Transition or
    ///         DataChunk of a trainer's trace, or Whole); one of a Rejected verdict says it is good
    ///         (Whole, item 0).
    function openDispute(
        uint256 taskId,
        uint256 round,
        Role role,
        uint256 slot,
        uint256 bond,
        Evidence evidence,
        uint256 item
    ) external
        returns (uint256 disputeId);

    /// @notice Draws jurors for a dispute from the block hash armed at opening (anyone may call);
    ///         voting starts once every seat is filled or the whole pool was walked.
    function drawJurors(uint256 disputeId) external;

    /// @notice A juror commits its vote, hidden, until `voteDeadline`: `commitment` =
    ///         keccak256(abi.encode(disputeId, juror, uphold, salt)), `uphold` = the disputed verdict
    ///         was wrong. Hidden so that no juror can follow the votes before it.
    function commitVote(uint256 disputeId, bytes32 commitment) external;

    /// @notice A juror opens its committed vote, once every juror committed or `voteDeadline`
    ///         passed, until `revealDeadline`; JurorVoted. A vote not opened is slashed at settlement.
    function revealVote(uint256 disputeId, bool uphold, bytes32 salt) external;

    /// @notice Settles a sampler dispute at once with an episode under the submission's root whose
    ///         fault the chain can check (`EpisodeCheck`); reverts when no fault is shown. The
    ///         submission is then bad: an Accepted verdict is overturned, a Rejected one stands.
    function proveFault(uint256 disputeId, bytes calldata item, bytes32[] calldata proof) external;

    /// @notice Settles a voted dispute once every juror revealed, or once the vote deadline passed
    ///         and every committed vote was revealed, or once the reveal deadline passed.
    function settle(uint256 disputeId) external;

    /// @notice Credits `node`'s held pay for `round` once the round's dispute window has passed and
    ///         no dispute of the round is open. Anyone may call. The pay of a validator that
    ///         dissented in the round goes back to the requester instead, unless a dispute it opened
    ///         on the round proved the work bad.
    function releasePay(uint256 taskId, uint256 round, address node) external;

    /// @notice Pays `amount` of what the caller is owed (returned bonds, awards) to `to`.
    function withdraw(address to, uint256 amount) external;
}

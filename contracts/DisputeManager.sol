// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {IDisputeManager} from "./interfaces/IDisputeManager.sol";
import {IDisputeHooks} from "./interfaces/IDisputeHooks.sol";
import {ITaskRegistry} from "./interfaces/ITaskRegistry.sol";
import {IStakeManager} from "./interfaces/IStakeManager.sol";
import {IReputation} from "./interfaces/IReputation.sol";
import {IRewardVault} from "./interfaces/IRewardVault.sol";
import {IProtocolConfig} from "./interfaces/IProtocolConfig.sol";
import {IExtsload} from "./interfaces/IExtsload.sol";
import {Role, Outcome} from "./libraries/Types.sol";
import {Payouts} from "./libraries/Payouts.sol";
import {Extsload} from "./libraries/Extsload.sol";
import {EpisodeCheck} from "./libraries/EpisodeCheck.sol";
import {FaultProver} from "./libraries/FaultProver.sol";
import {JuryLogic} from "./libraries/JuryLogic.sol";
import {Disputes} from "./libraries/Disputes.sol";
import {Draws} from "./libraries/Draws.sol";
import {StakeSlash} from "./libraries/StakeSlash.sol";
import {TaskState} from "./libraries/TaskState.sol";
import {DisputeStorage, DisputeStorageSlot} from "./libraries/DisputeStorage.sol";

interface IPausableView {
    function paused() external view returns (bool);
}

/// @title DisputeManager
/// @notice Bonds, the lifecycle of disputes and their effects on tasks. See SPECIFICATION.md,
///         "Disputes". Holds bonds and what it owes (returned bonds, awards) as pull payments.
/// @dev The jury's draw, the vote's outcome and the jurors' rewards and penalties are JuryLogic's,
///      the on-chain fault check FaultProver's; the registry's state is read through `extsload` (TaskState) and changed only
///      through IDisputeHooks. Needs StakeManager.PROTOCOL_ROLE (lock jurors, slash losers),
///      Reputation.REPORTER_ROLE and to be the registry's dispute manager.
contract DisputeManager is IDisputeManager, ReentrancyGuardTransient, Extsload {
    using SafeERC20 for IERC20;

    /// @notice Part of a settled dispute's pot shared by the jurors who voted with the majority.
    uint256 public constant JUROR_SHARE_BPS = 5000;
    /// @notice Draw-list entries examined per vacant juror seat in one draw before re-arming.
    uint256 public constant DRAW_ATTEMPTS_PER_SEAT = Draws.ATTEMPTS_PER_VACANCY;

    IERC20 public immutable token;
    ITaskRegistry public immutable registry;
    IStakeManager public immutable stakes;
    IReputation public immutable reputation;
    IRewardVault public immutable vault;
    IProtocolConfig public immutable config;

    constructor(
        IERC20 token_,
        ITaskRegistry registry_,
        IStakeManager stakes_,
        IReputation reputation_,
        IRewardVault vault_,
        IProtocolConfig config_
    ) {
        if (
            address(token_) == address(0) || address(registry_) == address(0) || address(stakes_) == address(0)
                || address(reputation_) == address(0) || address(vault_) == address(0) || address(config_) == address(0)
        ) revert ZeroAddress();
        token = token_;
        registry = registry_;
        stakes = stakes_;
        reputation = reputation_;
        vault = vault_;
        config = config_;
    }

    // ---------------------------------------------------------------- opening

    /// @inheritdoc IDisputeManager
    function openDispute(
        uint256 taskId,
        uint256 round,
        Role role,
        uint256 slot,
        uint256 bond,
        Evidence evidence,
        uint256 item
    ) external nonReentrant returns (uint256 disputeId) {
        _whenNotPaused();
        ITaskRegistry.Submission memory sub = TaskState.submissionHead(_registry(), taskId, round, role, slot);
        if (sub.verdict == ITaskRegistry.Verdict.None) revert NotDisputable(taskId, round, role, slot, sub.verdict);
        Disputes.checkEvidence(role, sub.verdict, evidence, item);
        _checkOpenable(taskId, round, role, slot, bond);
        // round < numRounds <= 1000 and slot < 64 (a submission with a verdict exists there);
        // checkEvidence bounds item to uint32; numValidators <= 64, so 2n + 1 <= 129.
        disputeId = _record(
            Dispute({
                taskId: taskId,
                round: uint16(round),
                role: role,
                slot: uint8(slot),
                verdict: sub.verdict,
                status: Status.Drawing,
                jurorsWanted: uint8(2 * TaskState.taskHead(_registry(), taskId).numValidators + 1),
                jurorCount: 0,
                upholdVotes: 0,
                dismissVotes: 0,
                commits: 0,
                seedBlock: 0,
                voteDeadline: 0,
                evidence: evidence,
                item: uint32(item),
                revealDeadline: 0,
                disputer: msg.sender,
                submitter: sub.node,
                bond: bond
            })
        );
        token.safeTransferFrom(msg.sender, address(this), bond);
    }

    /// @dev The window is open, the submission not yet disputed and the bond at least the minimum.
    function _checkOpenable(uint256 taskId, uint256 round, Role role, uint256 slot, uint256 bond) private view {
        uint256 windowEnd = _windowEnd(taskId, round);
        if (registry.protocolTime() > windowEnd) revert DisputeWindowClosed(taskId, round, windowEnd);
        uint256 existing = _ds().disputeOf[Disputes.submissionKey(taskId, round, role, slot)];
        if (existing != 0) revert AlreadyDisputed(taskId, round, role, slot, existing);
        uint256 minBond = config.minBond();
        if (bond < minBond) revert BondTooLow(bond, minBond);
    }

    /// @dev Stores a new dispute and arms its juror draw.
    function _record(Dispute memory d) private returns (uint256 disputeId) {
        DisputeStorage storage ds = _ds();
        disputeId = ++ds.disputeCount;
        ds.disputeOf[Disputes.submissionKey(d.taskId, d.round, d.role, d.slot)] = disputeId;
        ds.open[d.taskId][d.round] += 1;
        ds.totalBonds += d.bond;
        ds.disputes[disputeId] = d;
        emit DisputeOpened(disputeId, d.taskId, d.disputer, d.round, d.role, d.slot, d.verdict, d.bond);
        emit EvidenceStated(disputeId, d.evidence, d.item);
        Disputes.armDraw(disputeId, ds.disputes[disputeId]);
    }

    // ---------------------------------------------------------------- jurors

    /// @inheritdoc IDisputeManager
    function drawJurors(uint256 disputeId) external nonReentrant {
        _whenNotPaused();
        JuryLogic.Court memory court =
            JuryLogic.Court(_registry(), stakes, reputation, registry.protocolTime(), config.voteWindow());
        if (JuryLogic.draw(_ds(), court, disputeId) == JuryLogic.Drawn.Void) {
            // Nobody outside the task and the parties can judge: the verdict stands, the bond returns.
            _conclude(disputeId, _ds().disputes[disputeId], Status.Void, address(0));
        }
    }

    /// @inheritdoc IDisputeManager
    function commitVote(uint256 disputeId, bytes32 commitment) external nonReentrant {
        _whenNotPaused();
        Dispute storage d = Disputes.load(_ds(), disputeId, Status.Voting);
        uint256 now_ = registry.protocolTime();
        if (now_ > d.voteDeadline) revert VotingClosed(disputeId, d.voteDeadline);
        Juror storage j = _jurorOfCaller(disputeId);
        if (j.commitment != bytes32(0)) revert AlreadyCommitted(disputeId, msg.sender);
        if (commitment == bytes32(0)) revert VoteMismatch(disputeId, msg.sender);
        j.commitment = commitment;
        uint256 commits = ++d.commits;
        // Every vote is in: the reveals open now, for one vote window (never past the deadline
        // set when voting started, which the unbonding period is sized against).
        if (commits == d.jurorCount) {
            uint256 revealBy = now_ + config.voteWindow();
            if (revealBy < d.revealDeadline) d.revealDeadline = uint64(revealBy);
        }
        emit JurorCommitted(disputeId, msg.sender, commits);
    }

    /// @inheritdoc IDisputeManager
    function revealVote(uint256 disputeId, bool uphold, bytes32 salt) external nonReentrant {
        _whenNotPaused();
        Dispute storage d = Disputes.load(_ds(), disputeId, Status.Voting);
        uint256 now_ = registry.protocolTime();
        if (d.commits < d.jurorCount && now_ <= d.voteDeadline) revert RevealNotOpen(disputeId, d.voteDeadline);
        if (now_ > d.revealDeadline) revert VotingClosed(disputeId, d.revealDeadline);
        Juror storage j = _jurorOfCaller(disputeId);
        if (j.voted) revert AlreadyVoted(disputeId, msg.sender);
        if (j.commitment == bytes32(0)) revert NotCommitted(disputeId, msg.sender);
        if (keccak256(abi.encode(disputeId, msg.sender, uphold, salt)) != j.commitment) {
            revert VoteMismatch(disputeId, msg.sender);
        }
        j.voted = true;
        j.uphold = uphold;
        if (uphold) d.upholdVotes += 1;
        else d.dismissVotes += 1;
        emit JurorVoted(disputeId, msg.sender, uphold);
    }

    // ---------------------------------------------------------------- settlement

    /// @inheritdoc IDisputeManager
    function proveFault(uint256 disputeId, bytes calldata item, bytes32[] calldata proof) external nonReentrant {
        _whenNotPaused();
        Dispute storage d = _ds().disputes[disputeId];
        if (d.status != Status.Drawing && d.status != Status.Voting) revert WrongDisputeStatus(disputeId, d.status);
        if (d.role != Role.Sampler) revert NotProvable(disputeId, d.role);
        bytes32 root = TaskState.submissionHead(_registry(), d.taskId, d.round, d.role, d.slot).root;
        EpisodeCheck.Fault fault = FaultProver.prove(disputeId, item, proof, root, d.round, d.slot);
        emit FaultProven(disputeId, msg.sender, fault);
        // The submission is bad: an Accepted or Inconclusive verdict is overturned, a Rejected one stands.
        bool upheld = d.verdict != ITaskRegistry.Verdict.Rejected;
        _conclude(disputeId, d, upheld ? Status.Upheld : Status.Dismissed, msg.sender);
    }

    /// @inheritdoc IDisputeManager
    function settle(uint256 disputeId) external nonReentrant {
        _whenNotPaused();
        Status outcome = JuryLogic.outcome(_ds(), registry.protocolTime(), disputeId);
        _conclude(disputeId, _ds().disputes[disputeId], outcome, address(0));
    }

    /// @inheritdoc IDisputeManager
    function releasePay(uint256 taskId, uint256 round, address node) external nonReentrant {
        uint256 windowEnd = _windowEnd(taskId, round);
        if (registry.protocolTime() <= windowEnd) revert DisputeWindowOpen(taskId, round, windowEnd);
        uint256 open = _ds().open[taskId][round];
        if (open != 0) revert DisputesPending(taskId, round, open);
        // A dissent no dispute of its author vindicated was not the work the round paid for: the
        // pay goes back to the requester (the amounts are in the vault's and registry's events).
        if (TaskState.dissented(_registry(), taskId, round, node) && !_ds().vindicated[taskId][round][node]) {
            // slither-disable-next-line unused-return
            IDisputeHooks(address(registry)).reclaimPay(taskId, round, node, Role.Validator);
            return;
        }
        // slither-disable-next-line unused-return
        IDisputeHooks(address(registry)).releasePay(taskId, round, node);
    }

    /// @inheritdoc IDisputeManager
    function withdraw(address to, uint256 amount) external nonReentrant {
        if (to == address(0)) revert ZeroAddress();
        DisputeStorage storage ds = _ds();
        uint256 owed = ds.owed[msg.sender];
        if (amount == 0 || amount > owed) revert InsufficientOwed(msg.sender, owed, amount);
        // amount <= owed <= totalOwed.
        unchecked {
            ds.owed[msg.sender] = owed - amount;
            ds.totalOwed -= amount;
        }
        token.safeTransfer(to, amount);
        emit Withdrawn(msg.sender, to, amount);
    }

    // ---------------------------------------------------------------- internals: effects

    // Every entry point is nonReentrant and the calls go only to the protocol's own contracts
    // (registry, StakeManager, Reputation, ProtocolConfig), which call nothing back (SPECIFICATION.md 10).
    // slither-disable-start reentrancy-no-eth
    /// @dev Ends a dispute: applies the verdict's correction, releases the jurors and pays the pot.
    ///      `prover` is who proved a fault (address(0) for a vote or a void).
    function _conclude(uint256 disputeId, Dispute storage d, Status outcome, address prover) private {
        DisputeStorage storage ds = _ds();
        d.status = outcome;
        ds.open[d.taskId][d.round] -= 1;
        uint256 bond = d.bond;
        ds.totalBonds -= bond;
        uint256 pot = 0;
        address winner = address(0);
        if (outcome == Status.Upheld) {
            // A disputer that proved the work bad is vindicated (with every validator that rejected it, _correct).
            if (d.verdict != ITaskRegistry.Verdict.Rejected) ds.vindicated[d.taskId][d.round][d.disputer] = true;
            _credit(disputeId, d.disputer, bond);
            pot = _correct(disputeId, d);
            winner = d.disputer;
        } else if (outcome == Status.Dismissed) {
            pot = bond;
            winner = prover == address(0) ? config.treasury() : prover;
        } else {
            _credit(disputeId, d.disputer, bond);
        }
        uint256 rest = _payJury(disputeId, d, outcome == Status.Upheld, prover == address(0), pot);
        if (rest > 0) _credit(disputeId, winner == address(0) ? config.treasury() : winner, rest);
        emit DisputeSettled(disputeId, d.taskId, outcome, d.upholdVotes, d.dismissVotes);
    }

    /// @dev Releases the jurors (JuryLogic.release) and shares JUROR_SHARE_BPS of the pot, their
    ///      slashed stake included, among the majority; returns the rest of the pot.
    function _payJury(uint256 disputeId, Dispute storage d, bool upheld, bool voted, uint256 pot)
        private
        returns (uint256 rest)
    {
        (uint256 slashed, uint256 majority) =
            JuryLogic.release(_ds(), stakes, reputation, config.slashBps(), disputeId, voted, upheld);
        pot += slashed;
        uint256 each = majority == 0 ? 0 : pot * JUROR_SHARE_BPS / Payouts.BPS / majority;
        if (each > 0) _payMajority(disputeId, d, upheld, each);
        // each * majority <= pot * JUROR_SHARE_BPS / BPS <= pot; the rounding dust goes to the winner.
        // slither-disable-next-line divide-before-multiply
        rest = pot - each * majority;
    }

    /// @dev The disputed verdict was wrong: reclaim what was paid for it, slash and mark down who was
    ///      wrong, and fail the task when bad work may have been built on. Returns the tokens slashed.
    function _correct(uint256 disputeId, Dispute storage d) private returns (uint256 slashed) {
        // Upholding a dispute of an Accepted or Inconclusive verdict proves the work bad; of a
        // Rejected one, good.
        bool bad = d.verdict != ITaskRegistry.Verdict.Rejected;
        // Work built on bad work is void: an accepted submission, or a sampler shard the trainer may
        // have trained on (it trains on every revealed shard), ends the task (which also unlocks
        // its slots, so the parties' stake is free to slash) and refunds the rest of its escrow.
        if (bad && (d.verdict == ITaskRegistry.Verdict.Accepted || d.role == Role.Sampler)) {
            IDisputeHooks(address(registry)).failTask(d.taskId);
        }
        if (bad) {
            slashed += _penalise(disputeId, d, d.submitter, d.role, Outcome.Rejected);
        } else {
            reputation.record(d.submitter, Outcome.Accepted);
        }
        ITaskRegistry.Task memory t = TaskState.taskHead(_registry(), d.taskId);
        uint256 bit = 1 << (d.role == Role.Trainer ? t.numSamplers : d.slot);
        // A "plant" answer said yes to forced work (only the plant was wrong) and no to unforced
        // work (a plant there is a fault): it counts with the acceptances, or with the rejections.
        bool plantIsYes = TaskState.draws(_registry(), d.taskId, d.round).forced & bit != 0;
        for (uint256 v = 0; v < t.numValidators; ++v) {
            ITaskRegistry.Attestation memory a = registry.attestationOf(d.taskId, d.round, v);
            if (!a.voted) continue;
            bool accepted = a.acceptBitmap & bit != 0 || (plantIsYes && a.plantBitmap & bit != 0);
            address node = TaskState.attester(_registry(), d.taskId, d.round, v);
            // Every validator that rejected the work proven bad was right, not only the one whose
            // dispute it was: each dissenter's held round pay is its own (releasePay).
            if (bad && !accepted) _ds().vindicated[d.taskId][d.round][node] = true;
            if (accepted != bad) continue;
            // An acceptance can be honestly wrong: a fault confined to items its sampled challenges
            // did not cover. It loses the round's pay, not stake or reputation. A rejection of good
            // work cannot (every check is deterministic and names its item): slashed and marked.
            if (bad) _forfeitPay(disputeId, d, node);
            else slashed += _penalise(disputeId, d, node, Role.Validator, Outcome.AgainstQuorum);
        }
    }

    /// @dev Takes back `node`'s held validator pay of the disputed round (to the requester).
    function _forfeitPay(uint256 disputeId, Dispute storage d, address node) private {
        uint256 reclaimed = 0;
        if (vault.heldOf(d.taskId, d.round, node) > 0) {
            reclaimed = IDisputeHooks(address(registry)).reclaimPay(d.taskId, d.round, node, Role.Validator);
        }
        emit PartyPenalised(disputeId, node, Role.Validator, 0, reclaimed);
    }

    function _penalise(uint256 disputeId, Dispute storage d, address node, Role role, Outcome outcome)
        private
        returns (uint256 slashed)
    {
        uint256 reclaimed = 0;
        if (vault.heldOf(d.taskId, d.round, node) > 0) {
            reclaimed = IDisputeHooks(address(registry)).reclaimPay(d.taskId, d.round, node, role);
        }
        uint256 wanted = stakes.minStake(role) * config.slashBps() / Payouts.BPS;
        slashed = StakeSlash.take(stakes, node, role, wanted, address(this));
        reputation.record(node, outcome);
        emit PartyPenalised(disputeId, node, role, slashed, reclaimed);
    }

    // slither-disable-end reentrancy-no-eth

    function _payMajority(uint256 disputeId, Dispute storage d, bool upheld, uint256 each) private {
        DisputeStorage storage ds = _ds();
        for (uint256 seat = 0; seat < d.jurorCount; ++seat) {
            Juror storage j = ds.jurors[disputeId][seat];
            if (j.voted && j.uphold == upheld) _credit(disputeId, j.node, each);
        }
    }

    function _credit(uint256 disputeId, address account, uint256 amount) private {
        DisputeStorage storage ds = _ds();
        ds.owed[account] += amount;
        ds.totalOwed += amount;
        emit Owed(disputeId, account, amount);
    }

    // ---------------------------------------------------------------- internals: small helpers

    function _whenNotPaused() private view {
        if (IPausableView(address(registry)).paused()) revert DisputesPaused();
    }

    function _jurorOfCaller(uint256 disputeId) private view returns (Juror storage) {
        uint256 seat = _ds().seatOf[disputeId][msg.sender];
        if (seat == 0) revert NotAJuror(disputeId, msg.sender);
        return _ds().jurors[disputeId][seat - 1];
    }

    function _windowEnd(uint256 taskId, uint256 round) private view returns (uint256) {
        uint256 at = TaskState.finalizedAt(_registry(), taskId, round);
        // No verdicts yet: nothing to dispute and nothing held to release.
        if (at == 0) revert NotDisputable(taskId, round, Role.Sampler, 0, ITaskRegistry.Verdict.None);
        return at + config.disputeWindow();
    }

    function _registry() private view returns (IExtsload) {
        return IExtsload(address(registry));
    }

    function _ds() private pure returns (DisputeStorage storage) {
        return DisputeStorageSlot.layout();
    }
}

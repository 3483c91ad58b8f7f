// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {MerkleProof} from "@openzeppelin/contracts/utils/cryptography/MerkleProof.sol";
import {IDisputeManager} from "./interfaces/IDisputeManager.sol";
import {IDisputeHooks} from "./interfaces/IDisputeHooks.sol";
import {ITaskRegistry} from "./interfaces/ITaskRegistry.sol";
import {IStakeManager} from "./interfaces/IStakeManager.sol";
import {IReputation} from "./interfaces/IReputation.sol";
import {IRewardVault} from "./interfaces/IRewardVault.sol";
import {Role, Outcome} from "./libraries/Types.sol";
import {Payouts} from "./libraries/Payouts.sol";
import {Draws} from "./libraries/Draws.sol";
import {EpisodeCheck} from "./libraries/EpisodeCheck.sol";

interface IPausableView {
    function paused() external view returns (bool);
}

/// @title DisputeManager
/// @notice Bonds, juror draws, votes and the effects of disputes on tasks. See SPECIFICATION.md,
///         "Disputes". Holds bonds and what it owes (returned bonds, awards) as pull payments.
/// @dev Needs StakeManager.PROTOCOL_ROLE (lock jurors, slash losers), Reputation.REPORTER_ROLE and
///      to be the registry's dispute manager (release/reclaim held pay, fail a task).
contract DisputeManager is IDisputeManager, AccessControl, ReentrancyGuardTransient {
    using SafeERC20 for IERC20;

    bytes32 public constant GOVERNOR_ROLE = keccak256("GOVERNOR_ROLE");

    uint256 public constant MIN_DISPUTE_WINDOW = 1 hours;
    uint256 public constant MAX_DISPUTE_WINDOW = 3 days;
    uint256 public constant MIN_VOTE_WINDOW = 10 minutes;
    /// @dev A vote takes up to two windows (commit, then reveal): 3 days of dispute window and
    ///      2 x 36 h stay under the 7-day unbonding period (SPECIFICATION.md, "Disputes", limits).
    uint256 public constant MAX_VOTE_WINDOW = 36 hours;
    uint256 public constant MIN_BOND = 1e18;
    uint256 public constant MAX_BOND = 100_000e18;
    /// @notice Part of a settled dispute's pot shared by the jurors who voted with the majority.
    uint256 public constant JUROR_SHARE_BPS = 5000;
    /// @notice Pool members examined per vacant juror seat in one draw before re-arming.
    uint256 public constant DRAW_ATTEMPTS_PER_SEAT = 4;
    /// @dev Draws of one dispute at most: after the last, the jurors seated vote (none: void).
    uint256 private constant MAX_JUROR_DRAWS = 8;

    IERC20 public immutable token;
    ITaskRegistry public immutable registry;
    IStakeManager public immutable stakes;
    IReputation public immutable reputation;
    IRewardVault public immutable vault;

    mapping(uint256 disputeId => Dispute) private _disputes;
    mapping(uint256 disputeId => mapping(uint256 seat => Juror)) private _jurors;
    mapping(uint256 disputeId => mapping(address node => uint256 seatPlusOne)) private _seatOf;
    mapping(bytes32 submissionKey => uint256 disputeId) private _disputeOf;
    mapping(uint256 taskId => mapping(uint256 round => uint256)) private _open;
    mapping(address account => uint256) private _owed;
    mapping(uint256 disputeId => uint256) private _draws;
    uint256 private _disputeCount;
    uint256 private _totalOwed;
    uint256 private _totalBonds;
    uint256 private _disputeWindow;
    uint256 private _voteWindow;
    uint256 private _minBond;

    constructor(
        IERC20 token_,
        ITaskRegistry registry_,
        IStakeManager stakes_,
        IReputation reputation_,
        IRewardVault vault_,
        address admin
    ) {
        if (
            address(token_) == address(0) || address(registry_) == address(0) || address(stakes_) == address(0)
                || address(reputation_) == address(0) || address(vault_) == address(0) || admin == address(0)
        ) revert ZeroAddress();
        token = token_;
        registry = registry_;
        stakes = stakes_;
        reputation = reputation_;
        vault = vault_;
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        _grantRole(GOVERNOR_ROLE, admin);
        _setDisputeWindow(1 days);
        _setVoteWindow(1 days);
        _setMinBond(100e18);
    }

    // ---------------------------------------------------------------- opening

    /// @inheritdoc IDisputeManager
    function openDispute(uint256 taskId, uint256 round, Role role, uint256 slot, uint256 bond)
        external
        nonReentrant
        returns (uint256 disputeId)
    {
        _whenNotPaused();
        ITaskRegistry.Submission memory sub = registry.submissionOf(taskId, round, role, slot);
        if (sub.verdict != ITaskRegistry.Verdict.Accepted && sub.verdict != ITaskRegistry.Verdict.Rejected) {
            revert NotDisputable(taskId, round, role, slot, sub.verdict);
        }
        uint256 windowEnd = _windowEnd(taskId, round);
        if (registry.protocolTime() > windowEnd) revert DisputeWindowClosed(taskId, round, windowEnd);
        bytes32 key = _key(taskId, round, role, slot);
        if (_disputeOf[key] != 0) revert AlreadyDisputed(taskId, round, role, slot, _disputeOf[key]);
        if (bond < _minBond) revert BondTooLow(bond, _minBond);

        disputeId = ++_disputeCount;
        _disputeOf[key] = disputeId;
        _open[taskId][round] += 1;
        _totalBonds += bond;
        Dispute storage d = _disputes[disputeId];
        d.taskId = taskId;
        // round < numRounds <= 1000 and slot < 64 (a submission with a verdict exists there).
        d.round = uint16(round);
        d.role = role;
        d.slot = uint8(slot);
        d.verdict = sub.verdict;
        d.status = Status.Drawing;
        // numValidators <= 64, so 2n + 1 <= 129.
        d.jurorsWanted = uint8(2 * registry.taskOf(taskId).numValidators + 1);
        d.disputer = msg.sender;
        d.submitter = sub.node;
        d.bond = bond;
        emit DisputeOpened(disputeId, taskId, msg.sender, round, role, slot, sub.verdict, bond);
        _armDraw(disputeId, d);
        token.safeTransferFrom(msg.sender, address(this), bond);
    }

    // ---------------------------------------------------------------- jurors

    // Every entry point is nonReentrant and the calls go only to the protocol's own contracts
    // (registry, StakeManager, Reputation), which call nothing back (SPECIFICATION.md 10).
    // slither-disable-start reentrancy-no-eth
    /// @inheritdoc IDisputeManager
    function drawJurors(uint256 disputeId) external nonReentrant {
        _whenNotPaused();
        Dispute storage d = _dispute(disputeId, Status.Drawing);
        uint256 seedBlock = d.seedBlock;
        if (block.number <= seedBlock) revert DrawNotReady(disputeId, seedBlock);
        bytes32 seed = blockhash(seedBlock);
        uint256 poolSize = stakes.drawPoolSize(seedBlock); // fixed before the seed is known
        bool walkedAll = false;
        // A seed block older than 256 blocks has no hash any more: re-arm rather than draw from zero.
        if (seed != bytes32(0) && poolSize > 0) {
            walkedAll = _drawFrom(disputeId, d, seed, poolSize);
            // A pool with fewer eligible outsiders than seats, but too large to walk in one draw,
            // would be drawn from forever, holding the round's pay: the last draw ends the drawing.
            if (++_draws[disputeId] >= MAX_JUROR_DRAWS) walkedAll = true;
        }
        if (d.jurorCount == d.jurorsWanted || (walkedAll && d.jurorCount > 0)) {
            d.status = Status.Voting;
            d.seedBlock = 0;
            uint256 deadline = registry.protocolTime() + _voteWindow;
            d.voteDeadline = uint64(deadline);
            d.revealDeadline = uint64(deadline + _voteWindow);
            emit VotingStarted(disputeId, d.jurorCount, deadline);
        } else if (walkedAll || poolSize == 0) {
            // Nobody outside the task and the parties can judge: the verdict stands, the bond returns.
            _conclude(disputeId, d, Status.Void, address(0));
        } else {
            _armDraw(disputeId, d);
        }
    }

    // slither-disable-end reentrancy-no-eth

    /// @inheritdoc IDisputeManager
    function commitVote(uint256 disputeId, bytes32 commitment) external nonReentrant {
        _whenNotPaused();
        Dispute storage d = _dispute(disputeId, Status.Voting);
        uint256 now_ = registry.protocolTime();
        if (now_ > d.voteDeadline) revert VotingClosed(disputeId, d.voteDeadline);
        Juror storage j = _jurorOfCaller(disputeId);
        if (j.commitment != bytes32(0)) revert AlreadyCommitted(disputeId, msg.sender);
        if (commitment == bytes32(0)) revert VoteMismatch(disputeId, msg.sender);
        j.commitment = commitment;
        uint256 commits = ++d.commits;
        // Every vote is in: the reveals open now, for one vote window (never past the deadline
        // set when voting started, which the unbonding period is sized against).
        if (commits == d.jurorCount && now_ + _voteWindow < d.revealDeadline) {
            d.revealDeadline = uint64(now_ + _voteWindow);
        }
        emit JurorCommitted(disputeId, msg.sender, commits);
    }

    /// @inheritdoc IDisputeManager
    function revealVote(uint256 disputeId, bool uphold, bytes32 salt) external nonReentrant {
        _whenNotPaused();
        Dispute storage d = _dispute(disputeId, Status.Voting);
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
        Dispute storage d = _disputes[disputeId];
        if (d.status != Status.Drawing && d.status != Status.Voting) revert WrongDisputeStatus(disputeId, d.status);
        if (d.role != Role.Sampler) revert NotProvable(disputeId, d.role);
        bytes32 root = registry.submissionOf(d.taskId, d.round, d.role, d.slot).root;
        // workers/merkle.py: leaf = keccak256(keccak256(item)), sorted-pair inner nodes.
        bytes32 leaf = keccak256(bytes.concat(keccak256(item)));
        if (!MerkleProof.verifyCalldata(proof, root, leaf)) revert NotInRoot(disputeId);
        EpisodeCheck.Fault fault = EpisodeCheck.faultOf(item, d.round, d.slot);
        if (fault == EpisodeCheck.Fault.None) revert NoFaultProven(disputeId);
        emit FaultProven(disputeId, msg.sender, fault);
        // The submission is bad: a wrong Accepted verdict is overturned, a Rejected one stands.
        bool upheld = d.verdict == ITaskRegistry.Verdict.Accepted;
        _conclude(disputeId, d, upheld ? Status.Upheld : Status.Dismissed, msg.sender);
    }

    /// @inheritdoc IDisputeManager
    function settle(uint256 disputeId) external nonReentrant {
        _whenNotPaused();
        Dispute storage d = _dispute(disputeId, Status.Voting);
        uint256 votes = uint256(d.upholdVotes) + d.dismissVotes;
        uint256 now_ = registry.protocolTime();
        bool revealing = d.commits == d.jurorCount || now_ > d.voteDeadline;
        // Done: every juror revealed; or the commits closed and every committed vote is open; or
        // the reveals closed.
        if (votes < d.jurorCount && !(now_ > d.voteDeadline && votes == d.commits) && now_ <= d.revealDeadline) {
            revert VotingOpen(disputeId, revealing ? d.revealDeadline : d.voteDeadline);
        }
        Status outcome;
        if (d.upholdVotes + d.dismissVotes == 0) outcome = Status.Void;
        else outcome = d.upholdVotes > d.dismissVotes ? Status.Upheld : Status.Dismissed;
        _conclude(disputeId, d, outcome, address(0));
    }

    /// @inheritdoc IDisputeManager
    function releasePay(uint256 taskId, uint256 round, address node) external nonReentrant {
        uint256 windowEnd = _windowEnd(taskId, round);
        if (registry.protocolTime() <= windowEnd) revert DisputeWindowOpen(taskId, round, windowEnd);
        uint256 open = _open[taskId][round];
        if (open != 0) revert DisputesPending(taskId, round, open);
        // The amount is in the vault's Released event; nothing here depends on it.
        // slither-disable-next-line unused-return
        IDisputeHooks(address(registry)).releasePay(taskId, round, node);
    }

    /// @inheritdoc IDisputeManager
    function withdraw(address to, uint256 amount) external nonReentrant {
        if (to == address(0)) revert ZeroAddress();
        uint256 owed = _owed[msg.sender];
        if (amount == 0 || amount > owed) revert InsufficientOwed(msg.sender, owed, amount);
        // amount <= owed <= totalOwed.
        unchecked {
            _owed[msg.sender] = owed - amount;
            _totalOwed -= amount;
        }
        token.safeTransfer(to, amount);
        emit Withdrawn(msg.sender, to, amount);
    }

    // ---------------------------------------------------------------- governance

    /// @inheritdoc IDisputeManager
    function setDisputeWindow(uint256 window) external onlyRole(GOVERNOR_ROLE) {
        _setDisputeWindow(window);
    }

    /// @inheritdoc IDisputeManager
    function setVoteWindow(uint256 window) external onlyRole(GOVERNOR_ROLE) {
        _setVoteWindow(window);
    }

    /// @inheritdoc IDisputeManager
    function setMinBond(uint256 bond) external onlyRole(GOVERNOR_ROLE) {
        _setMinBond(bond);
    }

    // ---------------------------------------------------------------- views

    /// @inheritdoc IDisputeManager
    function disputeOf(uint256 disputeId) external view returns (Dispute memory) {
        return _disputes[disputeId];
    }

    /// @inheritdoc IDisputeManager
    function jurorOf(uint256 disputeId, uint256 seat) external view returns (Juror memory) {
        return _jurors[disputeId][seat];
    }

    /// @inheritdoc IDisputeManager
    function disputeIdOf(uint256 taskId, uint256 round, Role role, uint256 slot) external view returns (uint256) {
        return _disputeOf[_key(taskId, round, role, slot)];
    }

    /// @inheritdoc IDisputeManager
    function openDisputesOf(uint256 taskId, uint256 round) external view returns (uint256) {
        return _open[taskId][round];
    }

    /// @inheritdoc IDisputeManager
    function windowEndOf(uint256 taskId, uint256 round) external view returns (uint256) {
        uint256 at = IDisputeHooks(address(registry)).roundFinalizedAt(taskId, round);
        return at == 0 ? 0 : at + _disputeWindow;
    }

    /// @inheritdoc IDisputeManager
    function owedOf(address account) external view returns (uint256) {
        return _owed[account];
    }

    /// @inheritdoc IDisputeManager
    function totalOwed() external view returns (uint256) {
        return _totalOwed;
    }

    /// @inheritdoc IDisputeManager
    function totalBonds() external view returns (uint256) {
        return _totalBonds;
    }

    /// @inheritdoc IDisputeManager
    function disputeCount() external view returns (uint256) {
        return _disputeCount;
    }

    /// @inheritdoc IDisputeManager
    function disputeWindow() external view returns (uint256) {
        return _disputeWindow;
    }

    /// @inheritdoc IDisputeManager
    function voteWindow() external view returns (uint256) {
        return _voteWindow;
    }

    /// @inheritdoc IDisputeManager
    function minBond() external view returns (uint256) {
        return _minBond;
    }

    // ---------------------------------------------------------------- internals: draw

    /// @dev The registry's walk (SPECIFICATION.md 5.3) over the validator pool; returns whether it
    ///      examined the whole pool.
    function _drawFrom(uint256 disputeId, Dispute storage d, bytes32 seed, uint256 poolSize)
        private
        returns (bool walkedAll)
    {
        uint256 rand = uint256(keccak256(abi.encode(seed, "dispute", disputeId)));
        // The seed is a later block's hash (SPECIFICATION.md 5.3 states its bias limits).
        // slither-disable-next-line weak-prng
        uint256 start = rand % poolSize;
        uint256 stride = Draws.coprimeStride(rand >> 128, poolSize);
        uint256 vacancies = d.jurorsWanted - d.jurorCount;
        uint256 attempts = vacancies * DRAW_ATTEMPTS_PER_SEAT;
        if (attempts >= poolSize) (attempts, walkedAll) = (poolSize, true);
        address[] memory voters = _roundVoters(d);
        address requester = registry.taskOf(d.taskId).requester;
        for (uint256 i = 0; i < attempts && vacancies > 0; ++i) {
            // slither-disable-next-line weak-prng
            address candidate = stakes.drawCandidate((start + i * stride) % poolSize);
            if (_excluded(disputeId, d, candidate, requester, voters)) continue;
            if (!Draws.eligible(stakes, reputation, candidate, Role.Validator)) continue;
            _seat(disputeId, d, candidate);
            vacancies -= 1;
        }
    }

    /// @dev Parties cannot judge: the requester, the disputer, the submitter, the task's members
    ///      and the validators who voted in the disputed round; nor can a juror sit twice.
    function _excluded(uint256 disputeId, Dispute storage d, address c, address requester, address[] memory voters)
        private
        view
        returns (bool)
    {
        if (c == requester || c == d.disputer || c == d.submitter || _seatOf[disputeId][c] != 0) return true;
        if (registry.membershipOf(d.taskId, c).assigned) return true;
        for (uint256 i = 0; i < voters.length; ++i) {
            if (voters[i] == c) return true;
        }
        return false;
    }

    function _seat(uint256 disputeId, Dispute storage d, address node) private {
        uint256 amount = stakes.minStake(Role.Validator);
        stakes.lock(node, Role.Validator, amount);
        uint256 seat = d.jurorCount;
        // amount is a stake, stored by StakeManager as uint128.
        _jurors[disputeId][seat] = Juror(node, uint128(amount), false, false, bytes32(0));
        _seatOf[disputeId][node] = seat + 1;
        d.jurorCount += 1;
        emit JurorDrawn(disputeId, node, seat, amount);
    }

    function _armDraw(uint256 disputeId, Dispute storage d) private {
        // The next block's hash is unknown to the disputer (SPECIFICATION.md 5.3 for the limits).
        d.seedBlock = uint64(block.number + 1);
        emit JurorDrawArmed(disputeId, block.number + 1);
    }

    // ---------------------------------------------------------------- internals: effects

    // slither-disable-start reentrancy-no-eth
    /// @dev Ends a dispute: applies the verdict's correction, releases the jurors and pays the pot.
    ///      `prover` is who proved a fault (address(0) for a vote or a void).
    function _conclude(uint256 disputeId, Dispute storage d, Status outcome, address prover) private {
        d.status = outcome;
        _open[d.taskId][d.round] -= 1;
        uint256 bond = d.bond;
        _totalBonds -= bond;
        uint256 pot = 0;
        address winner = address(0);
        if (outcome == Status.Upheld) {
            _credit(disputeId, d.disputer, bond);
            pot = _correct(disputeId, d);
            winner = d.disputer;
        } else if (outcome == Status.Dismissed) {
            pot = bond;
            winner = prover == address(0) ? registry.treasury() : prover;
        } else {
            _credit(disputeId, d.disputer, bond);
        }
        bool voted = prover == address(0);
        (uint256 slashed, uint256 majority) = _releaseJurors(disputeId, d, voted, outcome == Status.Upheld);
        pot += slashed;
        uint256 each = majority == 0 ? 0 : pot * JUROR_SHARE_BPS / Payouts.BPS / majority;
        if (each > 0) _payMajority(disputeId, d, outcome == Status.Upheld, each);
        // each * majority <= pot * JUROR_SHARE_BPS / BPS <= pot; the rounding dust goes to the winner.
        // slither-disable-next-line divide-before-multiply
        uint256 rest = pot - each * majority;
        if (rest > 0) _credit(disputeId, winner == address(0) ? registry.treasury() : winner, rest);
        emit DisputeSettled(disputeId, d.taskId, outcome, d.upholdVotes, d.dismissVotes);
    }

    // slither-disable-end reentrancy-no-eth

    /// @dev The disputed verdict was wrong: reclaim what was paid for it, slash and mark down who was
    ///      wrong, and fail the task when bad work had been accepted. Returns the tokens slashed.
    function _correct(uint256 disputeId, Dispute storage d) private returns (uint256 slashed) {
        bool wasAccepted = d.verdict == ITaskRegistry.Verdict.Accepted;
        // Work built on an accepted bad submission is void: the task ends (which also unlocks its
        // slots, so the parties' stake is free to slash) and the rest of its escrow is refunded.
        if (wasAccepted) IDisputeHooks(address(registry)).failTask(d.taskId);
        if (wasAccepted) {
            slashed += _penalise(disputeId, d, d.submitter, d.role, Outcome.Rejected);
        } else {
            reputation.record(d.submitter, Outcome.Accepted);
        }
        ITaskRegistry.Task memory t = registry.taskOf(d.taskId);
        uint256 bit = 1 << (d.role == Role.Trainer ? t.numSamplers : d.slot);
        for (uint256 v = 0; v < t.numValidators; ++v) {
            ITaskRegistry.Attestation memory a = registry.attestationOf(d.taskId, d.round, v);
            if (!a.voted) continue;
            bool accepted = a.acceptBitmap & bit != 0;
            if (accepted != wasAccepted) continue;
            address node = IDisputeHooks(address(registry)).attesterOf(d.taskId, d.round, v);
            slashed += _penalise(disputeId, d, node, Role.Validator, Outcome.AgainstQuorum);
        }
    }

    function _penalise(uint256 disputeId, Dispute storage d, address node, Role role, Outcome outcome)
        private
        returns (uint256 slashed)
    {
        uint256 reclaimed = 0;
        if (vault.heldOf(d.taskId, d.round, node) > 0) {
            reclaimed = IDisputeHooks(address(registry)).reclaimPay(d.taskId, d.round, node, role);
        }
        slashed = _slash(node, role, stakes.minStake(role) * registry.slashBps() / Payouts.BPS);
        reputation.record(node, outcome);
        emit PartyPenalised(disputeId, node, role, slashed, reclaimed);
    }

    /// @dev Unlocks every juror. After a vote: non-voters count as missed, the minority is slashed
    ///      (to the pot) and marked down, the majority marked up. Returns (slashed, majority size).
    function _releaseJurors(uint256 disputeId, Dispute storage d, bool voted, bool upheld)
        private
        returns (uint256 slashed, uint256 majority)
    {
        uint256 slashBps = registry.slashBps();
        for (uint256 seat = 0; seat < d.jurorCount; ++seat) {
            Juror storage j = _jurors[disputeId][seat];
            stakes.unlock(j.node, Role.Validator, j.lockedStake);
            if (!voted) {
                emit JurorReleased(disputeId, j.node, false, false, 0);
                continue;
            }
            uint256 taken = 0;
            bool withMajority = j.voted && j.uphold == upheld;
            if (!j.voted && j.commitment != bytes32(0)) {
                // Committed and kept its vote shut (seeing the others' open): a reveal would have
                // cost it no more, so this costs it more than a vote with the minority.
                taken = _slash(j.node, Role.Validator, uint256(j.lockedStake) * slashBps / Payouts.BPS);
                slashed += taken;
                reputation.record(j.node, Outcome.Withheld);
            } else if (!j.voted) {
                reputation.record(j.node, Outcome.Missed);
            } else if (withMajority) {
                majority += 1;
                reputation.record(j.node, Outcome.Accepted);
            } else {
                taken = _slash(j.node, Role.Validator, uint256(j.lockedStake) * slashBps / Payouts.BPS);
                slashed += taken;
                reputation.record(j.node, Outcome.AgainstQuorum);
            }
            emit JurorReleased(disputeId, j.node, j.voted, withMajority, taken);
        }
    }

    /// @dev Slashes the node's unlocked stake, then its unbonding stake: stake on its way out stays
    ///      slashable (a party cannot dodge an upheld dispute by unstaking once the task is over),
    ///      and stake locked for other assignments stays whole, so their unlocks never fail
    ///      (StakeManager.slash never takes it; SPECIFICATION.md, "Disputes", limits).
    function _slash(address node, Role role, uint256 wanted) private returns (uint256) {
        IStakeManager.StakeInfo memory s = stakes.stakeOf(node, role);
        if (wanted == 0 || s.staked - s.locked + s.unbonding == 0) return 0;
        return stakes.slash(node, role, wanted, address(this));
    }

    function _payMajority(uint256 disputeId, Dispute storage d, bool upheld, uint256 each) private {
        for (uint256 seat = 0; seat < d.jurorCount; ++seat) {
            Juror storage j = _jurors[disputeId][seat];
            if (j.voted && j.uphold == upheld) _credit(disputeId, j.node, each);
        }
    }

    function _credit(uint256 disputeId, address account, uint256 amount) private {
        _owed[account] += amount;
        _totalOwed += amount;
        emit Owed(disputeId, account, amount);
    }

    // ---------------------------------------------------------------- internals: small helpers

    function _whenNotPaused() private view {
        if (IPausableView(address(registry)).paused()) revert DisputesPaused();
    }

    function _jurorOfCaller(uint256 disputeId) private view returns (Juror storage) {
        uint256 seat = _seatOf[disputeId][msg.sender];
        if (seat == 0) revert NotAJuror(disputeId, msg.sender);
        return _jurors[disputeId][seat - 1];
    }

    function _dispute(uint256 disputeId, Status expected) private view returns (Dispute storage d) {
        d = _disputes[disputeId];
        if (d.status == Status.None) revert DisputeNotFound(disputeId);
        if (d.status != expected) revert WrongDisputeStatus(disputeId, d.status);
    }

    /// @dev Validators who attested in the disputed round (they are parties to it).
    function _roundVoters(Dispute storage d) private view returns (address[] memory voters) {
        uint256 n = registry.taskOf(d.taskId).numValidators;
        voters = new address[](n);
        for (uint256 v = 0; v < n; ++v) {
            voters[v] = IDisputeHooks(address(registry)).attesterOf(d.taskId, d.round, v);
        }
    }

    function _windowEnd(uint256 taskId, uint256 round) private view returns (uint256) {
        uint256 at = IDisputeHooks(address(registry)).roundFinalizedAt(taskId, round);
        // No verdicts yet: nothing to dispute and nothing held to release.
        if (at == 0) revert NotDisputable(taskId, round, Role.Sampler, 0, ITaskRegistry.Verdict.None);
        return at + _disputeWindow;
    }

    function _key(uint256 taskId, uint256 round, Role role, uint256 slot) private pure returns (bytes32) {
        return keccak256(abi.encode(taskId, round, role, slot));
    }

    function _setDisputeWindow(uint256 window) private {
        if (window < MIN_DISPUTE_WINDOW || window > MAX_DISPUTE_WINDOW) {
            revert WindowOutOfBounds(window, MIN_DISPUTE_WINDOW, MAX_DISPUTE_WINDOW);
        }
        _disputeWindow = window;
        emit DisputeWindowSet(window);
    }

    function _setVoteWindow(uint256 window) private {
        if (window < MIN_VOTE_WINDOW || window > MAX_VOTE_WINDOW) {
            revert WindowOutOfBounds(window, MIN_VOTE_WINDOW, MAX_VOTE_WINDOW);
        }
        _voteWindow = window;
        emit VoteWindowSet(window);
    }

    function _setMinBond(uint256 bond) private {
        if (bond < MIN_BOND || bond > MAX_BOND) revert BondOutOfBounds(bond, MIN_BOND, MAX_BOND);
        _minBond = bond;
        emit MinBondSet(bond);
    }
}

// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {Pausable} from "@openzeppelin/contracts/utils/Pausable.sol";
import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ITaskRegistry} from "./interfaces/ITaskRegistry.sol";
import {IDisputeHooks} from "./interfaces/IDisputeHooks.sol";
import {IStakeManager} from "./interfaces/IStakeManager.sol";
import {IReputation} from "./interfaces/IReputation.sol";
import {IRewardVault} from "./interfaces/IRewardVault.sol";
import {IProtocolConfig} from "./interfaces/IProtocolConfig.sol";
import {Role} from "./libraries/Types.sol";
import {Extsload} from "./libraries/Extsload.sol";
import {RoundLogic} from "./libraries/RoundLogic.sol";
import {SlotLogic} from "./libraries/SlotLogic.sol";
import {AggregateAttest} from "./libraries/AggregateAttest.sol";
import {Votes} from "./libraries/Votes.sol";
import {Tasks} from "./libraries/Tasks.sol";
import {ForcedErrors} from "./libraries/ForcedErrors.sol";
import {Payouts} from "./libraries/Payouts.sol";
import {TaskStorage, TaskStorageSlot, Context, DrawMasks} from "./libraries/TaskStorage.sol";

/// @title TaskRegistry
/// @notice Source of truth for decentrl tasks: the core every task transaction goes through. See
///         SPECIFICATION.md for the lifecycle in prose.
/// @dev A thin core over logic libraries that run on its storage (SlotLogic: claims and draws;
///      RoundLogic: phases, verdicts, pay, settlement; AggregateAttest: BLS aggregates). Its state is
///      read through `extsload` (StateView, TaskState), signed task creation is the TaskFront's, and
///      the parameters it applies are ProtocolConfig's.
contract TaskRegistry is ITaskRegistry, IDisputeHooks, AccessControl, Pausable, ReentrancyGuardTransient, Extsload {
    using SafeERC20 for IERC20;

    bytes32 public constant GUARDIAN_ROLE = keccak256("GUARDIAN_ROLE");

    // Bounds keep every loop over slots short and the attestation bitmap within 64 bits.
    uint256 public constant MAX_SAMPLERS = 32;
    uint256 public constant MAX_VALIDATORS = 64;
    uint256 public constant MAX_ROUNDS = 1000;
    uint256 public constant MIN_WINDOW = 1 minutes;
    uint256 public constant MAX_WINDOW = 30 days;
    uint256 public constant MAX_CID_LENGTH = 128;

    IERC20 public immutable token;
    IStakeManager public immutable stakes;
    IReputation public immutable reputation;
    IRewardVault public immutable vault;
    IProtocolConfig public immutable config;

    constructor(
        IERC20 token_,
        IStakeManager stakes_,
        IReputation reputation_,
        IRewardVault vault_,
        IProtocolConfig config_,
        address admin
    ) {
        if (
            address(token_) == address(0) || address(stakes_) == address(0) || address(reputation_) == address(0)
                || address(vault_) == address(0) || address(config_) == address(0) || admin == address(0)
        ) revert ZeroAddress();
        token = token_;
        stakes = stakes_;
        reputation = reputation_;
        vault = vault_;
        config = config_;
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        _grantRole(GUARDIAN_ROLE, admin);
    }

    // ---------------------------------------------------------------- creation

    /// @inheritdoc ITaskRegistry
    function createTask(TaskParams calldata params) external nonReentrant whenNotPaused returns (uint256) {
        return _createTask(params, msg.sender);
    }

    /// @inheritdoc ITaskRegistry
    function createTaskFor(TaskParams calldata params, address requester)
        external
        nonReentrant
        whenNotPaused
        returns (uint256)
    {
        if (msg.sender != _s().taskFront) revert NotTaskFront(msg.sender);
        return _createTask(params, requester);
    }

    /// @inheritdoc ITaskRegistry
    function cancelTask(uint256 taskId) external nonReentrant {
        Task storage t = _task(taskId);
        if (msg.sender != t.requester) revert NotRequester(taskId, msg.sender);
        if (t.status != Status.Open && t.status != Status.Drawing) revert WrongStatus(taskId, t.status);
        RoundLogic.settle(_s(), _context(), taskId, Status.Cancelled);
    }

    // ---------------------------------------------------------------- assignment

    /// @inheritdoc ITaskRegistry
    function claimSlot(uint256 taskId, Role role) external nonReentrant whenNotPaused returns (uint256) {
        return SlotLogic.claim(_s(), _context(), taskId, role, msg.sender);
    }

    // SlotLogic and RoundLogic run on this contract's storage (delegatecall); their calls out go only
    // to StakeManager, Reputation and RewardVault, which never call back, and the entry point is
    // nonReentrant (SPECIFICATION.md 10).
    // slither-disable-start reentrancy-no-eth
    /// @inheritdoc ITaskRegistry
    function drawValidators(uint256 taskId) external nonReentrant whenNotPaused {
        Context memory c = _context();
        if (SlotLogic.draw(_s(), c, taskId)) RoundLogic.activate(_s(), c, taskId);
    }

    // slither-disable-end reentrancy-no-eth

    // ---------------------------------------------------------------- rounds

    /// @inheritdoc ITaskRegistry
    function commit(uint256 taskId, bytes32 commitment) external nonReentrant whenNotPaused {
        if (commitment == bytes32(0)) revert EmptyCommitment();
        Context memory c = _context();
        (Task storage t, Role role, uint256 slot) = _checkTurn(c, taskId, true);
        Submission storage sub = _s().submissions[taskId][t.round][role][slot];
        if (sub.commitment != bytes32(0)) revert AlreadyCommitted(taskId, msg.sender);
        sub.commitment = commitment;
        sub.node = msg.sender;
        emit ResultCommitted(taskId, t.round, msg.sender, role, slot, commitment);
        RoundLogic.acted(_s(), c, taskId, 1);
    }

    /// @inheritdoc ITaskRegistry
    function reveal(uint256 taskId, bytes32 root, string calldata cid, bytes32 salt) external nonReentrant whenNotPaused {
        if (root == bytes32(0) || bytes(cid).length == 0 || bytes(cid).length > MAX_CID_LENGTH) revert InvalidResult();
        Context memory c = _context();
        (Task storage t, Role role, uint256 slot) = _checkTurn(c, taskId, false);
        Submission storage sub = _s().submissions[taskId][t.round][role][slot];
        if (sub.commitment == bytes32(0) || sub.node != msg.sender) revert NotCommitted(taskId, msg.sender);
        if (sub.revealed) revert AlreadyRevealed(taskId, msg.sender);
        if (Tasks.commitment(taskId, t.round, msg.sender, root, cid, salt) != sub.commitment) {
            revert CommitmentMismatch(taskId, msg.sender);
        }
        sub.root = root;
        sub.cid = cid;
        sub.revealed = true;
        _recordDraws(taskId, t, role, slot, salt);
        emit ResultRevealed(taskId, t.round, msg.sender, role, slot, root, cid);
        RoundLogic.acted(_s(), c, taskId, 1);
    }

    /// @inheritdoc ITaskRegistry
    function commitDraw(uint256 taskId, bytes32 commitment) external nonReentrant whenNotPaused {
        if (commitment == bytes32(0)) revert EmptyCommitment();
        TaskStorage storage s = _s();
        Task storage t = _task(taskId);
        if (t.status != Status.Open && t.status != Status.Drawing && t.status != Status.Active) {
            revert WrongStatus(taskId, t.status);
        }
        Membership memory m = s.members[taskId][msg.sender];
        if (!m.assigned || m.role == Role.Validator) revert NoDraw(taskId, msg.sender);
        uint256 first = s.slots[taskId][m.role][m.slot].sinceRound;
        // The round's seed is fixed when its SampleCommit begins: a draw committed later could be
        // chosen to fall either way.
        if (t.status == Status.Active && t.round >= first) revert DrawTooLate(taskId, first);
        mapping(address => bytes32) storage commitments = s.drawCommitments[taskId][first];
        if (commitments[msg.sender] != bytes32(0)) revert AlreadyCommitted(taskId, msg.sender);
        commitments[msg.sender] = commitment;
        emit DrawCommitted(taskId, first, msg.sender, commitment);
    }

    /// @inheritdoc ITaskRegistry
    function openDraw(uint256 taskId, uint256 round, bytes32 secret) external nonReentrant whenNotPaused {
        TaskStorage storage s = _s();
        Context memory c = _context();
        Task storage t = _task(taskId);
        if (t.status != Status.Active) revert WrongStatus(taskId, t.status);
        if (t.phase != Phase.AttestReveal) revert WrongPhase(taskId, t.phase);
        if (round != t.round) revert RoundMismatch(taskId, round, t.round);
        if (c.now > t.phaseDeadline) revert DeadlinePassed(taskId, t.phaseDeadline);
        Membership memory m = s.members[taskId][msg.sender];
        // Only a worker has a draw; its bit is set by its reveal this round when it had a commitment
        // (a revealed submitter keeps its slot until the round is finalized).
        uint256 bit = m.assigned && m.role != Role.Validator ? Tasks.submissionBit(t, m.role, m.slot) : 0;
        DrawMasks storage d = s.draws[taskId][round];
        if (d.drawn & bit == 0) revert NoDraw(taskId, msg.sender);
        if (d.opened & bit != 0) revert AlreadyOpened(taskId, msg.sender);
        if (ForcedErrors.drawCommitment(taskId, round, msg.sender, secret) != s.drawCommitments[taskId][round][msg.sender])
        {
            revert DrawMismatch(taskId, msg.sender);
        }
        bool forced = ForcedErrors.isForced(secret, s.roundSeeds[taskId][round], config.forcedErrorBps());
        // bit is one of the task's submission bits (< 2^33): it fits the 64-bit masks.
        d.opened |= uint64(bit);
        if (forced) d.forced |= uint64(bit);
        emit DrawOpened(taskId, round, msg.sender, m.role, m.slot, forced);
        RoundLogic.acted(s, c, taskId, 1);
    }

    /// @inheritdoc ITaskRegistry
    function commitAttestation(uint256 taskId, uint256 round, bytes32 commitment) external nonReentrant whenNotPaused {
        if (commitment == bytes32(0)) revert EmptyCommitment();
        TaskStorage storage s = _s();
        Context memory c = _context();
        uint256 slot = _checkVoter(c, taskId, round, Phase.Attest);
        mapping(uint256 => bytes32) storage commitments = s.attestCommitments[taskId][round];
        if (commitments[slot] != bytes32(0)) revert AlreadyCommitted(taskId, msg.sender);
        commitments[slot] = commitment;
        emit AttestationCommitted(taskId, round, msg.sender, slot, commitment);
        RoundLogic.acted(s, c, taskId, 1);
    }

    /// @inheritdoc ITaskRegistry
    function attest(uint256 taskId, uint256 round, uint256 acceptBitmap, bytes32 salt)
        external
        nonReentrant
        whenNotPaused
    {
        TaskStorage storage s = _s();
        Context memory c = _context();
        uint256 slot = _checkVoter(c, taskId, round, Phase.AttestReveal);
        if (Votes.voted(s, taskId, round, slot)) revert AlreadyAttested(taskId, msg.sender);
        mapping(uint256 => bytes32) storage commitments = s.attestCommitments[taskId][round];
        // Unreachable today (an expected validator that did not commit was vacated when Attest
        // expired); kept so that a vote is only ever recorded by opening a commitment.
        if (commitments[slot] == bytes32(0)) revert NotCommitted(taskId, msg.sender);
        if (Tasks.attestCommitment(taskId, round, msg.sender, acceptBitmap, salt) != commitments[slot]) {
            revert CommitmentMismatch(taskId, msg.sender);
        }
        // Cleared once opened: a commitment still set when AttestReveal ends was withheld.
        delete commitments[slot];
        Attestation storage a = s.attestations[taskId][round][slot];
        // Only bits of revealed submissions mean anything (revealedMask fits 64 bits by construction).
        (uint64 accept, uint64 plant) = ForcedErrors.split(acceptBitmap, s.tasks[taskId].revealedMask);
        a.voted = true;
        a.acceptBitmap = accept;
        a.plantBitmap = plant;
        // Who voted, for disputes (a slot may change hands before the window closes); only when
        // disputes are on, as the write costs a fresh storage slot per vote.
        if (s.disputeManager != address(0)) s.attesters[taskId][round][slot] = msg.sender;
        emit Attested(taskId, round, msg.sender, slot, ForcedErrors.encode(accept, plant));
        RoundLogic.acted(s, c, taskId, 1);
    }

    /// @inheritdoc ITaskRegistry
    function attestAggregate(
        uint256 taskId,
        uint256 round,
        uint256 acceptBitmap,
        uint256 signerBitmap,
        uint256[2] calldata sigma,
        uint256[4] calldata apk2,
        bytes32[] calldata salts
    ) external nonReentrant whenNotPaused {
        Context memory c = _context();
        uint256 signers = AggregateAttest.record(
            _s(), c, AggregateAttest.Vote(taskId, round, acceptBitmap, signerBitmap), sigma, apk2, salts
        );
        RoundLogic.acted(_s(), c, taskId, signers);
    }

    /// @inheritdoc ITaskRegistry
    function advance(uint256 taskId) external nonReentrant whenNotPaused {
        Task storage t = _task(taskId);
        Context memory c = _context();
        if (t.status == Status.Open || t.status == Status.Drawing) {
            if (c.now <= t.claimDeadline) revert DeadlineNotReached(taskId, t.claimDeadline);
            RoundLogic.settle(_s(), c, taskId, Status.Failed);
            return;
        }
        if (t.status != Status.Active) revert WrongStatus(taskId, t.status);
        if (c.now <= t.phaseDeadline) revert DeadlineNotReached(taskId, t.phaseDeadline);
        RoundLogic.expirePhase(_s(), c, taskId);
    }

    // ---------------------------------------------------------------- disputes (IDisputeHooks)

    /// @inheritdoc IDisputeHooks
    function setDisputeManager(address disputeManager_) external onlyRole(DEFAULT_ADMIN_ROLE) {
        if (disputeManager_ == address(0)) revert ZeroAddress();
        TaskStorage storage s = _s();
        if (s.disputeManager != address(0)) revert DisputeManagerAlreadySet(s.disputeManager);
        s.disputeManager = disputeManager_;
        emit DisputeManagerSet(disputeManager_);
    }

    /// @inheritdoc IDisputeHooks
    function releasePay(uint256 taskId, uint256 round, address node) external nonReentrant returns (uint256) {
        _onlyDisputes();
        return vault.release(taskId, round, node);
    }

    /// @inheritdoc IDisputeHooks
    function reclaimPay(uint256 taskId, uint256 round, address node, Role role) external nonReentrant returns (uint256) {
        _onlyDisputes();
        return RoundLogic.reclaimPay(_s(), _context(), taskId, round, node, role);
    }

    /// @inheritdoc IDisputeHooks
    function failTask(uint256 taskId) external nonReentrant {
        _onlyDisputes();
        if (_s().tasks[taskId].status == Status.Active) RoundLogic.settle(_s(), _context(), taskId, Status.Failed);
    }

    function _onlyDisputes() private view {
        if (msg.sender != _s().disputeManager) revert NotDisputeManager(msg.sender);
    }

    // ---------------------------------------------------------------- administration

    /// @inheritdoc ITaskRegistry
    function setTaskFront(address taskFront_) external onlyRole(DEFAULT_ADMIN_ROLE) {
        if (taskFront_ == address(0)) revert ZeroAddress();
        TaskStorage storage s = _s();
        if (s.taskFront != address(0)) revert TaskFrontAlreadySet(s.taskFront);
        s.taskFront = taskFront_;
        emit TaskFrontSet(taskFront_);
    }

    /// @inheritdoc ITaskRegistry
    function pause() external onlyRole(GUARDIAN_ROLE) {
        _pause();
        _s().pausedAt = block.timestamp;
    }

    /// @inheritdoc ITaskRegistry
    function unpause() external onlyRole(GUARDIAN_ROLE) {
        _unpause();
        TaskStorage storage s = _s();
        s.pausedTotal += block.timestamp - s.pausedAt;
        s.pausedAt = 0;
    }

    // ---------------------------------------------------------------- views

    /// @inheritdoc ITaskRegistry
    function attestationOf(uint256 taskId, uint256 round, uint256 slot) external view returns (Attestation memory) {
        return Votes.get(_s(), taskId, round, slot);
    }

    /// @inheritdoc ITaskRegistry
    function protocolTime() public view returns (uint256) {
        TaskStorage storage s = _s();
        return (paused() ? s.pausedAt : block.timestamp) - s.pausedTotal;
    }

    // ---------------------------------------------------------------- internals

    /// @dev At a reveal (SPECIFICATION.md 5.5.3): marks the caller's draw of this round as one to
    ///      open when it has a commitment for it, and stores `salt` as its commitment for the next
    ///      round unless this is the last one (a zero salt commits to nothing: no draw).
    function _recordDraws(uint256 taskId, Task storage t, Role role, uint256 slot, bytes32 salt) private {
        TaskStorage storage s = _s();
        uint256 round = t.round;
        if (s.drawCommitments[taskId][round][msg.sender] != bytes32(0)) {
            // The submission bit is below numSamplers + 1 <= 33: it fits 64 bits.
            s.draws[taskId][round].drawn |= uint64(Tasks.submissionBit(t, role, slot));
        }
        if (round + 1 < t.numRounds && salt != bytes32(0)) s.drawCommitments[taskId][round + 1][msg.sender] = salt;
    }

    function _createTask(TaskParams calldata p, address requester) private returns (uint256 taskId) {
        _validateParams(p);
        // Spam costs its sender (SPECIFICATION.md 5.2): every slot-round escrows at least the minimum.
        uint256 minimum =
            Payouts.minBounty(config.minBountyPerSlotRound(), p.numSamplers, p.numValidators, p.numRounds);
        if (p.bounty < minimum) revert BountyTooSmall(p.bounty, minimum);
        TaskStorage storage s = _s();
        taskId = ++s.taskCount;
        Task storage t = s.tasks[taskId];
        t.requester = requester;
        t.status = Status.Open;
        t.numRounds = p.numRounds;
        t.numSamplers = p.numSamplers;
        t.numValidators = p.numValidators;
        t.claimDeadline = uint64(protocolTime() + p.claimWindow);
        t.commitWindow = p.commitWindow;
        t.revealWindow = p.revealWindow;
        t.attestWindow = p.attestWindow;
        // The shares are snapshotted: governance changes never touch a task already posted.
        t.sharesBps = config.roleShares();
        t.bounty = p.bounty;
        t.specDigest = p.specDigest;
        t.specCid = p.specCid;
        // `requester` is msg.sender (createTask) or an account the task front vouches for: the
        // caller of createTaskWithPermit or the signer of a createTaskWithSig request. The bounty
        // only comes from an account that asked for the task.
        // slither-disable-next-line arbitrary-send-erc20
        token.safeTransferFrom(requester, address(vault), p.bounty);
        vault.recordDeposit(taskId, p.bounty);
        emit TaskCreated(
            taskId, requester, p.specCid, p.specDigest, p.bounty, p.numSamplers, p.numValidators, p.numRounds
        );
        emit TaskStatusChanged(taskId, Status.Open);
    }

    function _validateParams(TaskParams calldata p) private pure {
        if (p.specDigest == bytes32(0) || bytes(p.specCid).length == 0 || bytes(p.specCid).length > MAX_CID_LENGTH) {
            revert InvalidSpec();
        }
        if (p.bounty == 0) revert InvalidBounty();
        if (p.numSamplers == 0 || p.numSamplers > MAX_SAMPLERS) {
            revert SlotCountOutOfBounds(Role.Sampler, p.numSamplers, MAX_SAMPLERS);
        }
        if (p.numValidators == 0 || p.numValidators > MAX_VALIDATORS) {
            revert SlotCountOutOfBounds(Role.Validator, p.numValidators, MAX_VALIDATORS);
        }
        if (p.numRounds == 0 || p.numRounds > MAX_ROUNDS) revert RoundsOutOfBounds(p.numRounds, MAX_ROUNDS);
        _checkWindow(p.claimWindow);
        _checkWindow(p.commitWindow);
        _checkWindow(p.revealWindow);
        _checkWindow(p.attestWindow);
    }

    function _checkWindow(uint256 window) private pure {
        if (window < MIN_WINDOW || window > MAX_WINDOW) revert WindowOutOfBounds(window, MIN_WINDOW, MAX_WINDOW);
    }

    function _checkMember(uint256 taskId, Task storage t) private view returns (Role, uint256) {
        if (t.status != Status.Active) revert WrongStatus(taskId, t.status);
        Membership memory m = _s().members[taskId][msg.sender];
        if (!m.assigned) revert NotAssigned(taskId, msg.sender);
        return (m.role, m.slot);
    }

    function _checkOnTime(Context memory c, uint256 taskId, Task storage t, Role role, uint256 slot) private view {
        if (c.now > t.phaseDeadline) revert DeadlinePassed(taskId, t.phaseDeadline);
        uint256 since = _s().slots[taskId][role][slot].sinceRound;
        if (since > t.round) revert NotExpectedThisRound(taskId, t.round, since);
    }

    /// @dev Checks the caller is a validator expected in `round`, which is the current one, in `phase`
    ///      before its deadline; returns its slot.
    function _checkVoter(Context memory c, uint256 taskId, uint256 round, Phase phase)
        private
        view
        returns (uint256 slot)
    {
        Task storage t = _task(taskId);
        Role role;
        (role, slot) = _checkMember(taskId, t);
        if (role != Role.Validator || t.phase != phase) revert WrongPhase(taskId, t.phase);
        if (round != t.round) revert RoundMismatch(taskId, round, t.round);
        _checkOnTime(c, taskId, t, role, slot);
    }

    /// @dev Checks the caller may commit (isCommit) or reveal now, and returns its role and slot.
    function _checkTurn(Context memory c, uint256 taskId, bool isCommit)
        private
        view
        returns (Task storage t, Role role, uint256 slot)
    {
        t = _task(taskId);
        (role, slot) = _checkMember(taskId, t);
        if (role == Role.Validator) revert WrongPhase(taskId, t.phase);
        Phase expected = Tasks.workPhase(role);
        if (!isCommit) expected = Phase(uint8(expected) + 1);
        if (t.phase != expected) revert WrongPhase(taskId, t.phase);
        _checkOnTime(c, taskId, t, role, slot);
    }

    function _context() private view returns (Context memory) {
        return Context(stakes, reputation, vault, config, protocolTime());
    }

    function _task(uint256 taskId) private view returns (Task storage t) {
        t = _s().tasks[taskId];
        if (t.status == Status.None) revert TaskNotFound(taskId);
    }

    function _s() private pure returns (TaskStorage storage) {
        return TaskStorageSlot.layout();
    }
}

// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {Pausable} from "@openzeppelin/contracts/utils/Pausable.sol";
import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {Nonces} from "@openzeppelin/contracts/utils/Nonces.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Permit.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ITaskRegistry} from "./interfaces/ITaskRegistry.sol";
import {IDisputeHooks} from "./interfaces/IDisputeHooks.sol";
import {IStakeManager} from "./interfaces/IStakeManager.sol";
import {IReputation} from "./interfaces/IReputation.sol";
import {IRewardVault} from "./interfaces/IRewardVault.sol";
import {Role, Outcome} from "./libraries/Types.sol";
import {Payouts} from "./libraries/Payouts.sol";
import {RoundLogic} from "./libraries/RoundLogic.sol";
import {AggregateAttest} from "./libraries/AggregateAttest.sol";
import {Votes} from "./libraries/Votes.sol";
import {Draws} from "./libraries/Draws.sol";
import {TaskStorage, Context} from "./libraries/TaskStorage.sol";

/// @title TaskRegistry
/// @notice Source of truth for decentrl tasks. See SPECIFICATION.md for the lifecycle in prose.
contract TaskRegistry is ITaskRegistry, IDisputeHooks, AccessControl, Pausable, ReentrancyGuardTransient, EIP712, Nonces {
    using SafeERC20 for IERC20;

    bytes32 public constant GOVERNOR_ROLE = keccak256("GOVERNOR_ROLE");
    bytes32 public constant GUARDIAN_ROLE = keccak256("GUARDIAN_ROLE");

    bytes32 public constant CREATE_TASK_TYPEHASH = keccak256(
        "CreateTask(address requester,string specCid,bytes32 specDigest,uint256 bounty,uint8 numSamplers,"
        "uint8 numValidators,uint16 numRounds,uint32 claimWindow,uint32 commitWindow,uint32 revealWindow,"
        "uint32 attestWindow,uint256 nonce,uint256 deadline)"
    );

    // Bounds keep every loop over slots short and the attestation bitmap within 64 bits.
    uint256 public constant MAX_SAMPLERS = 32;
    uint256 public constant MAX_VALIDATORS = 64;
    uint256 public constant MAX_ROUNDS = 1000;
    uint256 public constant MIN_WINDOW = 1 minutes;
    uint256 public constant MAX_WINDOW = 30 days;
    uint256 public constant MAX_CID_LENGTH = 128;
    uint256 public constant MAX_SLASH_BPS = 5000;
    /// @notice Pool members examined per vacant validator slot in one draw before re-arming.
    uint256 public constant DRAW_ATTEMPTS_PER_SLOT = 4;

    IERC20 public immutable token;
    IStakeManager public immutable stakes;
    IReputation public immutable reputation;
    IRewardVault public immutable vault;

    TaskStorage private _s;
    uint256 private _taskCount;
    uint16[3] private _shares; // by Role
    uint256 private _slashBps;
    address private _treasury;
    uint256 private _pausedAt;
    uint256 private _pausedTotal;
    address private _disputes;

    constructor(
        IERC20 token_,
        IStakeManager stakes_,
        IReputation reputation_,
        IRewardVault vault_,
        address admin,
        address treasury_
    ) EIP712("decentrl TaskRegistry", "1") {
        if (
            address(token_) == address(0) || address(stakes_) == address(0) || address(reputation_) == address(0)
                || address(vault_) == address(0) || admin == address(0)
        ) revert ZeroAddress();
        token = token_;
        stakes = stakes_;
        reputation = reputation_;
        vault = vault_;
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        _grantRole(GOVERNOR_ROLE, admin);
        _grantRole(GUARDIAN_ROLE, admin);
        _setRoleShares(7000, 2000, 1000);
        _setSlashBps(1000);
        _setTreasury(treasury_);
    }

    // ---------------------------------------------------------------- creation

    /// @inheritdoc ITaskRegistry
    function createTask(TaskParams calldata params) external nonReentrant whenNotPaused returns (uint256) {
        return _createTask(params, msg.sender);
    }

    /// @inheritdoc ITaskRegistry
    function createTaskWithPermit(TaskParams calldata params, Permit calldata permit)
        external
        nonReentrant
        whenNotPaused
        returns (uint256)
    {
        _tryPermit(msg.sender, params.bounty, permit);
        return _createTask(params, msg.sender);
    }

    /// @inheritdoc ITaskRegistry
    function createTaskWithSig(
        TaskParams calldata params,
        address requester,
        uint256 deadline,
        bytes calldata signature,
        Permit calldata permit
    ) external nonReentrant whenNotPaused returns (uint256) {
        if (block.timestamp > deadline) revert SignatureExpired(deadline);
        bytes32 digest = _createTaskDigest(params, requester, _useNonce(requester), deadline);
        if (!SignatureChecker.isValidSignatureNow(requester, digest, signature)) revert InvalidSignature(requester);
        _tryPermit(requester, params.bounty, permit);
        return _createTask(params, requester);
    }

    /// @inheritdoc ITaskRegistry
    function cancelTask(uint256 taskId) external nonReentrant {
        Task storage t = _task(taskId);
        if (msg.sender != t.requester) revert NotRequester(taskId, msg.sender);
        if (t.status != Status.Open && t.status != Status.Drawing) revert WrongStatus(taskId, t.status);
        RoundLogic.settle(_s, _context(), taskId, Status.Cancelled);
    }

    // ---------------------------------------------------------------- assignment

    /// @inheritdoc ITaskRegistry
    function claimSlot(uint256 taskId, Role role) external nonReentrant whenNotPaused returns (uint256 slot) {
        if (role == Role.Validator) revert ValidatorsAreDrawn();
        Task storage t = _task(taskId);
        if (t.status != Status.Open && t.status != Status.Active) revert WrongStatus(taskId, t.status);
        // A task that missed its claim window can only fail (advance), never fill up late.
        if (t.status == Status.Open) _checkClaimWindow(taskId, t);
        if (msg.sender == t.requester) revert RequesterCannotWork(taskId);
        if (_s.members[taskId][msg.sender].assigned) revert AlreadyAssigned(taskId, msg.sender);
        // Claims race and a lost one is often mined as a revert: it stops here, before the
        // eligibility check's external calls, which would cost its sender ~20k more gas.
        slot = _firstVacant(taskId, t, role);
        _checkEligible(msg.sender, role, true);
        _assign(taskId, t, role, slot, msg.sender);
        if (t.status == Status.Open && t.trainerFilled && t.filledSamplers == t.numSamplers) {
            t.status = Status.Drawing;
            emit TaskStatusChanged(taskId, Status.Drawing);
            RoundLogic.armDraw(_s, taskId);
        }
    }

    /// @inheritdoc ITaskRegistry
    function drawValidators(uint256 taskId) external nonReentrant whenNotPaused {
        Task storage t = _task(taskId);
        if (t.status != Status.Drawing && t.status != Status.Active) revert WrongStatus(taskId, t.status);
        if (t.status == Status.Drawing) _checkClaimWindow(taskId, t);
        uint256 vacancies = t.numValidators - t.filledValidators;
        if (vacancies == 0) revert NoVacancy(taskId);
        uint256 seedBlock = t.seedBlock;
        if (seedBlock == 0 || block.number <= seedBlock) revert DrawNotReady(taskId, seedBlock);
        bytes32 seed = blockhash(seedBlock);
        uint256 poolSize = stakes.drawPoolSize(seedBlock); // fixed before the seed is known
        // A seed block older than 256 blocks has no hash any more: re-arm rather than draw from zero.
        if (seed != bytes32(0) && poolSize > 0) {
            vacancies = _drawFrom(taskId, t, seed, poolSize, vacancies);
        }
        if (vacancies > 0) {
            RoundLogic.armDraw(_s, taskId);
            return;
        }
        t.seedBlock = 0;
        if (t.status == Status.Drawing) RoundLogic.activate(_s, _context(), taskId);
    }

    // ---------------------------------------------------------------- rounds

    /// @inheritdoc ITaskRegistry
    function commit(uint256 taskId, bytes32 commitment) external nonReentrant whenNotPaused {
        if (commitment == bytes32(0)) revert EmptyCommitment();
        (Task storage t, Role role, uint256 slot) = _checkTurn(taskId, true);
        Submission storage sub = _s.submissions[taskId][t.round][role][slot];
        if (sub.commitment != bytes32(0)) revert AlreadyCommitted(taskId, msg.sender);
        sub.commitment = commitment;
        sub.node = msg.sender;
        emit ResultCommitted(taskId, t.round, msg.sender, role, slot, commitment);
        RoundLogic.acted(_s, _context(), taskId, 1);
    }

    /// @inheritdoc ITaskRegistry
    function reveal(uint256 taskId, bytes32 root, string calldata cid, bytes32 salt) external nonReentrant whenNotPaused {
        if (root == bytes32(0) || bytes(cid).length == 0 || bytes(cid).length > MAX_CID_LENGTH) revert InvalidResult();
        (Task storage t, Role role, uint256 slot) = _checkTurn(taskId, false);
        Submission storage sub = _s.submissions[taskId][t.round][role][slot];
        if (sub.commitment == bytes32(0) || sub.node != msg.sender) revert NotCommitted(taskId, msg.sender);
        if (sub.revealed) revert AlreadyRevealed(taskId, msg.sender);
        if (_commitment(taskId, t.round, msg.sender, root, cid, salt) != sub.commitment) {
            revert CommitmentMismatch(taskId, msg.sender);
        }
        sub.root = root;
        sub.cid = cid;
        sub.revealed = true;
        emit ResultRevealed(taskId, t.round, msg.sender, role, slot, root, cid);
        RoundLogic.acted(_s, _context(), taskId, 1);
    }

    /// @inheritdoc ITaskRegistry
    function attest(uint256 taskId, uint256 acceptBitmap) external nonReentrant whenNotPaused {
        Task storage t = _task(taskId);
        (Role role, uint256 slot) = _checkMember(taskId, t);
        if (role != Role.Validator || t.phase != Phase.Attest) revert WrongPhase(taskId, t.phase);
        _checkOnTime(taskId, t, role, slot);
        if (Votes.voted(_s, taskId, t.round, slot)) revert AlreadyAttested(taskId, msg.sender);
        Attestation storage a = _s.attestations[taskId][t.round][slot];
        // Only bits of revealed submissions mean anything; revealedMask fits 64 bits by construction.
        uint64 bitmap = uint64(acceptBitmap & t.revealedMask);
        a.voted = true;
        a.acceptBitmap = bitmap;
        // Who voted, for disputes (a slot may change hands before the window closes); only when
        // disputes are on, as the write costs a fresh storage slot per vote.
        if (_disputes != address(0)) _s.attesters[taskId][t.round][slot] = msg.sender;
        emit Attested(taskId, t.round, msg.sender, slot, bitmap);
        RoundLogic.acted(_s, _context(), taskId, 1);
    }

    /// @inheritdoc ITaskRegistry
    function attestAggregate(
        uint256 taskId,
        uint256 round,
        uint256 acceptBitmap,
        uint256 signerBitmap,
        uint256[2] calldata sigma,
        uint256[4] calldata apk2
    ) external nonReentrant whenNotPaused {
        Context memory c = _context();
        uint256 signers = AggregateAttest.record(_s, c, taskId, round, acceptBitmap, signerBitmap, sigma, apk2);
        RoundLogic.acted(_s, c, taskId, signers);
    }

    /// @inheritdoc ITaskRegistry
    function advance(uint256 taskId) external nonReentrant whenNotPaused {
        Task storage t = _task(taskId);
        uint256 now_ = protocolTime();
        if (t.status == Status.Open || t.status == Status.Drawing) {
            if (now_ <= t.claimDeadline) revert DeadlineNotReached(taskId, t.claimDeadline);
            RoundLogic.settle(_s, _context(), taskId, Status.Failed);
            return;
        }
        if (t.status != Status.Active) revert WrongStatus(taskId, t.status);
        if (now_ <= t.phaseDeadline) revert DeadlineNotReached(taskId, t.phaseDeadline);
        RoundLogic.expirePhase(_s, _context(), taskId);
    }

    // ---------------------------------------------------------------- disputes (IDisputeHooks)

    /// @inheritdoc IDisputeHooks
    function setDisputeManager(address disputeManager_) external onlyRole(DEFAULT_ADMIN_ROLE) {
        if (disputeManager_ == address(0)) revert ZeroAddress();
        if (_disputes != address(0)) revert DisputeManagerAlreadySet(_disputes);
        _disputes = disputeManager_;
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
        return RoundLogic.reclaimPay(_s, _context(), taskId, round, node, role);
    }

    /// @inheritdoc IDisputeHooks
    function failTask(uint256 taskId) external nonReentrant {
        _onlyDisputes();
        if (_s.tasks[taskId].status == Status.Active) RoundLogic.settle(_s, _context(), taskId, Status.Failed);
    }

    /// @inheritdoc IDisputeHooks
    function disputeManager() external view returns (address) {
        return _disputes;
    }

    /// @inheritdoc IDisputeHooks
    function roundFinalizedAt(uint256 taskId, uint256 round) external view returns (uint256) {
        return _s.finalizedAt[taskId][round];
    }

    /// @inheritdoc IDisputeHooks
    function attesterOf(uint256 taskId, uint256 round, uint256 slot) external view returns (address) {
        return _s.attesters[taskId][round][slot];
    }

    function _onlyDisputes() private view {
        if (msg.sender != _disputes) revert NotDisputeManager(msg.sender);
    }

    // ---------------------------------------------------------------- governance

    /// @inheritdoc ITaskRegistry
    function pause() external onlyRole(GUARDIAN_ROLE) {
        _pause();
        _pausedAt = block.timestamp;
    }

    /// @inheritdoc ITaskRegistry
    function unpause() external onlyRole(GUARDIAN_ROLE) {
        _unpause();
        _pausedTotal += block.timestamp - _pausedAt;
        _pausedAt = 0;
    }

    /// @inheritdoc ITaskRegistry
    function setRoleShares(uint256 trainerBps, uint256 samplerBps, uint256 validatorBps)
        external
        onlyRole(GOVERNOR_ROLE)
    {
        _setRoleShares(trainerBps, samplerBps, validatorBps);
    }

    /// @inheritdoc ITaskRegistry
    function setSlashBps(uint256 bps) external onlyRole(GOVERNOR_ROLE) {
        _setSlashBps(bps);
    }

    /// @inheritdoc ITaskRegistry
    function setTreasury(address treasury_) external onlyRole(GOVERNOR_ROLE) {
        _setTreasury(treasury_);
    }

    // ---------------------------------------------------------------- views

    /// @inheritdoc ITaskRegistry
    function commitmentFor(uint256 taskId, uint256 round, address node, bytes32 root, string calldata cid, bytes32 salt)
        external
        pure
        returns (bytes32)
    {
        return _commitment(taskId, round, node, root, cid, salt);
    }

    /// @inheritdoc ITaskRegistry
    function createTaskDigest(TaskParams calldata params, address requester, uint256 nonce, uint256 deadline)
        external
        view
        returns (bytes32)
    {
        return _createTaskDigest(params, requester, nonce, deadline);
    }

    /// @inheritdoc ITaskRegistry
    function protocolTime() public view returns (uint256) {
        return (paused() ? _pausedAt : block.timestamp) - _pausedTotal;
    }

    /// @inheritdoc ITaskRegistry
    function taskCount() external view returns (uint256) {
        return _taskCount;
    }

    /// @inheritdoc ITaskRegistry
    function taskOf(uint256 taskId) external view returns (Task memory) {
        return _s.tasks[taskId];
    }

    /// @inheritdoc ITaskRegistry
    function slotOf(uint256 taskId, Role role, uint256 slot) external view returns (Slot memory) {
        return _s.slots[taskId][role][slot];
    }

    /// @inheritdoc ITaskRegistry
    function membershipOf(uint256 taskId, address node) external view returns (Membership memory) {
        return _s.members[taskId][node];
    }

    /// @inheritdoc ITaskRegistry
    function submissionOf(uint256 taskId, uint256 round, Role role, uint256 slot)
        external
        view
        returns (Submission memory)
    {
        return _s.submissions[taskId][round][role][slot];
    }

    /// @inheritdoc ITaskRegistry
    function attestationOf(uint256 taskId, uint256 round, uint256 slot) external view returns (Attestation memory) {
        return Votes.get(_s, taskId, round, slot);
    }

    /// @inheritdoc ITaskRegistry
    function attestationMessage(uint256 taskId, uint256 round, uint256 acceptBitmap) external view returns (bytes32) {
        return AggregateAttest.message(taskId, round, acceptBitmap);
    }

    /// @inheritdoc ITaskRegistry
    function aggregateKeyOf(uint256 taskId) external view returns (uint256[2] memory, uint256) {
        return AggregateAttest.keyOf(_s, taskId);
    }

    /// @inheritdoc ITaskRegistry
    function paidOf(uint256 taskId) external view returns (uint256[3] memory) {
        return _s.paid[taskId];
    }

    /// @inheritdoc ITaskRegistry
    function roleShares() external view returns (uint16[3] memory) {
        return _shares;
    }

    /// @inheritdoc ITaskRegistry
    function slashBps() external view returns (uint256) {
        return _slashBps;
    }

    /// @inheritdoc ITaskRegistry
    function treasury() external view returns (address) {
        return _treasury;
    }

    /// @notice Next nonce `requester` must sign for `createTaskWithSig`.
    function nonces(address requester) public view override returns (uint256) {
        return super.nonces(requester);
    }

    // ---------------------------------------------------------------- internals: creation

    function _createTask(TaskParams calldata p, address requester) private returns (uint256 taskId) {
        _validateParams(p);
        taskId = ++_taskCount;
        Task storage t = _s.tasks[taskId];
        t.requester = requester;
        t.status = Status.Open;
        t.numRounds = p.numRounds;
        t.numSamplers = p.numSamplers;
        t.numValidators = p.numValidators;
        t.claimDeadline = uint64(protocolTime() + p.claimWindow);
        t.commitWindow = p.commitWindow;
        t.revealWindow = p.revealWindow;
        t.attestWindow = p.attestWindow;
        t.sharesBps = _shares;
        t.bounty = p.bounty;
        t.specDigest = p.specDigest;
        t.specCid = p.specCid;
        // `requester` is msg.sender (createTask, createTaskWithPermit) or the signer proved by an
        // EIP-712 signature (createTaskWithSig): the bounty only comes from an account that asked for it.
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

    function _createTaskDigest(TaskParams calldata p, address requester, uint256 nonce, uint256 deadline)
        private
        view
        returns (bytes32)
    {
        // Encoded in two halves to keep the stack shallow; the layout equals one abi.encode of all fields.
        bytes memory head = abi.encode(
            CREATE_TASK_TYPEHASH,
            requester,
            keccak256(bytes(p.specCid)),
            p.specDigest,
            p.bounty,
            p.numSamplers,
            p.numValidators,
            p.numRounds
        );
        bytes memory tail =
            abi.encode(p.claimWindow, p.commitWindow, p.revealWindow, p.attestWindow, nonce, deadline);
        return _hashTypedDataV4(keccak256(bytes.concat(head, tail)));
    }

    /// @dev A failed permit is ignored on purpose: someone may have front-run it with the same
    ///      signature, in which case the allowance is already there (OpenZeppelin's advice).
    function _tryPermit(address owner, uint256 value, Permit calldata permit) private {
        if (permit.deadline == 0) return;
        try IERC20Permit(address(token)).permit(
            owner, address(this), value, permit.deadline, permit.v, permit.r, permit.s
        ) {} catch {}
    }

    // ---------------------------------------------------------------- internals: assignment

    function _checkEligible(address node, Role role, bool revertIfNot) private view returns (bool) {
        if (stakes.isNodePaused(node)) {
            if (revertIfNot) revert NodePaused(node);
            return false;
        }
        uint256 available = stakes.availableStake(node, role);
        uint256 required = stakes.minStake(role);
        if (available < required) {
            if (revertIfNot) revert InsufficientStake(node, role, available, required);
            return false;
        }
        uint256 score = reputation.scoreOf(node);
        uint256 threshold = reputation.threshold();
        if (score < threshold) {
            if (revertIfNot) revert ReputationTooLow(node, score, threshold);
            return false;
        }
        return true;
    }

    function _checkClaimWindow(uint256 taskId, Task storage t) private view {
        if (protocolTime() > t.claimDeadline) revert DeadlinePassed(taskId, t.claimDeadline);
    }

    function _firstVacant(uint256 taskId, Task storage t, Role role) private view returns (uint256) {
        uint256 count = _slotCount(t, role);
        for (uint256 i = 0; i < count; ++i) {
            if (_s.slots[taskId][role][i].node == address(0)) return i;
        }
        revert NoVacantSlot(taskId, role);
    }

    function _assign(uint256 taskId, Task storage t, Role role, uint256 slot, address node) private {
        uint256 amount = stakes.minStake(role);
        stakes.lock(node, role, amount);
        uint256 since = t.round;
        if (t.status == Status.Active) {
            Phase joinPhase = _workPhase(role);
            // Joining after the role's work phase ended (or its deadline passed) means waiting for
            // the next round; joining during it adds one more expected action.
            bool expired = t.phase == joinPhase && protocolTime() > t.phaseDeadline;
            if (t.phase > joinPhase || expired) since += 1;
            else if (t.phase == joinPhase) t.pending += 1;
        }
        // amount is a stake within uint128 (StakeManager stores stakes as uint128); since <= MAX_ROUNDS.
        _s.slots[taskId][role][slot] = Slot(node, uint16(since), uint128(amount));
        _s.members[taskId][node] = Membership(true, role, uint8(slot));
        if (role == Role.Sampler) t.filledSamplers += 1;
        else if (role == Role.Trainer) t.trainerFilled = true;
        else {
            t.filledValidators += 1;
            AggregateAttest.joined(_s, stakes, taskId, slot, node);
        }
        emit SlotAssigned(taskId, node, role, slot, since);
    }

    /// @dev Walks the validator pool from a random start with a random stride coprime to its size,
    ///      so every pick is a distinct validator, and assigns the eligible ones it meets.
    function _drawFrom(uint256 taskId, Task storage t, bytes32 seed, uint256 poolSize, uint256 vacancies)
        private
        returns (uint256)
    {
        uint256 rand = uint256(keccak256(abi.encode(seed, taskId, t.round)));
        uint256 start = rand % poolSize;
        uint256 stride = Draws.coprimeStride(rand >> 128, poolSize);
        uint256 attempts = vacancies * DRAW_ATTEMPTS_PER_SLOT;
        if (attempts > poolSize) attempts = poolSize;
        for (uint256 i = 0; i < attempts && vacancies > 0; ++i) {
            if (_tryDraw(taskId, t, stakes.drawCandidate((start + i * stride) % poolSize))) vacancies -= 1;
        }
        return vacancies;
    }

    function _tryDraw(uint256 taskId, Task storage t, address candidate) private returns (bool) {
        if (candidate == t.requester || _s.members[taskId][candidate].assigned) return false;
        if (!_checkEligible(candidate, Role.Validator, false)) return false;
        _assign(taskId, t, Role.Validator, _firstVacant(taskId, t, Role.Validator), candidate);
        return true;
    }

    function _checkMember(uint256 taskId, Task storage t) private view returns (Role, uint256) {
        if (t.status != Status.Active) revert WrongStatus(taskId, t.status);
        Membership memory m = _s.members[taskId][msg.sender];
        if (!m.assigned) revert NotAssigned(taskId, msg.sender);
        return (m.role, m.slot);
    }

    function _checkOnTime(uint256 taskId, Task storage t, Role role, uint256 slot) private view {
        if (protocolTime() > t.phaseDeadline) revert DeadlinePassed(taskId, t.phaseDeadline);
        uint256 since = _s.slots[taskId][role][slot].sinceRound;
        if (since > t.round) revert NotExpectedThisRound(taskId, t.round, since);
    }

    /// @dev Checks the caller may commit (isCommit) or reveal now, and returns its role and slot.
    function _checkTurn(uint256 taskId, bool isCommit) private view returns (Task storage t, Role role, uint256 slot) {
        t = _task(taskId);
        (role, slot) = _checkMember(taskId, t);
        if (role == Role.Validator) revert WrongPhase(taskId, t.phase);
        Phase expected = _workPhase(role);
        if (!isCommit) expected = Phase(uint8(expected) + 1);
        if (t.phase != expected) revert WrongPhase(taskId, t.phase);
        _checkOnTime(taskId, t, role, slot);
    }

    // ---------------------------------------------------------------- internals: small helpers

    function _context() private view returns (Context memory) {
        return Context(stakes, reputation, vault, _slashBps, _treasury, protocolTime(), _disputes != address(0));
    }

    function _task(uint256 taskId) private view returns (Task storage t) {
        t = _s.tasks[taskId];
        if (t.status == Status.None) revert TaskNotFound(taskId);
    }

    function _slotCount(Task storage t, Role role) private view returns (uint256) {
        if (role == Role.Sampler) return t.numSamplers;
        if (role == Role.Trainer) return 1;
        return t.numValidators;
    }

    function _workPhase(Role role) private pure returns (Phase) {
        if (role == Role.Sampler) return Phase.SampleCommit;
        if (role == Role.Trainer) return Phase.TrainCommit;
        return Phase.Attest;
    }

    function _commitment(uint256 taskId, uint256 round, address node, bytes32 root, string calldata cid, bytes32 salt)
        private
        pure
        returns (bytes32)
    {
        return keccak256(abi.encode(taskId, round, node, root, keccak256(bytes(cid)), salt));
    }

    function _setRoleShares(uint256 trainerBps, uint256 samplerBps, uint256 validatorBps) private {
        // Bounds keep each role meaningfully paid; the sum is always the whole bounty.
        bool inBounds = trainerBps >= 5000 && trainerBps <= 8500 && samplerBps >= 1000 && samplerBps <= 3500
            && validatorBps >= 500 && validatorBps <= 2000;
        if (!inBounds || trainerBps + samplerBps + validatorBps != Payouts.BPS) {
            revert SharesOutOfBounds(trainerBps, samplerBps, validatorBps);
        }
        _shares[uint8(Role.Sampler)] = uint16(samplerBps);
        _shares[uint8(Role.Trainer)] = uint16(trainerBps);
        _shares[uint8(Role.Validator)] = uint16(validatorBps);
        emit RoleSharesSet(trainerBps, samplerBps, validatorBps);
    }

    function _setSlashBps(uint256 bps) private {
        if (bps > MAX_SLASH_BPS) revert SlashBpsOutOfBounds(bps, MAX_SLASH_BPS);
        _slashBps = bps;
        emit SlashBpsSet(bps);
    }

    function _setTreasury(address treasury_) private {
        if (treasury_ == address(0)) revert ZeroAddress();
        _treasury = treasury_;
        emit TreasurySet(treasury_);
    }
}

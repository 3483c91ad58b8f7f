// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {Role, Outcome} from "../libraries/Types.sol";
import {IStakeManager} from "./IStakeManager.sol";
import {IReputation} from "./IReputation.sol";
import {IRewardVault} from "./IRewardVault.sol";
import {IProtocolConfig} from "./IProtocolConfig.sol";
import {IExtsload} from "./IExtsload.sol";

/// @title ITaskRegistry
/// @notice The task lifecycle: escrowed bounty, slot assignment, per-round commit–reveal of results,
///         sealed (commit–reveal) validator attestations decided by a 2/3 quorum, and settlement by accepted work.
/// @dev Deadlines are in protocol time (`protocolTime()`): wall-clock time minus time spent paused,
///      so a guardian pause never makes nodes miss a deadline. The registry is the core: its state
///      is read through `extsload` (StateView, TaskState); signed task creation is in TaskFront;
///      the parameters it applies are in ProtocolConfig.
interface ITaskRegistry is IExtsload {
    enum Status {
        None,
        Open, // accepting sampler and trainer claims
        Drawing, // sampler and trainer slots full; waiting for the validator draw
        Active, // rounds running
        Completed,
        Cancelled,
        Failed,
        NoResult // the last round was finalized and no round's checkpoint was ever accepted
    }

    /// @dev One round walks these phases in order; a phase ends early once everyone expected acted.
    enum Phase {
        SampleCommit,
        SampleReveal,
        TrainCommit,
        TrainReveal,
        Attest, // validators commit to their sealed votes
        AttestReveal // validators open them; then the round is finalized
    }

    enum Verdict {
        None,
        Accepted,
        Rejected,
        Inconclusive
    }

    /// @notice What a requester asks for.
    /// @param specCid IPFS CID of the task spec (environment, seeds, hyperparameters).
    /// @param specDigest keccak256 of the spec's bytes, so workers can check what they fetched.
    /// @param bounty Tokens escrowed for the whole task.
    /// @param numSamplers Sampler slots (each rolls out one shard per round).
    /// @param numValidators Validators drawn at random; 2/3 of them (rounded up) decide.
    /// @param numRounds Training rounds; the bounty is earned round by round.
    /// @param claimWindow Seconds from creation for all slots to be filled, else the task fails.
    /// @param commitWindow Seconds for the commit phases (this is when the work is done).
    /// @param revealWindow Seconds for the reveal phases.
    /// @param attestWindow Seconds for validators to commit to their votes (they open them in `revealWindow`).
    struct TaskParams {
        string specCid;
        bytes32 specDigest;
        uint256 bounty;
        uint8 numSamplers;
        uint8 numValidators;
        uint16 numRounds;
        uint32 claimWindow;
        uint32 commitWindow;
        uint32 revealWindow;
        uint32 attestWindow;
    }

    struct Task {
        address requester;
        Status status;
        Phase phase;
        uint16 round;
        uint16 numRounds;
        uint8 numSamplers;
        uint8 numValidators;
        uint8 filledSamplers;
        uint8 filledValidators;
        bool trainerFilled;
        uint8 pending; // actions still expected in the current phase
        uint8 idleRounds; // consecutive rounds without an accepted checkpoint
        uint64 revealedMask; // submissions open to attestation this round (bit numSamplers = trainer)
        uint64 claimDeadline;
        uint64 phaseDeadline;
        uint64 seedBlock; // block whose hash seeds the next validator draw (0 = none armed)
        uint32 commitWindow;
        uint32 revealWindow;
        uint32 attestWindow;
        uint16[3] sharesBps; // by Role: Sampler, Trainer, Validator; snapshot at creation
        uint256 bounty;
        bytes32 specDigest;
        bytes32 checkpointRoot; // last accepted policy checkpoint (0 = initial policy from the spec)
        string specCid;
        string checkpointCid;
    }

    struct Slot {
        address node;
        uint16 sinceRound; // first round the node is expected to work in
        uint128 lockedStake;
    }

    struct Membership {
        bool assigned;
        Role role;
        uint8 slot;
    }

    struct Submission {
        bytes32 commitment;
        bytes32 root;
        address node;
        bool revealed;
        Verdict verdict;
        string cid;
    }

    /// @notice A validator's opened vote: per submission bit i (sampler slot i, bit numSamplers = the
    ///         trainer) "accept" (acceptBitmap), "plant" (plantBitmap: the only discrepancy found is
    ///         the forced-error plant, in every challenged item) or, with neither bit, "reject". A
    ///         vote never has both bits of one submission (an accept wins).
    struct Attestation {
        bool voted;
        uint64 acceptBitmap;
        uint64 plantBitmap;
    }

    error InvalidSpec();
    error InvalidBounty();
    /// @notice The bounty is below ProtocolConfig.minBountyPerSlotRound() x numRounds x
    ///         (numSamplers + 1 + numValidators) (SPECIFICATION.md 5.2).
    error BountyTooSmall(uint256 bounty, uint256 minimum);
    error SlotCountOutOfBounds(Role role, uint256 count, uint256 max);
    error RoundsOutOfBounds(uint256 rounds, uint256 max);
    error WindowOutOfBounds(uint256 window, uint256 min, uint256 max);
    error ZeroAddress();
    error TaskNotFound(uint256 taskId);
    error WrongStatus(uint256 taskId, Status status);
    error NotRequester(uint256 taskId, address caller);
    error RequesterCannotWork(uint256 taskId);
    error ValidatorsAreDrawn();
    error AlreadyAssigned(uint256 taskId, address node);
    error NoVacantSlot(uint256 taskId, Role role);
    error NodePaused(address node);
    error InsufficientStake(address node, Role role, uint256 available, uint256 required);
    error ReputationTooLow(address node, uint256 score, uint256 threshold);
    error NoVacancy(uint256 taskId);
    error DrawNotReady(uint256 taskId, uint256 seedBlock);
    error NotAssigned(uint256 taskId, address node);
    error WrongPhase(uint256 taskId, Phase phase);
    error NotExpectedThisRound(uint256 taskId, uint256 round, uint256 sinceRound);
    error DeadlinePassed(uint256 taskId, uint256 deadline);
    error DeadlineNotReached(uint256 taskId, uint256 deadline);
    error EmptyCommitment();
    error AlreadyCommitted(uint256 taskId, address node);
    error NotCommitted(uint256 taskId, address node);
    error AlreadyRevealed(uint256 taskId, address node);
    error InvalidResult();
    error CommitmentMismatch(uint256 taskId, address node);
    error AlreadyAttested(uint256 taskId, address validator);
    /// @notice An aggregate's signer bitmap is empty or names a slot beyond the task's validators.
    error InvalidSignerBitmap(uint256 taskId, uint256 signerBitmap);
    /// @notice An aggregate names a validator slot nobody holds.
    error VacantValidatorSlot(uint256 taskId, uint256 slot);
    /// @notice An aggregate was signed for another round than the current one.
    error RoundMismatch(uint256 taskId, uint256 round, uint256 currentRound);
    /// @notice The aggregate signature does not verify for these signers and this message.
    error InvalidAggregateSignature(uint256 taskId, uint256 round, uint256 signerBitmap);
    /// @notice An aggregate names a held validator slot outside the task's BLS mask: its holder had
    ///         no registered BLS key when it took the slot (see StateView.aggregateKeyOf).
    error SignersOutsideBlsMask(uint256 taskId, uint256 signerBitmap, uint256 blsMask);
    /// @notice An aggregate carries another number of salts than it names signers.
    error SaltCountMismatch(uint256 taskId, uint256 signers, uint256 salts);
    /// @notice The sealed vote of validator slot `slot` does not open with the aggregate's bitmap
    ///         and the salt given for that slot.
    error SignerCommitmentMismatch(uint256 taskId, uint256 slot);

    /// @notice `openDraw` by a node with no draw to open this round: not a worker that revealed a
    ///         submission this round with a draw commitment (set by its reveal of the round before).
    error NoDraw(uint256 taskId, address node);
    /// @notice `commitDraw` after the caller's first round in its slot has begun (its seed is fixed).
    error DrawTooLate(uint256 taskId, uint256 round);
    /// @notice The secret does not open the caller's draw commitment of the round.
    error DrawMismatch(uint256 taskId, address node);
    /// @notice The caller's draw of the round is already open.
    error AlreadyOpened(uint256 taskId, address node);

    /// @notice `createTaskFor` was called by another account than the task front.
    error NotTaskFront(address caller);
    error TaskFrontAlreadySet(address current);

    event TaskCreated(
        uint256 indexed taskId,
        address indexed requester,
        string specCid,
        bytes32 specDigest,
        uint256 bounty,
        uint8 numSamplers,
        uint8 numValidators,
        uint16 numRounds
    );
    event TaskStatusChanged(uint256 indexed taskId, Status status);
    event SlotAssigned(uint256 indexed taskId, address indexed node, Role indexed role, uint256 slot, uint256 sinceRound);
    event SlotVacated(uint256 indexed taskId, address indexed node, Role indexed role, uint256 slot, Outcome reason);
    event DrawArmed(uint256 indexed taskId, uint256 seedBlock);
    event PhaseStarted(uint256 indexed taskId, uint256 indexed round, Phase phase, uint256 deadline);
    event ResultCommitted(
        uint256 indexed taskId, uint256 indexed round, address indexed node, Role role, uint256 slot, bytes32 commitment
    );
    event ResultRevealed(
        uint256 indexed taskId, uint256 indexed round, address indexed node, Role role, uint256 slot, bytes32 root, string cid
    );
    /// @notice A validator sealed its vote (StateView.attestCommitmentFor); `Attested` opens it.
    event AttestationCommitted(
        uint256 indexed taskId, uint256 indexed round, address indexed validator, uint256 slot, bytes32 commitment
    );
    /// @notice A validator opened its vote. `acceptBitmap` is the vote as recorded, in the encoding
    ///         `attest` takes: bit i accepts submission i, bit 64 + i is its "plant" answer (only bits
    ///         of revealed submissions; a plant bit beside an accept bit is dropped).
    event Attested(uint256 indexed taskId, uint256 indexed round, address indexed validator, uint256 slot, uint256 acceptBitmap);
    /// @notice Validator slots `signerBitmap` voted `acceptBitmap` (encoded as in `Attested`) with one
    ///         BLS aggregate signature (one event for all of them; per-vote `attest` emits `Attested`).
    event AggregateAttested(uint256 indexed taskId, uint256 indexed round, uint256 signerBitmap, uint256 acceptBitmap);
    /// @notice A worker opened its draw of `round` (forced errors, SPECIFICATION.md 5.5.3): `forced`
    ///         says whether its submission (`role`, `slot`) had to carry the plant this round.
    /// @notice A worker committed its draw for `round`, the first round it works in its slot
    ///         (later rounds' draws are committed by its reveals' salts).
    event DrawCommitted(uint256 indexed taskId, uint256 indexed round, address indexed node, bytes32 commitment);
    event DrawOpened(uint256 indexed taskId, uint256 indexed round, address indexed node, Role role, uint256 slot, bool forced);
    /// @notice Validator slot `validatorSlot` accepted forced submissions (`bitsMissed`, bits as in
    ///         votes) that another validator voted "plant" on: it missed the plant, so it earns no
    ///         pay this round (it keeps its stake, reputation and slot).
    event PlantMissed(
        uint256 indexed taskId, uint256 indexed round, address indexed node, uint256 validatorSlot, uint256 bitsMissed
    );
    /// @notice Validator slot `slot` rejected submissions the quorum accepted (`dissentBitmap`, bit i
    ///         = sampler slot i, bit numSamplers = the trainer): not penalised; its round pay is held
    ///         (not paid at all without a dispute manager) and is its own only if a dispute it opens
    ///         proves the work bad (SPECIFICATION.md 5.5, 13).
    event Dissented(
        uint256 indexed taskId, uint256 indexed round, address indexed validator, uint256 slot, uint256 dissentBitmap
    );
    event VerdictReached(
        uint256 indexed taskId,
        uint256 indexed round,
        address indexed node,
        Role role,
        uint256 slot,
        Verdict verdict,
        uint256 accepts,
        uint256 rejects
    );
    event RewardEarned(uint256 indexed taskId, uint256 indexed round, address indexed node, Role role, uint256 amount);
    event RoundFinalized(uint256 indexed taskId, uint256 indexed round, bytes32 checkpointRoot, string checkpointCid);
    event TaskSettled(uint256 indexed taskId, Status status, uint256[3] paidByRole, uint256 refund);
    event TaskFrontSet(address indexed taskFront);

    /// @notice Creates a task funded by the caller (who has approved this contract for the bounty).
    function createTask(TaskParams calldata params) external returns (uint256 taskId);

    /// @notice Creates a task for `requester`, funded by `requester` (who has approved this
    ///         contract for the bounty, or signed a permit the front submitted). Task front only: it
    ///         calls this for the caller of a permit, or the signer of an EIP-712 request (TaskFront).
    function createTaskFor(TaskParams calldata params, address requester) external returns (uint256 taskId);

    /// @notice Cancels a task before its rounds start; the whole bounty is refunded to the requester.
    function cancelTask(uint256 taskId) external;

    /// @notice Takes a vacant sampler or trainer slot. The caller must be eligible for the role.
    function claimSlot(uint256 taskId, Role role) external returns (uint256 slot);

    /// @notice Fills vacant validator slots at random from eligible validators, seeded by the hash
    ///         of a block mined after the vacancy arose. Anyone may call.
    function drawValidators(uint256 taskId) external;

    /// @notice Commits to a result for the current round (StateView.commitmentFor computes it).
    function commit(uint256 taskId, bytes32 commitment) external;

    /// @notice Reveals the committed result: its Merkle root and IPFS CID. Unless this is the task's
    ///         last round, `salt` is also the caller's draw commitment for the next round (forced
    ///         errors): StateView.drawCommitmentFor(taskId, round + 1, caller, secret) for a fresh
    ///         secret the caller keeps, and opens with `openDraw` in that round.
    function reveal(uint256 taskId, bytes32 root, string calldata cid, bytes32 salt) external;

    /// @notice Commits the caller's draw for the first round it works in its slot (Slot.sinceRound),
    ///         which no reveal of its own commits: StateView.drawCommitmentFor(taskId, sinceRound,
    ///         caller, secret). Only a sampler or trainer of the task, before that round begins
    ///         (DrawTooLate after: the round is then not drawn for it), once.
    function commitDraw(uint256 taskId, bytes32 commitment) external;

    /// @notice Opens the caller's draw of `round` (the current one) in its AttestReveal phase: a
    ///         worker that revealed a submission this round and has a draw commitment for it (from
    ///         its reveal of the round before) must open it by the phase's deadline, or is removed
    ///         and slashed (Withheld) and its submission judged as not forced. The submission is
    ///         forced when uint256(keccak256(abi.encode(secret, roundSeed))) % 10_000 is below
    ///         ProtocolConfig.forcedErrorBps(). Counts as one expected action of the phase.
    function openDraw(uint256 taskId, uint256 round, bytes32 secret) external;

    /// @notice Seals the caller's vote for `round` in the Attest phase: `commitment` is
    ///         StateView.attestCommitmentFor(taskId, round, caller, acceptBitmap, salt). Votes stay
    ///         hidden until every expected validator committed or the phase's deadline passed.
    function commitAttestation(uint256 taskId, uint256 round, bytes32 commitment) external;

    /// @notice Opens the caller's sealed vote in the AttestReveal phase: its verdicts for the round,
    ///         bit i accepts sampler slot i, bit numSamplers accepts the trainer; bit 64 + i answers
    ///         "plant" for submission i (the only discrepancy found is the forced-error plant, in
    ///         every challenged item); neither bit rejects, both accept. Bits of unrevealed
    ///         submissions are ignored.
    function attest(uint256 taskId, uint256 round, uint256 acceptBitmap, bytes32 salt) external;

    /// @notice Opens the sealed votes of several validator slots at once, all for the same bitmap,
    ///         with one BLS aggregate signature. Anyone may submit it (the submitter pays the gas).
    /// @param round Must be the current round (the signed message names it).
    /// @param acceptBitmap The bitmap every signer signed and committed to, as in `attest`.
    /// @param signerBitmap Bit v: validator slot v signed. Each must be in the task's BLS mask
    ///        (StateView.aggregateKeyOf) and hold a sealed vote not yet opened; otherwise the call
    ///        reverts (re-aggregate without it).
    /// @param sigma Sum of the signers' BLS signatures of StateView.attestationMessage(taskId, round, acceptBitmap).
    /// @param apk2 Sum of the signers' G2 public keys (checked against their registered G1 keys).
    /// @param salts Each signer's salt, in slot order: its commitment must open with (acceptBitmap, salt).
    function attestAggregate(
        uint256 taskId,
        uint256 round,
        uint256 acceptBitmap,
        uint256 signerBitmap,
        uint256[2] calldata sigma,
        uint256[4] calldata apk2,
        bytes32[] calldata salts
    ) external;

    /// @notice Moves a task past an expired deadline, penalising whoever did not act. Anyone may call.
    function advance(uint256 taskId) external;

    function pause() external;
    function unpause() external;

    /// @notice Sets the task front, once (admin only).
    function setTaskFront(address taskFront) external;

    /// @notice A validator slot's vote in `round`, whichever way it arrived (its own `attest` or an
    ///         aggregate that covered it); voted false when it has not voted.
    function attestationOf(uint256 taskId, uint256 round, uint256 slot) external view returns (Attestation memory);

    /// @notice Wall-clock time minus the time spent paused: the clock of every deadline.
    function protocolTime() external view returns (uint256);

    function token() external view returns (IERC20);
    function stakes() external view returns (IStakeManager);
    function reputation() external view returns (IReputation);
    function vault() external view returns (IRewardVault);
    function config() external view returns (IProtocolConfig);
}

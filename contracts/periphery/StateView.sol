// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {ITaskRegistry} from "../interfaces/ITaskRegistry.sol";
import {IDisputeManager} from "../interfaces/IDisputeManager.sol";
import {IProtocolConfig} from "../interfaces/IProtocolConfig.sol";
import {IExtsload} from "../interfaces/IExtsload.sol";
import {Role} from "../libraries/Types.sol";
import {TaskState} from "../libraries/TaskState.sol";
import {DrawMasks} from "../libraries/TaskStorage.sol";
import {DisputeState} from "../libraries/DisputeState.sol";
import {Tasks} from "../libraries/Tasks.sol";
import {ForcedErrors} from "../libraries/ForcedErrors.sol";
import {Payouts} from "../libraries/Payouts.sol";
import {AggregateAttest} from "../libraries/AggregateAttest.sol";

/// @title StateView
/// @notice Every read of the protocol's task and dispute state for clients (the role of Uniswap
///         v4-periphery's StateView): whole records decoded from the cores' storage through
///         `extsload` (TaskState, DisputeState), so that the cores carry no struct views. Holds no
///         state; any number of them may be deployed.
contract StateView {
    ITaskRegistry public immutable registry;
    IDisputeManager public immutable disputes;
    IProtocolConfig public immutable config;

    constructor(ITaskRegistry registry_, IDisputeManager disputes_) {
        registry = registry_;
        disputes = disputes_;
        config = registry_.config();
    }

    // ---------------------------------------------------------------- tasks

    function taskCount() external view returns (uint256) {
        return TaskState.taskCount(registry);
    }

    /// @notice The task (a zeroed Task, status None, for an id never created).
    function taskOf(uint256 taskId) external view returns (ITaskRegistry.Task memory) {
        return TaskState.task(registry, taskId);
    }

    function slotOf(uint256 taskId, Role role, uint256 slot) external view returns (ITaskRegistry.Slot memory) {
        return TaskState.slot(registry, taskId, role, slot);
    }

    function membershipOf(uint256 taskId, address node) external view returns (ITaskRegistry.Membership memory) {
        return TaskState.membership(registry, taskId, node);
    }

    function submissionOf(uint256 taskId, uint256 round, Role role, uint256 slot)
        external
        view
        returns (ITaskRegistry.Submission memory)
    {
        return TaskState.submission(registry, taskId, round, role, slot);
    }

    /// @notice A validator slot's vote in `round` (ITaskRegistry.attestationOf).
    function attestationOf(uint256 taskId, uint256 round, uint256 slot)
        external
        view
        returns (ITaskRegistry.Attestation memory)
    {
        return registry.attestationOf(taskId, round, slot);
    }

    /// @notice What the task has paid so far, by Role.
    function paidOf(uint256 taskId) external view returns (uint256[3] memory) {
        return TaskState.paid(registry, taskId);
    }

    /// @notice The task's aggregate BLS key: `apk1` = Σ of the G1 keys of the holders of validator
    ///         slots `mask`, the held slots whose holder had a registered BLS key when it took the
    ///         slot. An aggregate attestation may only name slots in `mask`.
    function aggregateKeyOf(uint256 taskId) external view returns (uint256[2] memory apk1, uint256 mask) {
        return TaskState.aggregateKey(registry, taskId);
    }

    /// @notice Protocol time at which `round`'s verdicts were reached (0 = not yet).
    function roundFinalizedAt(uint256 taskId, uint256 round) external view returns (uint256) {
        return TaskState.finalizedAt(registry, taskId, round);
    }

    /// @notice The validator that cast the vote of `slot` in `round`, recorded while disputes are on
    ///         (0 = none).
    function attesterOf(uint256 taskId, uint256 round, uint256 slot) external view returns (address) {
        return TaskState.attester(registry, taskId, round, slot);
    }

    /// @notice Whether `node` dissented in `round` (rejected work the quorum accepted, disputes on):
    ///         its held round pay is released only if a dispute it opened proves the work bad.
    function dissentedIn(uint256 taskId, uint256 round, address node) external view returns (bool) {
        return TaskState.dissented(registry, taskId, round, node);
    }

    /// @notice Validator slot `slot`'s sealed vote of `round`: 0 when it has not committed, or once
    ///         the vote was opened (then attestationOf has it).
    function attestCommitmentOf(uint256 taskId, uint256 round, uint256 slot) external view returns (bytes32) {
        return TaskState.attestCommitment(registry, taskId, round, slot);
    }

    /// @notice The registry's dispute manager (0 = disputes not active: pay is credited at once).
    function disputeManager() external view returns (address) {
        return TaskState.disputeManager(registry);
    }

    /// @notice The registry's task front (TaskFront).
    function taskFront() external view returns (address) {
        return TaskState.taskFront(registry);
    }

    /// @notice The commitment a node submits for a result (TaskRegistry.commit, then reveal).
    function commitmentFor(uint256 taskId, uint256 round, address node, bytes32 root, string calldata cid, bytes32 salt)
        external
        pure
        returns (bytes32)
    {
        return Tasks.commitment(taskId, round, node, root, cid, salt);
    }

    /// @notice The commitment that seals a validator's vote (TaskRegistry.commitAttestation, then
    ///         attest or attestAggregate).
    function attestCommitmentFor(uint256 taskId, uint256 round, address validator, uint256 acceptBitmap, bytes32 salt)
        external
        pure
        returns (bytes32)
    {
        return Tasks.attestCommitment(taskId, round, validator, acceptBitmap, salt);
    }

    /// @notice The 32-byte message validators BLS-sign for an aggregate attestation:
    ///         keccak256(abi.encode(keccak256("decentrl.attest.v1"), chain id, registry, taskId,
    ///         round, acceptBitmap)).
    function attestationMessage(uint256 taskId, uint256 round, uint256 acceptBitmap) external view returns (bytes32) {
        return AggregateAttest.message(address(registry), taskId, round, acceptBitmap);
    }

    // ---------------------------------------------------------------- forced errors (SPECIFICATION.md 5.5.3)

    /// @notice The seed of `round`'s draws: the hash of the block before its SampleCommit phase
    ///         began (0 before that, and for round 0, which has no draws).
    function roundSeed(uint256 taskId, uint256 round) external view returns (bytes32) {
        return TaskState.roundSeed(registry, taskId, round);
    }

    /// @notice `node`'s draw commitment for `round`: the salt of its reveal in `round - 1` (0 = none:
    ///         it did not reveal then, or revealed with a zero salt; never for round 0).
    function drawCommitmentOf(uint256 taskId, uint256 round, address node) external view returns (bytes32) {
        return TaskState.drawCommitment(registry, taskId, round, node);
    }

    /// @notice The submissions of `round` (bit i = sampler slot i, bit numSamplers = the trainer)
    ///         whose worker opened its draw forced.
    function forcedMask(uint256 taskId, uint256 round) external view returns (uint256) {
        return TaskState.draws(registry, taskId, round).forced;
    }

    /// @notice The submissions of `round` whose worker opened its draw (bits as in forcedMask).
    function openedDrawMask(uint256 taskId, uint256 round) external view returns (uint256) {
        return TaskState.draws(registry, taskId, round).opened;
    }

    /// @notice The submissions of `round` whose worker must open a draw (it revealed with a draw
    ///         commitment for the round); one not opened when AttestReveal ends was withheld.
    function drawnMask(uint256 taskId, uint256 round) external view returns (uint256) {
        return TaskState.draws(registry, taskId, round).drawn;
    }

    /// @notice openedDrawMask and forcedMask in one call.
    function drawsOf(uint256 taskId, uint256 round) external view returns (uint256 opened, uint256 forced) {
        DrawMasks memory d = TaskState.draws(registry, taskId, round);
        return (d.opened, d.forced);
    }

    /// @notice The draw commitment a worker's reveal in `round - 1` carries as its salt, opened in
    ///         `round` by `secret` (TaskRegistry.openDraw): keccak256(abi.encode(taskId, round, node, secret)).
    function drawCommitmentFor(uint256 taskId, uint256 round, address node, bytes32 secret)
        external
        pure
        returns (bytes32)
    {
        return ForcedErrors.drawCommitment(taskId, round, node, secret);
    }

    /// @notice The forced-error rate in basis points (ProtocolConfig.forcedErrorBps): a draw opened
    ///         with `secret` in a round seeded `seed` is forced when
    ///         uint256(keccak256(abi.encode(secret, seed))) % 10_000 < forcedErrorBps().
    function forcedErrorBps() external view returns (uint256) {
        return config.forcedErrorBps();
    }

    /// @notice The smallest bounty `createTask` accepts now for a task of this shape:
    ///         ProtocolConfig.minBountyPerSlotRound() x numRounds x (numSamplers + 1 + numValidators).
    function minBounty(uint256 numSamplers, uint256 numValidators, uint256 numRounds) external view returns (uint256) {
        return Payouts.minBounty(config.minBountyPerSlotRound(), numSamplers, numValidators, numRounds);
    }

    // ---------------------------------------------------------------- disputes

    function disputeOf(uint256 disputeId) external view returns (IDisputeManager.Dispute memory) {
        return DisputeState.dispute(disputes, disputeId);
    }

    function jurorOf(uint256 disputeId, uint256 seat) external view returns (IDisputeManager.Juror memory) {
        return DisputeState.juror(disputes, disputeId, seat);
    }

    /// @notice The dispute of a submission (0 = never disputed).
    function disputeIdOf(uint256 taskId, uint256 round, Role role, uint256 slot) external view returns (uint256) {
        return DisputeState.disputeIdOf(disputes, taskId, round, role, slot);
    }

    function openDisputesOf(uint256 taskId, uint256 round) external view returns (uint256) {
        return DisputeState.openDisputes(disputes, taskId, round);
    }

    /// @notice Protocol time until which `round` can be disputed (0 = no verdicts yet).
    function windowEndOf(uint256 taskId, uint256 round) external view returns (uint256) {
        uint256 at = TaskState.finalizedAt(registry, taskId, round);
        return at == 0 ? 0 : at + config.disputeWindow();
    }

    /// @notice What the DisputeManager owes `account` (returned bonds, awards).
    function owedOf(address account) external view returns (uint256) {
        return DisputeState.owed(disputes, account);
    }

    function totalOwed() external view returns (uint256) {
        return DisputeState.totalOwed(disputes);
    }

    function totalBonds() external view returns (uint256) {
        return DisputeState.totalBonds(disputes);
    }

    function disputeCount() external view returns (uint256) {
        return DisputeState.disputeCount(disputes);
    }
}

// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Extsload} from "../../../contracts/libraries/Extsload.sol";
import {ITaskRegistry} from "../../../contracts/interfaces/ITaskRegistry.sol";
import {IDisputeManager} from "../../../contracts/interfaces/IDisputeManager.sol";
import {IProtocolConfig} from "../../../contracts/interfaces/IProtocolConfig.sol";
import {Role} from "../../../contracts/libraries/Types.sol";
import {Votes} from "../../../contracts/libraries/Votes.sol";
import {Disputes} from "../../../contracts/libraries/Disputes.sol";
import {TaskStorage, TaskStorageSlot, AggregateVotes, Ballot, DrawMasks} from "../../../contracts/libraries/TaskStorage.sol";
import {DisputeStorage, DisputeStorageSlot} from "../../../contracts/libraries/DisputeStorage.sol";

/// @notice Writes records into TaskStorage and DisputeStorage at their ERC-7201 locations with the
///         real structs (solc lays them out), and serves them through `extsload` as the cores do:
///         what TaskState, DisputeState and StateView decode from it must be what was written.
///         It stands in for both cores (the two namespaces do not overlap); `attestationOf` is the
///         registry's own rule (Votes), `config` what StateView's constructor asks the registry.
contract StateHarness is Extsload {
    IProtocolConfig public immutable config;

    constructor(IProtocolConfig config_) {
        config = config_;
    }

    function _s() private pure returns (TaskStorage storage) {
        return TaskStorageSlot.layout();
    }

    function _ds() private pure returns (DisputeStorage storage) {
        return DisputeStorageSlot.layout();
    }

    // ------------------------------------------------------------ TaskStorage

    function putTask(uint256 taskId, ITaskRegistry.Task memory t) external {
        _s().tasks[taskId] = t;
    }

    function putSlot(uint256 taskId, Role role, uint256 index, ITaskRegistry.Slot memory slot) external {
        _s().slots[taskId][role][index] = slot;
    }

    function putMembership(uint256 taskId, address node, ITaskRegistry.Membership memory m) external {
        _s().members[taskId][node] = m;
    }

    function putSubmission(uint256 taskId, uint256 round, Role role, uint256 index, ITaskRegistry.Submission memory sub)
        external
    {
        _s().submissions[taskId][round][role][index] = sub;
    }

    function putAttestation(uint256 taskId, uint256 round, uint256 slot, ITaskRegistry.Attestation memory a) external {
        _s().attestations[taskId][round][slot] = a;
    }

    /// @dev One aggregate ballot, as AggregateAttest.record writes it.
    function putBallot(uint256 taskId, uint256 round, uint64 signers, uint64 acceptBitmap) external {
        putBallot(taskId, round, signers, acceptBitmap, 0);
    }

    /// @dev One aggregate ballot with plant answers, as AggregateAttest.record writes it.
    function putBallot(uint256 taskId, uint256 round, uint64 signers, uint64 acceptBitmap, uint64 plantBitmap)
        public
    {
        AggregateVotes storage agg = _s().aggregates[taskId][round];
        agg.votedMask |= signers;
        agg.ballots[agg.count] = Ballot(signers, acceptBitmap, plantBitmap);
        agg.count += 1;
    }

    function putDrawCommitment(uint256 taskId, uint256 round, address node, bytes32 commitment) external {
        _s().drawCommitments[taskId][round][node] = commitment;
    }

    function putRoundSeed(uint256 taskId, uint256 round, bytes32 seed) external {
        _s().roundSeeds[taskId][round] = seed;
    }

    function putDraws(uint256 taskId, uint256 round, DrawMasks memory d) external {
        _s().draws[taskId][round] = d;
    }

    function putPaid(uint256 taskId, uint256[3] memory amounts) external {
        _s().paid[taskId] = amounts;
    }

    function putAggregateKey(uint256 taskId, uint256[2] memory apk, uint64 mask) external {
        _s().aggregateKeys[taskId].apk = apk;
        _s().aggregateKeys[taskId].mask = mask;
    }

    function putFinalizedAt(uint256 taskId, uint256 round, uint256 at) external {
        _s().finalizedAt[taskId][round] = at;
    }

    function putAttester(uint256 taskId, uint256 round, uint256 slot, address node) external {
        _s().attesters[taskId][round][slot] = node;
    }

    function putRegistryWords(uint256 taskCount, uint256 pausedAt, uint256 pausedTotal, address dm, address front)
        external
    {
        TaskStorage storage s = _s();
        (s.taskCount, s.pausedAt, s.pausedTotal, s.disputeManager, s.taskFront) =
            (taskCount, pausedAt, pausedTotal, dm, front);
    }

    /// @dev The registry's own read of a vote (ITaskRegistry.attestationOf).
    function attestationOf(uint256 taskId, uint256 round, uint256 slot)
        external
        view
        returns (ITaskRegistry.Attestation memory)
    {
        return Votes.get(_s(), taskId, round, slot);
    }

    // ------------------------------------------------------------ DisputeStorage

    function putDispute(uint256 disputeId, IDisputeManager.Dispute memory d) external {
        _ds().disputes[disputeId] = d;
    }

    function putJuror(uint256 disputeId, uint256 seat, IDisputeManager.Juror memory j) external {
        _ds().jurors[disputeId][seat] = j;
        _ds().seatOf[disputeId][j.node] = seat + 1;
    }

    function putDisputeOf(uint256 taskId, uint256 round, Role role, uint256 slot, uint256 disputeId) external {
        _ds().disputeOf[Disputes.submissionKey(taskId, round, role, slot)] = disputeId;
    }

    function putOpen(uint256 taskId, uint256 round, uint256 open) external {
        _ds().open[taskId][round] = open;
    }

    function putOwed(address account, uint256 amount) external {
        _ds().owed[account] = amount;
    }

    function putDraws(uint256 disputeId, uint256 draws) external {
        _ds().draws[disputeId] = draws;
    }

    function putDisputeWords(uint256 disputeCount, uint256 totalOwed, uint256 totalBonds) external {
        DisputeStorage storage ds = _ds();
        (ds.disputeCount, ds.totalOwed, ds.totalBonds) = (disputeCount, totalOwed, totalBonds);
    }
}

// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {ITaskRegistry} from "../interfaces/ITaskRegistry.sol";
import {IStakeManager} from "../interfaces/IStakeManager.sol";
import {IReputation} from "../interfaces/IReputation.sol";
import {IRewardVault} from "../interfaces/IRewardVault.sol";
import {IProtocolConfig} from "../interfaces/IProtocolConfig.sol";
import {Role} from "./Types.sol";

/// @notice Everything the TaskRegistry stores about tasks, in one struct at a fixed (ERC-7201)
///         location, so that its logic libraries (called by delegatecall) work on the registry's
///         own storage and readers (TaskState over `extsload`) find every field by its offset.
/// @dev The field order is the storage layout TaskState reads: append, never reorder.
struct TaskStorage {
    mapping(uint256 taskId => ITaskRegistry.Task) tasks;
    mapping(uint256 taskId => mapping(Role role => mapping(uint256 slot => ITaskRegistry.Slot))) slots;
    mapping(uint256 taskId => mapping(address node => ITaskRegistry.Membership)) members;
    mapping(uint256 taskId => mapping(uint256 round => mapping(Role role => mapping(uint256 slot => ITaskRegistry.Submission))))
        submissions;
    mapping(uint256 taskId => mapping(uint256 round => mapping(uint256 slot => ITaskRegistry.Attestation))) attestations;
    mapping(uint256 taskId => uint256[3]) paid;
    mapping(uint256 taskId => mapping(uint256 round => AggregateVotes)) aggregates;
    // Disputes (SPECIFICATION.md, "Disputes"): when each round's verdicts were reached (protocol
    // time; 0 = no verdicts yet) and who cast each attestation (slots change hands later).
    mapping(uint256 taskId => mapping(uint256 round => uint256)) finalizedAt;
    mapping(uint256 taskId => mapping(uint256 round => mapping(uint256 slot => address))) attesters;
    // BLS aggregates (SPECIFICATION.md 5.5.1): per task, the sum of its validator slot holders' G1
    // keys, kept as slots change hands.
    mapping(uint256 taskId => AggregateKey) aggregateKeys;
    uint256 taskCount;
    uint256 pausedAt; // block time the current pause began (0 = not paused)
    uint256 pausedTotal; // seconds paused before the current pause: protocol time leaves them out
    address disputeManager; // set once; from then on round pay is held for the dispute window
    address taskFront; // set once; the front contract that may create tasks for signed requesters
    // Sealed votes (SPECIFICATION.md 5.4): each validator slot's commitment of the round, cleared
    // when it is opened, so a non-zero one after the AttestReveal phase was withheld.
    mapping(uint256 taskId => mapping(uint256 round => mapping(uint256 slot => bytes32))) attestCommitments;
    // Validators that rejected work a quorum accepted (SPECIFICATION.md 5.5): their round pay is
    // held until a dispute they open proves the work bad (DisputeManager.releasePay).
    mapping(uint256 taskId => mapping(uint256 round => mapping(address node => bool))) dissented;
    // Forced errors (SPECIFICATION.md 5.5.3): each worker's draw commitment for a round (the salt of
    // its reveal in the round before), each round's seed (the hash of the block before its
    // SampleCommit began; none for round 0, which has no draws) and the round's draw masks.
    mapping(uint256 taskId => mapping(uint256 round => mapping(address node => bytes32))) drawCommitments;
    mapping(uint256 taskId => mapping(uint256 round => bytes32)) roundSeeds;
    mapping(uint256 taskId => mapping(uint256 round => DrawMasks)) draws;
}

/// @notice Where the registry's TaskStorage lives.
library TaskStorageSlot {
    /// @dev keccak256(abi.encode(uint256(keccak256("decentrl.storage.TaskRegistry")) - 1)) & ~bytes32(uint256(0xff))
    bytes32 internal constant LOCATION = 0x7b7295b7f0b979c6f7617007ed44853eb6f7a9f0d02b88a3ed6533a3fa0b1d00;

    function layout() internal pure returns (TaskStorage storage s) {
        assembly ("memory-safe") {
            s.slot := LOCATION
        }
    }
}

/// @notice A task's aggregate BLS key: `apk` = Σ of the G1 keys of the holders of the validator
///         slots in `mask`, which are the held slots whose holder had a registered key when it took
///         the slot (keys are write-once, so the key subtracted on leaving is the key added on joining).
struct AggregateKey {
    uint256[2] apk;
    uint64 mask;
}

/// @notice One BLS aggregate attestation: the validator slots that signed and the vote they cast
///         (accept and plant bits, as in ITaskRegistry.Attestation).
struct Ballot {
    uint64 signers;
    uint64 acceptBitmap;
    uint64 plantBitmap;
}

/// @notice A round's draws, by submission bit (sampler slot i: bit i; the trainer: bit numSamplers):
///         `drawn`, the submissions whose worker has a draw to open (set by its reveal: it had a
///         draw commitment for the round); `opened`, those opened; `forced`, those opened forced.
struct DrawMasks {
    uint64 drawn;
    uint64 opened;
    uint64 forced;
}

/// @notice The aggregate attestations of one round: every slot they cover (`votedMask`) and the
///         ballots themselves (at most one per validator slot, as each covers a slot not yet voted).
struct AggregateVotes {
    uint64 votedMask;
    uint8 count;
    mapping(uint256 index => Ballot) ballots;
}

/// @notice The registry's collaborators and the protocol time of the call, handed to its logic
///         libraries on each call. Parameters are read from `config` only where they are used.
struct Context {
    IStakeManager stakes;
    IReputation reputation;
    IRewardVault vault;
    IProtocolConfig config;
    uint256 now; // protocol time
}

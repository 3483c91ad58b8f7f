// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {ITaskRegistry} from "../interfaces/ITaskRegistry.sol";
import {IExtsload} from "../interfaces/IExtsload.sol";
import {Role} from "./Types.sol";
import {TaskStorageSlot, DrawMasks} from "./TaskStorage.sol";
import {StorageWords} from "./StorageWords.sol";

/// @title TaskState
/// @notice Reads the TaskRegistry's state through `extsload` (the role of Uniswap v4's
///         StateLibrary): each function computes the slots of one record in TaskStorage and decodes
///         its words as the compiler packed them. Used by StateView (for clients), the dispute side
///         and KeyringBoard, so that the registry itself serves no struct views.
/// @dev The offsets below follow TaskStorage's field order and the structs' packing (solc's
///      storage layout); tests/forge/state/ round-trips random records through them.
library TaskState {
    using StorageWords for IExtsload;

    uint256 private constant TASKS = 0;
    uint256 private constant SLOTS = 1;
    uint256 private constant MEMBERS = 2;
    uint256 private constant SUBMISSIONS = 3;
    uint256 private constant PAID = 5;
    uint256 private constant FINALIZED_AT = 7;
    uint256 private constant ATTESTERS = 8;
    uint256 private constant AGGREGATE_KEYS = 9;
    uint256 private constant TASK_COUNT = 10;
    uint256 private constant DISPUTE_MANAGER = 13;
    uint256 private constant TASK_FRONT = 14;
    uint256 private constant ATTEST_COMMITMENTS = 15;
    uint256 private constant DISSENTED = 16;
    uint256 private constant DRAW_COMMITMENTS = 17;
    uint256 private constant ROUND_SEEDS = 18;
    uint256 private constant DRAWS = 19;

    /// @dev Words of a Task: 7 fixed (3 packed, sharesBps, bounty, specDigest, checkpointRoot), then two strings.
    uint256 private constant TASK_WORDS = 7;

    function taskCount(IExtsload registry) internal view returns (uint256) {
        return uint256(registry.extsload(_field(TASK_COUNT)));
    }

    function disputeManager(IExtsload registry) internal view returns (address) {
        return address(uint160(uint256(registry.extsload(_field(DISPUTE_MANAGER)))));
    }

    function taskFront(IExtsload registry) internal view returns (address) {
        return address(uint160(uint256(registry.extsload(_field(TASK_FRONT)))));
    }

    /// @notice The whole task (a zeroed Task, status None, for an id never created).
    function task(IExtsload registry, uint256 taskId) internal view returns (ITaskRegistry.Task memory t) {
        bytes32 base = _taskSlot(taskId);
        bytes32[] memory w = registry.extsload(base, TASK_WORDS);
        _decodeHead(t, uint256(w[0]));
        uint256 w1 = uint256(w[1]);
        t.idleRounds = uint8(w1);
        t.revealedMask = uint64(w1 >> 8);
        t.claimDeadline = uint64(w1 >> 72);
        t.phaseDeadline = uint64(w1 >> 136);
        uint256 w2 = uint256(w[2]);
        t.seedBlock = uint64(w2);
        t.commitWindow = uint32(w2 >> 64);
        t.revealWindow = uint32(w2 >> 96);
        t.attestWindow = uint32(w2 >> 128);
        uint256 w3 = uint256(w[3]);
        t.sharesBps = [uint16(w3), uint16(w3 >> 16), uint16(w3 >> 32)];
        t.bounty = uint256(w[4]);
        t.specDigest = w[5];
        t.checkpointRoot = w[6];
        t.specCid = registry.readString(StorageWords.offset(base, 7));
        t.checkpointCid = registry.readString(StorageWords.offset(base, 8));
    }

    /// @notice The task's first word only (requester, status, phase, round, counts): one read.
    function taskHead(IExtsload registry, uint256 taskId) internal view returns (ITaskRegistry.Task memory t) {
        _decodeHead(t, uint256(registry.extsload(_taskSlot(taskId))));
    }

    function slot(IExtsload registry, uint256 taskId, Role role, uint256 index)
        internal
        view
        returns (ITaskRegistry.Slot memory s)
    {
        bytes32 at = _key(index, _key(uint8(role), _key(taskId, _field(SLOTS))));
        bytes32[] memory w = registry.extsload(at, 2);
        s.node = address(uint160(uint256(w[0])));
        s.sinceRound = uint16(uint256(w[0]) >> 160);
        s.lockedStake = uint128(uint256(w[1]));
    }

    function membership(IExtsload registry, uint256 taskId, address node)
        internal
        view
        returns (ITaskRegistry.Membership memory m)
    {
        uint256 w = uint256(registry.extsload(_key(uint256(uint160(node)), _key(taskId, _field(MEMBERS)))));
        m.assigned = uint8(w) != 0;
        m.role = Role(uint8(w >> 8));
        m.slot = uint8(w >> 16);
    }

    /// @notice A submission with its CID (see `submissionHead` for the fixed fields alone).
    function submission(IExtsload registry, uint256 taskId, uint256 round, Role role, uint256 index)
        internal
        view
        returns (ITaskRegistry.Submission memory s)
    {
        bytes32 at = _submissionSlot(taskId, round, role, index);
        bytes32[] memory w = registry.extsload(at, 3);
        s.commitment = w[0];
        s.root = w[1];
        _decodeSubmissionTail(s, uint256(w[2]));
        s.cid = registry.readString(StorageWords.offset(at, 3));
    }

    /// @notice A submission without its CID (commitment, root, node, revealed, verdict).
    function submissionHead(IExtsload registry, uint256 taskId, uint256 round, Role role, uint256 index)
        internal
        view
        returns (ITaskRegistry.Submission memory s)
    {
        bytes32[] memory w = registry.extsload(_submissionSlot(taskId, round, role, index), 3);
        s.commitment = w[0];
        s.root = w[1];
        _decodeSubmissionTail(s, uint256(w[2]));
    }

    function paid(IExtsload registry, uint256 taskId) internal view returns (uint256[3] memory amounts) {
        bytes32[] memory w = registry.extsload(_key(taskId, _field(PAID)), 3);
        amounts = [uint256(w[0]), uint256(w[1]), uint256(w[2])];
    }

    /// @notice The task's aggregate BLS key and its slot mask (ITaskRegistry's aggregate key).
    function aggregateKey(IExtsload registry, uint256 taskId)
        internal
        view
        returns (uint256[2] memory apk, uint256 mask)
    {
        bytes32[] memory w = registry.extsload(_key(taskId, _field(AGGREGATE_KEYS)), 3);
        apk = [uint256(w[0]), uint256(w[1])];
        mask = uint64(uint256(w[2]));
    }

    /// @notice Protocol time at which `round`'s verdicts were reached (0 = not yet).
    function finalizedAt(IExtsload registry, uint256 taskId, uint256 round) internal view returns (uint256) {
        return uint256(registry.extsload(_key(round, _key(taskId, _field(FINALIZED_AT)))));
    }

    /// @notice The validator that cast the vote of `slot` in `round` (recorded while disputes are
    ///         on; 0 = none).
    function attester(IExtsload registry, uint256 taskId, uint256 round, uint256 index)
        internal
        view
        returns (address)
    {
        bytes32 at = _key(index, _key(round, _key(taskId, _field(ATTESTERS))));
        return address(uint160(uint256(registry.extsload(at))));
    }

    /// @notice Validator slot `index`'s sealed vote of `round` (0 = none, or already opened).
    function attestCommitment(IExtsload registry, uint256 taskId, uint256 round, uint256 index)
        internal
        view
        returns (bytes32)
    {
        return registry.extsload(_key(index, _key(round, _key(taskId, _field(ATTEST_COMMITMENTS)))));
    }

    /// @notice Whether `node` dissented in `round` (rejected work the quorum accepted) with disputes on.
    function dissented(IExtsload registry, uint256 taskId, uint256 round, address node) internal view returns (bool) {
        bytes32 at = _key(uint256(uint160(node)), _key(round, _key(taskId, _field(DISSENTED))));
        return uint256(registry.extsload(at)) != 0;
    }

    /// @notice `node`'s draw commitment for `round`, stored by its reveal of `round - 1` (0 = none).
    function drawCommitment(IExtsload registry, uint256 taskId, uint256 round, address node)
        internal
        view
        returns (bytes32)
    {
        return registry.extsload(_key(uint256(uint160(node)), _key(round, _key(taskId, _field(DRAW_COMMITMENTS)))));
    }

    /// @notice The seed of `round`'s draws (0 before the round started, and for round 0).
    function roundSeed(IExtsload registry, uint256 taskId, uint256 round) internal view returns (bytes32) {
        return registry.extsload(_key(round, _key(taskId, _field(ROUND_SEEDS))));
    }

    /// @notice `round`'s draw masks (submission bits): drawn (to be opened), opened, forced.
    function draws(IExtsload registry, uint256 taskId, uint256 round) internal view returns (DrawMasks memory d) {
        uint256 w = uint256(registry.extsload(_key(round, _key(taskId, _field(DRAWS)))));
        d.drawn = uint64(w);
        d.opened = uint64(w >> 64);
        d.forced = uint64(w >> 128);
    }

    // ---------------------------------------------------------------- slots and words

    function _decodeHead(ITaskRegistry.Task memory t, uint256 w0) private pure {
        t.requester = address(uint160(w0));
        t.status = ITaskRegistry.Status(uint8(w0 >> 160));
        t.phase = ITaskRegistry.Phase(uint8(w0 >> 168));
        t.round = uint16(w0 >> 176);
        t.numRounds = uint16(w0 >> 192);
        t.numSamplers = uint8(w0 >> 208);
        t.numValidators = uint8(w0 >> 216);
        t.filledSamplers = uint8(w0 >> 224);
        t.filledValidators = uint8(w0 >> 232);
        t.trainerFilled = uint8(w0 >> 240) != 0;
        t.pending = uint8(w0 >> 248);
    }

    function _decodeSubmissionTail(ITaskRegistry.Submission memory s, uint256 w2) private pure {
        s.node = address(uint160(w2));
        s.revealed = uint8(w2 >> 160) != 0;
        s.verdict = ITaskRegistry.Verdict(uint8(w2 >> 168));
    }

    function _taskSlot(uint256 taskId) private pure returns (bytes32) {
        return _key(taskId, _field(TASKS));
    }

    function _submissionSlot(uint256 taskId, uint256 round, Role role, uint256 index) private pure returns (bytes32) {
        return _key(index, _key(uint8(role), _key(round, _key(taskId, _field(SUBMISSIONS)))));
    }

    function _field(uint256 index) private pure returns (bytes32) {
        return StorageWords.offset(TaskStorageSlot.LOCATION, index);
    }

    function _key(uint256 key, bytes32 at) private pure returns (bytes32) {
        return StorageWords.mappingSlot(key, at);
    }
}

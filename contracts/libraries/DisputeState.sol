// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IDisputeManager} from "../interfaces/IDisputeManager.sol";
import {ITaskRegistry} from "../interfaces/ITaskRegistry.sol";
import {IExtsload} from "../interfaces/IExtsload.sol";
import {Role} from "./Types.sol";
import {Disputes} from "./Disputes.sol";
import {DisputeStorageSlot} from "./DisputeStorage.sol";
import {StorageWords} from "./StorageWords.sol";

/// @title DisputeState
/// @notice Reads the DisputeManager's state through `extsload`, as TaskState reads the registry's:
///         each function computes the slots of one record in DisputeStorage and decodes its words.
/// @dev The offsets follow DisputeStorage's field order and the structs' packing (solc's storage
///      layout); tests/forge/state/ round-trips random records through them.
library DisputeState {
    uint256 private constant DISPUTES = 0;
    uint256 private constant JURORS = 1;
    uint256 private constant DISPUTE_OF = 3;
    uint256 private constant OPEN = 4;
    uint256 private constant OWED = 5;
    uint256 private constant DISPUTE_COUNT = 7;
    uint256 private constant TOTAL_OWED = 8;
    uint256 private constant TOTAL_BONDS = 9;

    function dispute(IExtsload disputes, uint256 disputeId) internal view returns (IDisputeManager.Dispute memory d) {
        bytes32[] memory w = disputes.extsload(_key(disputeId, _field(DISPUTES)), 5);
        d.taskId = uint256(w[0]);
        uint256 w1 = uint256(w[1]);
        d.round = uint16(w1);
        d.role = Role(uint8(w1 >> 16));
        d.slot = uint8(w1 >> 24);
        d.verdict = ITaskRegistry.Verdict(uint8(w1 >> 32));
        d.status = IDisputeManager.Status(uint8(w1 >> 40));
        d.jurorsWanted = uint8(w1 >> 48);
        d.jurorCount = uint8(w1 >> 56);
        d.upholdVotes = uint8(w1 >> 64);
        d.dismissVotes = uint8(w1 >> 72);
        d.commits = uint8(w1 >> 80);
        d.seedBlock = uint64(w1 >> 88);
        d.voteDeadline = uint64(w1 >> 152);
        d.evidence = IDisputeManager.Evidence(uint8(w1 >> 216));
        d.item = uint32(w1 >> 224);
        uint256 w2 = uint256(w[2]);
        d.revealDeadline = uint64(w2);
        d.disputer = address(uint160(w2 >> 64));
        d.submitter = address(uint160(uint256(w[3])));
        d.bond = uint256(w[4]);
    }

    function juror(IExtsload disputes, uint256 disputeId, uint256 seat)
        internal
        view
        returns (IDisputeManager.Juror memory j)
    {
        bytes32[] memory w = disputes.extsload(_key(seat, _key(disputeId, _field(JURORS))), 3);
        j.node = address(uint160(uint256(w[0])));
        uint256 w1 = uint256(w[1]);
        j.lockedStake = uint128(w1);
        j.voted = uint8(w1 >> 128) != 0;
        j.uphold = uint8(w1 >> 136) != 0;
        j.commitment = w[2];
    }

    /// @notice The dispute of a submission (0 = never disputed).
    function disputeIdOf(IExtsload disputes, uint256 taskId, uint256 round, Role role, uint256 slot)
        internal
        view
        returns (uint256)
    {
        bytes32 key = Disputes.submissionKey(taskId, round, role, slot);
        return _word(disputes, _key(uint256(key), _field(DISPUTE_OF)));
    }

    function openDisputes(IExtsload disputes, uint256 taskId, uint256 round) internal view returns (uint256) {
        return _word(disputes, _key(round, _key(taskId, _field(OPEN))));
    }

    function owed(IExtsload disputes, address account) internal view returns (uint256) {
        return _word(disputes, _key(uint256(uint160(account)), _field(OWED)));
    }

    function disputeCount(IExtsload disputes) internal view returns (uint256) {
        return _word(disputes, _field(DISPUTE_COUNT));
    }

    function totalOwed(IExtsload disputes) internal view returns (uint256) {
        return _word(disputes, _field(TOTAL_OWED));
    }

    function totalBonds(IExtsload disputes) internal view returns (uint256) {
        return _word(disputes, _field(TOTAL_BONDS));
    }

    function _word(IExtsload disputes, bytes32 at) private view returns (uint256) {
        return uint256(disputes.extsload(at));
    }

    function _field(uint256 index) private pure returns (bytes32) {
        return StorageWords.offset(DisputeStorageSlot.LOCATION, index);
    }

    function _key(uint256 key, bytes32 at) private pure returns (bytes32) {
        return StorageWords.mappingSlot(key, at);
    }
}

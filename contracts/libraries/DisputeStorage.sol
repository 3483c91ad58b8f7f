// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IDisputeManager} from "../interfaces/IDisputeManager.sol";

/// @notice Everything the DisputeManager stores, in one struct at a fixed (ERC-7201) location, so
///         that JuryLogic (called by delegatecall) works on it and DisputeState reads it by offset.
/// @dev The field order is the storage layout DisputeState reads: append, never reorder.
struct DisputeStorage {
    mapping(uint256 disputeId => IDisputeManager.Dispute) disputes;
    mapping(uint256 disputeId => mapping(uint256 seat => IDisputeManager.Juror)) jurors;
    mapping(uint256 disputeId => mapping(address node => uint256 seatPlusOne)) seatOf;
    mapping(bytes32 submissionKey => uint256 disputeId) disputeOf;
    mapping(uint256 taskId => mapping(uint256 round => uint256)) open;
    mapping(address account => uint256) owed;
    mapping(uint256 disputeId => uint256) draws;
    uint256 disputeCount;
    uint256 totalOwed;
    uint256 totalBonds;
    // Disputers whose dispute proved a round's work bad, and the validators that had rejected that
    // work: a dissenting validator's held pay of the round is released to it only then (releasePay).
    mapping(uint256 taskId => mapping(uint256 round => mapping(address node => bool))) vindicated;
}

/// @notice Where the DisputeManager's DisputeStorage lives.
library DisputeStorageSlot {
    /// @dev keccak256(abi.encode(uint256(keccak256("decentrl.storage.DisputeManager")) - 1)) & ~bytes32(uint256(0xff))
    bytes32 internal constant LOCATION = 0x0df7d5936f40aacb088200e787371e590ddbdd26d0372f1973948036d65fb800;

    function layout() internal pure returns (DisputeStorage storage s) {
        assembly ("memory-safe") {
            s.slot := LOCATION
        }
    }
}

// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {DisputeFixture} from "../disputes/DisputeFixture.sol";
import {TaskStorageSlot} from "../../../contracts/libraries/TaskStorage.sol";
import {DisputeStorageSlot} from "../../../contracts/libraries/DisputeStorage.sol";
import {Role} from "../../../contracts/libraries/Types.sol";

/// @notice The cores keep their state at the ERC-7201 locations their readers compute: the
///         constants are the standard formula over their namespace ids, and the deployed cores'
///         counters are found there (TaskStorage field 10, DisputeStorage field 7).
contract StorageLocationTest is DisputeFixture {
    function _erc7201(string memory id) private pure returns (bytes32) {
        return keccak256(abi.encode(uint256(keccak256(bytes(id))) - 1)) & ~bytes32(uint256(0xff));
    }

    function test_taskStorageLocation_isTheErc7201SlotOfItsNamespace() public pure {
        assertEq(TaskStorageSlot.LOCATION, _erc7201("decentrl.storage.TaskRegistry"), "TaskRegistry namespace");
    }

    function test_disputeStorageLocation_isTheErc7201SlotOfItsNamespace() public pure {
        assertEq(DisputeStorageSlot.LOCATION, _erc7201("decentrl.storage.DisputeManager"), "DisputeManager namespace");
    }

    function test_deployedCores_keepTheirStateThere() public {
        bytes32 taskCount = bytes32(uint256(TaskStorageSlot.LOCATION) + 10);
        bytes32 disputeCount = bytes32(uint256(DisputeStorageSlot.LOCATION) + 7);
        assertEq(uint256(registry.extsload(taskCount)), 0, "no task yet");
        uint256 taskId = _decidedRound(ACCEPT_ALL);
        _open(taskId, Role.Trainer, 0);
        assertEq(uint256(registry.extsload(taskCount)), 1, "the registry's task count");
        assertEq(uint256(disputes.extsload(disputeCount)), 1, "the dispute manager's dispute count");
        assertEq(address(uint160(uint256(registry.extsload(bytes32(uint256(TaskStorageSlot.LOCATION) + 13))))),
            address(disputes), "the registry's dispute manager");
        assertEq(address(uint160(uint256(registry.extsload(bytes32(uint256(TaskStorageSlot.LOCATION) + 14))))),
            address(front), "the registry's task front");
    }

    function testFuzz_extsload_readsWordsInARow(uint8 count) public view {
        bytes32 start = TaskStorageSlot.LOCATION;
        bytes32[] memory words = registry.extsload(start, count);
        assertEq(words.length, count, "as many words as asked");
        for (uint256 i = 0; i < count; ++i) {
            assertEq(words[i], registry.extsload(bytes32(uint256(start) + i)), "word i == extsload(start + i)");
        }
    }
}

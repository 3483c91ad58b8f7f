// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @notice Cheatcodes the invariant suite needs beyond tests/forge/base/Vm.sol.
interface VmLogs {
    struct Log {
        bytes32[] topics;
        bytes data;
        address emitter;
    }

    function recordLogs() external;
    function getRecordedLogs() external returns (Log[] memory);
}

/// @notice Forge reads these from the test contract to choose what the fuzzer calls.
struct FuzzSelector {
    address addr;
    bytes4[] selectors;
}

// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {TestBase} from "../base/Vm.sol";
import {StateHarness} from "./StateHarness.sol";
import {StateView} from "../../../contracts/periphery/StateView.sol";
import {ProtocolConfig} from "../../../contracts/ProtocolConfig.sol";
import {ITaskRegistry} from "../../../contracts/interfaces/ITaskRegistry.sol";
import {IDisputeManager} from "../../../contracts/interfaces/IDisputeManager.sol";
import {IExtsload} from "../../../contracts/interfaces/IExtsload.sol";

/// @notice A StateHarness with a StateView over it (as both cores), and generators of random field
///         values and strings of every storage shape (short: under 32 bytes, in the slot with its
///         length; long: 32 bytes and more, in slots of their own).
abstract contract StateBase is TestBase {
    ProtocolConfig internal config;
    StateHarness internal harness;
    StateView internal stateView;
    IExtsload internal target;

    /// @dev String lengths that cover each storage shape and its edges: empty, short, the longest
    ///      short (31), the shortest long (32), a word and a bit, several words, 128 (MAX_CID_LENGTH)
    ///      and beyond.
    uint256[10] internal LENGTHS = [uint256(0), 1, 31, 32, 33, 63, 64, 100, 128, 300];

    function setUp() public virtual {
        config = new ProtocolConfig(address(0xAD), address(0x7EA5));
        harness = new StateHarness(config);
        target = IExtsload(address(harness));
        stateView = new StateView(ITaskRegistry(address(harness)), IDisputeManager(address(harness)));
    }

    /// @dev The `i`-th random word of `seed`.
    function _word(uint256 seed, uint256 i) internal pure returns (uint256) {
        return uint256(keccak256(abi.encode(seed, i)));
    }

    /// @dev A string of `length` bytes, none of them zero, drawn from `seed`.
    function _string(uint256 seed, uint256 length) internal pure returns (string memory) {
        bytes memory b = new bytes(length);
        for (uint256 i = 0; i < length; ++i) {
            b[i] = bytes1(uint8(1 + _word(seed, i) % 255));
        }
        return string(b);
    }

    function _lengthOf(uint256 choice) internal view returns (uint256) {
        return LENGTHS[choice % LENGTHS.length];
    }

    function _assertStringEq(string memory a, string memory b, string memory what) internal pure {
        assertEq(bytes(a).length, bytes(b).length, string.concat(what, " length"));
        assertEq(keccak256(bytes(a)), keccak256(bytes(b)), what);
    }

    function _assertBoolEq(bool a, bool b, string memory what) internal pure {
        assertTrue(a == b, what);
    }
}

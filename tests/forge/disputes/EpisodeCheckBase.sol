// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {TestBase} from "../base/Vm.sol";
import {EpisodeFixtures} from "./EpisodeFixtures.sol";
import {EpisodeCheckHarness} from "./EpisodeCheckHarness.sol";
import {EpisodeCheck} from "../../../contracts/libraries/EpisodeCheck.sol";

/// @notice Crafts episode items from the workers' encodings in EpisodeFixtures (tools/episode_fixtures.py):
///         the honest header, edited as text, framed again as workers/rl/rollout.py lays it out.
abstract contract EpisodeCheckBase is TestBase {
    uint256 internal constant HONEST = 0; // task seed 7, round 0, shard 0, index 0
    uint256 internal constant HONEST_ESCAPED = 1; // index 1, env id with JSON escapes
    uint256 internal constant OF_ROUND_1 = 2; // an honest episode of round 1 (index 2)
    uint256 internal constant OF_SHARD_1 = 3; // an honest episode of shard 1 (index 3)
    uint256 internal constant SEEDS_OFF = 4; // env_seed off by one
    uint256 internal constant BAD_MAGIC = 5;
    uint256 internal constant IMAGE_HONEST = 6; // encoding version 2 (image observations, snapshots)
    uint256 internal constant IMAGE_SEEDS_OFF = 7; // version 2, env_seed off by one
    /// @dev Array bytes after the header of every fixture: obs 3x4 float32, 2 int64 actions,
    ///      2 float64 rewards, 2 + 2 flags, 2 float32 logp, 2 float32 values.
    uint256 internal constant ARRAYS = 48 + 16 + 16 + 2 + 2 + 8 + 8;

    EpisodeCheckHarness internal check;

    function setUp() public virtual {
        check = new EpisodeCheckHarness();
    }

    /// @dev The JSON header of fixture `i`: what lies between the 9-byte prefix and the arrays.
    function _header(uint256 i) internal pure returns (bytes memory) {
        bytes memory item = EpisodeFixtures.item(i);
        return _slice(item, 9, item.length - ARRAYS);
    }

    function _arrays() internal pure returns (bytes memory) {
        bytes memory item = EpisodeFixtures.item(HONEST);
        return _slice(item, item.length - ARRAYS, item.length);
    }

    /// @dev An item that declares `hlen` header bytes and holds `header` then `body`.
    function _frame(bytes memory header, uint256 hlen, bytes memory body) internal pure returns (bytes memory) {
        return abi.encodePacked(
            bytes4("DRLE"), uint8(1), uint8(hlen), uint8(hlen >> 8), uint8(hlen >> 16), uint8(hlen >> 24), header, body
        );
    }

    /// @dev `header` framed as an honest encoder frames its header, with the honest arrays.
    function _episode(bytes memory header) internal pure returns (bytes memory) {
        return _frame(header, header.length, _arrays());
    }

    /// @dev `s` with its only occurrence of `from` replaced by `to`.
    function _replace(bytes memory s, bytes memory from, bytes memory to) internal pure returns (bytes memory) {
        uint256 at = _at(s, from);
        return abi.encodePacked(_slice(s, 0, at), to, _slice(s, at + from.length, s.length));
    }

    /// @dev The offset of the only occurrence of `needle` in `s`.
    function _at(bytes memory s, bytes memory needle) internal pure returns (uint256 at) {
        uint256 found = 0;
        for (uint256 i = 0; i + needle.length <= s.length; ++i) {
            if (keccak256(_slice(s, i, i + needle.length)) == keccak256(needle)) {
                at = i;
                ++found;
            }
        }
        assertEq(found, 1, "needle occurs exactly once");
    }

    function _slice(bytes memory s, uint256 start, uint256 end) internal pure returns (bytes memory out) {
        out = new bytes(end - start);
        for (uint256 i = start; i < end; ++i) {
            out[i - start] = s[i];
        }
    }

    function _digits(bytes1 first, bytes1 rest, uint256 count) internal pure returns (bytes memory out) {
        out = new bytes(count);
        out[0] = first;
        for (uint256 i = 1; i < count; ++i) {
            out[i] = rest;
        }
    }

    function _assertFault(bytes memory item, uint256 round, uint256 shard, EpisodeCheck.Fault want, string memory what)
        internal
        view
    {
        assertEq(uint256(check.faultOf(item, round, shard)), uint256(want), what);
    }

    function _expectMalformed(uint256 offset) internal {
        vm.expectRevert(abi.encodeWithSelector(EpisodeCheck.MalformedEpisode.selector, offset));
    }
}

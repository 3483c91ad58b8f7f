// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {EpisodeCheckBase} from "./EpisodeCheckBase.sol";
import {EpisodeCheck} from "../../../contracts/libraries/EpisodeCheck.sol";

/// @notice EpisodeCheck.parseHeader: the fields of an honest header, and `MalformedEpisode(offset)` for
///         every header it does not understand (SPECIFICATION.md "Disputes": unreadable, not a fault).
///         Malformed headers are edits of the workers' honest header (EpisodeFixtures).
contract EpisodeHeaderTest is EpisodeCheckBase {
    bytes internal constant ROUND = '"round":';

    function _assertHeader(bytes memory json, uint256[6] memory want) internal view {
        EpisodeCheck.Header memory h = check.parseHeader(json);
        assertEq(h.envSeed, want[0], "env_seed");
        assertEq(h.index, want[1], "index");
        assertEq(h.round, want[2], "round");
        assertEq(h.sampleSeed, want[3], "sample_seed");
        assertEq(h.shard, want[4], "shard");
        assertEq(h.taskSeed, want[5], "task_seed");
    }

    /// @dev Expects `json` to revert `MalformedEpisode(offset)`.
    function _assertMalformed(bytes memory json, uint256 offset) internal {
        _expectMalformed(offset);
        check.parseHeader(json);
    }

    /// @dev The honest header with the round's value replaced by `value`.
    function _withRound(bytes memory value) internal pure returns (bytes memory) {
        return _replace(_header(HONEST), '"round":0', abi.encodePacked(ROUND, value));
    }

    function test_reads_the_fields_of_honest_headers() public view {
        _assertHeader(_header(HONEST), [uint256(1669363764), 0, 0, 985216367885325471, 0, 7]);
        _assertHeader(_header(HONEST_ESCAPED), [uint256(499083994), 1, 0, 8393986390608299318, 0, 7]);
        _assertHeader(_header(OF_SHARD_1), [uint256(1567181650), 3, 0, 1825459114165501174, 1, 7]);
    }

    function test_fields_are_read_by_name_in_any_order() public view {
        bytes memory h = _replace(
            _header(OF_SHARD_1),
            '"round":0,"sample_seed":1825459114165501174,"shard":1',
            '"shard":1,"sample_seed":1825459114165501174,"round":0'
        );
        _assertHeader(h, [uint256(1567181650), 3, 0, 1825459114165501174, 1, 7]);
    }

    function test_a_header_must_be_braced() public {
        bytes memory h = _header(HONEST);
        _assertMalformed("", 0);
        _assertMalformed("{", 0);
        _assertMalformed("}", 0);
        _assertMalformed(_slice(h, 1, h.length), 0);
        _assertMalformed(_slice(h, 0, h.length - 1), 0);
        _assertMalformed(abi.encodePacked(h, " "), 0);
    }

    function test_an_empty_object_reverts() public {
        _assertMalformed("{}", 1);
    }

    function test_a_key_must_be_a_quoted_string() public {
        bytes memory h = _replace(_header(HONEST), '{"action_dim"', "{action_dim");
        _assertMalformed(h, 1);
        h = _replace(_header(HONEST), ',"index"', ', "index"');
        _assertMalformed(h, _at(h, ' "index"'));
        h = _replace(_header(HONEST), '"task_seed":7}', '"task_seed":7,}');
        _assertMalformed(h, h.length - 1);
    }

    function test_a_key_with_an_escape_reverts() public {
        bytes memory h = _replace(_header(HONEST), '"round"', '"r\\u006fund"');
        _assertMalformed(h, _at(h, "\\"));
    }

    function test_an_unterminated_key_reverts() public {
        _assertMalformed('{"abc}', 6);
    }

    function test_a_key_must_be_followed_by_a_colon() public {
        bytes memory h = _replace(_header(HONEST), '"round":0', '"round"=0');
        _assertMalformed(h, _at(h, '"='));
        h = _replace(_header(HONEST), '"round":0', '"round" :0');
        _assertMalformed(h, _at(h, '" :'));
        _assertMalformed('{"a"}', 3);
    }

    function test_an_unterminated_string_value_reverts() public {
        _assertMalformed('{"a":"xyz}', 10);
        // The escape swallows the last brace and runs past the end.
        _assertMalformed('{"a":"x\\}', 9);
        _assertMalformed('{"a":"x\\"}', 10);
    }

    function test_a_value_must_be_a_string_or_a_digit_run() public {
        bytes[8] memory bad = [bytes("-1"), "true", "null", "[0]", '{"a":0}', "", " 0", "+1"];
        for (uint256 k = 0; k < bad.length; ++k) {
            bytes memory h = _withRound(bad[k]);
            _assertMalformed(h, _at(h, ROUND) + ROUND.length);
        }
        // A value missing at the very end of the object.
        bytes memory last = _replace(_header(HONEST), '"task_seed":7}', '"task_seed":}');
        _assertMalformed(last, last.length - 1);
    }

    function test_a_number_must_end_at_a_separator() public {
        bytes[5] memory bad = [bytes("0.5"), "1e3", "0x1", "0 ", "7a"];
        for (uint256 k = 0; k < bad.length; ++k) {
            bytes memory h = _withRound(bad[k]);
            _assertMalformed(h, _at(h, ROUND) + ROUND.length + 1);
        }
    }

    function test_a_number_has_at_most_77_digits() public {
        bytes memory h = _withRound(_digits("9", "9", 77));
        assertEq(check.parseHeader(h).round, 10 ** 77 - 1, "77 nines");
        h = _withRound(_digits("1", "0", 78));
        _assertMalformed(h, _at(h, ROUND) + ROUND.length);
        // Past 2**256 too: the digit limit is checked before the value could overflow.
        bytes[3] memory huge = [
            _digits("9", "9", 78),
            bytes("115792089237316195423570985008687907853269984665640564039457584007913129639936"),
            _digits("1", "0", 100)
        ];
        for (uint256 k = 0; k < huge.length; ++k) {
            h = _withRound(huge[k]);
            _assertMalformed(h, _at(h, ROUND) + ROUND.length);
        }
    }

    function test_each_used_field_is_required() public {
        bytes[6] memory fields = [
            bytes('"env_seed":1669363764,'),
            '"index":0,',
            '"round":0,',
            '"sample_seed":985216367885325471,',
            '"shard":0,',
            ',"task_seed":7'
        ];
        for (uint256 k = 0; k < fields.length; ++k) {
            bytes memory h = _replace(_header(HONEST), fields[k], "");
            _assertMalformed(h, h.length - 1);
        }
    }

    function test_a_used_field_is_missing_unless_an_integer_under_its_exact_name() public {
        bytes[4] memory edits = [bytes('"round":"0"'), '"Round":0', '"rounds":0', '"round ":0'];
        for (uint256 k = 0; k < edits.length; ++k) {
            bytes memory h = _replace(_header(HONEST), '"round":0', edits[k]);
            _assertMalformed(h, h.length - 1);
        }
    }

    function test_bytes_after_the_object_revert() public {
        bytes memory h = _header(HONEST);
        _assertMalformed(abi.encodePacked(h, "}"), h.length - 1);
        _assertMalformed(abi.encodePacked(h, '{"a":0}'), h.length - 1);
    }
}

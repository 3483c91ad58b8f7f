// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {EpisodeCheckBase} from "./EpisodeCheckBase.sol";
import {EpisodeFixtures} from "./EpisodeFixtures.sol";
import {EpisodeCheck} from "../../../contracts/libraries/EpisodeCheck.sol";

/// @notice SPECIFICATION.md "Disputes", settlement by proof: EpisodeCheck.faultOf on the framing of an
///         episode item and the order of its faults, from the workers' encodings (EpisodeFixtures).
contract EpisodeFaultTest is EpisodeCheckBase {
    function test_the_helpers_rebuild_the_workers_encoding() public pure {
        assertEq(keccak256(_episode(_header(HONEST))), keccak256(EpisodeFixtures.item(HONEST)), "honest");
        assertEq(keccak256(_episode(_header(HONEST_ESCAPED))), keccak256(EpisodeFixtures.item(HONEST_ESCAPED)), "esc");
    }

    function test_honest_episodes_have_no_fault() public view {
        _assertFault(EpisodeFixtures.item(HONEST), 0, 0, EpisodeCheck.Fault.None, "honest");
        _assertFault(EpisodeFixtures.item(HONEST_ESCAPED), 0, 0, EpisodeCheck.Fault.None, "escaped env id");
        _assertFault(EpisodeFixtures.item(OF_ROUND_1), 1, 0, EpisodeCheck.Fault.None, "round 1 on round 1");
        _assertFault(EpisodeFixtures.item(OF_SHARD_1), 0, 1, EpisodeCheck.Fault.None, "shard 1 on shard 1");
    }

    function test_seeds_match_the_workers_derive_seeds() public view {
        // (env_seed, sample_seed) as workers/rl/rollout.py wrote them into the fixtures' headers.
        (uint256 env, uint256 sample) = check.deriveSeeds(7, 0, 0, 0);
        assertEq(env, 1669363764, "env 0");
        assertEq(sample, 985216367885325471, "sample 0");
        (env, sample) = check.deriveSeeds(7, 1, 0, 2);
        assertEq(env, 3003749059, "env round 1");
        assertEq(sample, 1161957872705504624, "sample round 1");
        (env, sample) = check.deriveSeeds(7, 0, 1, 3);
        assertEq(env, 1567181650, "env shard 1");
        assertEq(sample, 1825459114165501174, "sample shard 1");
    }

    function test_version_2_episodes_are_read_like_version_1() public view {
        // Its header's extra keys (obs_dtype and obs_shape strings, steps_per_snapshot) are skipped.
        _assertFault(EpisodeFixtures.item(IMAGE_HONEST), 0, 0, EpisodeCheck.Fault.None, "honest version 2");
        _assertFault(EpisodeFixtures.item(IMAGE_HONEST), 1, 0, EpisodeCheck.Fault.WrongRound, "version 2 round");
        _assertFault(EpisodeFixtures.item(IMAGE_SEEDS_OFF), 0, 0, EpisodeCheck.Fault.WrongSeeds, "version 2 seeds");
    }

    function test_an_item_shorter_than_its_prefix_is_bad_encoding() public view {
        bytes memory honest = EpisodeFixtures.item(HONEST);
        for (uint256 n = 0; n <= 9; ++n) {
            _assertFault(_slice(honest, 0, n), 0, 0, EpisodeCheck.Fault.BadEncoding, "short item");
        }
    }

    function test_another_magic_or_version_is_bad_encoding() public view {
        bytes memory honest = EpisodeFixtures.item(HONEST);
        _assertFault(EpisodeFixtures.item(BAD_MAGIC), 0, 0, EpisodeCheck.Fault.BadEncoding, "XXXX");
        for (uint256 k = 0; k < 4; ++k) {
            bytes memory item = _slice(honest, 0, honest.length);
            item[k] = item[k] ^ 0x20; // "DRLE" -> "dRLE", "DrLE", ...
            _assertFault(item, 0, 0, EpisodeCheck.Fault.BadEncoding, "magic byte");
        }
        uint8[3] memory versions = [0, 3, 255];
        for (uint256 k = 0; k < 3; ++k) {
            bytes memory item = _slice(honest, 0, honest.length);
            item[4] = bytes1(versions[k]);
            _assertFault(item, 0, 0, EpisodeCheck.Fault.BadEncoding, "version");
        }
    }

    function test_a_header_running_past_the_item_is_bad_encoding() public view {
        bytes memory h = _header(HONEST);
        // Only the header is read: an item that ends with its header is judged by the header alone.
        _assertFault(_frame(h, h.length, ""), 0, 0, EpisodeCheck.Fault.None, "header only");
        _assertFault(_frame(h, h.length + 1, ""), 0, 0, EpisodeCheck.Fault.BadEncoding, "one byte past");
        _assertFault(_frame(h, h.length + 1 + ARRAYS, _arrays()), 0, 0, EpisodeCheck.Fault.BadEncoding, "past arrays");
        // The length is little-endian: its top byte set puts the header ~16 MiB long.
        bytes memory item = EpisodeFixtures.item(HONEST);
        item[8] = 0x01;
        _assertFault(item, 0, 0, EpisodeCheck.Fault.BadEncoding, "top length byte");
        // An item cut inside its header.
        item = EpisodeFixtures.item(HONEST);
        _assertFault(_slice(item, 0, 9 + h.length - 1), 0, 0, EpisodeCheck.Fault.BadEncoding, "cut header");
    }

    function test_a_header_cut_short_by_its_length_reverts() public {
        bytes memory h = _header(HONEST);
        // Declared one byte short, the header read ends in "7", not "}": unreadable, not a fault.
        bytes memory item = _frame(h, h.length - 1, abi.encodePacked(bytes1("}"), _arrays()));
        _expectMalformed(0);
        check.faultOf(item, 0, 0);
    }

    function test_faults_are_reported_in_order() public view {
        _assertFault(EpisodeFixtures.item(OF_ROUND_1), 0, 0, EpisodeCheck.Fault.WrongRound, "round 1 on round 0");
        _assertFault(EpisodeFixtures.item(OF_SHARD_1), 0, 0, EpisodeCheck.Fault.WrongShard, "shard 1 on shard 0");
        _assertFault(EpisodeFixtures.item(OF_SHARD_1), 1, 1, EpisodeCheck.Fault.WrongRound, "round before shard");
        _assertFault(EpisodeFixtures.item(SEEDS_OFF), 0, 0, EpisodeCheck.Fault.WrongSeeds, "env seed off");
        // Round 1 and shard 1 with the seeds of (round 0, shard 0): each check shows in its turn.
        bytes memory h = _replace(_header(HONEST), '"round":0', '"round":1');
        bytes memory item = _episode(_replace(h, '"shard":0', '"shard":1'));
        _assertFault(item, 0, 0, EpisodeCheck.Fault.WrongRound, "round first");
        _assertFault(item, 1, 0, EpisodeCheck.Fault.WrongShard, "then shard");
        _assertFault(item, 1, 1, EpisodeCheck.Fault.WrongSeeds, "then seeds");
    }

    function test_a_wrong_sample_seed_alone_is_wrong_seeds() public view {
        bytes memory h = _replace(_header(HONEST), ":985216367885325471,", ":985216367885325472,");
        _assertFault(_episode(h), 0, 0, EpisodeCheck.Fault.WrongSeeds, "sample seed off by one");
    }

    function test_an_unreadable_header_reverts_instead_of_a_fault() public {
        bytes memory h = _replace(_header(HONEST), '"round":0', '"round":-1');
        bytes memory item = _episode(h);
        _expectMalformed(_at(h, "-1"));
        check.faultOf(item, 0, 0);
    }

    function test_text_inside_a_string_is_never_read_as_a_field() public view {
        // env_id 'x","round":9,"y":"' as json.dumps writes it: an honest node may be given any env id.
        bytes memory h = _replace(_header(HONEST), '"CartPole-v1"', '"x\\",\\"round\\":9,\\"y\\":\\""');
        _assertFault(_episode(h), 0, 0, EpisodeCheck.Fault.None, "escaped quotes skipped");
        assertEq(check.parseHeader(h).round, 0, "round from its own key");
        // An escaped backslash right before the closing quote ends the string.
        h = _replace(_header(HONEST), '"CartPole-v1"', '"a\\\\"');
        _assertFault(_episode(h), 0, 0, EpisodeCheck.Fault.None, "escaped backslash");
    }
}

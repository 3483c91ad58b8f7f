// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title EpisodeCheck
/// @notice The faults of one sampler episode that the chain can establish by itself, from the
///         episode's canonical bytes (workers/rl/episode.py `encode_episode`, version 1, or version 2
///         for image observations and snapshots: same framing, more header keys, more after it):
///         b"DRLE", uint8 version, uint32 LE header length, canonical JSON header (sorted keys,
///         "," and ":" separators, ASCII), then the arrays. Only the header is read.
/// @dev Sound in both directions: a fault is only reported for a field the parser read, and an
///      honest encoder never produces it; anything the parser does not understand reverts
///      (`MalformedEpisode`) instead of being called a fault. See SPECIFICATION.md, "Disputes".
library EpisodeCheck {
    bytes4 internal constant MAGIC = "DRLE";
    uint8 internal constant VERSION = 1;
    uint8 internal constant IMAGE_VERSION = 2;
    /// @dev workers/rl/rollout.py SEED_DOMAIN.
    bytes internal constant SEED_DOMAIN = "decentrl.rollout.v1";
    uint256 private constant MAX_DIGITS = 77; // keeps every parsed integer below 2**256

    /// @notice What is provably wrong with an episode (None: nothing the chain can show).
    enum Fault {
        None,
        BadEncoding, // not a version-1 or -2 episode encoding, or its header runs past the item
        WrongRound, // the header names another round than the one it was submitted for
        WrongShard, // the header names another shard than the submitter's slot
        WrongSeeds // env_seed / sample_seed are not derive_seeds(task_seed, round, shard, index)
    }

    /// @notice The header fields the checks use.
    struct Header {
        uint256 envSeed;
        uint256 index;
        uint256 round;
        uint256 sampleSeed;
        uint256 shard;
        uint256 taskSeed;
    }

    error MalformedEpisode(uint256 offset);

    /// @notice The first fault of `item` as an episode of `round` on shard `shard`.
    function faultOf(bytes calldata item, uint256 round, uint256 shard) internal pure returns (Fault) {
        if (item.length < 9 || bytes4(item[0:4]) != MAGIC) return Fault.BadEncoding;
        if (uint8(item[4]) != VERSION && uint8(item[4]) != IMAGE_VERSION) return Fault.BadEncoding;
        uint256 hlen = uint256(uint8(item[5])) | uint256(uint8(item[6])) << 8 | uint256(uint8(item[7])) << 16
            | uint256(uint8(item[8])) << 24;
        if (9 + hlen > item.length) return Fault.BadEncoding;
        Header memory h = parseHeader(item[9:9 + hlen]);
        if (h.round != round) return Fault.WrongRound;
        if (h.shard != shard) return Fault.WrongShard;
        (uint256 envSeed, uint256 sampleSeed) = deriveSeeds(h.taskSeed, h.round, h.shard, h.index);
        if (h.envSeed != envSeed || h.sampleSeed != sampleSeed) return Fault.WrongSeeds;
        return Fault.None;
    }

    /// @notice workers/rl/rollout.py `derive_seeds`: h = keccak256(SEED_DOMAIN ++ four uint256);
    ///         env_seed = uint32(h[0:4]); sample_seed = uint64(h[4:12]) >> 1.
    function deriveSeeds(uint256 taskSeed, uint256 round, uint256 shard, uint256 index)
        internal
        pure
        returns (uint256 envSeed, uint256 sampleSeed)
    {
        bytes32 h = keccak256(abi.encodePacked(SEED_DOMAIN, taskSeed, round, shard, index));
        envSeed = uint256(h) >> 224;
        sampleSeed = (uint256(h) >> 160 & type(uint64).max) >> 1;
    }

    /// @notice Reads the integer fields of a flat JSON object of string and non-negative integer
    ///         values; reverts `MalformedEpisode` on anything else or on a missing field.
    function parseHeader(bytes calldata json) internal pure returns (Header memory h) {
        uint256 n = json.length;
        if (n < 2 || json[0] != "{" || json[n - 1] != "}") revert MalformedEpisode(0);
        uint256 seen = 0;
        uint256 i = 1;
        while (true) {
            // key: a quoted run without escapes
            if (json[i] != '"') revert MalformedEpisode(i);
            uint256 keyStart = ++i;
            while (i < n && json[i] != '"') {
                if (json[i] == "\\") revert MalformedEpisode(i);
                ++i;
            }
            if (i + 1 >= n || json[i + 1] != ":") revert MalformedEpisode(i);
            bytes32 key = keccak256(json[keyStart:i]);
            i += 2;
            if (i >= n) revert MalformedEpisode(i);
            if (json[i] == '"') {
                i = _skipString(json, i);
            } else {
                uint256 value;
                (value, i) = _readUint(json, i);
                seen |= _store(h, key, value);
            }
            if (i >= n) revert MalformedEpisode(i);
            if (json[i] == "}") break;
            if (json[i] != ",") revert MalformedEpisode(i);
            ++i;
        }
        if (i != n - 1 || seen != 0x3f) revert MalformedEpisode(i);
    }

    /// @dev Stores `value` under its field and returns the field's bit in `seen` (0: a field not used).
    function _store(Header memory h, bytes32 key, uint256 value) private pure returns (uint256) {
        if (key == keccak256("env_seed")) {
            h.envSeed = value;
            return 1;
        }
        if (key == keccak256("index")) {
            h.index = value;
            return 2;
        }
        if (key == keccak256("round")) {
            h.round = value;
            return 4;
        }
        if (key == keccak256("sample_seed")) {
            h.sampleSeed = value;
            return 8;
        }
        if (key == keccak256("shard")) {
            h.shard = value;
            return 16;
        }
        if (key == keccak256("task_seed")) {
            h.taskSeed = value;
            return 32;
        }
        return 0;
    }

    /// @dev Returns the offset after the closing quote of the string opening at `i`.
    function _skipString(bytes calldata json, uint256 i) private pure returns (uint256) {
        uint256 n = json.length;
        ++i;
        while (i < n && json[i] != '"') i += json[i] == "\\" ? 2 : 1;
        if (i >= n) revert MalformedEpisode(i);
        return i + 1;
    }

    function _readUint(bytes calldata json, uint256 i) private pure returns (uint256 value, uint256 end) {
        uint256 n = json.length;
        end = i;
        while (end < n && json[end] >= "0" && json[end] <= "9") {
            // Before the digit is added: a 78th digit could overflow, a checked Panic, not MalformedEpisode.
            if (end - i == MAX_DIGITS) revert MalformedEpisode(i);
            value = value * 10 + (uint8(json[end]) - 48);
            ++end;
        }
        if (end == i) revert MalformedEpisode(i);
    }
}

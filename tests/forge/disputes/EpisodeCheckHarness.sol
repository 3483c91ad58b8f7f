// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {EpisodeCheck} from "../../../contracts/libraries/EpisodeCheck.sol";

/// @notice Exposes EpisodeCheck's internal functions so that tests can call them with crafted calldata.
contract EpisodeCheckHarness {
    function faultOf(bytes calldata item, uint256 round, uint256 shard) external pure returns (EpisodeCheck.Fault) {
        return EpisodeCheck.faultOf(item, round, shard);
    }

    function parseHeader(bytes calldata json) external pure returns (EpisodeCheck.Header memory) {
        return EpisodeCheck.parseHeader(json);
    }

    function deriveSeeds(uint256 taskSeed, uint256 round, uint256 shard, uint256 index)
        external
        pure
        returns (uint256 envSeed, uint256 sampleSeed)
    {
        return EpisodeCheck.deriveSeeds(taskSeed, round, shard, index);
    }
}

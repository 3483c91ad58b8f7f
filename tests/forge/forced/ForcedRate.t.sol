// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {TestBase} from "../base/Vm.sol";
import {ForcedErrors} from "../../../contracts/libraries/ForcedErrors.sol";

/// @notice SPECIFICATION.md 5.5.3: a draw is forced at the governed rate. Over many secrets the share
///         of forced draws is forcedErrorBps / 10,000 (within a few standard deviations), for any seed.
contract ForcedRateTest is TestBase {
    uint256 private constant DRAWS = 2000;

    /// @dev Integer square root (floor).
    function _sqrt(uint256 x) private pure returns (uint256 y) {
        if (x == 0) return 0;
        y = x;
        uint256 z = (x + 1) / 2;
        while (z < y) {
            y = z;
            z = (x / z + z) / 2;
        }
    }

    function testFuzz_forcedShareIsTheRate(bytes32 seed, uint256 bps, uint256 salt) public pure {
        bps = bps % 5001;
        uint256 forced;
        for (uint256 i = 0; i < DRAWS; ++i) {
            bytes32 secret = keccak256(abi.encode(salt, i));
            if (ForcedErrors.isForced(secret, seed, bps)) ++forced;
        }
        // Binomial(DRAWS, p): mean DRAWS * p, variance DRAWS * p * (1 - p); allow 5 sigma, and 5 more
        // for small rates, where the count is nearly Poisson with a mean of a few.
        uint256 mean = DRAWS * bps / 10_000;
        uint256 sigma = _sqrt(DRAWS * bps * (10_000 - bps) / 1e8) + 1;
        uint256 slack = 5 * sigma + 5;
        assertLe(forced, mean + slack, "not forced more often than the rate");
        assertGe(forced + slack, mean, "not forced less often than the rate");
        if (bps == 0) assertEq(forced, 0, "rate 0: never forced");
    }

    function test_theDefaultRateIsAFairCoin() public pure {
        uint256 forced;
        bytes32 seed = keccak256("a round seed");
        for (uint256 i = 0; i < 10_000; ++i) {
            if (ForcedErrors.isForced(keccak256(abi.encode(i)), seed, 5000)) ++forced;
        }
        // 10,000 fair coins: 5,000 +- 50 (one sigma); 4 sigma either way.
        assertGe(forced, 4800, "about half forced (low)");
        assertLe(forced, 5200, "about half forced (high)");
    }

    function testFuzz_isForcedIsTheSpecifiedFormula(bytes32 secret, bytes32 seed, uint256 bps) public pure {
        bps = bps % 10_001;
        bool expected = uint256(keccak256(abi.encode(secret, seed))) % 10_000 < bps;
        assertTrue(ForcedErrors.isForced(secret, seed, bps) == expected, "keccak(secret, seed) % 10000 < bps");
    }

    function testFuzz_drawCommitmentIsTheSpecifiedHash(uint256 taskId, uint256 round, address node, bytes32 secret)
        public
        pure
    {
        assertEq(
            ForcedErrors.drawCommitment(taskId, round, node, secret),
            keccak256(abi.encode(taskId, round, node, secret)),
            "keccak256(abi.encode(taskId, round, node, secret))"
        );
    }

    function testFuzz_splitKeepsPlantAnswersOfRevealedWorkNotAccepted(uint256 vote, uint64 revealed) public pure {
        (uint64 accept, uint64 plant) = ForcedErrors.split(vote, revealed);
        assertEq(accept, uint64(vote) & revealed, "accept bits of revealed work");
        assertEq(plant, uint64(vote >> 64) & revealed & ~accept, "plant bits of revealed work not accepted");
        assertEq(accept & plant, 0, "never both");
        assertEq(ForcedErrors.encode(accept, plant), uint256(accept) | (uint256(plant) << 64), "encoding");
    }
}

// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IStakeManager} from "../interfaces/IStakeManager.sol";
import {IReputation} from "../interfaces/IReputation.sol";
import {Role} from "./Types.sol";

/// @title Draws
/// @notice Pieces of the validator draw shared by the TaskRegistry (task validators) and the
///         DisputeManager (dispute jurors): the walk's stride and the eligibility test
///         (SPECIFICATION.md 3 and 5.3).
library Draws {
    /// @notice A stride in [1, n] with gcd(stride, n) == 1, so a walk `start + i * stride (mod n)`
    ///         meets n distinct members; the search is short because coprimes are dense.
    function coprimeStride(uint256 rand, uint256 n) internal pure returns (uint256 stride) {
        stride = 1 + rand % n;
        while (_gcd(stride, n) != 1) stride = stride % n + 1;
    }

    /// @notice Whether `node` may take a new assignment in `role`: not paused, unlocked stake of at
    ///         least the minimum, reputation at least the threshold.
    function eligible(IStakeManager stakes, IReputation reputation, address node, Role role)
        internal
        view
        returns (bool)
    {
        return !stakes.isNodePaused(node) && stakes.availableStake(node, role) >= stakes.minStake(role)
            && reputation.scoreOf(node) >= reputation.threshold();
    }

    function _gcd(uint256 a, uint256 b) private pure returns (uint256) {
        while (b != 0) (a, b) = (b, a % b);
        return a;
    }
}

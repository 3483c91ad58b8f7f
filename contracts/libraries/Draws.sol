// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IStakeManager} from "../interfaces/IStakeManager.sol";
import {IReputation} from "../interfaces/IReputation.sol";
import {ITaskRegistry} from "../interfaces/ITaskRegistry.sol";
import {Role} from "./Types.sol";

/// @title Draws
/// @notice The rules every random draw of validators follows, written once for the TaskRegistry
///         (a task's validators) and the DisputeManager (a dispute's jurors): the walk over the
///         draw list and who is eligible (SPECIFICATION.md 3 and 5.3).
library Draws {
    /// @notice Draw-list entries a draw examines per vacant slot or seat before it re-arms (tasks)
    ///         or, at its last draw, ends (juries).
    uint256 internal constant ATTEMPTS_PER_VACANCY = 4;

    /// @notice A walk over the first `size` entries of StakeManager's draw list from a random start
    ///         with a random stride coprime to `size`: its `attempts` steps meet distinct entries.
    struct Walk {
        uint256 start;
        uint256 stride;
        uint256 size;
        uint256 attempts;
        uint256 step;
    }

    /// @notice Why a node may not take a new assignment (None: it may).
    enum Bar {
        None,
        Paused,
        Stake,
        Reputation
    }

    /// @notice A walk seeded by `rand` that examines up to `attemptsPerSeat` entries per seat to fill,
    ///         never more than the list holds; `wholeList` says whether it examines every entry.
    function walk(uint256 rand, uint256 size, uint256 seats, uint256 attemptsPerSeat)
        internal
        pure
        returns (Walk memory w, bool wholeList)
    {
        // The seed is a later block's hash (SPECIFICATION.md 5.3 states its bias limits).
        // slither-disable-next-line weak-prng
        w.start = rand % size;
        w.stride = coprimeStride(rand >> 128, size);
        w.size = size;
        w.attempts = seats * attemptsPerSeat;
        if (w.attempts >= size) (w.attempts, wholeList) = (size, true);
    }

    /// @notice The walk's next candidate; `more` is false once its attempts are spent.
    function next(Walk memory w, IStakeManager stakes) internal view returns (bool more, address candidate) {
        if (w.step == w.attempts) return (false, address(0));
        // slither-disable-next-line weak-prng
        candidate = stakes.drawCandidate((w.start + w.step * w.stride) % w.size);
        // step < attempts <= size: no overflow.
        unchecked {
            w.step += 1;
        }
        return (true, candidate);
    }

    /// @notice A stride in [1, n] with gcd(stride, n) == 1, so a walk `start + i * stride (mod n)`
    ///         meets n distinct members; the search is short because coprimes are dense.
    function coprimeStride(uint256 rand, uint256 n) internal pure returns (uint256 stride) {
        stride = 1 + rand % n;
        while (_gcd(stride, n) != 1) stride = stride % n + 1;
    }

    /// @notice Whether `node` may take a new assignment in `role`: not paused, unlocked stake of at
    ///         least the minimum, reputation at least the threshold (checked in that order).
    function bar(IStakeManager stakes, IReputation reputation, address node, Role role)
        internal
        view
        returns (Bar why, uint256 have, uint256 need)
    {
        if (stakes.isNodePaused(node)) return (Bar.Paused, 0, 0);
        (have, need) = (stakes.availableStake(node, role), stakes.minStake(role));
        if (have < need) return (Bar.Stake, have, need);
        (have, need) = (reputation.scoreOf(node), reputation.threshold());
        if (have < need) return (Bar.Reputation, have, need);
        return (Bar.None, 0, 0);
    }

    function eligible(IStakeManager stakes, IReputation reputation, address node, Role role)
        internal
        view
        returns (bool)
    {
        (Bar why,,) = bar(stakes, reputation, node, role);
        return why == Bar.None;
    }

    /// @notice Reverts with the reason `node` may not take a new assignment in `role`, if any.
    function requireEligible(IStakeManager stakes, IReputation reputation, address node, Role role) internal view {
        (Bar why, uint256 have, uint256 need) = bar(stakes, reputation, node, role);
        if (why == Bar.Paused) revert ITaskRegistry.NodePaused(node);
        if (why == Bar.Stake) revert ITaskRegistry.InsufficientStake(node, role, have, need);
        if (why == Bar.Reputation) revert ITaskRegistry.ReputationTooLow(node, have, need);
    }

    function _gcd(uint256 a, uint256 b) private pure returns (uint256) {
        while (b != 0) (a, b) = (b, a % b);
        return a;
    }
}

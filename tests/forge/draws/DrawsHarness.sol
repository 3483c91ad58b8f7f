// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Draws} from "../../../contracts/libraries/Draws.sol";
import {IStakeManager} from "../../../contracts/interfaces/IStakeManager.sol";
import {IReputation} from "../../../contracts/interfaces/IReputation.sol";
import {Role} from "../../../contracts/libraries/Types.sol";

/// @notice A draw list of `size` entries whose entry i is address(i + 1); reading past the end
///         reverts, as StakeManager's array does.
contract DrawListStub {
    uint256 public immutable size;

    constructor(uint256 size_) {
        size = size_;
    }

    function drawCandidate(uint256 index) external view returns (address) {
        require(index < size, "past the draw list");
        return address(uint160(index + 1));
    }
}

/// @notice Draws' internal functions as external calls (so that tests can expect their reverts).
contract DrawsHarness {
    /// @notice Every candidate of one walk, in order; `exhausted` is whether `next` then says no more
    ///         (twice: it stays exhausted).
    function walkAll(uint256 rand, uint256 seats, uint256 attemptsPerSeat, DrawListStub list)
        external
        view
        returns (address[] memory met, bool wholeList, bool exhausted)
    {
        Draws.Walk memory w;
        (w, wholeList) = Draws.walk(rand, list.size(), seats, attemptsPerSeat);
        met = new address[](w.attempts);
        for (uint256 i = 0; i < met.length; ++i) {
            (bool more, address candidate) = Draws.next(w, IStakeManager(address(list)));
            require(more, "ran out before its attempts");
            met[i] = candidate;
        }
        (bool again, address none) = Draws.next(w, IStakeManager(address(list)));
        (bool still,) = Draws.next(w, IStakeManager(address(list)));
        exhausted = !again && !still && none == address(0);
    }

    function coprimeStride(uint256 rand, uint256 n) external pure returns (uint256) {
        return Draws.coprimeStride(rand, n);
    }

    function bar(IStakeManager stakes, IReputation reputation, address node, Role role)
        external
        view
        returns (Draws.Bar, uint256, uint256)
    {
        return Draws.bar(stakes, reputation, node, role);
    }

    function eligible(IStakeManager stakes, IReputation reputation, address node, Role role)
        external
        view
        returns (bool)
    {
        return Draws.eligible(stakes, reputation, node, role);
    }

    function requireEligible(IStakeManager stakes, IReputation reputation, address node, Role role) external view {
        Draws.requireEligible(stakes, reputation, node, role);
    }
}

// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {ITaskRegistry} from "../interfaces/ITaskRegistry.sol";
import {TaskStorage, AggregateVotes, Ballot} from "./TaskStorage.sol";

/// @title Votes
/// @notice A validator slot's vote in a round, whichever way it arrived: its own `attest`
///         transaction or a BLS aggregate attestation that covered its slot.
library Votes {
    /// @notice The vote of validator slot `slot` in `round` (voted false when it has not voted).
    function get(TaskStorage storage s, uint256 taskId, uint256 round, uint256 slot)
        internal
        view
        returns (ITaskRegistry.Attestation memory a)
    {
        a = s.attestations[taskId][round][slot];
        if (a.voted) return a;
        AggregateVotes storage agg = s.aggregates[taskId][round];
        uint256 bit = 1 << slot;
        if (agg.votedMask & bit == 0) return a;
        // The slot is in exactly one ballot: an aggregate never covers a slot that already voted.
        for (uint256 i = 0; i < agg.count; ++i) {
            Ballot storage b = agg.ballots[i];
            if (b.signers & bit != 0) return ITaskRegistry.Attestation(true, b.acceptBitmap, b.plantBitmap);
        }
    }

    /// @notice Whether validator slot `slot` has voted in `round` (either way).
    function voted(TaskStorage storage s, uint256 taskId, uint256 round, uint256 slot) internal view returns (bool) {
        return s.attestations[taskId][round][slot].voted || (s.aggregates[taskId][round].votedMask >> slot) & 1 == 1;
    }
}

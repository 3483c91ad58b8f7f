// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title Payouts
/// @notice Integer split of a bounty into role pools, rounds and slots. Every division rounds down;
///         the remainders ("dust") stay in escrow and return to the requester at settlement.
library Payouts {
    uint256 internal constant BPS = 10_000;

    /// @notice What one round pays to one role, all payees together.
    function roundPool(uint256 bounty, uint256 shareBps, uint256 numRounds) internal pure returns (uint256) {
        return (bounty * shareBps / BPS) / numRounds;
    }

    /// @notice Equal share of `pool` for each of `payees` slots (0 when there are none).
    function perPayee(uint256 pool, uint256 payees) internal pure returns (uint256) {
        return payees == 0 ? 0 : pool / payees;
    }

    /// @notice The smallest bounty of a task (SPECIFICATION.md 5.2): `perSlotRound` for each slot
    ///         (samplers, the trainer, validators) in each round.
    function minBounty(uint256 perSlotRound, uint256 numSamplers, uint256 numValidators, uint256 numRounds)
        internal
        pure
        returns (uint256)
    {
        return perSlotRound * numRounds * (numSamplers + 1 + numValidators);
    }

    /// @notice Smallest count that is at least two thirds of `n`.
    function quorum(uint256 n) internal pure returns (uint256) {
        return (2 * n + 2) / 3;
    }
}

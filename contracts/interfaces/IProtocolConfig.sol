// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title IProtocolConfig
/// @notice The protocol's governable parameters in one place (SPECIFICATION.md 9): the role shares
///         of a bounty, the slash rate, the treasury and the forced-error rate that the TaskRegistry
///         applies, and the dispute window, vote window and minimum bond that the DisputeManager
///         applies. Each setter is bounded by constants here, so governance can tune the protocol
///         but never break it.
interface IProtocolConfig {
    error ZeroAddress();
    error SharesOutOfBounds(uint256 trainerBps, uint256 samplerBps, uint256 validatorBps);
    error SlashBpsOutOfBounds(uint256 bps, uint256 max);
    error WindowOutOfBounds(uint256 window, uint256 min, uint256 max);
    error BondOutOfBounds(uint256 bond, uint256 min, uint256 max);
    error ForcedErrorBpsOutOfBounds(uint256 bps, uint256 max);
    error MinBountyOutOfBounds(uint256 perSlotRound, uint256 max);

    event RoleSharesSet(uint256 trainerBps, uint256 samplerBps, uint256 validatorBps);
    event SlashBpsSet(uint256 bps);
    event TreasurySet(address indexed treasury);
    event DisputeWindowSet(uint256 window);
    event VoteWindowSet(uint256 window);
    event MinBondSet(uint256 bond);
    event ForcedErrorBpsSet(uint256 bps);
    event MinBountyPerSlotRoundSet(uint256 perSlotRound);

    /// @notice Sets how a bounty is split between the roles (basis points, summing to 10,000).
    ///         Tasks snapshot the shares at creation: a change applies to tasks created after it.
    function setRoleShares(uint256 trainerBps, uint256 samplerBps, uint256 validatorBps) external;

    /// @notice Sets the part of an assignment's locked stake slashed for a rejection, a vote
    ///         against the quorum or a withheld reveal (at most MAX_SLASH_BPS).
    function setSlashBps(uint256 bps) external;

    /// @notice Sets where slashed stake (and a dismissed dispute's bond) goes.
    function setTreasury(address treasury) external;

    /// @notice Sets how long after a round's verdicts they may be disputed (and its pay is held).
    function setDisputeWindow(uint256 window) external;

    /// @notice Sets the length of a dispute's commit window and of its reveal window.
    function setVoteWindow(uint256 window) external;

    /// @notice Sets the smallest bond that opens a dispute.
    function setMinBond(uint256 bond) external;

    /// @notice Sets the forced-error rate: a worker's opened draw is forced (it must plant the known
    ///         error) when its draw value modulo 10,000 is below this (at most MAX_FORCED_ERROR_BPS,
    ///         one half: above it, answering "plant" everywhere without checking would pay).
    ///         Draws opened after the change use it, so change it between a task's rounds with care:
    ///         a worker decides whether to plant in its work phase, before it opens its draw.
    function setForcedErrorBps(uint256 bps) external;

    /// @notice Sets the smallest bounty a task may escrow per slot-round, in token wei (at most
    ///         MAX_MIN_BOUNTY_PER_SLOT_ROUND; 0 turns the minimum off). A task's minimum is this times
    ///         numRounds x (numSamplers + 1 + numValidators), read at creation (SPECIFICATION.md 5.2).
    function setMinBountyPerSlotRound(uint256 perSlotRound) external;

    /// @notice The role shares in basis points, by Role (Sampler, Trainer, Validator).
    function roleShares() external view returns (uint16[3] memory);

    function slashBps() external view returns (uint256);

    function treasury() external view returns (address);

    /// @notice `slashBps` and `treasury` in one call (what every slash needs).
    function slashing() external view returns (uint256 bps, address treasury);

    function disputeWindow() external view returns (uint256);

    function voteWindow() external view returns (uint256);

    function minBond() external view returns (uint256);

    /// @notice The forced-error rate in basis points (SPECIFICATION.md 5.5.3; default 5,000).
    function forcedErrorBps() external view returns (uint256);

    /// @notice The minimum bounty per slot-round in token wei (SPECIFICATION.md 5.2; default 0.01 DRL).
    function minBountyPerSlotRound() external view returns (uint256);
}

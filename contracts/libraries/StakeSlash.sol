// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IStakeManager} from "../interfaces/IStakeManager.sol";
import {Role} from "./Types.sol";

/// @title StakeSlash
/// @notice How the dispute side slashes a party or a juror.
library StakeSlash {
    /// @notice Slashes up to `wanted` of `node`'s unlocked stake, then its unbonding stake, to
    ///         `recipient`: stake on its way out stays slashable (a party cannot dodge an upheld
    ///         dispute by unstaking once the task is over), and stake locked for other assignments
    ///         stays whole, so their unlocks never fail (StakeManager.slash never takes it;
    ///         SPECIFICATION.md, "Disputes", limits). Returns what was taken.
    function take(IStakeManager stakes, address node, Role role, uint256 wanted, address recipient)
        internal
        returns (uint256)
    {
        IStakeManager.StakeInfo memory s = stakes.stakeOf(node, role);
        if (wanted == 0 || s.staked - s.locked + s.unbonding == 0) return 0;
        return stakes.slash(node, role, wanted, recipient);
    }
}

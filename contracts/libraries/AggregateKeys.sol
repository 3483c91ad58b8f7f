// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IStakeManager} from "../interfaces/IStakeManager.sol";
import {BN254} from "./BN254.sol";
import {TaskStorage, AggregateKey} from "./TaskStorage.sol";

/// @title AggregateKeys
/// @notice Keeps each task's aggregate BLS key (the sum of its BLS-keyed validator slot holders' G1
///         keys, SPECIFICATION.md 5.5.1) as validator slots change hands.
library AggregateKeys {
    /// @notice Adds `node`'s G1 key to the task's aggregate key and `slot` to its mask, if the node
    ///         has a registered key; called when `node` takes validator slot `slot`.
    function joined(TaskStorage storage s, IStakeManager stakes, uint256 taskId, uint256 slot, address node)
        internal
    {
        uint256[2] memory key = stakes.blsKeyG1Of(node);
        if ((key[0] | key[1]) == 0) return;
        AggregateKey storage k = s.aggregateKeys[taskId];
        k.apk = BN254.add(k.apk, key);
        // slot < numValidators <= 64.
        k.mask |= uint64(1 << slot);
    }

    /// @notice Takes `node`'s G1 key off the task's aggregate key and `slot` off its mask, if the
    ///         slot is in the mask; called when `node` leaves validator slot `slot`. Keys are
    ///         write-once, so this is the key `joined` added.
    function left(TaskStorage storage s, IStakeManager stakes, uint256 taskId, uint256 slot, address node) internal {
        AggregateKey storage k = s.aggregateKeys[taskId];
        uint64 bit = uint64(1 << slot);
        if (k.mask & bit == 0) return;
        k.apk = BN254.add(k.apk, BN254.negate(stakes.blsKeyG1Of(node)));
        k.mask &= ~bit;
    }
}

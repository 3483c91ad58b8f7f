// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IExtsload} from "../interfaces/IExtsload.sol";

/// @title Extsload
/// @notice IExtsload for a core contract: any slot can be read, as any slot can by an RPC call.
abstract contract Extsload is IExtsload {
    /// @inheritdoc IExtsload
    function extsload(bytes32 slot) external view returns (bytes32 value) {
        assembly ("memory-safe") {
            value := sload(slot)
        }
    }

    /// @inheritdoc IExtsload
    function extsload(bytes32 startSlot, uint256 count) external view returns (bytes32[] memory values) {
        values = new bytes32[](count);
        for (uint256 i = 0; i < count; ++i) {
            bytes32 value;
            assembly ("memory-safe") {
                value := sload(add(startSlot, i))
            }
            values[i] = value;
        }
    }
}

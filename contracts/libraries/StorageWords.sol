// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IExtsload} from "../interfaces/IExtsload.sol";

/// @title StorageWords
/// @notice Slot arithmetic of Solidity's storage layout and the decoding of a storage string, for
///         readers of another contract's storage over `extsload` (TaskState, DisputeState).
library StorageWords {
    /// @notice The slot of `mapping[key]` for a mapping at `at` (value-type keys are padded to a word).
    function mappingSlot(uint256 key, bytes32 at) internal pure returns (bytes32) {
        return keccak256(abi.encode(key, at));
    }

    /// @notice The slot `words` after `at` (a struct's later field, a namespace's later member).
    function offset(bytes32 at, uint256 words) internal pure returns (bytes32) {
        return bytes32(uint256(at) + words);
    }

    /// @notice The string stored at `at`: under 32 bytes it shares the slot with its length
    ///         (length * 2 in the lowest byte), otherwise the slot holds length * 2 + 1 and the
    ///         bytes start at keccak256(at).
    function readString(IExtsload target, bytes32 at) internal view returns (string memory) {
        uint256 word = uint256(target.extsload(at));
        if (word & 1 == 0) {
            bytes memory short_ = new bytes((word & 0xff) >> 1);
            if (short_.length > 0) {
                assembly ("memory-safe") {
                    mstore(add(short_, 32), and(word, not(0xff)))
                }
            }
            return string(short_);
        }
        bytes memory long = new bytes(word >> 1);
        // A bytes array of length n is given ceil(n / 32) whole words of memory: each stored word fits.
        bytes32[] memory words = target.extsload(keccak256(abi.encode(at)), (long.length + 31) / 32);
        for (uint256 i = 0; i < words.length; ++i) {
            bytes32 w = words[i];
            assembly ("memory-safe") {
                mstore(add(add(long, 32), mul(i, 32)), w)
            }
        }
        return string(long);
    }
}

// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {RegistryFixture} from "./RegistryFixture.sol";
import {BlsVectors} from "./BlsVectors.sol";
import {BN254} from "../../../contracts/libraries/BN254.sol";

/// @notice RegistryFixture with BLS keys: validator i holds vector key i (secret BASE·2^i), so any
///         set of signers has its aggregate G2 key in BlsVectors.apk2(keyMask). Signatures are
///         made here with ecMul, exactly as workers/crypto/bls.py makes them.
abstract contract BlsFixture is RegistryFixture {
    mapping(address node => uint256) internal keyIndex;

    function _keys(uint256 i)
        internal
        view
        returns (uint256[4] memory pk2, uint256[2] memory pk1)
    {
        pk2 = BlsVectors.apk2(1 << i);
        pk1 = BN254.mul(BN254.g1(), BlsVectors.secret(i));
    }

    function _sign(uint256 i, bytes32 message) internal view returns (uint256[2] memory) {
        return BN254.mul(BN254.hashToG1(message), BlsVectors.secret(i));
    }

    /// @dev Registers vector key `i` for `node` with a valid proof of possession.
    function _registerKey(address node, uint256 i) internal {
        (uint256[4] memory pk2, uint256[2] memory pk1) = _keys(i);
        uint256[2] memory pop = _sign(i, stakes.blsPopMessage(node, pk2, pk1));
        vm.prank(node);
        stakes.registerBlsKey(pk2, pk1, pop);
        keyIndex[node] = i;
    }

    function _registerValidatorKeys() internal {
        for (uint256 i = 0; i < validators.length; ++i) {
            _registerKey(validators[i], i);
        }
    }

    /// @dev The aggregate signature and G2 key of the holders of validator slots `slotMask` on
    ///      `bitmap` for the task's current round.
    function _aggregate(uint256 taskId, uint256 bitmap, uint256 slotMask)
        internal
        view
        returns (uint256[2] memory sigma, uint256[4] memory apk2)
    {
        bytes32 message = stateView.attestationMessage(taskId, _task(taskId).round, bitmap);
        uint256 keyMask;
        for (uint256 v = 0; v < 64; ++v) {
            if ((slotMask >> v) & 1 == 0) continue;
            uint256 i = keyIndex[_validatorAt(taskId, v)];
            keyMask |= 1 << i;
            sigma = BN254.add(sigma, _sign(i, message));
        }
        apk2 = BlsVectors.apk2(keyMask);
    }

    /// @dev Each signer's vote salt, in slot order (what an aggregate carries).
    function _saltsOf(uint256 taskId, uint256 slotMask) internal view returns (bytes32[] memory salts) {
        uint256 round = _task(taskId).round;
        uint256 n;
        salts = new bytes32[](64);
        for (uint256 v = 0; v < 64; ++v) {
            if ((slotMask >> v) & 1 == 1) salts[n++] = _voteSalt(_validatorAt(taskId, v), round);
        }
        assembly {
            mstore(salts, n)
        }
    }

    /// @dev Seals `bitmap` for the holders of slots `slotMask` (Attest phase).
    function _sealSlots(uint256 taskId, uint256 bitmap, uint256 slotMask) internal {
        for (uint256 v = 0; v < 64; ++v) {
            if ((slotMask >> v) & 1 == 1) _seal(taskId, _validatorAt(taskId, v), bitmap);
        }
    }

    /// @dev Opens the workers' draws still to open, then the sealed votes of slots `slotMask` for
    ///      `bitmap` with one aggregate (AttestReveal).
    function _attestAggregate(uint256 taskId, uint256 bitmap, uint256 slotMask) internal {
        _openDraws(taskId);
        (uint256[2] memory sigma, uint256[4] memory apk2) = _aggregate(taskId, bitmap, slotMask);
        registry.attestAggregate(taskId, _task(taskId).round, bitmap, slotMask, sigma, apk2, _saltsOf(taskId, slotMask));
    }
}

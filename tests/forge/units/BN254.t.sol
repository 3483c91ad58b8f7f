// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {TestBase} from "../base/Vm.sol";
import {BlsVectors} from "../base/BlsVectors.sol";
import {BN254} from "../../../contracts/libraries/BN254.sol";

/// @dev External entry points so that reverts of the internal library can be expected.
contract BN254Caller {
    function add(uint256[2] memory a, uint256[2] memory b) external view returns (uint256[2] memory) {
        return BN254.add(a, b);
    }

    function mul(uint256[2] memory a, uint256 s) external view returns (uint256[2] memory) {
        return BN254.mul(a, s);
    }
}

/// @notice BN254 against py-ecc's vectors (tools/gen_bls_vectors.py) and its negative cases.
contract BN254Test is TestBase {
    BN254Caller private caller = new BN254Caller();

    function _pk1(uint256 mask) private view returns (uint256[2] memory) {
        return BN254.mul(BN254.g1(), mulmod(BlsVectors.BASE, mask, BN254.N));
    }

    function _sig(uint256 mask, bytes32 message) private view returns (uint256[2] memory) {
        return BN254.mul(BN254.hashToG1(message), mulmod(BlsVectors.BASE, mask, BN254.N));
    }

    function test_hashToG1MatchesPython() public view {
        for (uint256 i = 0; i < 4; ++i) {
            (bytes32 message, uint256[2] memory expected) = BlsVectors.hashVector(i);
            uint256[2] memory point = BN254.hashToG1(message);
            assertEq(point[0], expected[0], "x");
            assertEq(point[1], expected[1], "y");
            assertTrue(BN254.isOnCurveG1(point), "on curve");
        }
    }

    function test_verifiesPythonSignature() public view {
        (bytes32 message,) = BlsVectors.hashVector(0);
        uint256[2] memory pk1 = BlsVectors.pythonKeyG1();
        uint256[2] memory onChain = _pk1(1);
        assertEq(pk1[0], onChain[0], "G1 key x");
        assertEq(pk1[1], onChain[1], "G1 key y");
        assertTrue(BN254.verify(BlsVectors.pythonSignature(), pk1, BlsVectors.apk2(1), message), "valid");
    }

    function testFuzz_aggregateOfAnySignerSetVerifies(uint256 mask, bytes32 message) public view {
        mask = 1 + mask % 63;
        uint256[2] memory sigma;
        uint256[2] memory apk1;
        for (uint256 i = 0; i < 6; ++i) {
            if ((mask >> i) & 1 == 0) continue;
            sigma = BN254.add(sigma, _sig(1 << i, message));
            apk1 = BN254.add(apk1, _pk1(1 << i));
        }
        assertTrue(BN254.verify(sigma, apk1, BlsVectors.apk2(mask), message), "aggregate");
    }

    function test_rejectsWrongMessage() public view {
        (bytes32 message,) = BlsVectors.hashVector(0);
        (bytes32 other,) = BlsVectors.hashVector(1);
        assertTrue(!BN254.verify(_sig(3, message), _pk1(3), BlsVectors.apk2(3), other), "wrong message");
    }

    function test_rejectsSignerSetOtherThanTheKeys() public view {
        (bytes32 message,) = BlsVectors.hashVector(0);
        // Keys {0,1} signed; claiming {0,1,2} (G1 and G2 sides consistent) must fail.
        assertTrue(!BN254.verify(_sig(3, message), _pk1(7), BlsVectors.apk2(7), message), "extra signer");
        // Claiming only {0} while {0,1} signed must fail too.
        assertTrue(!BN254.verify(_sig(3, message), _pk1(1), BlsVectors.apk2(1), message), "missing signer");
    }

    function test_rejectsG1KeyNotMatchingG2Key() public view {
        (bytes32 message,) = BlsVectors.hashVector(2);
        // A valid signature for apk2 of {0,1} with a G1 aggregate of {0,2}: the key check fails.
        assertTrue(!BN254.verify(_sig(3, message), _pk1(5), BlsVectors.apk2(3), message), "mismatched G1 key");
    }

    function test_rejectsPointsOffTheCurve() public view {
        (bytes32 message,) = BlsVectors.hashVector(0);
        uint256[2] memory sigma = _sig(1, message);
        uint256[2] memory bad = [sigma[0], sigma[1] + 1];
        assertTrue(!BN254.verify(bad, _pk1(1), BlsVectors.apk2(1), message), "sigma off curve");
        assertTrue(!BN254.verify(sigma, [uint256(1), 3], BlsVectors.apk2(1), message), "pk1 off curve");
        assertTrue(!BN254.verify(sigma, _pk1(1), [uint256(1), 2, 3, 4], message), "pk2 off twist");
    }

    function test_rejectsInfinitySignature() public view {
        (bytes32 message,) = BlsVectors.hashVector(0);
        assertTrue(!BN254.verify([uint256(0), 0], _pk1(1), BlsVectors.apk2(1), message), "infinity");
    }

    function test_isOnCurveG1() public pure {
        assertTrue(BN254.isOnCurveG1([uint256(0), 0]), "infinity");
        assertTrue(BN254.isOnCurveG1(BN254.g1()), "generator");
        assertTrue(!BN254.isOnCurveG1([uint256(1), 3]), "off curve");
        assertTrue(!BN254.isOnCurveG1([BN254.P + 1, 2]), "x not canonical");
        assertTrue(!BN254.isOnCurveG1([uint256(1), BN254.P + 2]), "y not canonical");
    }

    function test_negG2PairsWithG2ToOne() public view {
        // The secret BASE moved across the pairing: e(BASE·g1, -g2) · e(g1, BASE·g2) == 1.
        (bool ok, bool holds) = BN254.pairing2(_pk1(1), BN254.negG2(), BN254.g1(), BlsVectors.apk2(1));
        assertTrue(ok && holds, "e(BASE g1, -g2) e(g1, BASE g2) == 1");
    }

    function test_precompileRejectionsRevert() public {
        vm.expectRevert(abi.encodeWithSelector(BN254.PrecompileFailed.selector, 0x06));
        caller.add([uint256(1), 3], BN254.g1());
        vm.expectRevert(abi.encodeWithSelector(BN254.PrecompileFailed.selector, 0x07));
        caller.mul([uint256(1), 3], 2);
    }
}

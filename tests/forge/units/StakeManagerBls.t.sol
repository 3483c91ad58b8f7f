// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {BlsFixture} from "../base/BlsFixture.sol";
import {BlsVectors} from "../base/BlsVectors.sol";
import {BN254} from "../../../contracts/libraries/BN254.sol";
import {IStakeManager} from "../../../contracts/interfaces/IStakeManager.sol";

/// @notice SPECIFICATION.md 3.1: BLS key registration checks the key and its proof of possession.
contract StakeManagerBlsTest is BlsFixture {
    address private alice;

    function setUp() public override {
        super.setUp();
        alice = validators[0];
    }

    function _register(address node, uint256[4] memory pk2, uint256[2] memory pk1, uint256[2] memory pop) private {
        vm.prank(node);
        stakes.registerBlsKey(pk2, pk1, pop);
    }

    function test_registerStoresBothKeysAndEmits() public {
        (uint256[4] memory pk2, uint256[2] memory pk1) = _keys(2);
        uint256[2] memory pop = _sign(2, stakes.blsPopMessage(alice, pk2, pk1));
        vm.expectEmit(true, true, false, true, address(stakes));
        emit IStakeManager.BlsKeyRegistered(alice, keccak256(abi.encodePacked(pk2)), pk2);
        _register(alice, pk2, pk1, pop);
        (uint256[4] memory stored2, uint256[2] memory stored1) = stakes.blsKeyOf(alice);
        for (uint256 i = 0; i < 4; ++i) assertEq(stored2[i], pk2[i], "G2 key");
        assertEq(stored1[0], pk1[0], "G1 key x");
        assertEq(stored1[1], pk1[1], "G1 key y");
    }

    function test_popMessageBindsDomainChainContractNodeAndKeys() public view {
        (uint256[4] memory pk2, uint256[2] memory pk1) = _keys(0);
        bytes32 expected =
            keccak256(abi.encode(keccak256("decentrl.bls-pop.v1"), block.chainid, address(stakes), alice, pk2, pk1));
        assertEq(stakes.blsPopMessage(alice, pk2, pk1), expected, "message");
    }

    function test_registerRequiresValidator() public {
        (uint256[4] memory pk2, uint256[2] memory pk1) = _keys(0);
        vm.expectRevert(abi.encodeWithSelector(IStakeManager.NotAValidator.selector, samplers[0]));
        _register(samplers[0], pk2, pk1, [uint256(1), 2]);
    }

    function test_rejectsKeysAtInfinityOrOffCurve() public {
        (uint256[4] memory pk2, uint256[2] memory pk1) = _keys(0);
        bytes memory err = abi.encodeWithSelector(IStakeManager.InvalidBlsKey.selector, alice);
        vm.expectRevert(err);
        _register(alice, [uint256(0), 0, 0, 0], pk1, [uint256(1), 2]);
        vm.expectRevert(err);
        _register(alice, pk2, [uint256(0), 0], [uint256(1), 2]);
        vm.expectRevert(err);
        _register(alice, pk2, [uint256(1), 3], [uint256(1), 2]);
        // Not on the twist: the pairing precompile refuses it.
        vm.expectRevert(err);
        _register(alice, [uint256(1), 2, 3, 4], pk1, [uint256(1), 2]);
    }

    function test_rejectsG1KeyWithAnotherSecret() public {
        (uint256[4] memory pk2,) = _keys(0);
        (, uint256[2] memory otherPk1) = _keys(1);
        uint256[2] memory pop = _sign(0, stakes.blsPopMessage(alice, pk2, otherPk1));
        vm.expectRevert(abi.encodeWithSelector(IStakeManager.BlsKeysMismatch.selector, alice));
        _register(alice, pk2, otherPk1, pop);
    }

    function test_rejectsWrongProofOfPossession() public {
        (uint256[4] memory pk2, uint256[2] memory pk1) = _keys(0);
        bytes memory err = abi.encodeWithSelector(IStakeManager.InvalidProofOfPossession.selector, alice);
        uint256[2] memory otherSecret = _sign(1, stakes.blsPopMessage(alice, pk2, pk1));
        uint256[2] memory otherNode = _sign(0, stakes.blsPopMessage(validators[1], pk2, pk1));
        uint256[2] memory pop = _sign(0, stakes.blsPopMessage(alice, pk2, pk1));
        // Signed by another secret.
        vm.expectRevert(err);
        _register(alice, pk2, pk1, otherSecret);
        // A proof made for another node cannot be replayed by alice.
        vm.expectRevert(err);
        _register(alice, pk2, pk1, otherNode);
        // Off the curve.
        vm.expectRevert(err);
        _register(alice, pk2, pk1, [pop[0], pop[1] + 1]);
        // The right proof registers.
        _register(alice, pk2, pk1, pop);
    }

    /// @dev The rogue-key attack: the attacker (secret of key 0) registers pk_rogue = pk_attacker -
    ///      pk_victim (key 1) so that an aggregate "by victim and rogue" has the attacker's key.
    ///      Without the victim's secret it cannot sign the proof of possession for pk_rogue.
    function test_rogueKeyCannotRegisterWithoutTheSecret() public {
        uint256[4] memory rogue2 = BlsVectors.rogueG2();
        uint256[2] memory rogue1 = BN254.add(_g1Of(0), _neg(_g1Of(1)));
        uint256[2] memory attempt = _sign(0, stakes.blsPopMessage(alice, rogue2, rogue1));
        vm.expectRevert(abi.encodeWithSelector(IStakeManager.InvalidProofOfPossession.selector, alice));
        _register(alice, rogue2, rogue1, attempt);
        // The keys themselves are consistent (same discrete log): only the proof stops it. Had it
        // been registered, the attacker's lone signature would verify as the pair's aggregate.
        (bytes32 m,) = BlsVectors.hashVector(0);
        uint256[2] memory apk1 = BN254.add(rogue1, _g1Of(1));
        assertTrue(BN254.verify(_sign(0, m), apk1, BlsVectors.apk2(1), m), "forgery without PoP");
    }

    function test_aggregateBlsKeySumsG1Keys() public {
        _registerKey(validators[0], 0);
        _registerKey(validators[1], 2);
        address[] memory nodes = new address[](2);
        nodes[0] = validators[0];
        nodes[1] = validators[1];
        uint256[2] memory apk = stakes.aggregateBlsKey(nodes);
        uint256[2] memory expected = BN254.mul(BN254.g1(), mulmod(BlsVectors.BASE, 5, BN254.N));
        assertEq(apk[0], expected[0], "x");
        assertEq(apk[1], expected[1], "y");
    }

    function test_aggregateBlsKeyRejectsNodeWithoutKey() public {
        _registerKey(validators[0], 0);
        address[] memory nodes = new address[](2);
        nodes[0] = validators[0];
        nodes[1] = validators[1];
        vm.expectRevert(abi.encodeWithSelector(IStakeManager.BlsKeyNotRegistered.selector, validators[1]));
        stakes.aggregateBlsKey(nodes);
    }

    function test_keysAreWriteOnce() public {
        _registerKey(alice, 0);
        // Another valid key with a valid proof, and the same key again: both refused.
        for (uint256 k = 0; k < 2; ++k) {
            uint256 i = k == 0 ? 3 : 0;
            (uint256[4] memory pk2, uint256[2] memory pk1) = _keys(i);
            uint256[2] memory pop = _sign(i, stakes.blsPopMessage(alice, pk2, pk1));
            vm.expectRevert(abi.encodeWithSelector(IStakeManager.BlsKeyAlreadyRegistered.selector, alice));
            _register(alice, pk2, pk1, pop);
        }
        (uint256[4] memory stored2, uint256[2] memory stored1) = stakes.blsKeyOf(alice);
        assertEq(stored2[0], BlsVectors.apk2(1)[0], "first G2 key kept");
        assertEq(stored1[0], _g1Of(0)[0], "first G1 key kept");
        uint256[2] memory g1 = stakes.blsKeyG1Of(alice);
        assertEq(g1[0], stored1[0], "blsKeyG1Of x");
        assertEq(g1[1], stored1[1], "blsKeyG1Of y");
    }

    function test_blsKeyG1OfIsZeroWithoutKey() public view {
        uint256[2] memory g1 = stakes.blsKeyG1Of(alice);
        assertEq(g1[0] | g1[1], 0, "no key");
    }

    function _g1Of(uint256 i) private view returns (uint256[2] memory pk1) {
        (, pk1) = _keys(i);
    }

    function _neg(uint256[2] memory a) private pure returns (uint256[2] memory) {
        return [a[0], BN254.P - a[1]];
    }
}

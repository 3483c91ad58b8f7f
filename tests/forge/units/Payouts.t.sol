// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {TestBase} from "../base/Vm.sol";
import {Payouts} from "../../../contracts/libraries/Payouts.sol";

/// @dev Exposes the internal library so that calls are real (and show up in coverage).
contract PayoutsHarness {
    function roundPool(uint256 bounty, uint256 shareBps, uint256 numRounds) external pure returns (uint256) {
        return Payouts.roundPool(bounty, shareBps, numRounds);
    }

    function perPayee(uint256 pool, uint256 payees) external pure returns (uint256) {
        return Payouts.perPayee(pool, payees);
    }

    function quorum(uint256 n) external pure returns (uint256) {
        return Payouts.quorum(n);
    }
}

contract PayoutsTest is TestBase {
    PayoutsHarness internal h;

    function setUp() public {
        h = new PayoutsHarness();
    }

    function test_bpsIsTenThousand() public pure {
        assertEq(Payouts.BPS, 10_000, "BPS");
    }

    function test_roundPoolSplitsShareOverRounds() public view {
        assertEq(h.roundPool(1000, 7000, 1), 700, "one round");
        assertEq(h.roundPool(1000, 7000, 3), 233, "rounds down");
        assertEq(h.roundPool(1001, 2000, 1), 200, "share rounds down first");
        assertEq(h.roundPool(9, 1000, 1), 0, "dust bounty pays nothing");
        assertEq(h.roundPool(0, 7000, 5), 0, "zero bounty");
    }

    function test_roundPoolRejectsZeroRounds() public {
        vm.expectRevert(abi.encodeWithSignature("Panic(uint256)", 0x12));
        h.roundPool(1000, 7000, 0);
    }

    function test_roundPoolRejectsOverflow() public {
        vm.expectRevert(abi.encodeWithSignature("Panic(uint256)", 0x11));
        h.roundPool(type(uint256).max, 2, 1);
    }

    function test_perPayee() public view {
        assertEq(h.perPayee(700, 0), 0, "no payees");
        assertEq(h.perPayee(700, 1), 700, "one payee");
        assertEq(h.perPayee(700, 3), 233, "rounds down");
        assertEq(h.perPayee(2, 3), 0, "pool below payees");
    }

    function test_quorumIsTwoThirdsRoundedUp() public view {
        assertEq(h.quorum(0), 0, "0");
        assertEq(h.quorum(1), 1, "1");
        assertEq(h.quorum(2), 2, "2");
        assertEq(h.quorum(3), 2, "3");
        assertEq(h.quorum(4), 3, "4");
        assertEq(h.quorum(5), 4, "5");
        assertEq(h.quorum(6), 4, "6");
        assertEq(h.quorum(64), 43, "64");
    }

    function testFuzz_quorumIsSmallestTwoThirds(uint8 n) public view {
        uint256 q = h.quorum(n);
        assertGe(3 * q, 2 * uint256(n), "at least two thirds");
        if (q > 0) assertTrue(3 * (q - 1) < 2 * uint256(n), "smallest such count");
        assertLe(q, n, "never more than n");
    }

    /// @dev Whatever the inputs, a full split never exceeds the share and leaves less than
    ///      rounds * payees wei of dust.
    function testFuzz_splitDustBound(uint128 bounty, uint16 shareBps, uint16 rounds, uint8 payees) public view {
        uint256 share = 500 + uint256(shareBps) % 9501; // 500..10000
        uint256 r = 1 + uint256(rounds) % 1000;
        uint256 p = 1 + uint256(payees) % 64;
        uint256 whole = uint256(bounty) * share / 10_000;
        uint256 paid = r * p * h.perPayee(h.roundPool(bounty, share, r), p);
        assertLe(paid, whole, "never over the share");
        assertTrue(whole - paid < r * p, "dust below rounds * payees");
    }
}

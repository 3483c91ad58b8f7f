// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {TestBase} from "../base/Vm.sol";
import {DrawsHarness, DrawListStub} from "./DrawsHarness.sol";

/// @notice SPECIFICATION.md 5.3: the draw walk (one implementation for the task and the jury draw)
///         meets distinct entries of the draw list, never more than the list holds, and says when it
///         walks the whole list.
contract DrawsWalkTest is TestBase {
    DrawsHarness internal draws = new DrawsHarness();

    function _bound(uint256 x, uint256 lo, uint256 hi) internal pure returns (uint256) {
        return lo + x % (hi - lo + 1);
    }

    function testFuzz_walk_meetsDistinctEntriesAndAtMostSize(uint256 rand, uint256 size, uint256 seats, uint256 perSeat)
        public
    {
        size = _bound(size, 1, 300);
        seats = _bound(seats, 1, 129); // a jury of 2 * 64 + 1 at most
        perSeat = _bound(perSeat, 1, 8);
        (address[] memory met, bool wholeList, bool exhausted) =
            draws.walkAll(rand, seats, perSeat, new DrawListStub(size));
        uint256 wanted = seats * perSeat;
        assertEq(met.length, wanted < size ? wanted : size, "min(seats * attempts per seat, size) steps");
        assertTrue(wholeList == (wanted >= size), "wholeList iff the attempts reach the size");
        assertTrue(exhausted, "no candidate after the last attempt");
        bool[] memory seen = new bool[](size);
        for (uint256 i = 0; i < met.length; ++i) {
            uint256 index = uint160(met[i]) - 1; // the stub reverts past the end: index < size
            assertTrue(!seen[index], "each entry met once");
            seen[index] = true;
        }
    }

    function testFuzz_walk_ofTheWholeListMeetsEveryEntry(uint256 rand, uint256 size) public {
        size = _bound(size, 1, 200);
        (address[] memory met, bool wholeList,) = draws.walkAll(rand, size, 1, new DrawListStub(size));
        assertTrue(wholeList, "whole list");
        uint256 sum;
        for (uint256 i = 0; i < met.length; ++i) sum += uint160(met[i]);
        assertEq(met.length, size, "size steps");
        assertEq(sum, size * (size + 1) / 2, "distinct and within the list: every entry");
    }

    function test_walk_wholeListStartsAtExactlyTheSize() public {
        DrawListStub list = new DrawListStub(12);
        (address[] memory met, bool wholeList,) = draws.walkAll(7, 11, 1, list);
        assertEq(met.length, 11, "11 of 12");
        assertTrue(!wholeList, "one entry left");
        (met, wholeList,) = draws.walkAll(7, 3, 4, list);
        assertEq(met.length, 12, "12 of 12");
        assertTrue(wholeList, "attempts == size");
        (met, wholeList,) = draws.walkAll(7, 13, 1, list);
        assertEq(met.length, 12, "capped at the size");
        assertTrue(wholeList, "attempts > size");
    }

    function testFuzz_coprimeStride_isCoprimeAndWithinOneToN(uint256 rand, uint256 n) public view {
        n = _bound(n, 1, 10_000);
        uint256 stride = draws.coprimeStride(rand, n);
        assertTrue(stride >= 1 && stride <= n, "1 <= stride <= n");
        (uint256 a, uint256 b) = (stride, n);
        while (b != 0) (a, b) = (b, a % b);
        assertEq(a, 1, "gcd(stride, n) == 1");
    }
}

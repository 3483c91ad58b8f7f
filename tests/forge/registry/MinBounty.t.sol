// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {TaskFrontBase} from "../periphery/TaskFrontBase.sol";
import {ITaskRegistry} from "../../../contracts/interfaces/ITaskRegistry.sol";

/// @notice SPECIFICATION.md 5.2: a task escrows at least minBountyPerSlotRound x numRounds x
///         (numSamplers + 1 + numValidators), read at creation, by every entry point.
contract MinBountyTest is TaskFrontBase {
    /// @dev The default task (2 samplers, 3 validators, 3 rounds) at the default 0.01 DRL: 0.18 DRL.
    uint256 private constant DEFAULT_MINIMUM = 0.18e18;

    function _shaped(uint256 bounty) private pure returns (ITaskRegistry.TaskParams memory p) {
        p = _params();
        p.bounty = bounty;
    }

    function _tooSmall(uint256 bounty, uint256 minimum) private pure returns (bytes memory) {
        return abi.encodeWithSelector(ITaskRegistry.BountyTooSmall.selector, bounty, minimum);
    }

    function test_createTask_rejectsOneWeiBelowTheMinimum() public {
        vm.expectRevert(_tooSmall(DEFAULT_MINIMUM - 1, DEFAULT_MINIMUM));
        vm.prank(requester);
        registry.createTask(_shaped(DEFAULT_MINIMUM - 1));
    }

    function test_createTask_rejectsOneWeiBounty() public {
        vm.expectRevert(_tooSmall(1, DEFAULT_MINIMUM));
        vm.prank(requester);
        registry.createTask(_shaped(1));
    }

    function test_createTask_acceptsTheMinimumAndAbove() public {
        uint256 at = _createTask(_shaped(DEFAULT_MINIMUM));
        assertEq(vault.escrowOf(at), DEFAULT_MINIMUM, "at the minimum");
        uint256 above = _createTask(_shaped(DEFAULT_MINIMUM + 1));
        assertEq(vault.escrowOf(above), DEFAULT_MINIMUM + 1, "above it");
    }

    function test_createTask_readsTheMinimumAtCreation() public {
        vm.prank(admin);
        config.setMinBountyPerSlotRound(1e18);
        vm.expectRevert(_tooSmall(DEFAULT_MINIMUM, 18e18));
        vm.prank(requester);
        registry.createTask(_shaped(DEFAULT_MINIMUM));
        vm.prank(admin);
        config.setMinBountyPerSlotRound(0);
        assertEq(vault.escrowOf(_createTask(_shaped(1))), 1, "no minimum: one wei is escrowed");
    }

    function test_createTaskWithSig_rejectsABountyBelowTheMinimum() public {
        ITaskRegistry.TaskParams memory p = _shaped(DEFAULT_MINIMUM - 1);
        uint256 deadline = vm.getBlockTimestamp() + 1 hours;
        bytes memory sig = _signCreate(REQUESTER_KEY, p, requester, deadline);
        vm.expectRevert(_tooSmall(DEFAULT_MINIMUM - 1, DEFAULT_MINIMUM));
        vm.prank(relayer);
        front.createTaskWithSig(p, requester, deadline, sig, _noPermit());
        assertEq(front.nonces(requester), 0, "the nonce is not consumed");
    }

    function test_createTaskWithPermit_rejectsABountyBelowTheMinimum() public {
        vm.expectRevert(_tooSmall(0.1e18, DEFAULT_MINIMUM));
        vm.prank(requester);
        front.createTaskWithPermit(_shaped(0.1e18), _noPermit());
    }

    /// @dev The formula over every shape and rate: the minimum is accepted, one wei less is not.
    function testFuzz_minimumIsPerSlotRound(uint64 rate, uint8 ns, uint8 nv, uint16 nr) public {
        uint256 perSlotRound = uint256(rate) % (config.MAX_MIN_BOUNTY_PER_SLOT_ROUND() + 1);
        ITaskRegistry.TaskParams memory p = _params();
        p.numSamplers = uint8(1 + uint256(ns) % 32);
        p.numValidators = uint8(1 + uint256(nv) % 64);
        p.numRounds = uint16(1 + uint256(nr) % 1000);
        uint256 minimum = perSlotRound * p.numRounds * (uint256(p.numSamplers) + 1 + p.numValidators);
        vm.prank(admin);
        config.setMinBountyPerSlotRound(perSlotRound);
        assertEq(stateView.minBounty(p.numSamplers, p.numValidators, p.numRounds), minimum, "StateView agrees");
        vm.prank(admin);
        token.transfer(requester, minimum);
        if (minimum > 0) {
            p.bounty = minimum - 1;
            vm.expectRevert(_tooSmall(minimum - 1, minimum));
            vm.prank(requester);
            registry.createTask(p);
        }
        p.bounty = minimum == 0 ? 1 : minimum;
        assertEq(vault.escrowOf(_createTask(p)), p.bounty, "the minimum is enough");
    }
}

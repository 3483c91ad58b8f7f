// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {RegistryFixture} from "../base/RegistryFixture.sol";
import {ITaskRegistry} from "../../../contracts/interfaces/ITaskRegistry.sol";
import {Role} from "../../../contracts/libraries/Types.sol";

/// @notice SPECIFICATION.md 5.6: a task that missed its claim window can only fail.
contract ClaimWindowTest is RegistryFixture {
    uint256 private taskId;

    function setUp() public override {
        super.setUp();
        taskId = _createTask();
    }

    function test_claimAfterClaimDeadlineIsRefused() public {
        uint256 deadline = _task(taskId).claimDeadline;
        _warpToProtocolTime(deadline + 1);
        vm.prank(samplers[0]);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.DeadlinePassed.selector, taskId, deadline));
        registry.claimSlot(taskId, Role.Sampler);
    }

    function test_claimAtClaimDeadlineIsOnTime() public {
        _warpToProtocolTime(_task(taskId).claimDeadline);
        _claim(taskId, samplers[0], Role.Sampler);
        assertEq(_samplerAt(taskId, 0), samplers[0], "claimed at the deadline");
    }

    function test_drawAfterClaimDeadlineIsRefusedAndTheTaskFails() public {
        _fillSlots(taskId);
        _rollPastSeed(taskId);
        uint256 deadline = _task(taskId).claimDeadline;
        _warpToProtocolTime(deadline + 1);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.DeadlinePassed.selector, taskId, deadline));
        registry.drawValidators(taskId);
        registry.advance(taskId);
        _assertStatus(taskId, ITaskRegistry.Status.Failed);
    }
}

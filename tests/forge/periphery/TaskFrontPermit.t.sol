// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {TaskFrontBase} from "./TaskFrontBase.sol";
import {ITaskRegistry} from "../../../contracts/interfaces/ITaskRegistry.sol";
import {ITaskFront} from "../../../contracts/interfaces/ITaskFront.sol";
import {IERC20Errors} from "@openzeppelin/contracts/interfaces/draft-IERC6093.sol";
import {Pausable} from "@openzeppelin/contracts/utils/Pausable.sol";

/// @notice SPECIFICATION.md 8: a task funded by the caller's EIP-2612 permit through the TaskFront
///         (spender: the registry); a permit that fails (front-run, bad) falls back to the allowance.
contract TaskFrontPermitTest is TaskFrontBase {
    function test_createTaskWithPermit_fundsBountyFromPermit() public {
        _revokeAllowance();
        ITaskFront.Permit memory permit = _signPermit(BOUNTY, vm.getBlockTimestamp() + 1 hours);
        ITaskRegistry.TaskParams memory p = _params();
        vm.prank(requester);
        uint256 taskId = front.createTaskWithPermit(p, permit);
        assertEq(vault.escrowOf(taskId), BOUNTY, "escrow");
        assertEq(token.nonces(requester), 1, "permit used");
        assertEq(token.allowance(requester, address(registry)), 0, "allowance spent");
    }

    function test_createTaskWithPermit_failedPermitFallsBackToAllowance() public {
        ITaskFront.Permit memory permit = _signPermit(BOUNTY, vm.getBlockTimestamp() + 1 hours);
        permit.s = bytes32(uint256(permit.s) ^ 1); // corrupt the signature
        ITaskRegistry.TaskParams memory p = _params();
        vm.prank(requester);
        uint256 taskId = front.createTaskWithPermit(p, permit);
        assertEq(vault.escrowOf(taskId), BOUNTY, "escrow from allowance");
        assertEq(token.nonces(requester), 0, "permit not used");
    }

    function test_createTaskWithPermit_frontRunPermitStillCreatesTask() public {
        _revokeAllowance();
        ITaskFront.Permit memory permit = _signPermit(BOUNTY, vm.getBlockTimestamp() + 1 hours);
        // Someone submits the same permit first: the registry's own permit call then fails.
        token.permit(requester, address(registry), BOUNTY, permit.deadline, permit.v, permit.r, permit.s);
        ITaskRegistry.TaskParams memory p = _params();
        vm.prank(requester);
        uint256 taskId = front.createTaskWithPermit(p, permit);
        assertEq(vault.escrowOf(taskId), BOUNTY, "escrow");
    }

    function test_createTaskWithPermit_failedPermitWithoutAllowanceReverts() public {
        _revokeAllowance();
        ITaskFront.Permit memory permit = _signPermit(BOUNTY - 1, vm.getBlockTimestamp() + 1 hours);
        ITaskRegistry.TaskParams memory p = _params();
        vm.expectRevert(
            abi.encodeWithSelector(IERC20Errors.ERC20InsufficientAllowance.selector, address(registry), 0, BOUNTY)
        );
        vm.prank(requester);
        front.createTaskWithPermit(p, permit);
    }

    function test_createTaskWithPermit_zeroDeadlineSkipsPermit() public {
        ITaskRegistry.TaskParams memory p = _params();
        vm.prank(requester);
        uint256 taskId = front.createTaskWithPermit(p, _noPermit());
        assertEq(vault.escrowOf(taskId), BOUNTY, "escrow from allowance");
    }

    function test_createTaskWithPermit_revertsWhilePaused() public {
        vm.prank(admin);
        registry.pause();
        ITaskRegistry.TaskParams memory p = _params();
        vm.expectRevert(abi.encodeWithSelector(Pausable.EnforcedPause.selector));
        vm.prank(requester);
        front.createTaskWithPermit(p, _noPermit());
    }
}

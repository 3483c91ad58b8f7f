// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {RegistryFixture} from "../base/RegistryFixture.sol";
import {ITaskRegistry} from "../../../contracts/interfaces/ITaskRegistry.sol";
import {TaskRegistry} from "../../../contracts/TaskRegistry.sol";
import {TaskFront} from "../../../contracts/periphery/TaskFront.sol";
import {StateView} from "../../../contracts/periphery/StateView.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IAccessControl} from "@openzeppelin/contracts/access/IAccessControl.sol";

/// @notice The TaskFront is the only way to create a task for another account: the registry's
///         `createTaskFor` answers the front alone, and the admin names the front once.
contract TaskFrontWiringTest is RegistryFixture {
    /// @dev A registry deployed like the fixture's, its front not yet named.
    function _freshRegistry() private returns (TaskRegistry) {
        return new TaskRegistry(IERC20(address(token)), stakes, reputation, vault, config, admin);
    }

    function test_createTaskFor_revertsForAnyoneButTheFront() public {
        ITaskRegistry.TaskParams memory p = _params();
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.NotTaskFront.selector, requester));
        vm.prank(requester);
        registry.createTaskFor(p, requester);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.NotTaskFront.selector, admin));
        vm.prank(admin);
        registry.createTaskFor(p, requester);
        assertEq(stateView.taskCount(), 0, "nothing created");
    }

    function test_createTaskFor_fromTheFrontCreatesForTheNamedRequester() public {
        ITaskRegistry.TaskParams memory p = _params();
        vm.prank(address(front));
        uint256 taskId = registry.createTaskFor(p, requester);
        assertEq(_task(taskId).requester, requester, "requester");
        assertEq(vault.escrowOf(taskId), BOUNTY, "bounty pulled from the requester");
    }

    function test_setTaskFront_isSetOnceByDeployment() public view {
        assertEq(stateView.taskFront(), address(front), "front");
        assertEq(address(front.registry()), address(registry), "front's registry");
    }

    function test_setTaskFront_emitsAndTakesEffect() public {
        TaskRegistry fresh = _freshRegistry();
        TaskFront other = new TaskFront(fresh);
        StateView view_ = new StateView(fresh, disputes);
        assertEq(view_.taskFront(), address(0), "no front yet");
        vm.expectEmit(true, true, true, true, address(fresh));
        emit ITaskRegistry.TaskFrontSet(address(other));
        vm.prank(admin);
        fresh.setTaskFront(address(other));
        assertEq(view_.taskFront(), address(other), "front named");
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.NotTaskFront.selector, address(front)));
        vm.prank(address(front));
        fresh.createTaskFor(_params(), requester);
    }

    function test_setTaskFront_onlyOnce() public {
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.TaskFrontAlreadySet.selector, address(front)));
        vm.prank(admin);
        registry.setTaskFront(relayer);
    }

    function test_setTaskFront_adminOnly() public {
        TaskRegistry fresh = _freshRegistry();
        bytes32 role = fresh.DEFAULT_ADMIN_ROLE();
        vm.expectRevert(abi.encodeWithSelector(IAccessControl.AccessControlUnauthorizedAccount.selector, relayer, role));
        vm.prank(relayer);
        fresh.setTaskFront(relayer);
    }

    function test_setTaskFront_rejectsZeroAddress() public {
        TaskRegistry fresh = _freshRegistry();
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.ZeroAddress.selector));
        vm.prank(admin);
        fresh.setTaskFront(address(0));
    }
}

// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {RegistryFixture} from "../base/RegistryFixture.sol";
import {DisputeManager} from "../../../contracts/DisputeManager.sol";
import {IDisputeManager} from "../../../contracts/interfaces/IDisputeManager.sol";
import {IDisputeHooks} from "../../../contracts/interfaces/IDisputeHooks.sol";
import {ITaskRegistry} from "../../../contracts/interfaces/ITaskRegistry.sol";
import {IStakeManager} from "../../../contracts/interfaces/IStakeManager.sol";
import {IReputation} from "../../../contracts/interfaces/IReputation.sol";
import {IRewardVault} from "../../../contracts/interfaces/IRewardVault.sol";
import {IProtocolConfig} from "../../../contracts/interfaces/IProtocolConfig.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IAccessControl} from "@openzeppelin/contracts/access/IAccessControl.sol";

/// @notice SPECIFICATION.md "Disputes", deployment: the DisputeManager holds no roles of its own,
///         refuses a zero collaborator, and is deployed inactive until the admin makes it the
///         registry's (scripts/deploy.py: activate_disputes), once.
contract DisputeDeploymentTest is RegistryFixture {
    function _deploy(address t, address reg, address s, address r, address v, address c) private returns (DisputeManager) {
        return new DisputeManager(
            IERC20(t), ITaskRegistry(reg), IStakeManager(s), IReputation(r), IRewardVault(v), IProtocolConfig(c)
        );
    }

    function test_constructor_rejectsEachZeroAddress() public {
        (address t, address reg, address s) = (address(token), address(registry), address(stakes));
        (address r, address v, address c) = (address(reputation), address(vault), address(config));
        bytes memory err = abi.encodeWithSelector(IDisputeManager.ZeroAddress.selector);
        vm.expectRevert(err);
        _deploy(address(0), reg, s, r, v, c);
        vm.expectRevert(err);
        _deploy(t, address(0), s, r, v, c);
        vm.expectRevert(err);
        _deploy(t, reg, address(0), r, v, c);
        vm.expectRevert(err);
        _deploy(t, reg, s, address(0), v, c);
        vm.expectRevert(err);
        _deploy(t, reg, s, r, address(0), c);
        vm.expectRevert(err);
        _deploy(t, reg, s, r, v, address(0));
    }

    function test_constructor_keepsItsCollaborators() public view {
        assertEq(address(disputes.token()), address(token), "token");
        assertEq(address(disputes.registry()), address(registry), "registry");
        assertEq(address(disputes.stakes()), address(stakes), "stakes");
        assertEq(address(disputes.reputation()), address(reputation), "reputation");
        assertEq(address(disputes.vault()), address(vault), "vault");
        assertEq(address(disputes.config()), address(config), "config");
        assertEq(disputes.DRAW_ATTEMPTS_PER_SEAT(), 4, "draw attempts per seat");
        assertEq(disputes.JUROR_SHARE_BPS(), 5000, "juror share");
    }

    function test_deployedInactive_payIsCreditedAtTheVerdict() public {
        assertEq(stateView.disputeManager(), address(0), "not the registry's yet");
        uint256 taskId = _activeTask();
        _runRound(taskId, ACCEPT_ALL);
        address s0 = _samplerAt(taskId, 0);
        assertGe(vault.claimableOf(s0), 1, "credited at once");
        assertEq(vault.heldOf(taskId, 0, s0), 0, "nothing held");
        assertEq(stateView.attesterOf(taskId, 0, 0), address(0), "attesters not recorded");
    }

    function test_setDisputeManager_onceByTheAdmin() public {
        bytes32 adminRole = registry.DEFAULT_ADMIN_ROLE();
        vm.expectRevert(abi.encodeWithSelector(IAccessControl.AccessControlUnauthorizedAccount.selector, relayer, adminRole));
        vm.prank(relayer);
        registry.setDisputeManager(address(disputes));
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.ZeroAddress.selector));
        vm.prank(admin);
        registry.setDisputeManager(address(0));

        vm.expectEmit(true, true, true, true, address(registry));
        emit IDisputeHooks.DisputeManagerSet(address(disputes));
        vm.prank(admin);
        registry.setDisputeManager(address(disputes));
        assertEq(stateView.disputeManager(), address(disputes), "active");
        vm.expectRevert(abi.encodeWithSelector(IDisputeHooks.DisputeManagerAlreadySet.selector, address(disputes)));
        vm.prank(admin);
        registry.setDisputeManager(relayer);
    }
}

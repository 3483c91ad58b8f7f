// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {RegistryFixture} from "../base/RegistryFixture.sol";
import {ITaskRegistry} from "../../../contracts/interfaces/ITaskRegistry.sol";
import {TaskRegistry} from "../../../contracts/TaskRegistry.sol";
import {IStakeManager} from "../../../contracts/interfaces/IStakeManager.sol";
import {IReputation} from "../../../contracts/interfaces/IReputation.sol";
import {IRewardVault} from "../../../contracts/interfaces/IRewardVault.sol";
import {IProtocolConfig} from "../../../contracts/interfaces/IProtocolConfig.sol";
import {Role} from "../../../contracts/libraries/Types.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IAccessControl} from "@openzeppelin/contracts/access/IAccessControl.sol";
import {Pausable} from "@openzeppelin/contracts/utils/Pausable.sol";

/// @notice SPECIFICATION.md 2 (administrative roles) and 7 (pausing) for the registry; its
///         parameters (9) are ProtocolConfig's (tests/forge/config/).
contract GovernanceTest is RegistryFixture {
    event Paused(address account);
    event Unpaused(address account);

    function _unauthorized(address who, bytes32 role) private pure returns (bytes memory) {
        return abi.encodeWithSelector(IAccessControl.AccessControlUnauthorizedAccount.selector, who, role);
    }

    // ------------------------------------------------------------ construction

    function test_constructor_setsDefaultsAndAdminRoles() public view {
        uint16[3] memory shares = config.roleShares();
        assertEq(shares[uint8(Role.Sampler)], 2000, "sampler share");
        assertEq(shares[uint8(Role.Trainer)], 7000, "trainer share");
        assertEq(shares[uint8(Role.Validator)], 1000, "validator share");
        assertEq(config.slashBps(), 1000, "slash bps");
        assertEq(config.treasury(), treasury, "treasury");
        assertTrue(registry.hasRole(registry.DEFAULT_ADMIN_ROLE(), admin), "admin");
        assertTrue(config.hasRole(config.GOVERNOR_ROLE(), admin), "governor (of ProtocolConfig)");
        assertTrue(!registry.hasRole(keccak256("GOVERNOR_ROLE"), admin), "the registry has no governor role");
        assertTrue(registry.hasRole(registry.GUARDIAN_ROLE(), admin), "guardian");
        assertEq(address(registry.token()), address(token), "token");
        assertEq(address(registry.stakes()), address(stakes), "stakes");
        assertEq(address(registry.reputation()), address(reputation), "reputation");
        assertEq(address(registry.vault()), address(vault), "vault");
        assertEq(address(registry.config()), address(config), "config");
        assertEq(stateView.taskCount(), 0, "no tasks");
        assertEq(registry.protocolTime(), vm.getBlockTimestamp(), "protocol time is wall clock before any pause");
    }

    function _deploy(address t, address s, address r, address v, address c, address a) private returns (TaskRegistry) {
        return new TaskRegistry(IERC20(t), IStakeManager(s), IReputation(r), IRewardVault(v), IProtocolConfig(c), a);
    }

    function test_constructor_rejectsZeroAddresses() public {
        address t = address(token);
        address s = address(stakes);
        address r = address(reputation);
        address v = address(vault);
        address c = address(config);
        bytes memory err = abi.encodeWithSelector(ITaskRegistry.ZeroAddress.selector);
        vm.expectRevert(err);
        _deploy(address(0), s, r, v, c, admin);
        vm.expectRevert(err);
        _deploy(t, address(0), r, v, c, admin);
        vm.expectRevert(err);
        _deploy(t, s, address(0), v, c, admin);
        vm.expectRevert(err);
        _deploy(t, s, r, address(0), c, admin);
        vm.expectRevert(err);
        _deploy(t, s, r, v, address(0), admin);
        vm.expectRevert(err);
        _deploy(t, s, r, v, c, address(0));
        // the treasury is ProtocolConfig's now: its zero check is in tests/forge/config/
    }

    // ------------------------------------------------------------ pause

    function test_pause_byGuardianEmitsAndBlocksWork() public {
        vm.expectEmit(true, true, true, true, address(registry));
        emit Paused(admin);
        vm.prank(admin);
        registry.pause();
        assertTrue(registry.paused(), "paused");
        vm.expectEmit(true, true, true, true, address(registry));
        emit Unpaused(admin);
        vm.prank(admin);
        registry.unpause();
        assertTrue(!registry.paused(), "unpaused");
    }

    function test_pause_onlyGuardian() public {
        bytes32 role = registry.GUARDIAN_ROLE();
        vm.expectRevert(_unauthorized(relayer, role));
        vm.prank(relayer);
        registry.pause();
    }

    function test_unpause_onlyGuardian() public {
        vm.prank(admin);
        registry.pause();
        bytes32 role = registry.GUARDIAN_ROLE();
        vm.expectRevert(_unauthorized(relayer, role));
        vm.prank(relayer);
        registry.unpause();
    }

    function test_pause_revertsWhenAlreadyPaused() public {
        vm.prank(admin);
        registry.pause();
        vm.expectRevert(abi.encodeWithSelector(Pausable.EnforcedPause.selector));
        vm.prank(admin);
        registry.pause();
    }

    function test_unpause_revertsWhenNotPaused() public {
        vm.expectRevert(abi.encodeWithSelector(Pausable.ExpectedPause.selector));
        vm.prank(admin);
        registry.unpause();
    }

    function test_guardianRoleCanBeHandedToAnotherAccount() public {
        address guardian = _named("guardian");
        bytes32 role = registry.GUARDIAN_ROLE();
        vm.prank(admin);
        registry.grantRole(role, guardian);
        vm.prank(guardian);
        registry.pause();
        assertTrue(registry.paused(), "paused by new guardian");
    }

    // ------------------------------------------------------------ views

    function test_views_returnEmptyRecordsForUnknownIds() public view {
        assertEq(uint256(stateView.taskOf(9).status), uint256(ITaskRegistry.Status.None), "no task");
        assertEq(stateView.slotOf(9, Role.Sampler, 0).node, address(0), "no slot");
        assertTrue(!stateView.membershipOf(9, relayer).assigned, "no membership");
        assertEq(stateView.submissionOf(9, 0, Role.Trainer, 0).commitment, bytes32(0), "no submission");
        assertTrue(!registry.attestationOf(9, 0, 0).voted, "no attestation");
        assertEq(stateView.paidOf(9)[0], 0, "nothing paid");
        assertEq(front.nonces(requester), 0, "fresh nonce");
    }

    function test_supportsAccessControlInterface() public view {
        assertTrue(registry.supportsInterface(type(IAccessControl).interfaceId), "IAccessControl");
    }
}

// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {RegistryFixture} from "../base/RegistryFixture.sol";
import {ITaskRegistry} from "../../../contracts/interfaces/ITaskRegistry.sol";
import {TaskRegistry} from "../../../contracts/TaskRegistry.sol";
import {IStakeManager} from "../../../contracts/interfaces/IStakeManager.sol";
import {IReputation} from "../../../contracts/interfaces/IReputation.sol";
import {IRewardVault} from "../../../contracts/interfaces/IRewardVault.sol";
import {Role} from "../../../contracts/libraries/Types.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IAccessControl} from "@openzeppelin/contracts/access/IAccessControl.sol";
import {Pausable} from "@openzeppelin/contracts/utils/Pausable.sol";

/// @notice SPECIFICATION.md 2 (administrative roles), 7 (pausing) and 9 (parameters).
contract GovernanceTest is RegistryFixture {
    event Paused(address account);
    event Unpaused(address account);

    function _unauthorized(address who, bytes32 role) private pure returns (bytes memory) {
        return abi.encodeWithSelector(IAccessControl.AccessControlUnauthorizedAccount.selector, who, role);
    }

    // ------------------------------------------------------------ construction

    function test_constructor_setsDefaultsAndAdminRoles() public view {
        uint16[3] memory shares = registry.roleShares();
        assertEq(shares[uint8(Role.Sampler)], 2000, "sampler share");
        assertEq(shares[uint8(Role.Trainer)], 7000, "trainer share");
        assertEq(shares[uint8(Role.Validator)], 1000, "validator share");
        assertEq(registry.slashBps(), 1000, "slash bps");
        assertEq(registry.treasury(), treasury, "treasury");
        assertTrue(registry.hasRole(registry.DEFAULT_ADMIN_ROLE(), admin), "admin");
        assertTrue(registry.hasRole(registry.GOVERNOR_ROLE(), admin), "governor");
        assertTrue(registry.hasRole(registry.GUARDIAN_ROLE(), admin), "guardian");
        assertEq(address(registry.token()), address(token), "token");
        assertEq(address(registry.stakes()), address(stakes), "stakes");
        assertEq(address(registry.reputation()), address(reputation), "reputation");
        assertEq(address(registry.vault()), address(vault), "vault");
        assertEq(registry.taskCount(), 0, "no tasks");
        assertEq(registry.protocolTime(), vm.getBlockTimestamp(), "protocol time is wall clock before any pause");
    }

    function _deploy(address t, address s, address r, address v, address a, address tr) private returns (TaskRegistry) {
        return new TaskRegistry(IERC20(t), IStakeManager(s), IReputation(r), IRewardVault(v), a, tr);
    }

    function test_constructor_rejectsZeroAddresses() public {
        address t = address(token);
        address s = address(stakes);
        address r = address(reputation);
        address v = address(vault);
        bytes memory err = abi.encodeWithSelector(ITaskRegistry.ZeroAddress.selector);
        vm.expectRevert(err);
        _deploy(address(0), s, r, v, admin, treasury);
        vm.expectRevert(err);
        _deploy(t, address(0), r, v, admin, treasury);
        vm.expectRevert(err);
        _deploy(t, s, address(0), v, admin, treasury);
        vm.expectRevert(err);
        _deploy(t, s, r, address(0), admin, treasury);
        vm.expectRevert(err);
        _deploy(t, s, r, v, address(0), treasury);
        vm.expectRevert(err);
        _deploy(t, s, r, v, admin, address(0));
    }

    // ------------------------------------------------------------ role shares

    function test_setRoleShares_updatesSharesAndEmits() public {
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.RoleSharesSet(6000, 2500, 1500);
        vm.prank(admin);
        registry.setRoleShares(6000, 2500, 1500);
        uint16[3] memory shares = registry.roleShares();
        assertEq(shares[uint8(Role.Trainer)], 6000, "trainer");
        assertEq(shares[uint8(Role.Sampler)], 2500, "sampler");
        assertEq(shares[uint8(Role.Validator)], 1500, "validator");
    }

    function test_setRoleShares_acceptsBoundValues() public {
        vm.startPrank(admin);
        registry.setRoleShares(8500, 1000, 500);
        registry.setRoleShares(5000, 3500, 1500);
        registry.setRoleShares(5000, 3000, 2000);
        vm.stopPrank();
        assertEq(registry.roleShares()[uint8(Role.Validator)], 2000, "validator max");
    }

    function _expectSharesRevert(uint256 t, uint256 s, uint256 v) private {
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.SharesOutOfBounds.selector, t, s, v));
        vm.prank(admin);
        registry.setRoleShares(t, s, v);
    }

    function test_setRoleShares_rejectsEachShareOutsideItsBounds() public {
        _expectSharesRevert(4999, 3500, 1501); // trainer < 50%
        _expectSharesRevert(8501, 1000, 499); // trainer > 85%
        _expectSharesRevert(8100, 999, 901); // sampler < 10%
        _expectSharesRevert(5000, 3501, 1499); // sampler > 35%
        _expectSharesRevert(7100, 2501, 399); // validator < 5%
        _expectSharesRevert(5000, 2999, 2001); // validator > 20%
    }

    function test_setRoleShares_rejectsSharesNotSummingToWhole() public {
        _expectSharesRevert(7000, 2000, 999);
        _expectSharesRevert(7000, 2000, 1001);
    }

    function test_setRoleShares_onlyGovernor() public {
        bytes32 role = registry.GOVERNOR_ROLE();
        vm.expectRevert(_unauthorized(relayer, role));
        vm.prank(relayer);
        registry.setRoleShares(6000, 2500, 1500);
    }

    function test_setRoleShares_neverTouchesPostedTasks() public {
        uint256 taskId = _createTask();
        vm.prank(admin);
        registry.setRoleShares(6000, 2500, 1500);
        assertEq(_task(taskId).sharesBps[uint8(Role.Trainer)], 7000, "snapshot kept");
        assertEq(_task(_createTask()).sharesBps[uint8(Role.Trainer)], 6000, "new task takes new shares");
    }

    // ------------------------------------------------------------ slash share

    function test_setSlashBps_updatesAndEmits() public {
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.SlashBpsSet(5000);
        vm.prank(admin);
        registry.setSlashBps(5000);
        assertEq(registry.slashBps(), 5000, "max allowed");
        vm.prank(admin);
        registry.setSlashBps(0);
        assertEq(registry.slashBps(), 0, "zero allowed");
    }

    function test_setSlashBps_rejectsMoreThanHalf() public {
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.SlashBpsOutOfBounds.selector, 5001, 5000));
        vm.prank(admin);
        registry.setSlashBps(5001);
    }

    function test_setSlashBps_onlyGovernor() public {
        bytes32 role = registry.GOVERNOR_ROLE();
        vm.expectRevert(_unauthorized(relayer, role));
        vm.prank(relayer);
        registry.setSlashBps(10);
    }

    function test_slashUsesCurrentSlashBpsAndTreasury() public {
        address newTreasury = _named("newTreasury");
        vm.startPrank(admin);
        registry.setSlashBps(5000);
        registry.setTreasury(newTreasury);
        vm.stopPrank();
        uint256 taskId = _activeTask();
        _runRound(taskId, 0x6); // sampler 0 rejected
        assertEq(token.balanceOf(newTreasury), MIN_SAMPLER_STAKE / 2, "half the locked stake to the new treasury");
        assertEq(token.balanceOf(treasury), 0, "old treasury gets nothing");
    }

    // ------------------------------------------------------------ treasury

    function test_setTreasury_updatesAndEmits() public {
        address newTreasury = _named("newTreasury");
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.TreasurySet(newTreasury);
        vm.prank(admin);
        registry.setTreasury(newTreasury);
        assertEq(registry.treasury(), newTreasury, "treasury");
    }

    function test_setTreasury_rejectsZeroAddress() public {
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.ZeroAddress.selector));
        vm.prank(admin);
        registry.setTreasury(address(0));
    }

    function test_setTreasury_onlyGovernor() public {
        bytes32 role = registry.GOVERNOR_ROLE();
        vm.expectRevert(_unauthorized(relayer, role));
        vm.prank(relayer);
        registry.setTreasury(relayer);
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
        assertEq(uint256(registry.taskOf(9).status), uint256(ITaskRegistry.Status.None), "no task");
        assertEq(registry.slotOf(9, Role.Sampler, 0).node, address(0), "no slot");
        assertTrue(!registry.membershipOf(9, relayer).assigned, "no membership");
        assertEq(registry.submissionOf(9, 0, Role.Trainer, 0).commitment, bytes32(0), "no submission");
        assertTrue(!registry.attestationOf(9, 0, 0).voted, "no attestation");
        assertEq(registry.paidOf(9)[0], 0, "nothing paid");
        assertEq(registry.nonces(requester), 0, "fresh nonce");
    }

    function test_supportsAccessControlInterface() public view {
        assertTrue(registry.supportsInterface(type(IAccessControl).interfaceId), "IAccessControl");
    }
}

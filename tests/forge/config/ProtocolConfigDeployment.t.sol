// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {RegistryFixture} from "../base/RegistryFixture.sol";
import {ProtocolConfig} from "../../../contracts/ProtocolConfig.sol";
import {IProtocolConfig} from "../../../contracts/interfaces/IProtocolConfig.sol";
import {Role} from "../../../contracts/libraries/Types.sol";
import {IAccessControl} from "@openzeppelin/contracts/access/IAccessControl.sol";

/// @notice SPECIFICATION.md 2 and 9: ProtocolConfig starts with the documented defaults (each set
///         through its bounded setter, so each emits), its admin governs, and governance can be
///         handed to another account; the cores read it, they do not copy it.
contract ProtocolConfigDeploymentTest is RegistryFixture {
    function test_constructor_setsTheDocumentedDefaults() public view {
        uint16[3] memory shares = config.roleShares();
        assertEq(shares[uint8(Role.Sampler)], 2000, "sampler share");
        assertEq(shares[uint8(Role.Trainer)], 7000, "trainer share");
        assertEq(shares[uint8(Role.Validator)], 1000, "validator share");
        assertEq(config.slashBps(), 1000, "slash bps");
        assertEq(config.treasury(), treasury, "treasury");
        assertEq(config.disputeWindow(), 1 days, "dispute window");
        assertEq(config.voteWindow(), 1 days, "vote window");
        assertEq(config.minBond(), 100e18, "min bond");
        assertEq(config.forcedErrorBps(), 5000, "forced-error rate");
    }

    function test_constructor_emitsEveryDefault() public {
        address fresh = _named("fresh admin");
        vm.expectEmit(true, true, true, true);
        emit IProtocolConfig.RoleSharesSet(7000, 2000, 1000);
        vm.expectEmit(true, true, true, true);
        emit IProtocolConfig.SlashBpsSet(1000);
        vm.expectEmit(true, true, true, true);
        emit IProtocolConfig.TreasurySet(treasury);
        vm.expectEmit(true, true, true, true);
        emit IProtocolConfig.DisputeWindowSet(1 days);
        vm.expectEmit(true, true, true, true);
        emit IProtocolConfig.VoteWindowSet(1 days);
        vm.expectEmit(true, true, true, true);
        emit IProtocolConfig.MinBondSet(100e18);
        vm.expectEmit(true, true, true, true);
        emit IProtocolConfig.ForcedErrorBpsSet(5000);
        vm.expectEmit(true, true, true, true);
        emit IProtocolConfig.MinBountyPerSlotRoundSet(0.01e18);
        new ProtocolConfig(fresh, treasury);
    }

    function test_constructor_grantsAdminAndGovernorToTheAdmin() public view {
        assertTrue(config.hasRole(config.DEFAULT_ADMIN_ROLE(), admin), "admin");
        assertTrue(config.hasRole(config.GOVERNOR_ROLE(), admin), "governor");
        assertEq(config.GOVERNOR_ROLE(), keccak256("GOVERNOR_ROLE"), "role id");
        assertTrue(!config.hasRole(config.GOVERNOR_ROLE(), address(registry)), "the registry does not govern");
        assertTrue(config.supportsInterface(type(IAccessControl).interfaceId), "IAccessControl");
    }

    function test_constructor_rejectsZeroAdminAndZeroTreasury() public {
        vm.expectRevert(abi.encodeWithSelector(IProtocolConfig.ZeroAddress.selector));
        new ProtocolConfig(address(0), treasury);
        vm.expectRevert(abi.encodeWithSelector(IProtocolConfig.ZeroAddress.selector));
        new ProtocolConfig(admin, address(0));
    }

    function test_cores_readTheDeployedConfig() public view {
        assertEq(address(registry.config()), address(config), "registry");
        assertEq(address(disputes.config()), address(config), "dispute manager");
        assertEq(address(stateView.config()), address(config), "state view");
    }

    function test_governorRoleCanBeHandedToAnotherAccount() public {
        address governor = _named("governor");
        bytes32 role = config.GOVERNOR_ROLE();
        vm.startPrank(admin);
        config.grantRole(role, governor);
        config.revokeRole(role, admin);
        vm.stopPrank();
        vm.prank(governor);
        config.setMinBond(5e18);
        assertEq(config.minBond(), 5e18, "set by the new governor");
        vm.expectRevert(abi.encodeWithSelector(IAccessControl.AccessControlUnauthorizedAccount.selector, admin, role));
        vm.prank(admin);
        config.setMinBond(6e18);
    }

    function test_boundsAreTheDocumentedConstants() public view {
        assertEq(config.MAX_SLASH_BPS(), 5000, "max slash");
        assertEq(config.MIN_DISPUTE_WINDOW(), 1 hours, "min dispute window");
        assertEq(config.MAX_DISPUTE_WINDOW(), 3 days, "max dispute window");
        assertEq(config.MIN_VOTE_WINDOW(), 10 minutes, "min vote window");
        assertEq(config.MAX_VOTE_WINDOW(), 36 hours, "max vote window");
        assertEq(config.MIN_BOND(), 1e18, "min bond bound");
        assertEq(config.MAX_BOND(), 100_000e18, "max bond bound");
        assertEq(config.MAX_FORCED_ERROR_BPS(), 5000, "max forced-error rate");
    }
}

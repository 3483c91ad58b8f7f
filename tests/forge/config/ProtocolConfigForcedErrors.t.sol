// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {RegistryFixture} from "../base/RegistryFixture.sol";
import {IProtocolConfig} from "../../../contracts/interfaces/IProtocolConfig.sol";
import {IAccessControl} from "@openzeppelin/contracts/access/IAccessControl.sol";

/// @notice SPECIFICATION.md 5.5.3 and 9: the forced-error rate is governed in ProtocolConfig, at
///         most one half, and read by every draw opening when it happens (StateView shows it).
contract ProtocolConfigForcedErrorsTest is RegistryFixture {
    function test_setForcedErrorBps_updatesAndEmits() public {
        vm.expectEmit(true, true, true, true, address(config));
        emit IProtocolConfig.ForcedErrorBpsSet(1234);
        vm.prank(admin);
        config.setForcedErrorBps(1234);
        assertEq(config.forcedErrorBps(), 1234, "set");
        assertEq(stateView.forcedErrorBps(), 1234, "StateView reads it");
        vm.prank(admin);
        config.setForcedErrorBps(0);
        assertEq(config.forcedErrorBps(), 0, "zero allowed: forced errors off");
        vm.prank(admin);
        config.setForcedErrorBps(5000);
        assertEq(config.forcedErrorBps(), 5000, "one half allowed");
    }

    function test_setForcedErrorBps_rejectsMoreThanHalf() public {
        vm.expectRevert(abi.encodeWithSelector(IProtocolConfig.ForcedErrorBpsOutOfBounds.selector, 5001, 5000));
        vm.prank(admin);
        config.setForcedErrorBps(5001);
        vm.expectRevert(abi.encodeWithSelector(IProtocolConfig.ForcedErrorBpsOutOfBounds.selector, 10_000, 5000));
        vm.prank(admin);
        config.setForcedErrorBps(10_000);
        assertEq(config.forcedErrorBps(), 5000, "unchanged");
    }

    function test_setForcedErrorBps_onlyGovernor() public {
        bytes32 role = config.GOVERNOR_ROLE();
        vm.expectRevert(abi.encodeWithSelector(IAccessControl.AccessControlUnauthorizedAccount.selector, relayer, role));
        vm.prank(relayer);
        config.setForcedErrorBps(10);
    }

    function test_theRateSharesASlotWithTheSlashSettings() public {
        vm.startPrank(admin);
        config.setForcedErrorBps(4321);
        config.setSlashBps(1234);
        config.setTreasury(relayer);
        vm.stopPrank();
        assertEq(config.forcedErrorBps(), 4321, "rate kept");
        (uint256 bps, address to) = config.slashing();
        assertEq(bps, 1234, "slash kept");
        assertEq(to, relayer, "treasury kept");
    }
}

// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {RegistryFixture} from "../base/RegistryFixture.sol";
import {IProtocolConfig} from "../../../contracts/interfaces/IProtocolConfig.sol";
import {IAccessControl} from "@openzeppelin/contracts/access/IAccessControl.sol";

/// @notice SPECIFICATION.md 9: the slash rate and the treasury are governed in ProtocolConfig and
///         read by every slash at the time it happens (`slashing()`: both in one call).
contract ProtocolConfigSlashingTest is RegistryFixture {
    function _unauthorized(address who, bytes32 role) private pure returns (bytes memory) {
        return abi.encodeWithSelector(IAccessControl.AccessControlUnauthorizedAccount.selector, who, role);
    }

    // ------------------------------------------------------------ slash share

    function test_setSlashBps_updatesAndEmits() public {
        vm.expectEmit(true, true, true, true, address(config));
        emit IProtocolConfig.SlashBpsSet(5000);
        vm.prank(admin);
        config.setSlashBps(5000);
        assertEq(config.slashBps(), 5000, "max allowed");
        vm.prank(admin);
        config.setSlashBps(0);
        assertEq(config.slashBps(), 0, "zero allowed");
    }

    function test_setSlashBps_rejectsMoreThanHalf() public {
        vm.expectRevert(abi.encodeWithSelector(IProtocolConfig.SlashBpsOutOfBounds.selector, 5001, 5000));
        vm.prank(admin);
        config.setSlashBps(5001);
    }

    function test_setSlashBps_onlyGovernor() public {
        bytes32 role = config.GOVERNOR_ROLE();
        vm.expectRevert(_unauthorized(relayer, role));
        vm.prank(relayer);
        config.setSlashBps(10);
    }

    function test_slashUsesCurrentSlashBpsAndTreasury() public {
        address newTreasury = _named("newTreasury");
        vm.startPrank(admin);
        config.setSlashBps(5000);
        config.setTreasury(newTreasury);
        vm.stopPrank();
        uint256 taskId = _activeTask();
        _runRound(taskId, 0x6); // sampler 0 rejected
        assertEq(token.balanceOf(newTreasury), MIN_SAMPLER_STAKE / 2, "half the locked stake to the new treasury");
        assertEq(token.balanceOf(treasury), 0, "old treasury gets nothing");
    }

    // ------------------------------------------------------------ treasury

    function test_setTreasury_updatesAndEmits() public {
        address newTreasury = _named("newTreasury");
        vm.expectEmit(true, true, true, true, address(config));
        emit IProtocolConfig.TreasurySet(newTreasury);
        vm.prank(admin);
        config.setTreasury(newTreasury);
        assertEq(config.treasury(), newTreasury, "treasury");
    }

    function test_setTreasury_rejectsZeroAddress() public {
        vm.expectRevert(abi.encodeWithSelector(IProtocolConfig.ZeroAddress.selector));
        vm.prank(admin);
        config.setTreasury(address(0));
    }

    function test_setTreasury_onlyGovernor() public {
        bytes32 role = config.GOVERNOR_ROLE();
        vm.expectRevert(_unauthorized(relayer, role));
        vm.prank(relayer);
        config.setTreasury(relayer);
    }

    function test_slashing_returnsSlashBpsAndTreasuryTogether() public {
        (uint256 bps, address to) = config.slashing();
        assertEq(bps, 1000, "default bps");
        assertEq(to, treasury, "default treasury");
        address newTreasury = _named("newTreasury");
        vm.startPrank(admin);
        config.setSlashBps(4321);
        config.setTreasury(newTreasury);
        vm.stopPrank();
        (bps, to) = config.slashing();
        assertEq(bps, config.slashBps(), "bps == slashBps()");
        assertEq(to, config.treasury(), "treasury == treasury()");
        assertEq(bps, 4321, "bps");
        assertEq(to, newTreasury, "treasury");
    }
}

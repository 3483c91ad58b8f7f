// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {RegistryFixture} from "../base/RegistryFixture.sol";
import {IProtocolConfig} from "../../../contracts/interfaces/IProtocolConfig.sol";
import {IAccessControl} from "@openzeppelin/contracts/access/IAccessControl.sol";

/// @notice SPECIFICATION.md 9 and "Disputes": the dispute window, the vote window and the minimum
///         bond are governed in ProtocolConfig within their bounds (both ends inclusive), each change
///         emitted; the DisputeManager and StateView read them from there.
contract ProtocolConfigDisputeParamsTest is RegistryFixture {
    function _unauthorized(address who) private view returns (bytes memory) {
        return abi.encodeWithSelector(
            IAccessControl.AccessControlUnauthorizedAccount.selector, who, config.GOVERNOR_ROLE()
        );
    }

    function _windowError(uint256 window, uint256 min, uint256 max) private pure returns (bytes memory) {
        return abi.encodeWithSelector(IProtocolConfig.WindowOutOfBounds.selector, window, min, max);
    }

    function test_setDisputeWindow_acceptsBothBoundsAndEmits() public {
        vm.startPrank(admin);
        vm.expectEmit(true, true, true, true, address(config));
        emit IProtocolConfig.DisputeWindowSet(1 hours);
        config.setDisputeWindow(1 hours);
        assertEq(config.disputeWindow(), 1 hours, "min");
        config.setDisputeWindow(3 days);
        assertEq(config.disputeWindow(), 3 days, "max");
        vm.stopPrank();
    }

    function test_setDisputeWindow_rejectsOutOfBounds() public {
        vm.startPrank(admin);
        vm.expectRevert(_windowError(1 hours - 1, 1 hours, 3 days));
        config.setDisputeWindow(1 hours - 1);
        vm.expectRevert(_windowError(3 days + 1, 1 hours, 3 days));
        config.setDisputeWindow(3 days + 1);
        vm.stopPrank();
        assertEq(config.disputeWindow(), 1 days, "unchanged");
    }

    function test_setVoteWindow_acceptsBothBoundsAndEmits() public {
        vm.startPrank(admin);
        vm.expectEmit(true, true, true, true, address(config));
        emit IProtocolConfig.VoteWindowSet(10 minutes);
        config.setVoteWindow(10 minutes);
        assertEq(config.voteWindow(), 10 minutes, "min");
        config.setVoteWindow(36 hours);
        assertEq(config.voteWindow(), 36 hours, "max");
        vm.stopPrank();
    }

    function test_setVoteWindow_rejectsOutOfBounds() public {
        vm.startPrank(admin);
        vm.expectRevert(_windowError(10 minutes - 1, 10 minutes, 36 hours));
        config.setVoteWindow(10 minutes - 1);
        vm.expectRevert(_windowError(36 hours + 1, 10 minutes, 36 hours));
        config.setVoteWindow(36 hours + 1);
        vm.stopPrank();
        assertEq(config.voteWindow(), 1 days, "unchanged");
    }

    function test_setMinBond_acceptsBothBoundsAndEmits() public {
        vm.startPrank(admin);
        vm.expectEmit(true, true, true, true, address(config));
        emit IProtocolConfig.MinBondSet(1e18);
        config.setMinBond(1e18);
        assertEq(config.minBond(), 1e18, "min");
        config.setMinBond(100_000e18);
        assertEq(config.minBond(), 100_000e18, "max");
        vm.stopPrank();
    }

    function test_setMinBond_rejectsOutOfBounds() public {
        vm.startPrank(admin);
        vm.expectRevert(abi.encodeWithSelector(IProtocolConfig.BondOutOfBounds.selector, 1e18 - 1, 1e18, 100_000e18));
        config.setMinBond(1e18 - 1);
        vm.expectRevert(
            abi.encodeWithSelector(IProtocolConfig.BondOutOfBounds.selector, 100_000e18 + 1, 1e18, 100_000e18)
        );
        config.setMinBond(100_000e18 + 1);
        vm.stopPrank();
        assertEq(config.minBond(), 100e18, "unchanged");
    }

    function test_disputeParameters_onlyGovernor() public {
        vm.startPrank(relayer);
        vm.expectRevert(_unauthorized(relayer));
        config.setDisputeWindow(2 days);
        vm.expectRevert(_unauthorized(relayer));
        config.setVoteWindow(1 hours);
        vm.expectRevert(_unauthorized(relayer));
        config.setMinBond(5e18);
        vm.stopPrank();
    }
}

// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {RegistryFixture} from "../base/RegistryFixture.sol";
import {IProtocolConfig} from "../../../contracts/interfaces/IProtocolConfig.sol";
import {Role} from "../../../contracts/libraries/Types.sol";
import {IAccessControl} from "@openzeppelin/contracts/access/IAccessControl.sol";

/// @notice SPECIFICATION.md 9: the role shares of a bounty are governed in ProtocolConfig, within
///         bounds, summing to the whole; a task snapshots them at creation.
contract ProtocolConfigSharesTest is RegistryFixture {
    function _unauthorized(address who, bytes32 role) private pure returns (bytes memory) {
        return abi.encodeWithSelector(IAccessControl.AccessControlUnauthorizedAccount.selector, who, role);
    }

    function test_setRoleShares_updatesSharesAndEmits() public {
        vm.expectEmit(true, true, true, true, address(config));
        emit IProtocolConfig.RoleSharesSet(6000, 2500, 1500);
        vm.prank(admin);
        config.setRoleShares(6000, 2500, 1500);
        uint16[3] memory shares = config.roleShares();
        assertEq(shares[uint8(Role.Trainer)], 6000, "trainer");
        assertEq(shares[uint8(Role.Sampler)], 2500, "sampler");
        assertEq(shares[uint8(Role.Validator)], 1500, "validator");
    }

    function test_setRoleShares_acceptsBoundValues() public {
        vm.startPrank(admin);
        config.setRoleShares(8500, 1000, 500);
        config.setRoleShares(5000, 3500, 1500);
        config.setRoleShares(5000, 3000, 2000);
        vm.stopPrank();
        assertEq(config.roleShares()[uint8(Role.Validator)], 2000, "validator max");
    }

    function _expectSharesRevert(uint256 t, uint256 s, uint256 v) private {
        vm.expectRevert(abi.encodeWithSelector(IProtocolConfig.SharesOutOfBounds.selector, t, s, v));
        vm.prank(admin);
        config.setRoleShares(t, s, v);
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
        bytes32 role = config.GOVERNOR_ROLE();
        vm.expectRevert(_unauthorized(relayer, role));
        vm.prank(relayer);
        config.setRoleShares(6000, 2500, 1500);
    }

    function test_setRoleShares_neverTouchesPostedTasks() public {
        uint256 taskId = _createTask();
        vm.prank(admin);
        config.setRoleShares(6000, 2500, 1500);
        assertEq(_task(taskId).sharesBps[uint8(Role.Trainer)], 7000, "snapshot kept");
        assertEq(_task(_createTask()).sharesBps[uint8(Role.Trainer)], 6000, "new task takes new shares");
    }
}

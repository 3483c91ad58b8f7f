// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {RegistryFixture} from "../base/RegistryFixture.sol";
import {IProtocolConfig} from "../../../contracts/interfaces/IProtocolConfig.sol";
import {IAccessControl} from "@openzeppelin/contracts/access/IAccessControl.sol";

/// @notice SPECIFICATION.md 5.2 and 9: the minimum bounty per slot-round is governed in
///         ProtocolConfig (default 0.01 DRL, at most 10 DRL) and StateView prices a task's shape with it.
contract ProtocolConfigMinBountyTest is RegistryFixture {
    function test_defaultIsOneHundredthOfADrl() public view {
        assertEq(config.minBountyPerSlotRound(), 0.01e18, "default");
        assertEq(config.MAX_MIN_BOUNTY_PER_SLOT_ROUND(), 10e18, "cap");
        // 2 samplers + 1 trainer + 3 validators, 3 rounds: 18 slot-rounds.
        assertEq(stateView.minBounty(2, 3, 3), 0.18e18, "StateView prices the default task's shape");
    }

    function test_setMinBountyPerSlotRound_updatesAndEmits() public {
        vm.expectEmit(true, true, true, true, address(config));
        emit IProtocolConfig.MinBountyPerSlotRoundSet(1e18);
        vm.prank(admin);
        config.setMinBountyPerSlotRound(1e18);
        assertEq(config.minBountyPerSlotRound(), 1e18, "set");
        assertEq(stateView.minBounty(1, 1, 1), 3e18, "StateView reads it");
        vm.prank(admin);
        config.setMinBountyPerSlotRound(0);
        assertEq(stateView.minBounty(32, 64, 1000), 0, "zero turns the minimum off");
        vm.prank(admin);
        config.setMinBountyPerSlotRound(10e18);
        assertEq(config.minBountyPerSlotRound(), 10e18, "the cap itself is allowed");
    }

    function test_setMinBountyPerSlotRound_rejectsMoreThanTheCap() public {
        vm.expectRevert(abi.encodeWithSelector(IProtocolConfig.MinBountyOutOfBounds.selector, 10e18 + 1, 10e18));
        vm.prank(admin);
        config.setMinBountyPerSlotRound(10e18 + 1);
        vm.expectRevert(
            abi.encodeWithSelector(IProtocolConfig.MinBountyOutOfBounds.selector, type(uint256).max, 10e18)
        );
        vm.prank(admin);
        config.setMinBountyPerSlotRound(type(uint256).max);
        assertEq(config.minBountyPerSlotRound(), 0.01e18, "unchanged");
    }

    function test_setMinBountyPerSlotRound_onlyGovernor() public {
        bytes32 role = config.GOVERNOR_ROLE();
        vm.expectRevert(abi.encodeWithSelector(IAccessControl.AccessControlUnauthorizedAccount.selector, relayer, role));
        vm.prank(relayer);
        config.setMinBountyPerSlotRound(0);
    }

    function test_theMinimumSharesASlotWithTheDisputeSettings() public {
        vm.startPrank(admin);
        config.setMinBountyPerSlotRound(type(uint64).max % 10e18);
        config.setMinBond(100_000e18);
        config.setDisputeWindow(3 days);
        config.setVoteWindow(36 hours);
        vm.stopPrank();
        assertEq(config.minBountyPerSlotRound(), type(uint64).max % 10e18, "minimum kept");
        assertEq(config.minBond(), 100_000e18, "bond kept");
        assertEq(config.disputeWindow(), 3 days, "dispute window kept");
        assertEq(config.voteWindow(), 36 hours, "vote window kept");
    }
}

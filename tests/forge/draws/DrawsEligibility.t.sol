// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {RegistryFixture} from "../base/RegistryFixture.sol";
import {DrawsHarness} from "./DrawsHarness.sol";
import {Draws} from "../../../contracts/libraries/Draws.sol";
import {ITaskRegistry} from "../../../contracts/interfaces/ITaskRegistry.sol";
import {Role, Outcome} from "../../../contracts/libraries/Types.sol";

/// @notice SPECIFICATION.md 3: one eligibility rule for claims, validator draws and juror draws,
///         checked in a fixed order (paused, then stake, then reputation); `requireEligible` names
///         the first bar, `eligible` and `bar` agree with it.
contract DrawsEligibilityTest is RegistryFixture {
    DrawsHarness internal draws;
    address internal node;

    /// @dev A validator barred three ways: paused, half the minimum stake, reputation 50 (< 60).
    function setUp() public override {
        super.setUp();
        draws = new DrawsHarness();
        node = _stakedNode("barred", Role.Validator, MIN_VALIDATOR_STAKE / 2);
        _recordOutcome(node, Outcome.Rejected, 1);
        vm.prank(node);
        stakes.setNodePaused(true);
    }

    function _expectBar(Draws.Bar expected, uint256 have, uint256 need) internal view {
        (Draws.Bar why, uint256 h, uint256 n) = draws.bar(stakes, reputation, node, Role.Validator);
        assertEq(uint256(why), uint256(expected), "bar");
        assertEq(h, have, "have");
        assertEq(n, need, "need");
        assertTrue(draws.eligible(stakes, reputation, node, Role.Validator) == (expected == Draws.Bar.None), "eligible");
    }

    function test_requireEligible_namesTheBarsInOrder_pausedStakeReputation() public {
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.NodePaused.selector, node));
        draws.requireEligible(stakes, reputation, node, Role.Validator);
        _expectBar(Draws.Bar.Paused, 0, 0);

        vm.prank(node);
        stakes.setNodePaused(false);
        vm.expectRevert(
            abi.encodeWithSelector(
                ITaskRegistry.InsufficientStake.selector, node, Role.Validator, MIN_VALIDATOR_STAKE / 2, MIN_VALIDATOR_STAKE
            )
        );
        draws.requireEligible(stakes, reputation, node, Role.Validator);
        _expectBar(Draws.Bar.Stake, MIN_VALIDATOR_STAKE / 2, MIN_VALIDATOR_STAKE);

        _stake(node, Role.Validator, MIN_VALIDATOR_STAKE / 2);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.ReputationTooLow.selector, node, 50, 60));
        draws.requireEligible(stakes, reputation, node, Role.Validator);
        _expectBar(Draws.Bar.Reputation, 50, 60);

        uint256 at = reputation.recoveryAvailableAt(node);
        if (at > vm.getBlockTimestamp()) vm.warp(at);
        vm.prank(node);
        reputation.recover();
        draws.requireEligible(stakes, reputation, node, Role.Validator);
        _expectBar(Draws.Bar.None, 0, 0);
    }

    function test_stakeIsCheckedForTheRoleAsked() public {
        vm.prank(node);
        stakes.setNodePaused(false);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.InsufficientStake.selector, node, Role.Sampler, 0, MIN_SAMPLER_STAKE));
        draws.requireEligible(stakes, reputation, node, Role.Sampler);
    }

    function test_lockedStakeDoesNotCount() public {
        uint256 taskId = _activeTask(); // the three default validators each lock their whole stake
        address v = _validatorAt(taskId, 0);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.InsufficientStake.selector, v, Role.Validator, 0, MIN_VALIDATOR_STAKE));
        draws.requireEligible(stakes, reputation, v, Role.Validator);
    }

    function test_theRegistrysClaimFollowsTheSameOrder() public {
        uint256 taskId = _createTask();
        _stake(node, Role.Sampler, MIN_SAMPLER_STAKE / 2);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.NodePaused.selector, node));
        _claim(taskId, node, Role.Sampler);
        vm.prank(node);
        stakes.setNodePaused(false);
        vm.expectRevert(
            abi.encodeWithSelector(ITaskRegistry.InsufficientStake.selector, node, Role.Sampler, MIN_SAMPLER_STAKE / 2, MIN_SAMPLER_STAKE)
        );
        _claim(taskId, node, Role.Sampler);
        _stake(node, Role.Sampler, MIN_SAMPLER_STAKE / 2);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.ReputationTooLow.selector, node, 50, 60));
        _claim(taskId, node, Role.Sampler);
    }
}

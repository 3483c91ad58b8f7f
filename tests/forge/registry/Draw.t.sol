// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {RegistryFixture} from "../base/RegistryFixture.sol";
import {ITaskRegistry} from "../../../contracts/interfaces/ITaskRegistry.sol";
import {Role, Outcome} from "../../../contracts/libraries/Types.sol";
import {Pausable} from "@openzeppelin/contracts/utils/Pausable.sol";

/// @notice SPECIFICATION.md 5.3: the validator draw.
contract DrawTest is RegistryFixture {
    uint256 private taskId;

    function setUp() public override {
        super.setUp();
        taskId = _createTask();
    }

    function _assigned(address node) private view returns (bool) {
        return stateView.membershipOf(taskId, node).assigned;
    }

    // ------------------------------------------------------------ preconditions

    function test_drawValidators_revertsBeforeSeedBlockIsMined() public {
        _fillSlots(taskId);
        uint256 seedBlock = _task(taskId).seedBlock;
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.DrawNotReady.selector, taskId, seedBlock));
        registry.drawValidators(taskId);
        vm.roll(seedBlock); // the seed block itself has no hash yet
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.DrawNotReady.selector, taskId, seedBlock));
        registry.drawValidators(taskId);
    }

    function test_drawValidators_revertsOnOpenTask() public {
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.WrongStatus.selector, taskId, ITaskRegistry.Status.Open));
        registry.drawValidators(taskId);
    }

    function test_drawValidators_revertsForUnknownTask() public {
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.TaskNotFound.selector, 5));
        registry.drawValidators(5);
    }

    function test_drawValidators_revertsWhenNoSlotIsVacant() public {
        _fillSlots(taskId);
        _draw(taskId);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.NoVacancy.selector, taskId));
        registry.drawValidators(taskId);
    }

    function test_drawValidators_revertsWhilePaused() public {
        _fillSlots(taskId);
        _rollPastSeed(taskId);
        vm.prank(admin);
        registry.pause();
        vm.expectRevert(abi.encodeWithSelector(Pausable.EnforcedPause.selector));
        registry.drawValidators(taskId);
    }

    // ------------------------------------------------------------ activation

    function test_drawValidators_fillsEverySlotAndActivatesTask() public {
        _fillSlots(taskId);
        _rollPastSeed(taskId);
        uint256 deadline = registry.protocolTime() + COMMIT_WINDOW;
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.TaskStatusChanged(taskId, ITaskRegistry.Status.Active);
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.PhaseStarted(taskId, 0, ITaskRegistry.Phase.SampleCommit, deadline);
        registry.drawValidators(taskId);

        ITaskRegistry.Task memory t = _task(taskId);
        assertEq(uint256(t.status), uint256(ITaskRegistry.Status.Active), "active");
        assertEq(t.filledValidators, 3, "filled");
        assertEq(t.seedBlock, 0, "seed cleared");
        assertEq(t.phaseDeadline, deadline, "deadline");
        assertEq(t.pending, 2, "both samplers expected");
        for (uint256 i = 0; i < 3; ++i) {
            assertTrue(_assigned(validators[i]), "every pool member drawn");
            assertEq(_lockedOf(validators[i], Role.Validator), MIN_VALIDATOR_STAKE, "validator stake locked");
            ITaskRegistry.Membership memory m = stateView.membershipOf(taskId, validators[i]);
            assertEq(uint256(m.role), uint256(Role.Validator), "role");
            assertEq(_validatorAt(taskId, m.slot), validators[i], "slot holds validator");
            assertEq(stateView.slotOf(taskId, Role.Validator, m.slot).sinceRound, 0, "since round 0");
        }
    }

    // ------------------------------------------------------------ re-arming

    function test_drawValidators_reArmsWhenSeedBlockHashExpired() public {
        _fillSlots(taskId);
        uint256 seedBlock = _task(taskId).seedBlock;
        vm.roll(seedBlock + 300);
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.DrawArmed(taskId, seedBlock + 301);
        registry.drawValidators(taskId);
        assertEq(_task(taskId).filledValidators, 0, "nobody drawn from a zero seed");
        assertEq(_task(taskId).seedBlock, seedBlock + 301, "re-armed");
        _assertStatus(taskId, ITaskRegistry.Status.Drawing);

        _draw(taskId);
        _assertStatus(taskId, ITaskRegistry.Status.Active);
    }

    function test_drawValidators_reArmsWhenPoolIsEmpty() public {
        for (uint256 i = 0; i < 3; ++i) {
            vm.prank(validators[i]);
            stakes.requestUnstake(Role.Validator, MIN_VALIDATOR_STAKE);
        }
        assertEq(stakes.validatorCount(), 0, "empty pool");
        _fillSlots(taskId);
        _rollPastSeed(taskId);
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.DrawArmed(taskId, vm.getBlockNumber() + 1);
        registry.drawValidators(taskId);
        assertEq(_task(taskId).filledValidators, 0, "nobody drawn");
        _assertStatus(taskId, ITaskRegistry.Status.Drawing);
    }

    function test_drawValidators_partialFillReArmsAndLaterActivates() public {
        vm.prank(validators[1]);
        stakes.setNodePaused(true);
        _fillSlots(taskId);
        _rollPastSeed(taskId);
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.DrawArmed(taskId, vm.getBlockNumber() + 1);
        registry.drawValidators(taskId);
        assertEq(_task(taskId).filledValidators, 2, "two drawn");
        assertTrue(!_assigned(validators[1]), "paused validator skipped");
        _assertStatus(taskId, ITaskRegistry.Status.Drawing);

        vm.prank(validators[1]);
        stakes.setNodePaused(false);
        _draw(taskId);
        assertTrue(_assigned(validators[1]), "drawn once unpaused");
        _assertStatus(taskId, ITaskRegistry.Status.Active);
    }

    // ------------------------------------------------------------ who is skipped

    function test_drawValidators_neverDrawsTheRequester() public {
        _stake(requester, Role.Validator, MIN_VALIDATOR_STAKE);
        _fillSlots(taskId);
        _draw(taskId);
        assertTrue(!_assigned(requester), "requester skipped");
        _assertStatus(taskId, ITaskRegistry.Status.Active);
    }

    function test_drawValidators_skipsNodesAlreadyInTheTask() public {
        _stake(samplers[0], Role.Validator, MIN_VALIDATOR_STAKE);
        _fillSlots(taskId);
        _draw(taskId);
        assertEq(uint256(stateView.membershipOf(taskId, samplers[0]).role), uint256(Role.Sampler), "still a sampler");
        assertEq(_lockedOf(samplers[0], Role.Validator), 0, "no validator lock");
        _assertStatus(taskId, ITaskRegistry.Status.Active);
    }

    function test_drawValidators_skipsValidatorWithoutUnlockedStake() public {
        address extra = _stakedNode("validator3", Role.Validator, MIN_VALIDATOR_STAKE);
        vm.prank(admin);
        stakes.setMinStake(Role.Validator, MIN_VALIDATOR_STAKE + 1);
        _stake(extra, Role.Validator, 1); // only `extra` still covers the raised minimum
        ITaskRegistry.TaskParams memory p = _params();
        p.numValidators = 1;
        uint256 single = _createTask(p);
        _fillSlots(single);
        _draw(single);
        assertEq(_validatorAt(single, 0), extra, "the only eligible validator drawn");
        _assertStatus(single, ITaskRegistry.Status.Active);
    }

    function test_drawValidators_skipsValidatorBelowReputationThreshold() public {
        _recordOutcome(validators[2], Outcome.Rejected, 1); // 70 -> 50
        _fillSlots(taskId);
        _draw(taskId);
        assertTrue(!_assigned(validators[2]), "low reputation skipped");
        assertEq(_task(taskId).filledValidators, 2, "two drawn");
        _assertStatus(taskId, ITaskRegistry.Status.Drawing);
    }

    function test_drawValidators_singleVacancyInLargePoolFillsIt() public {
        // One vacancy examines at most 4 of the 8 pool members; all are eligible, so the first wins.
        for (uint256 i = 3; i < 8; ++i) {
            _stakedNode(string.concat("validator", _digit(i)), Role.Validator, MIN_VALIDATOR_STAKE);
        }
        ITaskRegistry.TaskParams memory p = _params();
        p.numValidators = 1;
        uint256 single = _createTask(p);
        _fillSlots(single);
        _draw(single);
        assertTrue(_validatorAt(single, 0) != address(0), "filled");
        _assertStatus(single, ITaskRegistry.Status.Active);
    }

    function test_drawValidators_drawsDistinctValidatorsFromLargerPool() public {
        for (uint256 i = 3; i < 8; ++i) {
            _stakedNode(string.concat("validator", _digit(i)), Role.Validator, MIN_VALIDATOR_STAKE);
        }
        _fillSlots(taskId);
        _draw(taskId);
        address a = _validatorAt(taskId, 0);
        address b = _validatorAt(taskId, 1);
        address c = _validatorAt(taskId, 2);
        assertTrue(a != address(0) && b != address(0) && c != address(0), "all filled");
        assertTrue(a != b && b != c && a != c, "distinct");
        _assertStatus(taskId, ITaskRegistry.Status.Active);
    }
}

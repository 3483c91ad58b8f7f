// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {BlsFixture} from "../base/BlsFixture.sol";
import {ITaskRegistry} from "../../../contracts/interfaces/ITaskRegistry.sol";
import {Role} from "../../../contracts/libraries/Types.sol";
import {BN254} from "../../../contracts/libraries/BN254.sol";

/// @notice SPECIFICATION.md 5.5.1: each task keeps the sum of the G1 keys of its BLS-keyed validator
///         slot holders (and their slots, the mask) as slots change hands; an aggregate's key is that
///         sum minus the keys of the mask's slots that did not sign.
contract AggregateKeyTest is BlsFixture {
    uint256 private constant ALL = 0x7;
    uint256 private taskId;

    function setUp() public override {
        super.setUp();
        _registerValidatorKeys();
        taskId = _activeTask();
    }

    /// @dev Checks the stored key and mask against the holders of the slots in `mask`.
    function _assertTaskKey(uint256 mask) private view {
        uint256[2] memory sum;
        for (uint256 v = 0; v < 3; ++v) {
            if ((mask >> v) & 1 == 0) continue;
            address holder = _validatorAt(taskId, v);
            assertTrue(holder != address(0), "mask slot held");
            (, uint256[2] memory pk1) = _keys(keyIndex[holder]);
            sum = BN254.add(sum, pk1);
        }
        (uint256[2] memory apk, uint256 stored) = stateView.aggregateKeyOf(taskId);
        assertEq(stored, mask, "mask");
        assertEq(apk[0], sum[0], "key x");
        assertEq(apk[1], sum[1], "key y");
    }

    function test_taskKeyIsTheSumOfItsValidatorsKeys() public view {
        _assertTaskKey(ALL);
        (uint256[2] memory none, uint256 noMask) = stateView.aggregateKeyOf(_createTaskView());
        assertEq(none[0] | none[1] | noMask, 0, "a task without validators has no key");
    }

    function test_missedSlotLeavesTheKeyAndItsReplacementJoins() public {
        _workRound(taskId);
        _sealSlots(taskId, ACCEPT_ALL, 0x3);
        _expire(taskId); // slot 2 missed: vacated
        _attestAggregate(taskId, ACCEPT_ALL, 0x3);
        assertEq(_validatorAt(taskId, 2), address(0), "vacated");
        _assertTaskKey(0x3);
        // A fourth validator with vector key 3 joins the pool; the redraw fills slot 2.
        address fresh = _stakedNode("validator3", Role.Validator, MIN_VALIDATOR_STAKE);
        _registerKey(fresh, 3);
        _draw(taskId);
        assertTrue(_validatorAt(taskId, 2) != address(0), "redrawn");
        _assertTaskKey(ALL);
        // The maintained key verifies an aggregate of all three that finalizes round 1.
        _workRound(taskId);
        _sealSlots(taskId, ACCEPT_ALL, ALL);
        _attestAggregate(taskId, ACCEPT_ALL, ALL);
        _assertPhase(taskId, 2, ITaskRegistry.Phase.SampleCommit);
    }

    function test_anOutvotedValidatorKeepsItsSlotAndItsKey() public {
        _workRound(taskId);
        address outvoted = _validatorAt(taskId, 0);
        _seal(taskId, outvoted, ACCEPT_ALL); // accepts what the quorum rejects
        _sealSlots(taskId, ACCEPT_ALL & ~uint256(1), 0x6);
        _open(taskId, outvoted);
        _attestAggregate(taskId, ACCEPT_ALL & ~uint256(1), 0x6);
        assertEq(_validatorAt(taskId, 0), outvoted, "kept");
        _assertTaskKey(0x7);
    }

    function test_nonSignerIsSubtracted() public {
        _workRound(taskId);
        _sealSlots(taskId, ACCEPT_ALL, ALL);
        // Slots 0 and 2 sign; slot 1's key is taken off the task key.
        _attestAggregate(taskId, ACCEPT_ALL, 0x5);
        assertTrue(registry.attestationOf(taskId, 0, 0).voted && registry.attestationOf(taskId, 0, 2).voted, "signers");
        assertTrue(!registry.attestationOf(taskId, 0, 1).voted, "non-signer did not vote");
        assertEq(_task(taskId).pending, 1, "one vote left");
    }

    function test_nonSignersBitWithTheSignersSignatureFails() public {
        _workRound(taskId);
        _sealSlots(taskId, ACCEPT_ALL, ALL);
        // The honest signature and G2 key of slots 0 and 2, claimed for all three.
        (uint256[2] memory sigma, uint256[4] memory apk2) = _aggregate(taskId, ACCEPT_ALL, 0x5);
        bytes32[] memory saltsALL = _saltsOf(taskId, ALL);
        bytes32[] memory salts0x3 = _saltsOf(taskId, 0x3);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.InvalidAggregateSignature.selector, taskId, 0, ALL));
        registry.attestAggregate(taskId, 0, ACCEPT_ALL, ALL, sigma, apk2, saltsALL);
        // Claimed for slots 0 and 1 instead (slot 1's key in place of slot 2's).
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.InvalidAggregateSignature.selector, taskId, 0, 0x3));
        registry.attestAggregate(taskId, 0, ACCEPT_ALL, 0x3, sigma, apk2, salts0x3);
    }

    function test_aggregateAfterAnotherSlotVotedAlone() public {
        _workRound(taskId);
        _sealSlots(taskId, ACCEPT_ALL, ALL);
        _open(taskId, _validatorAt(taskId, 2));
        _attestAggregate(taskId, ACCEPT_ALL, 0x3);
        _assertPhase(taskId, 1, ITaskRegistry.Phase.SampleCommit);
        for (uint256 v = 0; v < 3; ++v) assertTrue(registry.attestationOf(taskId, 0, v).voted, "voted");
    }

    function test_aggregateCoveringASoloVoteIsRefusedAfterAnAggregate() public {
        _workRound(taskId);
        _sealSlots(taskId, ACCEPT_ALL, ALL);
        _attestAggregate(taskId, ACCEPT_ALL, 0x1);
        address v1 = _validatorAt(taskId, 1);
        _open(taskId, v1);
        (uint256[2] memory sigma, uint256[4] memory apk2) = _aggregate(taskId, ACCEPT_ALL, 0x6);
        bytes32[] memory salts0x6 = _saltsOf(taskId, 0x6);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.AlreadyAttested.selector, taskId, v1));
        registry.attestAggregate(taskId, 0, ACCEPT_ALL, 0x6, sigma, apk2, salts0x6);
    }

    function test_disputesOnRecordEachSignerAsItsSlotsAttester() public {
        vm.prank(admin);
        registry.setDisputeManager(address(0xD15));
        _workRound(taskId);
        _sealSlots(taskId, ACCEPT_ALL, ALL);
        _attestAggregate(taskId, ACCEPT_ALL, 0x5);
        assertEq(stateView.attesterOf(taskId, 0, 0), _validatorAt(taskId, 0), "signer 0");
        assertEq(stateView.attesterOf(taskId, 0, 1), address(0), "non-signer");
        assertEq(stateView.attesterOf(taskId, 0, 2), _validatorAt(taskId, 2), "signer 2");
    }

    /// @dev The id the next task will get (created only as a view: no validators, no key).
    function _createTaskView() private view returns (uint256) {
        return stateView.taskCount() + 1;
    }
}

/// @notice A holder that registers its key after taking its slot stays outside the task's mask
///         until it leaves and joins again.
contract AggregateKeyLateTest is BlsFixture {
    function test_keyRegisteredAfterJoiningIsNotInTheMask() public {
        _registerKey(validators[0], 0);
        _registerKey(validators[1], 1);
        uint256 taskId = _activeTask();
        uint256 late;
        for (uint256 v = 0; v < 3; ++v) {
            if (_validatorAt(taskId, v) == validators[2]) late = v;
        }
        _registerKey(validators[2], 2);
        (, uint256 mask) = stateView.aggregateKeyOf(taskId);
        assertEq(mask, 0x7 ^ (1 << late), "the late key's slot is outside the mask");
        _workRound(taskId);
        _sealSlots(taskId, ACCEPT_ALL, 0x7);
        (uint256[2] memory sigma, uint256[4] memory apk2) = _aggregate(taskId, ACCEPT_ALL, 0x7);
        bytes32[] memory salts0x7 = _saltsOf(taskId, 0x7);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.SignersOutsideBlsMask.selector, taskId, 0x7, mask));
        registry.attestAggregate(taskId, 0, ACCEPT_ALL, 0x7, sigma, apk2, salts0x7);
        // The others aggregate; the late holder opens its vote alone.
        _attestAggregate(taskId, ACCEPT_ALL, mask);
        _open(taskId, validators[2]);
        _assertPhase(taskId, 1, ITaskRegistry.Phase.SampleCommit);
    }
}

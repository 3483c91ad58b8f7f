// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {RegistryFixture} from "../base/RegistryFixture.sol";
import {Role} from "../../../contracts/libraries/Types.sol";

/// @notice SPECIFICATION.md 5.3: the pool a validator draw walks is fixed before its seed is
///         known. Once the seed block is mined, joining the pool from fresh addresses or leaving
///         it (which reordered the old pool) no longer changes whom the draw seats.
contract DrawPoolTest is RegistryFixture {
    uint256 private constant EXTRA = 12;
    address[] private extra;

    function setUp() public override {
        super.setUp();
        for (uint256 i = 0; i < EXTRA; ++i) {
            extra.push(_stakedNode(string.concat("extra", _digit(i % 10), _digit(i / 10)), Role.Validator,
                                   MIN_VALIDATOR_STAKE));
        }
        vm.roll(vm.getBlockNumber() + 1);
    }

    function _seated(uint256 taskId) private view returns (bytes32) {
        return keccak256(abi.encode(_validatorAt(taskId, 0), _validatorAt(taskId, 1), _validatorAt(taskId, 2)));
    }

    /// @dev The task's draw as it falls with the pool as it was at arming.
    function _drawAsArmed(uint256 taskId) private returns (bytes32 seated) {
        uint256 before = vm.snapshotState();
        registry.drawValidators(taskId);
        seated = _seated(taskId);
        vm.revertToState(before);
    }

    function test_joiningAfterTheArmingChangesNoDraw() public {
        uint256 taskId = _createTask();
        _fillSlots(taskId);
        _rollPastSeed(taskId);
        bytes32 expected = _drawAsArmed(taskId);
        uint256 pool = stakes.drawPoolSize(_task(taskId).seedBlock);
        // the seed is known: a party joins from fresh addresses, trying pool sizes
        for (uint256 i = 0; i < 5; ++i) {
            _stakedNode(string.concat("late", _digit(i)), Role.Validator, MIN_VALIDATOR_STAKE);
            assertEq(stakes.drawPoolSize(_task(taskId).seedBlock), pool, "the draw's pool is the one armed");
            assertEq(_drawAsArmed(taskId), expected, "same seats");
        }
        registry.drawValidators(taskId);
        assertEq(_seated(taskId), expected, "drawn as armed");
    }

    function test_leavingAfterTheArmingMovesNobody() public {
        uint256 taskId = _createTask();
        _fillSlots(taskId);
        _rollPastSeed(taskId);
        bytes32 expected = _drawAsArmed(taskId);
        // members the draw does not seat leave the pool (the old pool moved its last member into
        // a leaver's place, so that leaving could steer the draw)
        uint256 left = 0;
        for (uint256 i = 0; i < EXTRA && left < 3; ++i) {
            address v = extra[i];
            bool seated = false;
            uint256 before = vm.snapshotState();
            registry.drawValidators(taskId);
            seated = stateView.membershipOf(taskId, v).assigned;
            vm.revertToState(before);
            if (seated) continue;
            vm.prank(v);
            stakes.requestUnstake(Role.Validator, MIN_VALIDATOR_STAKE);
            left += 1;
        }
        assertEq(left, 3, "three members left");
        registry.drawValidators(taskId);
        assertEq(_seated(taskId), expected, "same seats");
    }
}

// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {BlsFixture} from "../base/BlsFixture.sol";
import {ForcedFixture} from "../base/ForcedFixture.sol";
import {ITaskRegistry} from "../../../contracts/interfaces/ITaskRegistry.sol";

/// @notice SPECIFICATION.md 5.5.1 and 5.5.3: a BLS aggregate carries "plant" answers like a vote of
///         its own (the signed message and the sealed votes take the whole uint256), and they count
///         the same way.
contract ForcedAggregateTest is BlsFixture, ForcedFixture {
    uint256 private constant ALL = 0x7; // the three validator slots
    uint256 private constant PLANT_S0 = (ACCEPT_ALL & ~S0) | (S0 << 64);

    function setUp() public override {
        super.setUp();
        _registerValidatorKeys();
    }

    function test_anAggregateWithAPlantAnswerAcceptsForcedWork() public {
        uint256 taskId = _roundOneAttest(S0);
        address s0 = _samplerAt(taskId, 0);
        _sealSlots(taskId, PLANT_S0, ALL);
        _openDraws(taskId);
        uint256 before = vault.claimableOf(s0);
        vm.expectEmit(true, true, false, true, address(registry));
        emit ITaskRegistry.AggregateAttested(taskId, 1, ALL, PLANT_S0);
        _attestAggregate(taskId, PLANT_S0, ALL);
        _assertPhase(taskId, 2, ITaskRegistry.Phase.SampleCommit);
        for (uint256 v = 0; v < 3; ++v) {
            ITaskRegistry.Attestation memory a = stateView.attestationOf(taskId, 1, v);
            assertTrue(a.voted, "voted");
            assertEq(a.acceptBitmap, S1 | TR, "accepts");
            assertEq(a.plantBitmap, S0, "plant answer");
        }
        assertEq(uint256(_verdictOf(taskId, 1, S0)), uint256(ITaskRegistry.Verdict.Accepted), "forced: accepted");
        assertEq(vault.claimableOf(s0) - before, SAMPLER_PAY, "and paid");
    }

    function test_aSoloAcceptanceMissesThePlantAnAggregateFound() public {
        uint256 taskId = _roundOneAttest(S0);
        address v0 = _validatorAt(taskId, 0);
        _seal(taskId, v0, ACCEPT_ALL);
        _sealSlots(taskId, PLANT_S0, 0x6);
        _open(taskId, v0);
        uint256 before = vault.claimableOf(v0);
        _openDraws(taskId);
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.PlantMissed(taskId, 1, v0, 0, S0);
        _attestAggregate(taskId, PLANT_S0, 0x6);
        assertEq(vault.claimableOf(v0), before, "v0 unpaid");
        assertEq(vault.claimableOf(_validatorAt(taskId, 1)), 2 * VALIDATOR_PAY, "the aggregate's signers paid");
    }

    function test_anAggregatesPlantAnswerOnUnforcedWorkRejectsIt() public {
        uint256 taskId = _roundOneAttest(0);
        _sealSlots(taskId, PLANT_S0, ALL);
        _attestAggregate(taskId, PLANT_S0, ALL);
        assertEq(uint256(_verdictOf(taskId, 1, S0)), uint256(ITaskRegistry.Verdict.Rejected), "unforced: rejected");
    }
}

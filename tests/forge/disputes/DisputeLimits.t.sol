// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {DisputeFixture} from "./DisputeFixture.sol";
import {IDisputeManager} from "../../../contracts/interfaces/IDisputeManager.sol";
import {ITaskRegistry} from "../../../contracts/interfaces/ITaskRegistry.sol";
import {Role} from "../../../contracts/libraries/Types.sol";

/// Two ways a dispute lost its force (found in review): a juror draw that could never end, and
/// parties who dodged the slash by unstaking once the task was over.
contract DisputeLimitsTest is DisputeFixture {
    uint256 internal constant MAX_JUROR_DRAWS = 8;

    /// A pool with fewer eligible outsiders (6) than seats (7) but too large to walk in one draw
    /// (40 members, 30 of them paused) re-armed the draw forever: the round's pay stayed held and
    /// the seated jurors' stake locked. The last allowed draw now ends it: the seated jury votes.
    function test_a_draw_that_cannot_fill_every_seat_ends_after_the_last_draw() public {
        uint256 taskId = _decidedRound(ACCEPT_ALL);
        for (uint256 i = 0; i < 30; ++i) {
            address filler = _named(string(abi.encodePacked("pool filler ", bytes1(uint8(65 + i)))));
            _stake(filler, Role.Validator, MIN_VALIDATOR_STAKE);
            vm.prank(filler);
            stakes.setNodePaused(true);
        }
        vm.prank(extraValidators[0]);
        stakes.setNodePaused(true);
        assertEq(stakes.validatorCount(), 40, "pool");

        uint256 id = _open(taskId, Role.Trainer, 0);
        for (uint256 k = 0; k < MAX_JUROR_DRAWS; ++k) {
            assertEq(uint256(stateView.disputeOf(id).status), uint256(IDisputeManager.Status.Drawing), "drawing");
            vm.roll(stateView.disputeOf(id).seedBlock + 1);
            disputes.drawJurors(id);
        }
        IDisputeManager.Dispute memory d = stateView.disputeOf(id);
        assertEq(uint256(d.status), uint256(IDisputeManager.Status.Voting), "the seated jury votes");
        assertEq(d.jurorCount, 6, "every eligible outsider seated");

        // the dispute settles, and with it the samplers' held pay of the round is released
        _vote(id, 6, 0);
        disputes.settle(id);
        _assertDisputeStatus(id, IDisputeManager.Status.Upheld);
        _warpPastWindow(taskId);
        address s0 = _samplerAt(taskId, 0);
        disputes.releasePay(taskId, 0, s0);
        assertEq(vault.claimableOf(s0), _sampleShare(), "released");
    }

    /// Stake on its way out stays slashable (SPECIFICATION.md 3): the parties of an upheld dispute
    /// who unstaked once the task was over are slashed from their unbonding stake.
    function test_parties_who_unstaked_after_the_task_are_still_slashed() public {
        uint256 taskId = _decidedRound(ACCEPT_ALL);
        _runRound(taskId, ACCEPT_ALL);
        _runRound(taskId, ACCEPT_ALL);
        _assertStatus(taskId, ITaskRegistry.Status.Completed);
        address trainer = _trainerOf(taskId);
        vm.prank(trainer);
        stakes.requestUnstake(Role.Trainer, MIN_TRAINER_STAKE);
        address validator = _validatorAt(taskId, 0);
        vm.prank(validator);
        stakes.requestUnstake(Role.Validator, MIN_VALIDATOR_STAKE);

        uint256 id = _open(taskId, Role.Trainer, 0);
        _drawJurors(id);
        _vote(id, 7, 0);
        disputes.settle(id);
        _assertDisputeStatus(id, IDisputeManager.Status.Upheld);
        uint256 cut = MIN_TRAINER_STAKE * config.slashBps() / 10_000;
        assertEq(stakes.stakeOf(trainer, Role.Trainer).unbonding, MIN_TRAINER_STAKE - cut, "trainer slashed");
        // An accepter loses the round's pay, never stake (SPECIFICATION.md 13): its unbonding stake is whole.
        assertEq(stakes.stakeOf(validator, Role.Validator).unbonding, MIN_VALIDATOR_STAKE, "validator not slashed");
        assertGe(stateView.owedOf(stateView.jurorOf(id, 0).node), 1, "the majority shares the pot");
    }
}

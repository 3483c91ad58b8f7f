// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {DisputeFixture} from "../disputes/DisputeFixture.sol";
import {ForcedFixture} from "../base/ForcedFixture.sol";
import {RegistryFixture} from "../base/RegistryFixture.sol";
import {IDisputeManager} from "../../../contracts/interfaces/IDisputeManager.sol";
import {ITaskRegistry} from "../../../contracts/interfaces/ITaskRegistry.sol";
import {Role} from "../../../contracts/libraries/Types.sol";

/// @notice SPECIFICATION.md 5.5.3 and 13: a dispute's correction reads "plant" answers as the
///         verdict did. On forced work a plant answer said yes (it is neither vindicated nor counted
///         a rejection); on unforced work it said no (a fault), like a rejection.
contract ForcedDisputesTest is DisputeFixture, ForcedFixture {
    uint256 private constant PLANT_TR = (ACCEPT_ALL & ~TR) | (TR << 64);
    uint256 private constant REJECT_TR = ACCEPT_ALL & ~TR;

    address[3] private v;
    uint256[3] private staked;
    uint256[3] private score;

    function setUp() public override(DisputeFixture, RegistryFixture) {
        super.setUp();
    }

    function _roundOne(uint256 forcedBits, uint256[3] memory votes, ITaskRegistry.Verdict verdict)
        private
        returns (uint256 taskId)
    {
        taskId = _decideRoundOne(forcedBits, votes);
        assertEq(uint256(_verdictOf(taskId, 1, TR)), uint256(verdict), "the trainer's verdict");
        for (uint256 i = 0; i < 3; ++i) {
            v[i] = _validatorAt(taskId, i);
            staked[i] = _stakeOf(v[i], Role.Validator);
            score[i] = reputation.scoreOf(v[i]);
        }
    }

    /// @dev A dispute of round 1's checkpoint that every juror upholds.
    function _uphold(uint256 taskId) private {
        vm.prank(disputer);
        uint256 id = disputes.openDispute(taskId, 1, Role.Trainer, 0, BOND, IDisputeManager.Evidence.Whole, 0);
        _drawJurors(id);
        _vote(id, JURORS, 0);
        disputes.settle(id);
        _assertDisputeStatus(id, IDisputeManager.Status.Upheld);
    }

    function _releaseAfterWindow(uint256 taskId, address node) private returns (uint256 released) {
        _warpToProtocolTime(stateView.windowEndOf(taskId, 1) + 1);
        uint256 before = vault.claimableOf(node);
        disputes.releasePay(taskId, 1, node);
        released = vault.claimableOf(node) - before;
    }

    function test_forcedWorkProvenBad_plantAnswersForfeitTheRejecterIsVindicated() public {
        uint256 taskId = _roundOne(TR, [PLANT_TR, PLANT_TR, REJECT_TR], ITaskRegistry.Verdict.Accepted);
        assertTrue(stateView.dissentedIn(taskId, 1, v[2]), "the rejection dissented");
        assertTrue(!stateView.dissentedIn(taskId, 1, v[0]), "a plant answer on forced work agreed");
        _uphold(taskId);
        assertEq(vault.heldOf(taskId, 1, v[0]), 0, "plant answer 0: pay forfeited");
        assertEq(vault.heldOf(taskId, 1, v[1]), 0, "plant answer 1: pay forfeited");
        assertEq(_stakeOf(v[0], Role.Validator), staked[0], "not slashed");
        assertEq(_releaseAfterWindow(taskId, v[2]), _validatorShare(), "the rejecter's held pay is its own");
    }

    function test_unforcedWorkProvenBad_thePlantAnswerIsVindicated() public {
        uint256 taskId = _roundOne(0, [PLANT_TR, ACCEPT_ALL, ACCEPT_ALL], ITaskRegistry.Verdict.Accepted);
        assertTrue(stateView.dissentedIn(taskId, 1, v[0]), "a plant answer on unforced work dissented");
        _uphold(taskId);
        assertEq(vault.heldOf(taskId, 1, v[1]), 0, "acceptance 1: pay forfeited");
        assertEq(vault.heldOf(taskId, 1, v[2]), 0, "acceptance 2: pay forfeited");
        assertEq(_releaseAfterWindow(taskId, v[0]), _validatorShare(), "the plant answer's held pay is its own");
    }

    /// @dev Penalised as a rejection of good work (AgainstQuorum; its stake is all locked in the task,
    ///      which the dispute side never takes), its held pay reclaimed.
    function _assertPenalised(uint256 taskId, uint256 i) private view {
        assertTrue(reputation.scoreOf(v[i]) < score[i], "marked down");
        assertEq(vault.heldOf(taskId, 1, v[i]), 0, "its held pay reclaimed");
    }

    function test_forcedWorkRejectedProvenGood_onlyTheRejectersArePenalised() public {
        uint256 taskId = _roundOne(TR, [REJECT_TR, REJECT_TR, PLANT_TR], ITaskRegistry.Verdict.Rejected);
        _uphold(taskId);
        _assertPenalised(taskId, 0);
        _assertPenalised(taskId, 1);
        assertEq(reputation.scoreOf(v[2]), score[2], "the plant answer said yes: not penalised");
        assertEq(_stakeOf(v[2], Role.Validator), staked[2], "nor slashed");
    }

    function test_unforcedWorkRejectedProvenGood_thePlantAnswerIsPenalisedLikeARejection() public {
        uint256 taskId = _roundOne(0, [REJECT_TR, ACCEPT_ALL, PLANT_TR], ITaskRegistry.Verdict.Rejected);
        _uphold(taskId);
        _assertPenalised(taskId, 0);
        assertEq(reputation.scoreOf(v[1]), score[1], "the acceptance is not penalised");
        _assertPenalised(taskId, 2); // a plant in unforced work claimed a fault
    }
}

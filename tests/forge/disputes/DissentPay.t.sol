// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {DisputeFixture} from "./DisputeFixture.sol";
import {IDisputeManager} from "../../../contracts/interfaces/IDisputeManager.sol";
import {IRewardVault} from "../../../contracts/interfaces/IRewardVault.sol";
import {ITaskRegistry} from "../../../contracts/interfaces/ITaskRegistry.sol";
import {Role} from "../../../contracts/libraries/Types.sol";

/// @notice SPECIFICATION.md 5.5 and 13, a dissent: the validator that rejected work its two peers
///         accepted is neither slashed nor vacated; its round pay is held and is its own only if a
///         dispute it opens proves the work bad, else it goes back to the requester.
contract DissentPayTest is DisputeFixture {
    uint256 internal constant REJECT_SAMPLER_0 = ACCEPT_ALL & ~uint256(1);

    /// @dev Round 0: validators 0 and 1 accept everything, validator 2 rejects sampler 0.
    function _dissentedRound() private returns (uint256 taskId, address dissenter) {
        taskId = _activeTask();
        _workRound(taskId);
        dissenter = _validatorAt(taskId, 2);
        _seal(taskId, _validatorAt(taskId, 0), ACCEPT_ALL);
        _seal(taskId, _validatorAt(taskId, 1), ACCEPT_ALL);
        _seal(taskId, dissenter, REJECT_SAMPLER_0);
        _openAll(taskId);
        assertEq(uint256(stateView.submissionOf(taskId, 0, Role.Sampler, 0).verdict), 1, "sampler 0 accepted 2-1");
        vm.prank(admin);
        token.transfer(dissenter, BOND);
        vm.prank(dissenter);
        token.approve(address(disputes), BOND);
    }

    function _openAsDissenter(uint256 taskId, address dissenter) private returns (uint256 id) {
        vm.prank(dissenter);
        id = disputes.openDispute(taskId, 0, Role.Sampler, 0, BOND, IDisputeManager.Evidence.Episode, 1);
    }

    function test_a_dissent_is_held_not_slashed() public {
        (uint256 taskId, address dissenter) = _dissentedRound();
        assertTrue(stateView.dissentedIn(taskId, 0, dissenter), "recorded");
        assertTrue(!stateView.dissentedIn(taskId, 0, _validatorAt(taskId, 0)), "the others agreed");
        assertEq(_validatorAt(taskId, 2), dissenter, "keeps its slot");
        assertEq(reputation.scoreOf(dissenter), 70, "and its reputation");
        assertEq(vault.heldOf(taskId, 0, dissenter), _validatorShare(), "its share is held like the others'");
    }

    function test_an_unvindicated_dissent_is_paid_back_to_the_requester() public {
        (uint256 taskId, address dissenter) = _dissentedRound();
        address agreeing = _validatorAt(taskId, 0);
        _warpPastWindow(taskId);
        uint256 requesterBefore = vault.claimableOf(requester);
        uint256 paidBefore = stateView.paidOf(taskId)[uint8(Role.Validator)];
        disputes.releasePay(taskId, 0, dissenter);
        disputes.releasePay(taskId, 0, agreeing);
        assertEq(vault.claimableOf(dissenter), 0, "the dissenter is not paid");
        assertEq(vault.claimableOf(requester) - requesterBefore, _validatorShare(), "its share goes back");
        assertEq(paidBefore - stateView.paidOf(taskId)[uint8(Role.Validator)], _validatorShare(), "and is unpaid");
        assertEq(vault.claimableOf(agreeing), _validatorShare(), "an agreeing validator is paid");
        vm.expectRevert(abi.encodeWithSelector(IRewardVault.NothingHeld.selector, taskId, 0, dissenter));
        disputes.releasePay(taskId, 0, dissenter);
    }

    function test_a_dismissed_dispute_costs_the_dissenter_its_bond_and_its_pay() public {
        (uint256 taskId, address dissenter) = _dissentedRound();
        uint256 id = _openAsDissenter(taskId, dissenter);
        _drawJurors(id);
        _vote(id, 0, JURORS);
        disputes.settle(id);
        _assertDisputeStatus(id, IDisputeManager.Status.Dismissed);
        assertEq(stateView.owedOf(dissenter), 0, "bond lost");
        _warpPastWindow(taskId);
        disputes.releasePay(taskId, 0, dissenter);
        assertEq(vault.claimableOf(dissenter), 0, "pay not released");
    }

    function test_a_dissent_the_dispute_proves_right_is_paid_and_rewarded() public {
        (uint256 taskId, address dissenter) = _dissentedRound();
        address cheat = _samplerAt(taskId, 0);
        uint256 id = _openAsDissenter(taskId, dissenter);
        _drawJurors(id);
        _vote(id, JURORS, 0);
        disputes.settle(id);
        _assertDisputeStatus(id, IDisputeManager.Status.Upheld);
        _assertStatus(taskId, ITaskRegistry.Status.Failed);
        assertEq(vault.heldOf(taskId, 0, cheat), 0, "the cheat's pay reclaimed");
        for (uint256 v = 0; v < 2; ++v) {
            assertEq(vault.heldOf(taskId, 0, _attesterOf(taskId, v)), 0, "the accepters' pay reclaimed");
        }
        // The pot: the cheat's slash (the accepters lose pay, not stake); half to the jurors, the rest
        // to the dissenter.
        uint256 pot = MIN_SAMPLER_STAKE / 10;
        uint256 award = stateView.owedOf(dissenter) - BOND;
        assertGe(award, pot / 2, "the winner's part of the slashes");
        _warpPastWindow(taskId);
        disputes.releasePay(taskId, 0, dissenter);
        assertEq(vault.claimableOf(dissenter), _validatorShare(), "its round pay released");
        assertEq(reputation.scoreOf(dissenter), 70, "not marked down");
    }

    function test_a_dissent_proven_right_by_someone_elses_dispute_is_paid_too() public {
        (uint256 taskId, address dissenter) = _dissentedRound();
        uint256 id = _open(taskId, Role.Sampler, 0); // the outsider's dispute, not the dissenter's
        _drawJurors(id);
        _vote(id, JURORS, 0);
        disputes.settle(id);
        _assertDisputeStatus(id, IDisputeManager.Status.Upheld);
        _warpPastWindow(taskId);
        disputes.releasePay(taskId, 0, dissenter);
        assertEq(vault.claimableOf(dissenter), _validatorShare(), "its held round pay is released to it");
        assertEq(stateView.owedOf(dissenter), 0, "the award is the disputer's");
    }

    function _attesterOf(uint256 taskId, uint256 slot) private view returns (address) {
        return stateView.attesterOf(taskId, 0, slot);
    }
}

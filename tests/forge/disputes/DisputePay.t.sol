// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {DisputeFixture} from "./DisputeFixture.sol";
import {IDisputeManager} from "../../../contracts/interfaces/IDisputeManager.sol";
import {IDisputeHooks} from "../../../contracts/interfaces/IDisputeHooks.sol";
import {ITaskRegistry} from "../../../contracts/interfaces/ITaskRegistry.sol";
import {IRewardVault} from "../../../contracts/interfaces/IRewardVault.sol";
import {IProtocolConfig} from "../../../contracts/interfaces/IProtocolConfig.sol";
import {Role} from "../../../contracts/libraries/Types.sol";

/// @notice SPECIFICATION.md "Disputes", money: round pay is held for the dispute window, released
///         by anyone after it, blocked while a dispute of the round is open; bonds and awards are
///         pull payments.
contract DisputePayTest is DisputeFixture {
    function test_round_pay_is_held_not_claimable() public {
        uint256 taskId = _decidedRound(ACCEPT_ALL);
        address s0 = _samplerAt(taskId, 0);
        assertEq(vault.claimableOf(s0), 0, "nothing claimable at the verdict");
        assertEq(vault.heldOf(taskId, 0, s0), _sampleShare(), "share held");
        assertEq(stateView.paidOf(taskId)[uint8(Role.Sampler)], 2 * _sampleShare(), "paid counts held pay");
        assertEq(vault.escrowOf(taskId), BOUNTY, "held pay is still escrow");
    }

    function test_release_after_window_credits_the_node() public {
        uint256 taskId = _decidedRound(ACCEPT_ALL);
        address s0 = _samplerAt(taskId, 0);
        uint256 end = stateView.windowEndOf(taskId, 0);
        vm.expectRevert(abi.encodeWithSelector(IDisputeManager.DisputeWindowOpen.selector, taskId, 0, end));
        disputes.releasePay(taskId, 0, s0);
        _warpPastWindow(taskId);
        disputes.releasePay(taskId, 0, s0);
        assertEq(vault.claimableOf(s0), _sampleShare(), "released");
        assertEq(vault.heldOf(taskId, 0, s0), 0, "nothing held");
        vm.expectRevert(abi.encodeWithSelector(IRewardVault.NothingHeld.selector, taskId, 0, s0));
        disputes.releasePay(taskId, 0, s0);
    }

    function test_open_dispute_blocks_release_until_settled() public {
        uint256 taskId = _decidedRound(ACCEPT_ALL);
        address s1 = _samplerAt(taskId, 1);
        uint256 id = _open(taskId, Role.Trainer, 0);
        _warpPastWindow(taskId);
        vm.expectRevert(abi.encodeWithSelector(IDisputeManager.DisputesPending.selector, taskId, 0, 1));
        disputes.releasePay(taskId, 0, s1);
        _drawJurors(id);
        _vote(id, 0, JURORS);
        disputes.settle(id);
        disputes.releasePay(taskId, 0, s1);
        assertEq(vault.claimableOf(s1), _sampleShare(), "released after the dispute");
    }

    function test_settlement_refunds_free_escrow_and_keeps_held_pay() public {
        uint256 taskId = _decidedRound(ACCEPT_ALL);
        // Rounds 1 and 2 without a sample fail the task (two idle rounds): only round 0 was paid.
        _expire(taskId);
        _expire(taskId);
        _assertStatus(taskId, ITaskRegistry.Status.Failed);
        uint256 held = vault.heldTotalOf(taskId);
        uint256[3] memory paid = stateView.paidOf(taskId);
        assertEq(held, paid[0] + paid[1] + paid[2], "all pay still held");
        assertEq(vault.escrowOf(taskId), held, "escrow left == held pay");
        assertEq(vault.claimableOf(requester), BOUNTY - held, "requester refunded the rest");
    }

    function test_reclaim_after_settlement_goes_to_the_requester() public {
        uint256 taskId = _decidedRound(ACCEPT_ALL);
        uint256 id = _open(taskId, Role.Trainer, 0);
        _expire(taskId);
        _expire(taskId); // the task fails (idle) while the dispute is open
        uint256 refundedBefore = vault.claimableOf(requester);
        _drawJurors(id);
        _vote(id, JURORS, 0);
        disputes.settle(id);
        uint256 trainerShare = BOUNTY * 7000 / 10_000 / NUM_ROUNDS;
        assertEq(
            vault.claimableOf(requester) - refundedBefore, trainerShare + 3 * _validatorShare(), "reclaimed pay refunded"
        );
        uint256[3] memory paid = stateView.paidOf(taskId);
        assertEq(paid[0] + paid[1] + paid[2] + vault.claimableOf(requester), BOUNTY, "paid + refund == bounty");
    }

    function test_withdraw_pays_what_is_owed() public {
        uint256 taskId = _decidedRound(ACCEPT_ALL);
        uint256 id = _open(taskId, Role.Trainer, 0);
        _drawJurors(id);
        _warpPastVote(id);
        disputes.settle(id); // void: the bond is owed back
        vm.expectRevert(abi.encodeWithSelector(IDisputeManager.InsufficientOwed.selector, disputer, BOND, BOND + 1));
        vm.prank(disputer);
        disputes.withdraw(disputer, BOND + 1);
        uint256 before = token.balanceOf(disputer);
        vm.prank(disputer);
        disputes.withdraw(disputer, BOND);
        assertEq(token.balanceOf(disputer) - before, BOND, "bond paid out");
        assertEq(stateView.totalOwed(), 0, "nothing owed");
        assertEq(token.balanceOf(address(disputes)), 0, "manager empty");
    }

    function test_registry_hooks_are_dispute_manager_only() public {
        uint256 taskId = _decidedRound(ACCEPT_ALL);
        vm.expectRevert(abi.encodeWithSelector(IDisputeHooks.NotDisputeManager.selector, address(this)));
        registry.failTask(taskId);
        vm.expectRevert(abi.encodeWithSelector(IDisputeHooks.NotDisputeManager.selector, address(this)));
        registry.releasePay(taskId, 0, requester);
        vm.expectRevert(abi.encodeWithSelector(IDisputeHooks.NotDisputeManager.selector, address(this)));
        registry.reclaimPay(taskId, 0, requester, Role.Sampler);
        vm.expectRevert(abi.encodeWithSelector(IDisputeHooks.DisputeManagerAlreadySet.selector, address(disputes)));
        vm.prank(admin);
        registry.setDisputeManager(address(this));
    }

    function test_governance_bounds() public {
        vm.startPrank(admin);
        config.setDisputeWindow(2 days);
        config.setVoteWindow(1 hours);
        config.setMinBond(5e18);
        vm.expectRevert(abi.encodeWithSelector(IProtocolConfig.WindowOutOfBounds.selector, 4 days, 1 hours, 3 days));
        config.setDisputeWindow(4 days);
        vm.expectRevert(abi.encodeWithSelector(IProtocolConfig.WindowOutOfBounds.selector, 1 minutes, 10 minutes, 36 hours));
        config.setVoteWindow(1 minutes);
        vm.expectRevert(abi.encodeWithSelector(IProtocolConfig.BondOutOfBounds.selector, 0, 1e18, 100_000e18));
        config.setMinBond(0);
        vm.stopPrank();
        assertEq(config.disputeWindow(), 2 days, "window");
        assertEq(config.voteWindow(), 1 hours, "vote window");
        assertEq(config.minBond(), 5e18, "min bond");
        vm.expectRevert();
        config.setMinBond(5e18);
    }
}

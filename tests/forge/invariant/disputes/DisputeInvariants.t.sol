// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {TestBase} from "../../base/Vm.sol";
import {FuzzSelector} from "../VmLogs.sol";
import {DisputeHandler} from "./DisputeHandler.sol";
import {ITaskRegistry} from "../../../../contracts/interfaces/ITaskRegistry.sol";
import {IDisputeManager} from "../../../../contracts/interfaces/IDisputeManager.sol";

/// @notice SPECIFICATION.md 6 and 13 under fuzzed rounds and disputes: tokens are conserved with
///         bonds and awards in the DisputeManager, held pay stays escrow, and every task's bounty
///         is exactly what it paid plus what went back to its requester plus its free escrow.
contract DisputeInvariants is TestBase {
    DisputeHandler internal h;

    function setUp() public {
        h = new DisputeHandler();
    }

    function targetContracts() public view returns (address[] memory targets) {
        targets = new address[](1);
        targets[0] = address(h);
    }

    function targetSelectors() public view returns (FuzzSelector[] memory targets) {
        bytes4[] memory s = new bytes4[](9);
        s[0] = DisputeHandler.playRound.selector;
        s[1] = DisputeHandler.openDispute.selector;
        s[2] = DisputeHandler.proveFault.selector;
        s[3] = DisputeHandler.drawAndVote.selector;
        s[4] = DisputeHandler.expire.selector;
        s[5] = DisputeHandler.releaseAll.selector;
        s[6] = DisputeHandler.withdrawOwed.selector;
        s[7] = DisputeHandler.playRound.selector; // weighted: rounds are what disputes need
        s[8] = DisputeHandler.playSplitRound.selector; // dissents, their disputes and held pay
        targets = new FuzzSelector[](1);
        targets[0] = FuzzSelector(address(h), s);
    }

    /// Supply = accounts + StakeManager + RewardVault + DisputeManager, each holder's books exact.
    /// @notice playSplitRound reaches what it is there for: a dissent whose author disputes it,
    ///         voted, settled and released, with the books exact at every step.
    function test_splitRound_reachesADissentItsDisputeAndItsRelease() public {
        h.playRound(0x7); // a task, round 0 accepted by all
        h.playSplitRound(0x7, 0x1, 1); // round 1: the last validator rejects sampler 0 and disputes it
        uint256 id = h.lastDispute();
        assertEq(id, 1, "the dissenter's dispute");
        IDisputeManager.Dispute memory d = h.disputeRecord(id);
        assertEq(uint256(d.round), 1, "of round 1");
        assertTrue(h.dissented(d.taskId, 1, d.disputer), "by the dissenter");
        this.checkConservation();
        this.checkBounties();
        h.drawAndVote(0, 7, 0); // every juror dismisses
        assertEq(uint256(h.disputeRecord(id).status), uint256(IDisputeManager.Status.Dismissed), "dismissed");
        this.checkConservation();
        this.checkBounties();
        uint256 claimableBefore = h.claimable(d.disputer);
        uint256 round0 = h.held(d.taskId, 0, d.disputer); // it agreed in round 0
        assertTrue(h.held(d.taskId, 1, d.disputer) > 0, "its round-1 pay is held");
        h.releaseAll();
        this.checkConservation();
        this.checkBounties();
        assertEq(h.held(d.taskId, 1, d.disputer), 0, "released from hold");
        assertEq(h.claimable(d.disputer) - claimableBefore, round0, "its round-1 pay went to the requester");
    }

    function invariant_conservation() public view {
        this.checkConservation();
    }

    /// Per task: paid + free escrow <= bounty; settled => no free escrow; all tasks together:
    /// paid + requester refunds (settlement and reclaims) + free escrow == bounties.
    function invariant_bountyAccounting() public view {
        this.checkBounties();
    }

    function checkConservation() external view {
        DisputeHandlerView v = DisputeHandlerView(address(h));
        address[] memory all = v.everyone();
        uint256 dm = v.tokenBalance(v.disputesAddress());
        assertEq(dm, v.disputesBonds() + v.disputesOwed(), "DisputeManager balance == bonds + owed");
        assertEq(v.tokenBalance(v.vaultAddress()), v.vaultEscrow() + v.vaultClaimable(), "vault == escrow + claimable");
        assertEq(v.tokenBalance(v.stakesAddress()), v.stakesTotal(), "stakes == totalStaked");
        uint256 sum = dm + v.tokenBalance(v.vaultAddress()) + v.tokenBalance(v.stakesAddress()) + v.outsideHolders();
        for (uint256 i = 0; i < all.length; ++i) sum += v.tokenBalance(all[i]);
        assertEq(sum, v.supply(), "supply conserved");
    }

    function checkBounties() external view {
        DisputeHandlerView v = DisputeHandlerView(address(h));
        uint256 count = v.taskCount();
        uint256 bounties;
        uint256 accounted = v.requesterClaimable();
        for (uint256 id = 1; id <= count; ++id) {
            ITaskRegistry.Task memory t = v.taskOf(id);
            uint256[3] memory paid = v.paidOf(id);
            uint256 paidSum = paid[0] + paid[1] + paid[2];
            uint256 free = v.escrowOf(id) - v.heldTotalOf(id);
            assertLe(paidSum + free, t.bounty, "paid + free escrow <= bounty");
            bool settled = t.status != ITaskRegistry.Status.Active && t.status != ITaskRegistry.Status.Open
                && t.status != ITaskRegistry.Status.Drawing;
            if (settled) assertEq(free, 0, "settled: no free escrow");
            bounties += t.bounty;
            accounted += paidSum + free;
        }
        assertEq(accounted, bounties, "paid + refunds + free escrow == bounties");
    }
}

/// @notice Views the invariants read through the handler (it owns the deployment).
interface DisputeHandlerView {
    function everyone() external view returns (address[] memory);
    function tokenBalance(address a) external view returns (uint256);
    function disputesAddress() external view returns (address);
    function disputesBonds() external view returns (uint256);
    function disputesOwed() external view returns (uint256);
    function vaultAddress() external view returns (address);
    function vaultEscrow() external view returns (uint256);
    function vaultClaimable() external view returns (uint256);
    function stakesAddress() external view returns (address);
    function stakesTotal() external view returns (uint256);
    function outsideHolders() external view returns (uint256);
    function supply() external view returns (uint256);
    function taskCount() external view returns (uint256);
    function taskOf(uint256 id) external view returns (ITaskRegistry.Task memory);
    function paidOf(uint256 id) external view returns (uint256[3] memory);
    function escrowOf(uint256 id) external view returns (uint256);
    function heldTotalOf(uint256 id) external view returns (uint256);
    function requesterClaimable() external view returns (uint256);
}

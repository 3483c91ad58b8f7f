// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {DisputeFixture} from "../../disputes/DisputeFixture.sol";
import {IDisputeManager} from "../../../../contracts/interfaces/IDisputeManager.sol";
import {ITaskRegistry} from "../../../../contracts/interfaces/ITaskRegistry.sol";
import {Role} from "../../../../contracts/libraries/Types.sol";
import {EpisodeFixtures} from "../../disputes/EpisodeFixtures.sol";

/// @notice Drives tasks round by round with fuzzed verdicts, and disputes of them: opening with
///         bonds, proofs, juror draws, votes, settlements, releases of held pay and withdrawals.
///         Every call is guarded so that it acts (the fuzzer's calls are rarely wasted).
contract DisputeHandler is DisputeFixture {
    uint256 public current;
    uint256 public lastDispute;

    constructor() {
        setUp();
    }

    /// @dev Works the current task's round (a new task when none is running) and attests `bitmap`.
    function playRound(uint8 bitmap) external {
        if (current == 0 || _task(current).status != ITaskRegistry.Status.Active) {
            // Round 0 with sampler 0 revealing the episode fixtures' root, so faults can be proven.
            current = _decidedRound(bitmap & 0x7);
            return;
        }
        if (_task(current).phase != ITaskRegistry.Phase.SampleCommit) return;
        _workAndAttest(current, bitmap & 0x7);
    }

    /// @dev Like playRound, but the last validator flips the bits `flip` of `bitmap`: it dissents
    ///      (rejects what the others accept) or accepts what they reject; then, if it dissented, it
    ///      disputes the first submission it dissented from when `disputes_` is odd.
    function playSplitRound(uint8 bitmap, uint8 flip, uint8 disputes_) external {
        if (current == 0 || _task(current).status != ITaskRegistry.Status.Active) return;
        if (_task(current).phase != ITaskRegistry.Phase.SampleCommit) return;
        uint256 taskId = current;
        if (_samplerAt(taskId, 0) == address(0) || _samplerAt(taskId, 1) == address(0)) return;
        if (_trainerOf(taskId) == address(0) || _task(taskId).filledValidators != NUM_VALIDATORS) return;
        uint256 round = _task(taskId).round;
        _workRound(taskId);
        address[] memory v = _working(taskId, Role.Validator);
        uint256 last = (bitmap & 0x7) ^ (flip & 0x7);
        for (uint256 i = 0; i + 1 < v.length; ++i) {
            _seal(taskId, v[i], bitmap & 0x7);
        }
        _seal(taskId, v[v.length - 1], last);
        _openAll(taskId);
        uint256 dissent = (bitmap & 0x7) & ~last;
        if (dissent == 0 || disputes_ % 2 == 0 || !stateView.dissentedIn(taskId, round, v[v.length - 1])) return;
        uint256 bit = dissent & (~dissent + 1); // the lowest bit dissented from
        Role r = bit == 1 << NUM_SAMPLERS ? Role.Trainer : Role.Sampler;
        uint256 s = r == Role.Trainer ? 0 : (bit == 1 ? 0 : 1);
        if (stateView.disputeIdOf(taskId, round, r, s) != 0) return;
        vm.prank(admin);
        token.transfer(v[v.length - 1], BOND);
        vm.startPrank(v[v.length - 1]);
        token.approve(address(disputes), BOND);
        lastDispute = disputes.openDispute(taskId, round, r, s, BOND, IDisputeManager.Evidence.Whole, 0);
        vm.stopPrank();
    }

    function openDispute(uint8 role, uint8 slot) external {
        if (current == 0) return;
        uint256 decided = _lastDecidedRound(current);
        Role r = role % 2 == 0 ? Role.Sampler : Role.Trainer;
        uint256 s = r == Role.Trainer ? 0 : slot % NUM_SAMPLERS;
        ITaskRegistry.Verdict v = stateView.submissionOf(current, decided, r, s).verdict;
        if (v == ITaskRegistry.Verdict.None) return;
        if (stateView.disputeIdOf(current, decided, r, s) != 0) return;
        if (registry.protocolTime() > stateView.windowEndOf(current, decided)) return;
        vm.prank(disputer);
        lastDispute = disputes.openDispute(current, decided, r, s, BOND, IDisputeManager.Evidence.Whole, 0);
    }

    function proveFault(uint8 which) external {
        if (lastDispute == 0) return;
        IDisputeManager.Dispute memory d = stateView.disputeOf(lastDispute);
        bool open = d.status == IDisputeManager.Status.Drawing || d.status == IDisputeManager.Status.Voting;
        if (!open || d.role != Role.Sampler || d.slot != 0 || d.round != 0) return;
        uint256 i = 2 + which % 4; // the faulty items
        disputes.proveFault(lastDispute, EpisodeFixtures.item(i), EpisodeFixtures.proof(i));
    }

    /// @dev Jurors vote: `upholds` uphold and `dismisses` dismiss (committed and revealed),
    ///      `withheld` commit and never reveal, the rest abstain; then the dispute settles.
    function drawAndVote(uint8 upholds, uint8 dismisses, uint8 withheld) external {
        if (lastDispute == 0) return;
        IDisputeManager.Dispute memory d = stateView.disputeOf(lastDispute);
        if (d.status == IDisputeManager.Status.Drawing) {
            vm.roll(d.seedBlock + 1);
            disputes.drawJurors(lastDispute);
            d = stateView.disputeOf(lastDispute);
        }
        if (d.status != IDisputeManager.Status.Voting) return;
        uint256 ups = upholds % (d.jurorCount + 1);
        uint256 downs = dismisses % (d.jurorCount - ups + 1);
        uint256 shut = withheld % (d.jurorCount - ups - downs + 1);
        for (uint256 s = 0; s < ups + downs + shut; ++s) {
            _commit(lastDispute, s, s < ups);
        }
        if (ups + downs + shut < d.jurorCount) _warpPastCommits(lastDispute);
        for (uint256 s = 0; s < ups + downs; ++s) {
            _reveal(lastDispute, s, s < ups);
        }
        _warpPastVote(lastDispute);
        disputes.settle(lastDispute);
    }

    /// @dev Lets the current phase expire (idle rounds fail a task after two).
    function expire() external {
        if (current == 0 || _task(current).status != ITaskRegistry.Status.Active) return;
        _expire(current);
    }

    /// @dev Moves past every window and releases all held pay of rounds without open disputes.
    function releaseAll() external {
        uint256 count = stateView.taskCount();
        vm.warp(block.timestamp + 4 days);
        for (uint256 id = 1; id <= count; ++id) {
            for (uint256 round = 0; round < NUM_ROUNDS; ++round) {
                if (stateView.roundFinalizedAt(id, round) == 0 || stateView.openDisputesOf(id, round) != 0) continue;
                _releaseRound(id, round);
            }
        }
    }

    function withdrawOwed(uint8 who) external {
        address[3] memory accounts = [disputer, treasury, extraValidators[who % JURORS]];
        address a = accounts[who % 3];
        uint256 owed = stateView.owedOf(a);
        if (owed == 0) return;
        vm.prank(a);
        disputes.withdraw(a, owed);
    }

    // ------------------------------------------------------------ helpers

    function _workAndAttest(uint256 taskId, uint256 bitmap) private {
        if (_samplerAt(taskId, 0) == address(0) || _samplerAt(taskId, 1) == address(0)) return;
        if (_trainerOf(taskId) == address(0) || _task(taskId).filledValidators != NUM_VALIDATORS) return;
        _workRound(taskId);
        _attestAll(taskId, bitmap);
    }

    function _lastDecidedRound(uint256 taskId) private view returns (uint256 round) {
        for (uint256 r = 0; r < NUM_ROUNDS; ++r) {
            if (stateView.roundFinalizedAt(taskId, r) != 0) round = r;
        }
    }

    function _releaseRound(uint256 taskId, uint256 round) private {
        address[] memory everyone = _everyone();
        for (uint256 i = 0; i < everyone.length; ++i) {
            if (vault.heldOf(taskId, round, everyone[i]) > 0) disputes.releasePay(taskId, round, everyone[i]);
        }
    }

    // ------------------------------------------------------------ views for the invariants

    function everyone() external view returns (address[] memory) {
        return _everyone();
    }

    function disputeRecord(uint256 id) external view returns (IDisputeManager.Dispute memory) {
        return stateView.disputeOf(id);
    }

    function dissented(uint256 taskId, uint256 round, address node) external view returns (bool) {
        return stateView.dissentedIn(taskId, round, node);
    }

    function held(uint256 taskId, uint256 round, address node) external view returns (uint256) {
        return vault.heldOf(taskId, round, node);
    }

    function claimable(address node) external view returns (uint256) {
        return vault.claimableOf(node);
    }

    function tokenBalance(address a) external view returns (uint256) {
        return token.balanceOf(a);
    }

    function disputesAddress() external view returns (address) {
        return address(disputes);
    }

    function disputesBonds() external view returns (uint256) {
        return stateView.totalBonds();
    }

    function disputesOwed() external view returns (uint256) {
        return stateView.totalOwed();
    }

    function vaultAddress() external view returns (address) {
        return address(vault);
    }

    function vaultEscrow() external view returns (uint256) {
        return vault.totalEscrow();
    }

    function vaultClaimable() external view returns (uint256) {
        return vault.totalClaimable();
    }

    function stakesAddress() external view returns (address) {
        return address(stakes);
    }

    function stakesTotal() external view returns (uint256) {
        return stakes.totalStaked();
    }

    /// @dev Every other holder: admin, treasury, requester, relayer, disputer, this handler.
    function outsideHolders() external view returns (uint256) {
        return token.balanceOf(admin) + token.balanceOf(treasury) + token.balanceOf(requester)
            + token.balanceOf(relayer) + token.balanceOf(disputer) + token.balanceOf(address(this));
    }

    function supply() external view returns (uint256) {
        return token.totalSupply();
    }

    function taskCount() external view returns (uint256) {
        return stateView.taskCount();
    }

    function taskOf(uint256 id) external view returns (ITaskRegistry.Task memory) {
        return stateView.taskOf(id);
    }

    function paidOf(uint256 id) external view returns (uint256[3] memory) {
        return stateView.paidOf(id);
    }

    function escrowOf(uint256 id) external view returns (uint256) {
        return vault.escrowOf(id);
    }

    function heldTotalOf(uint256 id) external view returns (uint256) {
        return vault.heldTotalOf(id);
    }

    /// @dev The requester never works nor withdraws here: its claimable is its refunds and reclaims.
    function requesterClaimable() external view returns (uint256) {
        return vault.claimableOf(requester);
    }

    function _everyone() private view returns (address[] memory all) {
        all = new address[](samplers.length + trainers.length + validators.length + extraValidators.length);
        uint256 n;
        for (uint256 i = 0; i < samplers.length; ++i) all[n++] = samplers[i];
        for (uint256 i = 0; i < trainers.length; ++i) all[n++] = trainers[i];
        for (uint256 i = 0; i < validators.length; ++i) all[n++] = validators[i];
        for (uint256 i = 0; i < extraValidators.length; ++i) all[n++] = extraValidators[i];
    }
}

// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {ITaskRegistry} from "../interfaces/ITaskRegistry.sol";
import {IDisputeHooks} from "../interfaces/IDisputeHooks.sol";
import {Role, Outcome} from "./Types.sol";
import {Payouts} from "./Payouts.sol";
import {TaskStorage, Context, DrawMasks} from "./TaskStorage.sol";
import {Votes} from "./Votes.sol";
import {Tasks} from "./Tasks.sol";
import {AggregateKeys} from "./AggregateKeys.sol";

/// @title RoundLogic
/// @notice The round state machine of the TaskRegistry: phase changes, penalties for missed
///         deadlines, the quorum tally, verdicts, pay and settlement.
/// @dev An external library: it runs by delegatecall on the registry's storage (the pattern of
///      Uniswap v4's Pool and Aave v3's logic libraries), which keeps the registry a thin core.
///      Events are the registry's own (ITaskRegistry), so indexers see them emitted by the registry.
library RoundLogic {
    /// @notice Rounds in a row without an accepted checkpoint after which a task fails.
    uint256 internal constant MAX_IDLE_ROUNDS = 2;

    /// @dev A round's votes, read once when it is finalized (by validator slot), the submissions a
    ///      quorum accepted and rejected, those whose opened draw forced them, the forced ones at
    ///      least one validator voted "plant" on, and those whose worker withheld its draw (and was
    ///      removed for it when AttestReveal expired).
    struct Decided {
        ITaskRegistry.Attestation[] votes;
        uint256 accepted;
        uint256 rejected;
        uint256 forced;
        uint256 planted;
        uint256 withheld;
    }

    /// @notice Starts the task's rounds.
    function activate(TaskStorage storage s, Context memory c, uint256 taskId) external {
        ITaskRegistry.Task storage t = s.tasks[taskId];
        Tasks.setStatus(taskId, t, ITaskRegistry.Status.Active);
        _enterPhase(s, c, taskId, t, ITaskRegistry.Phase.SampleCommit);
    }

    /// @notice Records that `actions` expected actions of the current phase happened (one per
    ///         commit, reveal or vote; an aggregate attestation is one per signer); closes the phase
    ///         when they were the last.
    function acted(TaskStorage storage s, Context memory c, uint256 taskId, uint256 actions) external {
        ITaskRegistry.Task storage t = s.tasks[taskId];
        // Each action is by a distinct expected node that had not acted: actions <= pending.
        t.pending -= uint8(actions);
        if (t.pending == 0) _closePhase(s, c, taskId, t);
    }

    /// @notice Closes an expired phase: everyone expected who did not act is penalised and removed.
    function expirePhase(TaskStorage storage s, Context memory c, uint256 taskId) external {
        ITaskRegistry.Task storage t = s.tasks[taskId];
        _vacateLaggards(s, c, taskId, t);
        _closePhase(s, c, taskId, t);
    }

    /// @notice Ends a task with `status`, releasing stakes and refunding what was not earned.
    function settle(TaskStorage storage s, Context memory c, uint256 taskId, ITaskRegistry.Status status) external {
        _settle(s, c, taskId, s.tasks[taskId], status);
    }

    /// @notice Gives `node`'s held pay for `round` back to the requester (its verdict was overturned
    ///         by a dispute) and takes it off what the task paid `role`.
    function reclaimPay(TaskStorage storage s, Context memory c, uint256 taskId, uint256 round, address node, Role role)
        external
        returns (uint256 amount)
    {
        amount = c.vault.reclaim(taskId, round, node, s.tasks[taskId].requester);
        s.paid[taskId][uint8(role)] -= amount;
        emit IDisputeHooks.PayReclaimed(taskId, round, node, role, amount);
    }

    // ---------------------------------------------------------------- phases

    function _closePhase(TaskStorage storage s, Context memory c, uint256 taskId, ITaskRegistry.Task storage t)
        private
    {
        if (t.phase == ITaskRegistry.Phase.AttestReveal) _finalizeRound(s, c, taskId, t);
        else _enterPhase(s, c, taskId, t, ITaskRegistry.Phase(uint8(t.phase) + 1));
    }

    /// @dev Enters `phase`; phases nobody is expected in are skipped, except a round's first phase,
    ///      which stays open until its deadline so that vacant sampler slots can still be claimed.
    function _enterPhase(
        TaskStorage storage s,
        Context memory c,
        uint256 taskId,
        ITaskRegistry.Task storage t,
        ITaskRegistry.Phase phase
    ) private {
        // The seed of the round's draws (SPECIFICATION.md 5.5.3), fixed after every draw commitment
        // of the round was made (by a reveal of the round before, or commitDraw before the round).
        if (phase == ITaskRegistry.Phase.SampleCommit) {
            s.roundSeeds[taskId][t.round] = blockhash(block.number - 1);
        }
        while (true) {
            if (phase == ITaskRegistry.Phase.Attest) t.revealedMask = uint64(_revealedMask(s, taskId, t));
            uint256 expected = _expected(s, taskId, t, phase);
            uint256 deadline = c.now + _window(t, phase);
            t.phase = phase;
            // expected counts slots of one role, at most MAX_VALIDATORS (64).
            t.pending = uint8(expected);
            t.phaseDeadline = uint64(deadline);
            emit ITaskRegistry.PhaseStarted(taskId, t.round, phase, deadline);
            if (expected > 0 || phase == ITaskRegistry.Phase.SampleCommit) return;
            if (phase == ITaskRegistry.Phase.AttestReveal) return _finalizeRound(s, c, taskId, t);
            phase = ITaskRegistry.Phase(uint8(phase) + 1);
        }
    }

    function _expected(TaskStorage storage s, uint256 taskId, ITaskRegistry.Task storage t, ITaskRegistry.Phase phase)
        private
        view
        returns (uint256 n)
    {
        uint256 round = t.round;
        if (phase == ITaskRegistry.Phase.SampleCommit) return _countWorking(s, taskId, t, Role.Sampler);
        if (phase == ITaskRegistry.Phase.SampleReveal) {
            for (uint256 i = 0; i < t.numSamplers; ++i) {
                if (s.submissions[taskId][round][Role.Sampler][i].commitment != bytes32(0)) ++n;
            }
            return n;
        }
        if (phase == ITaskRegistry.Phase.TrainCommit) {
            // Without a revealed sample there is nothing to train on: the trainer is not expected
            // (nor, having no commitment, in TrainReveal) and cannot be penalised for it.
            return _sampleRevealed(s, taskId, round, t.numSamplers) ? _countWorking(s, taskId, t, Role.Trainer) : 0;
        }
        if (phase == ITaskRegistry.Phase.TrainReveal) {
            return s.submissions[taskId][round][Role.Trainer][0].commitment != bytes32(0) ? 1 : 0;
        }
        if (phase == ITaskRegistry.Phase.Attest) {
            return t.revealedMask == 0 ? 0 : _countWorking(s, taskId, t, Role.Validator);
        }
        // AttestReveal: the validators that sealed a vote and the workers with a draw to open (none
        // is opened yet).
        for (uint256 i = 0; i < t.numValidators; ++i) {
            if (s.attestCommitments[taskId][round][i] != bytes32(0)) ++n;
        }
        uint256 drawn = s.draws[taskId][round].drawn;
        for (uint256 i = 0; i <= t.numSamplers; ++i) {
            if ((drawn >> i) & 1 == 1) ++n;
        }
    }

    function _countWorking(TaskStorage storage s, uint256 taskId, ITaskRegistry.Task storage t, Role role)
        private
        view
        returns (uint256 n)
    {
        uint256 count = Tasks.slotCount(t, role);
        for (uint256 i = 0; i < count; ++i) {
            ITaskRegistry.Slot storage slot = s.slots[taskId][role][i];
            if (slot.node != address(0) && slot.sinceRound <= t.round) ++n;
        }
    }

    function _sampleRevealed(TaskStorage storage s, uint256 taskId, uint256 round, uint256 numSamplers)
        private
        view
        returns (bool)
    {
        for (uint256 i = 0; i < numSamplers; ++i) {
            if (s.submissions[taskId][round][Role.Sampler][i].revealed) return true;
        }
        return false;
    }

    /// @dev Penalises and removes everyone who was expected in the expired phase and did not act.
    function _vacateLaggards(TaskStorage storage s, Context memory c, uint256 taskId, ITaskRegistry.Task storage t)
        private
    {
        ITaskRegistry.Phase phase = t.phase;
        uint256 round = t.round;
        if (phase >= ITaskRegistry.Phase.Attest) {
            bool sealing = phase == ITaskRegistry.Phase.Attest;
            for (uint256 i = 0; i < t.numValidators; ++i) {
                ITaskRegistry.Slot storage slot = s.slots[taskId][Role.Validator][i];
                if (slot.node == address(0) || slot.sinceRound > round) continue;
                // A vote is cleared when opened: one still sealed after AttestReveal was withheld.
                bool isSealed = s.attestCommitments[taskId][round][i] != bytes32(0);
                if (sealing && !isSealed) _vacate(s, c, taskId, t, Role.Validator, i, Outcome.Missed);
                else if (!sealing && isSealed) _vacate(s, c, taskId, t, Role.Validator, i, Outcome.Withheld);
            }
            if (!sealing) _vacateUnopenedDraws(s, c, taskId, t);
            return;
        }
        Role role = phase <= ITaskRegistry.Phase.SampleReveal ? Role.Sampler : Role.Trainer;
        bool isCommit = phase == ITaskRegistry.Phase.SampleCommit || phase == ITaskRegistry.Phase.TrainCommit;
        uint256 count = Tasks.slotCount(t, role);
        for (uint256 i = 0; i < count; ++i) {
            ITaskRegistry.Slot storage slot = s.slots[taskId][role][i];
            if (slot.node == address(0) || slot.sinceRound > round) continue;
            ITaskRegistry.Submission storage sub = s.submissions[taskId][round][role][i];
            bool late = isCommit ? sub.commitment == bytes32(0) : (sub.commitment != bytes32(0) && !sub.revealed);
            // Not committing is a miss; committing and then withholding the reveal is a choice made
            // after seeing the others' commitments (or an attempt to open someone else's): slashed.
            if (late) _vacate(s, c, taskId, t, role, i, isCommit ? Outcome.Missed : Outcome.Withheld);
        }
    }

    /// @dev A worker with a draw to open that did not open it by the end of AttestReveal withheld it
    ///      (it could otherwise hide whether it was forced): removed and slashed; its submission is
    ///      then judged as not forced (SPECIFICATION.md 5.5.3).
    function _vacateUnopenedDraws(TaskStorage storage s, Context memory c, uint256 taskId, ITaskRegistry.Task storage t)
        private
    {
        DrawMasks memory d = s.draws[taskId][t.round];
        uint256 unopened = uint256(d.drawn) & ~uint256(d.opened);
        uint256 n = t.numSamplers;
        for (uint256 i = 0; unopened >> i != 0; ++i) {
            if ((unopened >> i) & 1 == 0) continue;
            // A drawn bit is a revealed submission, whose worker still holds its slot.
            if (i == n) _vacate(s, c, taskId, t, Role.Trainer, 0, Outcome.Withheld);
            else _vacate(s, c, taskId, t, Role.Sampler, i, Outcome.Withheld);
        }
    }

    // ---------------------------------------------------------------- verdicts and pay

    function _finalizeRound(TaskStorage storage s, Context memory c, uint256 taskId, ITaskRegistry.Task storage t)
        private
    {
        uint256 round = t.round;
        uint256 revealed = t.revealedMask;
        Decided memory d = _tally(s, taskId, t, revealed);
        s.finalizedAt[taskId][round] = c.now;
        uint256 samplerPayees = _judgeWorkers(s, c, taskId, t, Role.Sampler, d);
        uint256 trainerPayees = _judgeWorkers(s, c, taskId, t, Role.Trainer, d);
        _payWorkers(s, c, taskId, t, Role.Sampler, samplerPayees, d);
        _payWorkers(s, c, taskId, t, Role.Trainer, trainerPayees, d);
        if (revealed != 0) _judgeAndPayValidators(s, c, taskId, t, d);

        // The checkpoint is the accepted work's, even when its trainer was removed for withholding
        // its draw (the verdict judged the work; the trainer is not paid for it).
        ITaskRegistry.Submission storage sub = s.submissions[taskId][round][Role.Trainer][0];
        if (sub.verdict == ITaskRegistry.Verdict.Accepted) {
            t.checkpointRoot = sub.root;
            t.checkpointCid = sub.cid;
            t.idleRounds = 0;
        } else {
            t.idleRounds += 1;
        }
        t.revealedMask = 0;
        emit ITaskRegistry.RoundFinalized(taskId, round, t.checkpointRoot, t.checkpointCid);

        // Idle rounds are checked first: two in a row fail the task even when the second is the last.
        if (t.idleRounds >= MAX_IDLE_ROUNDS) return _settle(s, c, taskId, t, ITaskRegistry.Status.Failed);
        if (round + 1 == t.numRounds) {
            // Completed only with a result: a task whose rounds never accepted a checkpoint ended
            // without one (a revealed root is never 0, so 0 means none was accepted).
            ITaskRegistry.Status end =
                t.checkpointRoot == bytes32(0) ? ITaskRegistry.Status.NoResult : ITaskRegistry.Status.Completed;
            return _settle(s, c, taskId, t, end);
        }
        // round + 1 < numRounds <= MAX_ROUNDS, so it fits a uint16.
        t.round = uint16(round + 1);
        _enterPhase(s, c, taskId, t, ITaskRegistry.Phase.SampleCommit);
    }

    /// @dev Reads the round's votes once and returns them with the revealed submissions a quorum
    ///      accepted and those a quorum rejected.
    function _tally(TaskStorage storage s, uint256 taskId, ITaskRegistry.Task storage t, uint256 revealed)
        private
        view
        returns (Decided memory d)
    {
        uint256 round = t.round;
        uint256 n = t.numValidators;
        d.votes = new ITaskRegistry.Attestation[](n);
        for (uint256 v = 0; v < n; ++v) {
            d.votes[v] = Votes.get(s, taskId, round, v);
        }
        DrawMasks memory draws = s.draws[taskId][round];
        d.forced = draws.forced;
        d.withheld = uint256(draws.drawn) & ~uint256(draws.opened);
        uint256 q = Payouts.quorum(n);
        uint256 subs = uint256(t.numSamplers) + 1;
        for (uint256 i = 0; i < subs; ++i) {
            uint256 bit = 1 << i;
            if (revealed & bit == 0) continue;
            (uint256 yes, uint256 no, uint256 plants) = _votes(d.votes, bit, d.forced);
            if (yes >= q) d.accepted |= bit;
            else if (no >= q) d.rejected |= bit;
            if (plants != 0 && d.forced & bit != 0) d.planted |= bit;
        }
    }

    /// @dev The votes on submission `bit`: a "plant" answer counts as yes when the submission was
    ///      forced (the worker is not hurt by validators that missed its plant) and as no otherwise
    ///      (a plant in unforced work is a fault); `plants` is the number of plant answers.
    function _votes(ITaskRegistry.Attestation[] memory votes, uint256 bit, uint256 forced)
        private
        pure
        returns (uint256 yes, uint256 no, uint256 plants)
    {
        for (uint256 v = 0; v < votes.length; ++v) {
            ITaskRegistry.Attestation memory a = votes[v];
            if (!a.voted) continue;
            if (a.plantBitmap & bit != 0) ++plants;
            if (_yesBits(a, forced) & bit != 0) ++yes;
            else ++no;
        }
    }

    /// @dev The submissions a vote says yes to: those it accepts, and the forced ones it answers
    ///      "plant" on.
    function _yesBits(ITaskRegistry.Attestation memory a, uint256 forced) private pure returns (uint256) {
        return uint256(a.acceptBitmap) | (uint256(a.plantBitmap) & forced);
    }

    /// @dev Records verdicts of one worker role, slashes and removes the rejected; returns how many
    ///      were accepted (they are the role's payees this round).
    function _judgeWorkers(
        TaskStorage storage s,
        Context memory c,
        uint256 taskId,
        ITaskRegistry.Task storage t,
        Role role,
        Decided memory d
    ) private returns (uint256 acceptedCount) {
        uint256 count = Tasks.slotCount(t, role);
        for (uint256 i = 0; i < count; ++i) {
            ITaskRegistry.Submission storage sub = s.submissions[taskId][t.round][role][i];
            if (!sub.revealed) continue;
            ITaskRegistry.Verdict verdict = _recordVerdict(taskId, t, sub, role, i, d);
            // A worker removed for withholding its draw this round has had its penalty: its work is
            // judged, but it is neither paid nor judged again.
            if (verdict == ITaskRegistry.Verdict.Inconclusive || _withheld(t, role, i, d)) continue;
            if (verdict == ITaskRegistry.Verdict.Accepted) {
                ++acceptedCount;
                c.reputation.record(sub.node, Outcome.Accepted);
            } else {
                _vacate(s, c, taskId, t, role, i, Outcome.Rejected);
            }
        }
    }

    function _recordVerdict(
        uint256 taskId,
        ITaskRegistry.Task storage t,
        ITaskRegistry.Submission storage sub,
        Role role,
        uint256 index,
        Decided memory d
    ) private returns (ITaskRegistry.Verdict verdict) {
        uint256 bit = Tasks.submissionBit(t, role, index);
        if (d.accepted & bit != 0) verdict = ITaskRegistry.Verdict.Accepted;
        else if (d.rejected & bit != 0) verdict = ITaskRegistry.Verdict.Rejected;
        else verdict = ITaskRegistry.Verdict.Inconclusive;
        sub.verdict = verdict;
        (uint256 yes, uint256 no,) = _votes(d.votes, bit, d.forced);
        emit ITaskRegistry.VerdictReached(taskId, t.round, sub.node, role, index, verdict, yes, no);
    }

    /// @dev Pays each accepted submitter of `role` one slot's share of the round pool. Shares of
    ///      slots without accepted work stay in escrow for the requester, so nobody gains from
    ///      another node's failure.
    function _payWorkers(
        TaskStorage storage s,
        Context memory c,
        uint256 taskId,
        ITaskRegistry.Task storage t,
        Role role,
        uint256 payees,
        Decided memory d
    ) private {
        if (payees == 0) return;
        uint256 round = t.round;
        uint256 count = Tasks.slotCount(t, role);
        uint256 share = Payouts.perPayee(_roundPool(t, role), count);
        for (uint256 i = 0; i < count; ++i) {
            ITaskRegistry.Submission storage sub = s.submissions[taskId][round][role][i];
            if (sub.verdict == ITaskRegistry.Verdict.Accepted && !_withheld(t, role, i, d)) {
                _pay(s, c, taskId, round, sub.node, role, share);
            }
        }
    }

    /// @dev A validator agrees with the quorum when it said yes to every accepted submission and no to
    ///      every rejected one: it earns one slot's share of the validator pool. Saying yes to work a
    ///      quorum rejected earns nothing this round. Saying no to work a quorum accepted is a dissent:
    ///      a lone validator that saw a fault the others' samples missed may be the one that is right,
    ///      so a head-count does not punish it; its evidence is adjudicated by the dispute it opens,
    ///      and its round pay is its own only if that dispute proves the work bad (SPECIFICATION.md 5.5, 13).
    ///      A "plant" answer is a yes to forced work and a no to unforced work. Accepting forced work
    ///      another validator found the plant in missed the plant: no pay this round (stake,
    ///      reputation and slot kept, as for an outvoted acceptance); when nobody found a plant,
    ///      nobody is penalised for it (SPECIFICATION.md 5.5.3).
    function _judgeAndPayValidators(
        TaskStorage storage s,
        Context memory c,
        uint256 taskId,
        ITaskRegistry.Task storage t,
        Decided memory d
    ) private {
        uint256 round = t.round;
        uint256 n = t.numValidators;
        uint256 share = Payouts.perPayee(_roundPool(t, Role.Validator), n);
        for (uint256 v = 0; v < n; ++v) {
            ITaskRegistry.Attestation memory a = d.votes[v];
            if (!a.voted) continue;
            address node = s.slots[taskId][Role.Validator][v].node;
            uint256 yes = _yesBits(a, d.forced);
            uint256 dissent = ~yes & d.accepted;
            if (dissent != 0) emit ITaskRegistry.Dissented(taskId, round, node, v, dissent);
            uint256 missed = uint256(a.acceptBitmap) & d.planted;
            if (missed != 0) emit ITaskRegistry.PlantMissed(taskId, round, node, v, missed);
            // Accepting work a quorum rejected can be honestly wrong (its sampled challenges missed
            // what the others' caught): it costs the round's pay, not stake, reputation or slot. So
            // does missing a plant another validator found.
            if (yes & d.rejected != 0 || missed != 0) continue;
            if (dissent != 0) {
                // Its pay is held until a dispute it opens proves the work bad, and goes back to the
                // requester otherwise (DisputeManager.releasePay); without disputes nothing can
                // adjudicate a dissent, so it is not paid.
                if (s.disputeManager != address(0)) {
                    s.dissented[taskId][round][node] = true;
                    _pay(s, c, taskId, round, node, Role.Validator, share);
                }
            } else {
                c.reputation.record(node, Outcome.Accepted);
                _pay(s, c, taskId, round, node, Role.Validator, share);
            }
        }
    }

    function _pay(
        TaskStorage storage s,
        Context memory c,
        uint256 taskId,
        uint256 round,
        address node,
        Role role,
        uint256 amount
    ) private {
        if (amount == 0) return;
        s.paid[taskId][uint8(role)] += amount;
        // Once a dispute manager is set, pay is held for the round's dispute window (section 13).
        if (s.disputeManager != address(0)) c.vault.hold(taskId, round, node, amount);
        else c.vault.credit(taskId, node, amount);
        emit ITaskRegistry.RewardEarned(taskId, round, node, role, amount);
    }

    // ---------------------------------------------------------------- slots and settlement

    function _vacate(
        TaskStorage storage s,
        Context memory c,
        uint256 taskId,
        ITaskRegistry.Task storage t,
        Role role,
        uint256 index,
        Outcome reason
    ) private {
        ITaskRegistry.Slot memory slot = s.slots[taskId][role][index];
        delete s.slots[taskId][role][index];
        delete s.members[taskId][slot.node];
        if (role == Role.Sampler) t.filledSamplers -= 1;
        else if (role == Role.Trainer) t.trainerFilled = false;
        else {
            t.filledValidators -= 1;
            AggregateKeys.left(s, c.stakes, taskId, index, slot.node);
        }
        c.stakes.unlock(slot.node, role, slot.lockedStake);
        if (reason == Outcome.Rejected || reason == Outcome.AgainstQuorum || reason == Outcome.Withheld) {
            (uint256 slashBps, address treasury) = c.config.slashing();
            // The amount actually taken is in StakeManager's Slashed event; nothing here depends on it.
            // slither-disable-next-line unused-return
            c.stakes.slash(slot.node, role, slot.lockedStake * slashBps / Payouts.BPS, treasury);
        }
        c.reputation.record(slot.node, reason);
        if (role == Role.Validator && t.seedBlock == 0) Tasks.armDraw(taskId, t);
        emit ITaskRegistry.SlotVacated(taskId, slot.node, role, index, reason);
    }

    /// @dev Ends a task: releases every assigned stake and refunds what was not earned (unearned
    ///      rounds, rejected or missing work, rounding dust) to the requester's claimable balance.
    function _settle(
        TaskStorage storage s,
        Context memory c,
        uint256 taskId,
        ITaskRegistry.Task storage t,
        ITaskRegistry.Status status
    ) private {
        Tasks.setStatus(taskId, t, status);
        for (uint256 r = 0; r < 3; ++r) {
            Role role = Role(r);
            uint256 count = Tasks.slotCount(t, role);
            for (uint256 i = 0; i < count; ++i) {
                ITaskRegistry.Slot storage slot = s.slots[taskId][role][i];
                if (slot.node != address(0)) c.stakes.unlock(slot.node, role, slot.lockedStake);
            }
        }
        uint256 refund = c.vault.refund(taskId, t.requester);
        emit ITaskRegistry.TaskSettled(taskId, status, s.paid[taskId], refund);
    }

    // ---------------------------------------------------------------- small helpers

    function _window(ITaskRegistry.Task storage t, ITaskRegistry.Phase phase) private view returns (uint256) {
        if (phase == ITaskRegistry.Phase.SampleCommit || phase == ITaskRegistry.Phase.TrainCommit) {
            return t.commitWindow;
        }
        if (phase == ITaskRegistry.Phase.Attest) return t.attestWindow;
        // SampleReveal, TrainReveal and AttestReveal.
        return t.revealWindow;
    }

    /// @dev Whether the worker of submission (`role`, `index`) withheld its draw this round.
    function _withheld(ITaskRegistry.Task storage t, Role role, uint256 index, Decided memory d)
        private
        view
        returns (bool)
    {
        return d.withheld & Tasks.submissionBit(t, role, index) != 0;
    }

    function _roundPool(ITaskRegistry.Task storage t, Role role) private view returns (uint256) {
        return Payouts.roundPool(t.bounty, t.sharesBps[uint8(role)], t.numRounds);
    }

    function _revealedMask(TaskStorage storage s, uint256 taskId, ITaskRegistry.Task storage t)
        private
        view
        returns (uint256 mask)
    {
        uint256 round = t.round;
        for (uint256 i = 0; i < t.numSamplers; ++i) {
            if (s.submissions[taskId][round][Role.Sampler][i].revealed) mask |= 1 << i;
        }
        if (s.submissions[taskId][round][Role.Trainer][0].revealed) mask |= 1 << t.numSamplers;
    }
}

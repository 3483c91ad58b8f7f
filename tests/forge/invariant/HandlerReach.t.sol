// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {InvariantBase} from "./InvariantBase.sol";
import {ITaskRegistry} from "../../../contracts/interfaces/ITaskRegistry.sol";
import {Outcome} from "../../../contracts/libraries/Types.sol";

/// @notice Shows that the invariant handler really drives the protocol through every outcome:
///         a fixed pseudo-random walk over the same actions the fuzzer uses, checking all
///         invariants after every step, then asserting each path was taken.
contract HandlerReachTest is InvariantBase {
    uint256 internal constant STEPS = 1600;
    uint256 private _rng = 0x5eed1f; // a walk that takes every path below (re-picked with sealed votes and outvoted validators kept)

    function setUp() public {
        _deploy();
    }

    function _rand() internal returns (uint256) {
        _rng = uint256(keccak256(abi.encode(_rng)));
        return _rng;
    }

    function _step() internal {
        uint256 a = _rand();
        uint256 b = _rand();
        uint256 c = _rand();
        uint256 action = _rand() % 40; // 15..38: progress, so tasks run to the end
        if (action == 0 || action == 39) handler.createTask(a, b, uint8(c), uint8(c >> 8), uint8(c >> 16));
        else if (action == 1) handler.cancelTask(a);
        else if (action == 2) handler.stake(a, uint8(b), c);
        else if (action == 3) handler.requestUnstake(a, uint8(b), c);
        else if (action == 4) handler.withdrawUnbonded(a, uint8(b), uint8(c));
        else if (action == 5) handler.setPaused(a, uint8(b));
        else if (action == 6) handler.slashDirect(a, uint8(b), c);
        else if (action == 7) handler.claim(a, b, c % 2 == 0);
        else if (action == 8) handler.draw(a, uint8(b));
        else if (action == 9) handler.commit(a, b, c);
        else if (action == 10) handler.reveal(a, b, uint8(c));
        else if (action == 11) handler.attest(a, b, c);
        else if (action == 12) handler.warpAndAdvance(a, b, c % 2 == 0);
        else if (action == 13) handler.withdrawReward(a, b);
        else if (action == 14) handler.recover(a, uint8(c));
        else handler.progress(a, b);
    }

    function _u(uint256 v) internal pure returns (string memory) {
        if (v == 0) return "0";
        bytes memory b;
        while (v > 0) { b = abi.encodePacked(bytes1(uint8(48 + v % 10)), b); v /= 10; }
        return string(b);
    }

    /// @notice One line of counters, for looking at a walk by hand (`cast call` or a debugger).
    function stats() external view returns (string memory s) {
        bytes32[13] memory names = [bytes32("createTask"), "cancelTask", "stake", "requestUnstake", "withdrawUnbonded", "setPaused", "slashDirect", "claim", "draw", "commit", "reveal", "attest", "advance"];
        for (uint256 i = 0; i < names.length; ++i) {
            s = string.concat(s, string(abi.encodePacked(names[i])), "=", _u(handler.successes(names[i])), "/", _u(handler.calls(names[i])), " ");
        }
        s = string.concat(s, "tasks=", _u(stateView.taskCount()), " completed=", _u(handler.ghostSettledByStatus(4)), " cancelled=", _u(handler.ghostSettledByStatus(5)), " failed=", _u(handler.ghostSettledByStatus(6)), " noResult=", _u(handler.ghostSettledByStatus(7)));
        s = string.concat(s, " full=", _u(handler.ghostFullyAcceptedTasks()), " slashes=", _u(handler.ghostSlashes()), " fromUnbonding=", _u(handler.ghostSlashedFromUnbonding()), " recoveries=", _u(handler.ghostRecoveries()), " badReveals=", _u(handler.ghostRejectedReveals()), " withdrawn=", _u(handler.ghostWithdrawn()), " assigned=", _u(handler.ghostAssignments()), " rej=", _u(handler.ghostVacatedByReason(1)), " missed=", _u(handler.ghostVacatedByReason(2)), " aq=", _u(handler.ghostVacatedByReason(3)), " lowrep=", _u(handler.ghostLowReputationClaimsRefused()));
        s = string.concat(s, " draws=", _u(handler.ghostDrawsOpened()), " forced=", _u(handler.ghostForcedDraws()), " plantMissed=", _u(handler.ghostPlantMissed()), " withheld=", _u(handler.ghostVacatedByReason(5)));
        s = string.concat(s, " aggregates=", _u(handler.ghostAggregates()), " aggregateSigners=", _u(handler.ghostAggregateSigners()), " forgedTried=", _u(handler.ghostForgedAggregatesTried()), " lateKeys=", _u(handler.ghostLateKeys()), " nonSigners=", _u(handler.ghostAggregatesWithNonSigners()), " afterSolo=", _u(handler.ghostAggregatesAfterSoloVotes()));
    }

    function checkLiveness() external {
        _checkAdvanceNeverStuck();
    }

    function checkAll() external view {
        _checkAll();
    }

    function test_handlerReachesEveryOutcome() public {
        for (uint256 i = 0; i < STEPS; ++i) {
            _step();
            if (i % 200 == 100) handler.registerLateKey(5 + i / 200); // key 5, then refused replacements
            // The checks only read (checkLiveness reverts to a snapshot): their gas is not the walk's.
            // Through StateView they cost ~4x the walk itself, past forge's 2^30 gas limit under
            // coverage's unoptimized build; the walk and the final check stay metered.
            vm.pauseGasMetering();
            if (i % 12 == 11) this.checkAll(); // an external call, so each check starts with fresh memory
            if (i % 60 == 59) this.checkLiveness();
            vm.resumeGasMetering();
        }
        // Every path the invariants talk about was taken (counts from the fixed walk above).
        assertGe(handler.ghostSettledByStatus(uint8(ITaskRegistry.Status.Completed)), 1, "a task completed");
        assertGe(handler.ghostSettledByStatus(uint8(ITaskRegistry.Status.Cancelled)), 1, "a task was cancelled");
        assertGe(handler.ghostSettledByStatus(uint8(ITaskRegistry.Status.Failed)), 1, "a task failed");
        assertGe(handler.ghostSettledByStatus(uint8(ITaskRegistry.Status.NoResult)), 1, "a task ended without a result");
        assertGe(handler.ghostFullyAcceptedTasks(), 1, "a task completed with all work accepted");
        assertGe(handler.ghostVacatedByReason(uint8(Outcome.Rejected)), 1, "a worker was rejected and slashed");
        // A vote is never punished by a head-count (SPECIFICATION.md 5.5): outvoted validators keep their slots.
        assertEq(handler.ghostVacatedByReason(uint8(Outcome.AgainstQuorum)), 0, "no validator vacated for its vote");
        assertGe(handler.ghostVacatedByReason(uint8(Outcome.Missed)), 1, "a node missed a deadline");
        assertGe(handler.ghostVacatedByReason(uint8(Outcome.Withheld)), 1, "a node withheld its reveal and was slashed");
        assertGe(handler.ghostSlashedFromUnbonding(), 1, "unbonding stake was slashed");
        assertGe(handler.ghostUnbondedWithdrawals(), 1, "unbonded stake was withdrawn");
        assertGe(handler.ghostRecoveries(), 1, "a node recovered its reputation");
        assertGe(handler.ghostLowReputationClaimsRefused(), 1, "a low-reputation claim was refused");
        assertGe(handler.ghostRoundsWithoutSample(), 1, "a round ended with no sample revealed");
        assertGe(handler.ghostRejectedReveals(), 1, "a reveal with a wrong salt or junk commitment failed");
        assertGe(handler.ghostWithdrawn(), 1, "rewards were withdrawn");
        assertGe(handler.ghostAssignments(), 50, "many assignments checked");
        assertGe(handler.ghostAggregates(), 1, "votes arrived as BLS aggregates");
        assertGe(handler.ghostAggregateSigners(), handler.ghostAggregates() + 1, "some aggregates carried several votes");
        assertGe(handler.ghostForgedAggregatesTried(), 1, "forged aggregates were tried (and refused)");
        assertGe(handler.ghostLateKeysWhileValidating(), 1, "a key was registered by a node holding a validator slot");
        assertGe(handler.calls("registerLateKey"), 4, "replacing keys was tried (invariant: never succeeded)");
        assertGe(handler.ghostAggregatesWithNonSigners(), 1, "an aggregate left a mask slot out (its key subtracted)");
        assertGe(handler.ghostAggregatesAfterSoloVotes(), 1, "an aggregate followed votes opened alone");
        assertGe(handler.ghostDrawsOpened(), 2, "workers opened draws");
        assertGe(handler.ghostForcedDraws(), 1, "a draw was forced");
        assertGe(handler.ghostDrawsOpened() - handler.ghostForcedDraws(), 1, "a draw was not forced");
        assertGe(handler.ghostBadDrawOpensTried(), 1, "a draw opening with a wrong secret was tried (and refused)");
        assertGe(handler.ghostPlantMissed(), 1, "a validator missed a plant another found");
        assertGe(handler.totalSuccesses(), STEPS / 4, "a quarter of all actions succeeded (the task cap ends the rest)");
        this.checkAll();
    }
}

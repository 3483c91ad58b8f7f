// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Pausable} from "@openzeppelin/contracts/utils/Pausable.sol";
import {ForcedFixture} from "../base/ForcedFixture.sol";
import {ITaskRegistry} from "../../../contracts/interfaces/ITaskRegistry.sol";
import {Role} from "../../../contracts/libraries/Types.sol";

/// @notice SPECIFICATION.md 5.5.3, draws: a reveal's salt is the worker's draw commitment for the
///         next round, each round is seeded when its SampleCommit begins, and in AttestReveal every
///         worker that revealed with a draw opens it (openDraw) before the round can close.
contract DrawsTest is ForcedFixture {
    uint256 private taskId;
    address private s0;
    address private s1;
    address private tr;

    function setUp() public override {
        super.setUp();
        taskId = _activeTask();
        s0 = _samplerAt(taskId, 0);
        s1 = _samplerAt(taskId, 1);
        tr = _trainerOf(taskId);
    }

    /// @dev Round 0 accepted by all; round 1 worked and sealed with ACCEPT_ALL: AttestReveal.
    function _toRoundOneReveal() private {
        _runRound(taskId, ACCEPT_ALL);
        _workRound(taskId);
        _sealVotes(taskId, [ACCEPT_ALL, ACCEPT_ALL, ACCEPT_ALL]);
        _assertPhase(taskId, 1, ITaskRegistry.Phase.AttestReveal);
    }

    function _openDrawAs(address node, uint256 round, bytes32 secret) private {
        vm.prank(node);
        registry.openDraw(taskId, round, secret);
    }

    // ------------------------------------------------------------ commitments and seeds

    function test_reveal_storesItsSaltAsTheNextRoundsDrawCommitment() public {
        _workRound(taskId);
        address[3] memory nodes = [s0, s1, tr];
        for (uint256 i = 0; i < 3; ++i) {
            bytes32 stored = stateView.drawCommitmentOf(taskId, 1, nodes[i]);
            assertEq(stored, _salt(taskId, nodes[i], 0), "the reveal's salt");
            assertEq(stored, _drawCommitmentOf(taskId, 1, nodes[i]), "keccak256(abi.encode(taskId, 1, node, secret))");
            assertEq(
                stateView.drawCommitmentFor(taskId, 1, nodes[i], _drawSecret(taskId, nodes[i], 1)),
                stored,
                "StateView.drawCommitmentFor"
            );
            assertEq(stateView.drawCommitmentOf(taskId, 0, nodes[i]), bytes32(0), "none for round 0");
        }
    }

    function test_theLastRoundsRevealStoresNoDrawCommitment() public {
        _runRound(taskId, ACCEPT_ALL);
        _runRound(taskId, ACCEPT_ALL);
        _workRound(taskId); // round 2 of 3
        assertTrue(stateView.drawCommitmentOf(taskId, 2, s0) != bytes32(0), "round 2's, from round 1");
        assertEq(stateView.drawCommitmentOf(taskId, 3, s0), bytes32(0), "none beyond the last round");
        assertEq(stateView.drawCommitmentOf(taskId, 3, tr), bytes32(0), "none for the trainer either");
    }

    function test_aZeroSaltCommitsToNoDraw() public {
        bytes32 commitment = stateView.commitmentFor(taskId, 0, s0, _root(s0, 0), RESULT_CID, bytes32(0));
        vm.prank(s0);
        registry.commit(taskId, commitment);
        _commit(taskId, s1);
        vm.prank(s0);
        registry.reveal(taskId, _root(s0, 0), RESULT_CID, bytes32(0));
        _reveal(taskId, s1);
        _commit(taskId, tr);
        _reveal(taskId, tr);
        _attestAll(taskId, ACCEPT_ALL);
        _workRound(taskId);
        assertEq(stateView.drawnMask(taskId, 1), S1 | TR, "sampler 0 has no draw in round 1");
    }

    function test_roundZero_withoutCommitDraw_hasNoDrawsAndClosesOnTheVotesAlone() public {
        _workRound(taskId);
        _sealVotes(taskId, [ACCEPT_ALL, ACCEPT_ALL, ACCEPT_ALL]);
        assertTrue(stateView.roundSeed(taskId, 0) != bytes32(0), "round 0 is seeded too");
        assertEq(stateView.drawnMask(taskId, 0), 0, "no draws: nobody called commitDraw");
        assertEq(_task(taskId).pending, 3, "the three votes only");
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.NoDraw.selector, taskId, s0));
        _openDrawAs(s0, 0, _drawSecret(taskId, s0, 0));
        _openAll(taskId);
        _assertPhase(taskId, 1, ITaskRegistry.Phase.SampleCommit);
        assertEq(stateView.openedDrawMask(taskId, 0), 0, "nothing opened");
    }

    function test_roundSeed_isTheHashOfTheBlockBeforeSampleCommitBegan() public {
        _runRound(taskId, ACCEPT_ALL); // round 1's SampleCommit begins in this block
        bytes32 seed = stateView.roundSeed(taskId, 1);
        assertEq(seed, blockhash(block.number - 1), "blockhash(block.number - 1)");
        assertTrue(seed != bytes32(0), "a real hash");
        vm.roll(block.number + 5);
        _workRound(taskId);
        assertEq(stateView.roundSeed(taskId, 1), seed, "fixed for the round");
        _sealVotes(taskId, [ACCEPT_ALL, ACCEPT_ALL, ACCEPT_ALL]);
        _openAll(taskId);
        assertEq(stateView.roundSeed(taskId, 2), blockhash(block.number - 1), "round 2's, when it began");
        assertTrue(stateView.roundSeed(taskId, 2) != seed, "a new one each round");
    }

    function test_drawnMask_isTheWorkersThatRevealedWithACommitment() public {
        _runRound(taskId, ACCEPT_ALL);
        _commitSamplers(taskId);
        _reveal(taskId, s0);
        assertEq(stateView.drawnMask(taskId, 1), S0, "sampler 0 revealed");
        _reveal(taskId, s1);
        _commit(taskId, tr);
        _reveal(taskId, tr);
        assertEq(stateView.drawnMask(taskId, 1), S0 | S1 | TR, "every revealed worker");
        _sealVotes(taskId, [ACCEPT_ALL, ACCEPT_ALL, ACCEPT_ALL]);
        assertEq(_task(taskId).pending, 6, "three votes and three draws expected");
    }

    // ------------------------------------------------------------ opening

    function test_openDraw_recordsTheSpecifiedDraw() public {
        _toRoundOneReveal();
        bytes32 seed = stateView.roundSeed(taskId, 1);
        address[3] memory nodes = [s0, s1, tr];
        Role[3] memory roles = [Role.Sampler, Role.Sampler, Role.Trainer];
        uint256 forced;
        for (uint256 i = 0; i < 3; ++i) {
            bytes32 secret = _drawSecret(taskId, nodes[i], 1);
            bool isForced = _drawIsForced(secret, seed, 5000);
            if (isForced) forced |= 1 << i;
            vm.expectEmit(true, true, true, true, address(registry));
            emit ITaskRegistry.DrawOpened(taskId, 1, nodes[i], roles[i], i == 2 ? 0 : i, isForced);
            _openDrawAs(nodes[i], 1, secret);
            assertEq(stateView.openedDrawMask(taskId, 1), (1 << (i + 1)) - 1, "opened so far");
        }
        assertEq(stateView.forcedMask(taskId, 1), forced, "forced as computed");
        (uint256 opened, uint256 forcedToo) = stateView.drawsOf(taskId, 1);
        assertEq(opened, S0 | S1 | TR, "drawsOf: opened");
        assertEq(forcedToo, forced, "drawsOf: forced");
        assertEq(_task(taskId).pending, 3, "the votes are still expected");
    }

    function test_openDraw_atRateZeroIsNeverForced() public {
        _toRoundOneReveal();
        vm.prank(admin);
        config.setForcedErrorBps(0);
        _openDraws(taskId);
        assertEq(stateView.forcedMask(taskId, 1), 0, "none forced");
        assertEq(stateView.openedDrawMask(taskId, 1), S0 | S1 | TR, "all opened");
    }

    function test_openDraw_withAWrongSecretReverts() public {
        _toRoundOneReveal();
        bytes32 wrong = keccak256("not the secret");
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.DrawMismatch.selector, taskId, s0));
        _openDrawAs(s0, 1, wrong);
        // Another worker's secret does not open it either.
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.DrawMismatch.selector, taskId, s0));
        _openDrawAs(s0, 1, _drawSecret(taskId, s1, 1));
    }

    function test_openDraw_twiceReverts() public {
        _toRoundOneReveal();
        _openDrawAs(s0, 1, _drawSecret(taskId, s0, 1));
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.AlreadyOpened.selector, taskId, s0));
        _openDrawAs(s0, 1, _drawSecret(taskId, s0, 1));
    }

    function test_openDraw_outsideAttestRevealReverts() public {
        _runRound(taskId, ACCEPT_ALL);
        bytes32 secret = _drawSecret(taskId, s0, 1);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.WrongPhase.selector, taskId, ITaskRegistry.Phase.SampleCommit));
        _openDrawAs(s0, 1, secret);
        _workRound(taskId);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.WrongPhase.selector, taskId, ITaskRegistry.Phase.Attest));
        _openDrawAs(s0, 1, secret);
    }

    function test_openDraw_byANonWorkerReverts() public {
        _toRoundOneReveal();
        address validator = _validatorAt(taskId, 0);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.NoDraw.selector, taskId, validator));
        _openDrawAs(validator, 1, _drawSecret(taskId, validator, 1));
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.NoDraw.selector, taskId, samplers[2]));
        _openDrawAs(samplers[2], 1, _drawSecret(taskId, samplers[2], 1));
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.NoDraw.selector, taskId, requester));
        _openDrawAs(requester, 1, bytes32(0));
    }

    function test_openDraw_ofAWorkerThatDidNotRevealThisRoundReverts() public {
        _runRound(taskId, ACCEPT_ALL);
        _commitSamplers(taskId);
        _reveal(taskId, s1);
        _expire(taskId); // sampler 0 committed and withheld its reveal: vacated
        _commit(taskId, tr);
        _reveal(taskId, tr);
        _sealVotes(taskId, [ACCEPT_ALL, ACCEPT_ALL, ACCEPT_ALL]);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.NoDraw.selector, taskId, s0));
        _openDrawAs(s0, 1, _drawSecret(taskId, s0, 1));
        assertEq(_task(taskId).pending, 5, "three votes and two draws");
    }

    function test_openDraw_checksRoundDeadlinePauseAndTask() public {
        _toRoundOneReveal();
        bytes32 secret = _drawSecret(taskId, s0, 1);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.RoundMismatch.selector, taskId, 0, 1));
        _openDrawAs(s0, 0, secret);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.TaskNotFound.selector, taskId + 1));
        vm.prank(s0);
        registry.openDraw(taskId + 1, 1, secret);
        uint256 open = _createTask();
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.WrongStatus.selector, open, ITaskRegistry.Status.Open));
        vm.prank(s0);
        registry.openDraw(open, 0, secret);
        vm.prank(admin);
        registry.pause();
        vm.expectRevert(abi.encodeWithSelector(Pausable.EnforcedPause.selector));
        _openDrawAs(s0, 1, secret);
        vm.prank(admin);
        registry.unpause();
        uint256 deadline = _task(taskId).phaseDeadline;
        _warpPastPhase(taskId);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.DeadlinePassed.selector, taskId, deadline));
        _openDrawAs(s0, 1, secret);
    }

    // ------------------------------------------------------------ closing the phase

    function test_thePhaseClosesOnceVotesAndDrawsAreAllIn() public {
        _toRoundOneReveal();
        for (uint256 v = 0; v < 3; ++v) {
            _open(taskId, _validatorAt(taskId, v));
        }
        _assertPhase(taskId, 1, ITaskRegistry.Phase.AttestReveal);
        assertEq(_task(taskId).pending, 3, "the draws");
        _openDrawAs(s0, 1, _drawSecret(taskId, s0, 1));
        _openDrawAs(tr, 1, _drawSecret(taskId, tr, 1));
        _assertPhase(taskId, 1, ITaskRegistry.Phase.AttestReveal);
        _openDrawAs(s1, 1, _drawSecret(taskId, s1, 1)); // the last expected action
        _assertPhase(taskId, 2, ITaskRegistry.Phase.SampleCommit);
        assertTrue(stateView.roundFinalizedAt(taskId, 1) != 0, "round 1 finalized");
    }

    function test_aRoundWithoutVotesClosesOnTheDraws() public {
        _runRound(taskId, ACCEPT_ALL);
        _workRound(taskId);
        _expire(taskId); // no validator sealed: all vacated (Missed), AttestReveal waits for the draws
        _assertPhase(taskId, 1, ITaskRegistry.Phase.AttestReveal);
        assertEq(_task(taskId).pending, 3, "the three draws");
        _openDraws(taskId);
        _assertPhase(taskId, 2, ITaskRegistry.Phase.SampleCommit);
        assertEq(uint256(_verdictOf(taskId, 1, S0)), uint256(ITaskRegistry.Verdict.Inconclusive), "no votes");
    }
}

/// @notice A draw is forced exactly as the formula says, whichever way the secret falls.
contract DrawOutcomeTest is ForcedFixture {
    function _check(uint256 forcedBits) private {
        uint256 taskId = _roundOneAttest(forcedBits);
        _sealVotes(taskId, [ACCEPT_ALL, ACCEPT_ALL, ACCEPT_ALL]);
        _openDraws(taskId);
        assertEq(stateView.forcedMask(taskId, 1), forcedBits, "forced");
        assertEq(stateView.openedDrawMask(taskId, 1), S0 | S1 | TR, "opened");
    }

    function test_samplerOneAndTrainerForced() public {
        _check(S1 | TR);
    }

    function test_onlySamplerZeroForced() public {
        _check(S0);
    }

    function test_allForced() public {
        _check(S0 | S1 | TR);
    }

    function test_noneForced() public {
        _check(0);
    }
}

// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {RegistryFixture} from "../base/RegistryFixture.sol";
import {ITaskRegistry} from "../../../contracts/interfaces/ITaskRegistry.sol";
import {Role} from "../../../contracts/libraries/Types.sol";
import {Pausable} from "@openzeppelin/contracts/utils/Pausable.sol";

/// @notice SPECIFICATION.md 5.4: commit, reveal and attest within a round, and phase skipping.
contract RoundsTest is RegistryFixture {
    uint256 private taskId;
    address private s0;
    address private s1;
    address private tr;

    function setUp() public override {
        super.setUp();
        taskId = _activeTask();
        s0 = samplers[0];
        s1 = samplers[1];
        tr = trainers[0];
    }

    function _pause() private {
        vm.prank(admin);
        registry.pause();
    }

    // ------------------------------------------------------------ commit

    function test_commit_recordsCommitment() public {
        bytes32 c = _commitmentOf(taskId, 0, s0);
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.ResultCommitted(taskId, 0, s0, Role.Sampler, 0, c);
        _commit(taskId, s0);

        ITaskRegistry.Submission memory sub = stateView.submissionOf(taskId, 0, Role.Sampler, 0);
        assertEq(sub.commitment, c, "commitment");
        assertEq(sub.node, s0, "node");
        assertTrue(!sub.revealed, "not revealed");
        assertEq(_task(taskId).pending, 1, "one sampler left");
        _assertPhase(taskId, 0, ITaskRegistry.Phase.SampleCommit);
    }

    function test_commit_lastSamplerCommitOpensSampleReveal() public {
        _commit(taskId, s0);
        uint256 deadline = registry.protocolTime() + REVEAL_WINDOW;
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.PhaseStarted(taskId, 0, ITaskRegistry.Phase.SampleReveal, deadline);
        _commit(taskId, s1);
        _assertPhase(taskId, 0, ITaskRegistry.Phase.SampleReveal);
        assertEq(_task(taskId).pending, 2, "both committers must reveal");
        assertEq(_task(taskId).phaseDeadline, deadline, "deadline");
    }

    function test_commit_rejectsEmptyCommitment() public {
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.EmptyCommitment.selector));
        vm.prank(s0);
        registry.commit(taskId, bytes32(0));
    }

    function test_commit_revertsForUnknownTask() public {
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.TaskNotFound.selector, 42));
        vm.prank(s0);
        registry.commit(42, bytes32(uint256(1)));
    }

    function test_commit_revertsBeforeActivation() public {
        uint256 open = _createTask();
        _claim(open, samplers[2], Role.Sampler);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.WrongStatus.selector, open, ITaskRegistry.Status.Open));
        vm.prank(samplers[2]);
        registry.commit(open, bytes32(uint256(1)));
    }

    function test_commit_revertsForNodeWithoutSlot() public {
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.NotAssigned.selector, taskId, samplers[2]));
        vm.prank(samplers[2]);
        registry.commit(taskId, bytes32(uint256(1)));
    }

    function test_commit_validatorsNeverCommit() public {
        vm.expectRevert(
            abi.encodeWithSelector(ITaskRegistry.WrongPhase.selector, taskId, ITaskRegistry.Phase.SampleCommit)
        );
        vm.prank(validators[0]);
        registry.commit(taskId, bytes32(uint256(1)));
    }

    function test_commit_trainerCannotCommitDuringSampleCommit() public {
        vm.expectRevert(
            abi.encodeWithSelector(ITaskRegistry.WrongPhase.selector, taskId, ITaskRegistry.Phase.SampleCommit)
        );
        vm.prank(tr);
        registry.commit(taskId, bytes32(uint256(1)));
    }

    function test_commit_samplerCannotCommitDuringSampleReveal() public {
        _commitSamplers(taskId);
        vm.expectRevert(
            abi.encodeWithSelector(ITaskRegistry.WrongPhase.selector, taskId, ITaskRegistry.Phase.SampleReveal)
        );
        vm.prank(s0);
        registry.commit(taskId, bytes32(uint256(1)));
    }

    function test_commit_acceptedAtTheDeadline() public {
        _warpToProtocolTime(_task(taskId).phaseDeadline);
        _commit(taskId, s0);
        assertEq(stateView.submissionOf(taskId, 0, Role.Sampler, 0).node, s0, "committed");
    }

    function test_commit_revertsAfterTheDeadline() public {
        uint256 deadline = _task(taskId).phaseDeadline;
        _warpPastPhase(taskId);
        bytes32 c = _commitmentOf(taskId, 0, s0);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.DeadlinePassed.selector, taskId, deadline));
        vm.prank(s0);
        registry.commit(taskId, c);
    }

    function test_commit_rejectsSecondCommitment() public {
        _commit(taskId, s0);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.AlreadyCommitted.selector, taskId, s0));
        vm.prank(s0);
        registry.commit(taskId, bytes32(uint256(2)));
    }

    function test_commit_revertsWhilePaused() public {
        _pause();
        vm.expectRevert(abi.encodeWithSelector(Pausable.EnforcedPause.selector));
        vm.prank(s0);
        registry.commit(taskId, bytes32(uint256(1)));
    }

    function test_commitmentFor_isTheSpecifiedHash() public view {
        bytes32 root = _root(s0, 4);
        bytes32 salt = _salt(taskId, s0, 4);
        assertEq(
            stateView.commitmentFor(taskId, 4, s0, root, RESULT_CID, salt), _commitmentOf(taskId, 4, s0), "commitment"
        );
    }

    // ------------------------------------------------------------ reveal

    function test_reveal_recordsResult() public {
        _commitSamplers(taskId);
        bytes32 root = _root(s0, 0);
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.ResultRevealed(taskId, 0, s0, Role.Sampler, 0, root, RESULT_CID);
        _reveal(taskId, s0);

        ITaskRegistry.Submission memory sub = stateView.submissionOf(taskId, 0, Role.Sampler, 0);
        assertTrue(sub.revealed, "revealed");
        assertEq(sub.root, root, "root");
        assertEq(keccak256(bytes(sub.cid)), keccak256(bytes(RESULT_CID)), "cid");
        assertEq(_task(taskId).pending, 1, "one reveal left");
    }

    function test_reveal_lastSampleRevealOpensTrainCommit() public {
        _commitSamplers(taskId);
        _reveal(taskId, s0);
        uint256 deadline = registry.protocolTime() + COMMIT_WINDOW;
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.PhaseStarted(taskId, 0, ITaskRegistry.Phase.TrainCommit, deadline);
        _reveal(taskId, s1);
        _assertPhase(taskId, 0, ITaskRegistry.Phase.TrainCommit);
        assertEq(_task(taskId).pending, 1, "trainer expected");
    }

    function test_reveal_trainerRevealOpensAttestOverAllRevealedWork() public {
        _commitSamplers(taskId);
        _revealSamplers(taskId);
        _commit(taskId, tr);
        _assertPhase(taskId, 0, ITaskRegistry.Phase.TrainReveal);
        uint256 deadline = registry.protocolTime() + ATTEST_WINDOW;
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.PhaseStarted(taskId, 0, ITaskRegistry.Phase.Attest, deadline);
        _reveal(taskId, tr);
        _assertPhase(taskId, 0, ITaskRegistry.Phase.Attest);
        assertEq(_task(taskId).revealedMask, ACCEPT_ALL, "both samplers and trainer revealed");
        assertEq(_task(taskId).pending, 3, "all validators expected");
    }

    function _revealAs(address node, bytes32 root, string memory cid, bytes32 salt) private {
        vm.prank(node);
        registry.reveal(taskId, root, cid, salt);
    }

    function test_reveal_rejectsZeroRoot() public {
        _commitSamplers(taskId);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.InvalidResult.selector));
        _revealAs(s0, bytes32(0), RESULT_CID, _salt(taskId, s0, 0));
    }

    function test_reveal_rejectsEmptyCid() public {
        _commitSamplers(taskId);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.InvalidResult.selector));
        _revealAs(s0, _root(s0, 0), "", _salt(taskId, s0, 0));
    }

    function test_reveal_rejectsCidLongerThan128Bytes() public {
        _commitSamplers(taskId);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.InvalidResult.selector));
        _revealAs(s0, _root(s0, 0), string(new bytes(129)), _salt(taskId, s0, 0));
    }

    function test_reveal_rejectsWrongSalt() public {
        _commitSamplers(taskId);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.CommitmentMismatch.selector, taskId, s0));
        _revealAs(s0, _root(s0, 0), RESULT_CID, bytes32(uint256(1)));
    }

    function test_reveal_copiedResultCannotBeOpened() public {
        // s1 commits s0's commitment verbatim; the commitment binds s0's address.
        bytes32 copied = _commitmentOf(taskId, 0, s0);
        _commit(taskId, s0);
        vm.prank(s1);
        registry.commit(taskId, copied);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.CommitmentMismatch.selector, taskId, s1));
        _revealAs(s1, _root(s0, 0), RESULT_CID, _salt(taskId, s0, 0));
    }

    function test_reveal_rejectsSecondReveal() public {
        _commitSamplers(taskId);
        _reveal(taskId, s0);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.AlreadyRevealed.selector, taskId, s0));
        _revealAs(s0, _root(s0, 0), RESULT_CID, _salt(taskId, s0, 0));
    }

    function test_reveal_revertsDuringCommitPhase() public {
        _commit(taskId, s0);
        vm.expectRevert(
            abi.encodeWithSelector(ITaskRegistry.WrongPhase.selector, taskId, ITaskRegistry.Phase.SampleCommit)
        );
        _revealAs(s0, _root(s0, 0), RESULT_CID, _salt(taskId, s0, 0));
    }

    function test_reveal_revertsAfterTheDeadline() public {
        _commitSamplers(taskId);
        uint256 deadline = _task(taskId).phaseDeadline;
        _warpPastPhase(taskId);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.DeadlinePassed.selector, taskId, deadline));
        _revealAs(s0, _root(s0, 0), RESULT_CID, _salt(taskId, s0, 0));
    }

    function test_reveal_revertsForSamplerWhoJoinsNextRound() public {
        _commit(taskId, s0);
        _expire(taskId); // s1 missed the commit: vacated
        _claim(taskId, samplers[2], Role.Sampler); // joins during SampleReveal: starts next round
        assertEq(stateView.slotOf(taskId, Role.Sampler, 1).sinceRound, 1, "since next round");
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.NotExpectedThisRound.selector, taskId, 0, 1));
        _revealAs(samplers[2], _root(samplers[2], 0), RESULT_CID, _salt(taskId, samplers[2], 0));
    }

    function test_reveal_revertsWhilePaused() public {
        _commitSamplers(taskId);
        _pause();
        vm.expectRevert(abi.encodeWithSelector(Pausable.EnforcedPause.selector));
        _revealAs(s0, _root(s0, 0), RESULT_CID, _salt(taskId, s0, 0));
    }

    // ------------------------------------------------------------ attest

    function test_attest_commitIsRecordedAndEmitted() public {
        _workRound(taskId);
        address v = _validatorAt(taskId, 0);
        bytes32 commitment = _voteCommitmentOf(taskId, 0, v, ACCEPT_ALL);
        assertEq(stateView.attestCommitmentFor(taskId, 0, v, ACCEPT_ALL, _voteSalt(v, 0)), commitment, "view");
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.AttestationCommitted(taskId, 0, v, 0, commitment);
        _sealAt(taskId, 0, v, ACCEPT_ALL);
        assertEq(stateView.attestCommitmentOf(taskId, 0, 0), commitment, "stored");
        assertTrue(!registry.attestationOf(taskId, 0, 0).voted, "sealed, not voted");
        assertEq(_task(taskId).pending, 2, "two validators left");
    }

    function test_attest_lastCommitOpensAttestReveal() public {
        _workRound(taskId);
        _seal(taskId, _validatorAt(taskId, 0), ACCEPT_ALL);
        _seal(taskId, _validatorAt(taskId, 1), ACCEPT_ALL);
        address last = _validatorAt(taskId, 2);
        uint256 deadline = registry.protocolTime() + REVEAL_WINDOW;
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.PhaseStarted(taskId, 0, ITaskRegistry.Phase.AttestReveal, deadline);
        _sealAt(taskId, 0, last, ACCEPT_ALL);
        assertEq(_task(taskId).pending, 3, "every sealed vote expected");
    }

    function test_attest_recordsBitmapMaskedToRevealedWork() public {
        _workRound(taskId);
        _attestAllSealed(type(uint256).max);
        address v = _validatorAt(taskId, 0);
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.Attested(taskId, 0, v, 0, ACCEPT_ALL);
        _openAt(taskId, 0, v, type(uint256).max);

        ITaskRegistry.Attestation memory a = registry.attestationOf(taskId, 0, 0);
        assertTrue(a.voted, "voted");
        assertEq(a.acceptBitmap, ACCEPT_ALL, "unrevealed bits dropped");
        assertEq(stateView.attestCommitmentOf(taskId, 0, 0), bytes32(0), "cleared once opened");
        assertEq(_task(taskId).pending, 2, "two validators left");
    }

    function test_attest_lastAttestationFinalizesRoundAndStartsNext() public {
        _workRound(taskId);
        _attestAllSealed(ACCEPT_ALL);
        _open(taskId, _validatorAt(taskId, 0));
        _open(taskId, _validatorAt(taskId, 1));
        address last = _validatorAt(taskId, 2);
        uint256 deadline = registry.protocolTime() + COMMIT_WINDOW;
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.RoundFinalized(taskId, 0, _root(tr, 0), RESULT_CID);
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.PhaseStarted(taskId, 1, ITaskRegistry.Phase.SampleCommit, deadline);
        _openAt(taskId, 0, last, ACCEPT_ALL);

        _assertPhase(taskId, 1, ITaskRegistry.Phase.SampleCommit);
        ITaskRegistry.Task memory t = _task(taskId);
        assertEq(t.checkpointRoot, _root(tr, 0), "checkpoint");
        assertEq(t.revealedMask, 0, "mask cleared");
        assertEq(t.pending, 2, "samplers expected again");
    }

    function test_attest_openingWhileSealingIsRefused() public {
        _workRound(taskId);
        address v = _validatorAt(taskId, 0);
        _seal(taskId, v, ACCEPT_ALL);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.WrongPhase.selector, taskId, ITaskRegistry.Phase.Attest));
        _openAt(taskId, 0, v, ACCEPT_ALL);
    }

    function test_attest_sealingAfterTheCommitPhaseIsRefused() public {
        _workRound(taskId);
        _attestAllSealed(ACCEPT_ALL);
        address v = _validatorAt(taskId, 0);
        vm.expectRevert(
            abi.encodeWithSelector(ITaskRegistry.WrongPhase.selector, taskId, ITaskRegistry.Phase.AttestReveal)
        );
        _sealAt(taskId, 0, v, ACCEPT_ALL);
    }

    function test_attest_wrongSaltOrBitmapIsRefused() public {
        _workRound(taskId);
        _attestAllSealed(ACCEPT_ALL);
        address v = _validatorAt(taskId, 0);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.CommitmentMismatch.selector, taskId, v));
        _openAt(taskId, 0, v, 0x3);
        vm.prank(v);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.CommitmentMismatch.selector, taskId, v));
        registry.attest(taskId, 0, ACCEPT_ALL, keccak256("another salt"));
    }

    function test_attest_copiedCommitmentCannotBeOpened() public {
        _workRound(taskId);
        (address honest, address copier) = (_validatorAt(taskId, 0), _validatorAt(taskId, 1));
        _seal(taskId, honest, ACCEPT_ALL);
        vm.prank(copier);
        registry.commitAttestation(taskId, 0, _voteCommitmentOf(taskId, 0, honest, ACCEPT_ALL));
        _seal(taskId, _validatorAt(taskId, 2), ACCEPT_ALL);
        _open(taskId, honest); // its bitmap and salt are public now
        vm.prank(copier);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.CommitmentMismatch.selector, taskId, copier));
        registry.attest(taskId, 0, ACCEPT_ALL, _voteSalt(honest, 0));
    }

    function test_attest_emptyOrSecondCommitOrOtherRoundIsRefused() public {
        _workRound(taskId);
        address v = _validatorAt(taskId, 1);
        vm.prank(v);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.EmptyCommitment.selector));
        registry.commitAttestation(taskId, 0, bytes32(0));
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.RoundMismatch.selector, taskId, 1, 0));
        _sealAt(taskId, 1, v, ACCEPT_ALL);
        _sealAt(taskId, 0, v, ACCEPT_ALL);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.AlreadyCommitted.selector, taskId, v));
        _sealAt(taskId, 0, v, 0);
    }

    function test_attest_workersCannotAttest() public {
        _workRound(taskId);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.WrongPhase.selector, taskId, ITaskRegistry.Phase.Attest));
        _sealAt(taskId, 0, s0, ACCEPT_ALL);
    }

    function test_attest_revertsOutsideAttestPhase() public {
        address v = _validatorAt(taskId, 0);
        vm.expectRevert(
            abi.encodeWithSelector(ITaskRegistry.WrongPhase.selector, taskId, ITaskRegistry.Phase.SampleCommit)
        );
        _sealAt(taskId, 0, v, ACCEPT_ALL);
    }

    function test_attest_rejectsSecondAttestation() public {
        _workRound(taskId);
        _attestAllSealed(ACCEPT_ALL);
        address v = _validatorAt(taskId, 1);
        _open(taskId, v);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.AlreadyAttested.selector, taskId, v));
        _openAt(taskId, 0, v, ACCEPT_ALL);
    }

    function test_attest_revertsAfterTheDeadline() public {
        _workRound(taskId);
        uint256 deadline = _task(taskId).phaseDeadline;
        _warpPastPhase(taskId);
        address v = _validatorAt(taskId, 0);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.DeadlinePassed.selector, taskId, deadline));
        _sealAt(taskId, 0, v, ACCEPT_ALL);
    }

    function test_attest_openingRevertsAfterTheRevealDeadline() public {
        _workRound(taskId);
        _attestAllSealed(ACCEPT_ALL);
        uint256 deadline = _task(taskId).phaseDeadline;
        _warpPastPhase(taskId);
        address v = _validatorAt(taskId, 0);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.DeadlinePassed.selector, taskId, deadline));
        _openAt(taskId, 0, v, ACCEPT_ALL);
    }

    function test_attest_revertsForNodeWithoutSlot() public {
        _workRound(taskId);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.NotAssigned.selector, taskId, relayer));
        _sealAt(taskId, 0, relayer, ACCEPT_ALL);
    }

    function test_attest_revertsOnFinishedTask() public {
        ITaskRegistry.TaskParams memory p = _params();
        p.numRounds = 1;
        uint256 single = _createTask(p);
        _stake(samplers[0], Role.Sampler, MIN_SAMPLER_STAKE);
        _stake(samplers[1], Role.Sampler, MIN_SAMPLER_STAKE);
        _stake(trainers[0], Role.Trainer, MIN_TRAINER_STAKE);
        for (uint256 i = 0; i < 3; ++i) {
            _stake(validators[i], Role.Validator, MIN_VALIDATOR_STAKE);
        }
        _fillSlots(single);
        _draw(single);
        _runRound(single, ACCEPT_ALL);
        _assertStatus(single, ITaskRegistry.Status.Completed);
        address v = _validatorAt(single, 0);
        vm.expectRevert(
            abi.encodeWithSelector(ITaskRegistry.WrongStatus.selector, single, ITaskRegistry.Status.Completed)
        );
        _sealAt(single, 0, v, ACCEPT_ALL);
    }

    function test_attest_revertsWhilePaused() public {
        _workRound(taskId);
        address v = _validatorAt(taskId, 0);
        _pause();
        vm.expectRevert(abi.encodeWithSelector(Pausable.EnforcedPause.selector));
        _sealAt(taskId, 0, v, ACCEPT_ALL);
        vm.expectRevert(abi.encodeWithSelector(Pausable.EnforcedPause.selector));
        _openAt(taskId, 0, v, ACCEPT_ALL);
    }

    /// @dev Every validator seals `bitmap`: the task enters AttestReveal.
    function _attestAllSealed(uint256 bitmap) private {
        for (uint256 v = 0; v < 3; ++v) {
            _seal(taskId, _validatorAt(taskId, v), bitmap);
        }
        _assertPhase(taskId, 0, ITaskRegistry.Phase.AttestReveal);
    }

    // ------------------------------------------------------------ phase skipping

    /// @dev With nothing committed there is nothing to reveal, train or attest: every later phase
    ///      is entered and skipped in the same call, and the round ends.
    function test_noCommittedSamplerSkipsEveryLaterPhase() public {
        _warpPastPhase(taskId);
        uint256 now_ = registry.protocolTime();
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.PhaseStarted(taskId, 0, ITaskRegistry.Phase.SampleReveal, now_ + REVEAL_WINDOW);
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.PhaseStarted(taskId, 0, ITaskRegistry.Phase.TrainCommit, now_ + COMMIT_WINDOW);
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.PhaseStarted(taskId, 0, ITaskRegistry.Phase.TrainReveal, now_ + REVEAL_WINDOW);
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.PhaseStarted(taskId, 0, ITaskRegistry.Phase.Attest, now_ + ATTEST_WINDOW);
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.PhaseStarted(taskId, 0, ITaskRegistry.Phase.AttestReveal, now_ + REVEAL_WINDOW);
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.RoundFinalized(taskId, 0, bytes32(0), "");
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.PhaseStarted(taskId, 1, ITaskRegistry.Phase.SampleCommit, now_ + COMMIT_WINDOW);
        registry.advance(taskId);
        _assertPhase(taskId, 1, ITaskRegistry.Phase.SampleCommit);
    }

    /// @dev SampleCommit stays open with nobody expected, so a vacant sampler slot claimed during it
    ///      works the round, and the round then runs as usual.
    function test_sampleCommitStaysOpenUntilDeadlineWithNoSamplerExpected() public {
        _expire(taskId); // both samplers missed: vacated, round 0 over
        _assertPhase(taskId, 1, ITaskRegistry.Phase.SampleCommit);
        assertEq(_task(taskId).pending, 0, "nobody expected");

        uint256 deadline = _task(taskId).phaseDeadline;
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.DeadlineNotReached.selector, taskId, deadline));
        registry.advance(taskId);
        _claim(taskId, samplers[2], Role.Sampler);
        assertEq(_task(taskId).pending, 1, "the newcomer works this round");
        _commit(taskId, samplers[2]);
        _reveal(taskId, samplers[2]);
        _assertPhase(taskId, 1, ITaskRegistry.Phase.TrainCommit);
        assertEq(_task(taskId).pending, 1, "trainer expected: a sample was revealed");
    }

    function test_noTrainerSkipsTrainPhases() public {
        _commitSamplers(taskId);
        _revealSamplers(taskId);
        _expire(taskId); // trainer missed the commit: vacated, TrainReveal skipped
        _assertPhase(taskId, 0, ITaskRegistry.Phase.Attest);
        _attestAll(taskId, ACCEPT_ALL);

        _commitSamplers(taskId);
        _revealSamplers(taskId);
        _assertPhase(taskId, 1, ITaskRegistry.Phase.Attest);
        assertEq(_task(taskId).revealedMask, 0x3, "only samplers revealed");
    }

    function test_nothingRevealedSkipsAttest() public {
        _commitSamplers(taskId);
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.RoundFinalized(taskId, 0, bytes32(0), "");
        _expire(taskId); // both samplers missed the reveal: nothing to train on or attest
        _assertPhase(taskId, 1, ITaskRegistry.Phase.SampleCommit);
        assertEq(_task(taskId).filledValidators, 3, "validators untouched");
        assertEq(_task(taskId).revealedMask, 0, "nothing was open to attestation");
        assertEq(_task(taskId).idleRounds, 1, "idle round");
    }
}

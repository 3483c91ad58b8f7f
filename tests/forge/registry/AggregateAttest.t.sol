// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {BlsFixture} from "../base/BlsFixture.sol";
import {BlsVectors} from "../base/BlsVectors.sol";
import {ITaskRegistry} from "../../../contracts/interfaces/ITaskRegistry.sol";
import {IStakeManager} from "../../../contracts/interfaces/IStakeManager.sol";
import {Role} from "../../../contracts/libraries/Types.sol";
import {BN254} from "../../../contracts/libraries/BN254.sol";
import {Pausable} from "@openzeppelin/contracts/utils/Pausable.sol";

/// @notice SPECIFICATION.md 5.5.1 "Aggregate attestations": one BLS signature opens the sealed
///         votes of several validator slots; each counts exactly as its own `attest` would.
contract AggregateAttestTest is BlsFixture {
    uint256 private constant ALL = 0x7; // the three validator slots
    uint256 private taskId;

    function setUp() public override {
        super.setUp();
        _registerValidatorKeys();
        taskId = _activeTask();
        _workRound(taskId);
    }

    /// @dev Every slot seals `bitmap`: the task enters AttestReveal.
    function _sealed(uint256 bitmap) private {
        _sealSlots(taskId, bitmap, ALL);
        _assertPhase(taskId, 0, ITaskRegistry.Phase.AttestReveal);
        _readSalts();
    }

    /// @dev The vote salts of slots `signers`, read before any vm.expectRevert (which the reads would take).
    mapping(uint256 signers => bytes32[]) private salts;

    function _submit(uint256 bitmap, uint256 signers, uint256[2] memory sigma, uint256[4] memory apk2) private {
        registry.attestAggregate(taskId, 0, bitmap, signers, sigma, apk2, salts[signers]);
    }

    function _readSalts() private {
        for (uint256 m = 1; m < 8; ++m) {
            salts[m] = _saltsOf(taskId, m);
        }
    }

    function test_messageBindsDomainChainRegistryTaskRoundBitmap() public view {
        bytes32 expected = keccak256(
            abi.encode(keccak256("decentrl.attest.v1"), block.chainid, address(registry), taskId, 0, ACCEPT_ALL)
        );
        assertEq(stateView.attestationMessage(taskId, 0, ACCEPT_ALL), expected, "message");
    }

    function test_allSlotsInOneAggregateFinalizeTheRound() public {
        _sealed(ACCEPT_ALL);
        vm.expectEmit(true, true, false, true, address(registry));
        emit ITaskRegistry.AggregateAttested(taskId, 0, ALL, ACCEPT_ALL);
        vm.prank(relayer); // anyone may submit
        _attestAggregate(taskId, ACCEPT_ALL, ALL);
        _assertPhase(taskId, 1, ITaskRegistry.Phase.SampleCommit);
        for (uint256 v = 0; v < 3; ++v) {
            ITaskRegistry.Attestation memory a = registry.attestationOf(taskId, 0, v);
            assertTrue(a.voted, "voted");
            assertEq(a.acceptBitmap, ACCEPT_ALL, "bitmap");
            assertEq(stateView.attestCommitmentOf(taskId, 0, v), bytes32(0), "opened");
        }
        assertEq(uint256(stateView.submissionOf(taskId, 0, Role.Trainer, 0).verdict), 1, "trainer accepted");
    }

    function test_aggregateInTheCommitPhaseIsRefused() public {
        _sealSlots(taskId, ACCEPT_ALL, 0x3);
        _readSalts();
        (uint256[2] memory sigma, uint256[4] memory apk2) = _aggregate(taskId, ACCEPT_ALL, 0x3);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.WrongPhase.selector, taskId, ITaskRegistry.Phase.Attest));
        _submit(ACCEPT_ALL, 0x3, sigma, apk2);
    }

    function test_partialAggregateLeavesOthersExpected() public {
        _sealed(ACCEPT_ALL);
        _attestAggregate(taskId, ACCEPT_ALL, 0x3);
        _assertPhase(taskId, 0, ITaskRegistry.Phase.AttestReveal);
        assertEq(_task(taskId).pending, 1, "one vote left");
        assertTrue(!registry.attestationOf(taskId, 0, 2).voted, "slot 2 not voted");
        _open(taskId, _validatorAt(taskId, 2));
        _assertPhase(taskId, 1, ITaskRegistry.Phase.SampleCommit);
    }

    function test_bitsOfUnrevealedSubmissionsAreDropped() public {
        _sealed(0xFF);
        _attestAggregate(taskId, 0xFF, 0x1);
        assertEq(registry.attestationOf(taskId, 0, 0).acceptBitmap, ACCEPT_ALL, "masked");
    }

    function test_signerWithOneWrongSaltIsNamed() public {
        _sealed(ACCEPT_ALL);
        (uint256[2] memory sigma, uint256[4] memory apk2) = _aggregate(taskId, ACCEPT_ALL, ALL);
        salts[ALL][1] = keccak256("wrong");
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.SignerCommitmentMismatch.selector, taskId, 1));
        _submit(ACCEPT_ALL, ALL, sigma, apk2);
    }

    function test_signerThatSealedAnotherBitmapIsNamed() public {
        _sealSlots(taskId, ACCEPT_ALL, 0x3);
        _seal(taskId, _validatorAt(taskId, 2), 0x3); // slot 2 sealed a rejection of the trainer
        _readSalts();
        (uint256[2] memory sigma, uint256[4] memory apk2) = _aggregate(taskId, ACCEPT_ALL, ALL);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.SignerCommitmentMismatch.selector, taskId, 2));
        _submit(ACCEPT_ALL, ALL, sigma, apk2);
    }

    function test_saltCountMustMatchTheSigners() public {
        _sealed(ACCEPT_ALL);
        (uint256[2] memory sigma, uint256[4] memory apk2) = _aggregate(taskId, ACCEPT_ALL, ALL);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.SaltCountMismatch.selector, taskId, 3, 2));
        registry.attestAggregate(taskId, 0, ACCEPT_ALL, ALL, sigma, apk2, salts[0x3]);
    }

    function test_slotThatVotedAloneCannotBeAggregated() public {
        _sealed(ACCEPT_ALL);
        address v0 = _validatorAt(taskId, 0);
        _open(taskId, v0);
        (uint256[2] memory sigma, uint256[4] memory apk2) = _aggregate(taskId, ACCEPT_ALL, ALL);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.AlreadyAttested.selector, taskId, v0));
        _submit(ACCEPT_ALL, ALL, sigma, apk2);
    }

    function test_aggregatedSlotCannotVoteAgain() public {
        _sealed(ACCEPT_ALL);
        _attestAggregate(taskId, ACCEPT_ALL, 0x3);
        address v1 = _validatorAt(taskId, 1);
        bytes32 salt = _voteSalt(v1, 0);
        vm.prank(v1);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.AlreadyAttested.selector, taskId, v1));
        registry.attest(taskId, 0, ACCEPT_ALL, salt);
        (uint256[2] memory sigma, uint256[4] memory apk2) = _aggregate(taskId, ACCEPT_ALL, 0x6);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.AlreadyAttested.selector, taskId, v1));
        _submit(ACCEPT_ALL, 0x6, sigma, apk2);
    }

    function test_signatureOnAnotherBitmapIsRejected() public {
        _sealed(ACCEPT_ALL);
        (uint256[2] memory sigma, uint256[4] memory apk2) = _aggregate(taskId, 0x3, ALL);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.InvalidAggregateSignature.selector, taskId, 0, ALL));
        _submit(ACCEPT_ALL, ALL, sigma, apk2);
    }

    function test_signerBitmapMustMatchTheSigners() public {
        _sealed(ACCEPT_ALL);
        // Slots 0 and 1 signed; claiming all three (with the matching G2 key of all three) fails,
        (uint256[2] memory sigma,) = _aggregate(taskId, ACCEPT_ALL, 0x3);
        (, uint256[4] memory apkAll) = _aggregate(taskId, ACCEPT_ALL, ALL);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.InvalidAggregateSignature.selector, taskId, 0, ALL));
        _submit(ACCEPT_ALL, ALL, sigma, apkAll);
        // and so does claiming slots 0 and 1 with the G2 key of all three.
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.InvalidAggregateSignature.selector, taskId, 0, 0x3));
        _submit(ACCEPT_ALL, 0x3, sigma, apkAll);
    }

    function test_nonMemberSignatureIsRejected() public {
        _sealed(ACCEPT_ALL);
        // An outsider with a registered key (vector key 5) signs in place of slot 1.
        address outsider = _stakedNode("outsider", Role.Validator, MIN_VALIDATOR_STAKE);
        _registerKey(outsider, 5);
        bytes32 message = stateView.attestationMessage(taskId, 0, ACCEPT_ALL);
        uint256 k0 = keyIndex[_validatorAt(taskId, 0)];
        uint256[2] memory sigma = _sign(k0, message);
        sigma = BN254.add(sigma, _sign(5, message));
        uint256[4] memory apk2 = BlsVectors.apk2((1 << k0) | (1 << 5));
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.InvalidAggregateSignature.selector, taskId, 0, 0x3));
        _submit(ACCEPT_ALL, 0x3, sigma, apk2);
    }

    function test_signatureOffTheCurveIsRejected() public {
        _sealed(ACCEPT_ALL);
        (uint256[2] memory sigma, uint256[4] memory apk2) = _aggregate(taskId, ACCEPT_ALL, ALL);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.InvalidAggregateSignature.selector, taskId, 0, ALL));
        _submit(ACCEPT_ALL, ALL, [sigma[0], sigma[1] + 1], apk2);
    }

    function test_signerBitmapBounds() public {
        _sealed(ACCEPT_ALL);
        (uint256[2] memory sigma, uint256[4] memory apk2) = _aggregate(taskId, ACCEPT_ALL, ALL);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.InvalidSignerBitmap.selector, taskId, 0));
        _submit(ACCEPT_ALL, 0, sigma, apk2);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.InvalidSignerBitmap.selector, taskId, 0xF));
        _submit(ACCEPT_ALL, 0xF, sigma, apk2);
    }

    function test_wrongRoundPhaseDeadlineStatusAndPause() public {
        _sealed(ACCEPT_ALL);
        (uint256[2] memory sigma, uint256[4] memory apk2) = _aggregate(taskId, ACCEPT_ALL, ALL);
        bytes32[] memory all = salts[ALL];
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.RoundMismatch.selector, taskId, 1, 0));
        registry.attestAggregate(taskId, 1, ACCEPT_ALL, ALL, sigma, apk2, all);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.TaskNotFound.selector, 99));
        registry.attestAggregate(99, 0, ACCEPT_ALL, ALL, sigma, apk2, all);
        uint256 open = _createTask();
        vm.expectRevert(
            abi.encodeWithSelector(ITaskRegistry.WrongStatus.selector, open, ITaskRegistry.Status.Open)
        );
        registry.attestAggregate(open, 0, ACCEPT_ALL, ALL, sigma, apk2, all);
        vm.prank(admin);
        registry.pause();
        vm.expectRevert(Pausable.EnforcedPause.selector);
        _submit(ACCEPT_ALL, ALL, sigma, apk2);
        vm.prank(admin);
        registry.unpause();
        uint256 deadline = _task(taskId).phaseDeadline;
        _warpPastPhase(taskId);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.DeadlinePassed.selector, taskId, deadline));
        _submit(ACCEPT_ALL, ALL, sigma, apk2);
        registry.advance(taskId);
        vm.expectRevert(
            abi.encodeWithSelector(ITaskRegistry.WrongPhase.selector, taskId, ITaskRegistry.Phase.SampleCommit)
        );
        registry.attestAggregate(taskId, 1, ACCEPT_ALL, ALL, sigma, apk2, all);
    }

    function test_vacantSlotIsRejected() public {
        // Slot 2 misses round 0 and is vacated; nobody redraws it, so it is vacant in round 1.
        _sealSlots(taskId, ACCEPT_ALL, 0x3);
        _expire(taskId);
        _attestAggregate(taskId, ACCEPT_ALL, 0x3);
        _workRound(taskId);
        assertEq(_validatorAt(taskId, 2), address(0), "vacant");
        _sealSlots(taskId, ACCEPT_ALL, 0x3);
        (uint256[2] memory sigma, uint256[4] memory apk2) = _aggregate(taskId, ACCEPT_ALL, 0x3);
        bytes32[] memory two = _saltsOf(taskId, 0x3);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.VacantValidatorSlot.selector, taskId, 2));
        registry.attestAggregate(taskId, 1, ACCEPT_ALL, ALL, sigma, apk2, two);
        // The two remaining validators still finalize the round with one aggregate.
        _attestAggregate(taskId, ACCEPT_ALL, 0x3);
        _assertPhase(taskId, 2, ITaskRegistry.Phase.SampleCommit);
    }

    function test_slotThatJoinedAfterTheCommitsIsNotCommitted() public {
        // Slot 2 misses the commit and is vacated; a newcomer drawn in AttestReveal works from round 1.
        _sealSlots(taskId, ACCEPT_ALL, 0x3);
        _expire(taskId);
        address newcomer = _stakedNode("newcomer", Role.Validator, MIN_VALIDATOR_STAKE);
        _registerKey(newcomer, 5);
        vm.roll(block.number + 2);
        registry.drawValidators(taskId);
        address joined = _validatorAt(taskId, 2);
        assertTrue(joined != address(0), "redrawn");
        _readSalts();
        (uint256[2] memory sigma, uint256[4] memory apk2) = _aggregate(taskId, ACCEPT_ALL, ALL);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.NotCommitted.selector, taskId, joined));
        _submit(ACCEPT_ALL, ALL, sigma, apk2);
    }
}

/// @notice A validator without a BLS key cannot be counted in an aggregate.
contract AggregateAttestKeylessTest is BlsFixture {
    function test_signerWithoutKeyIsRejected() public {
        _registerKey(validators[0], 0);
        _registerKey(validators[1], 1);
        uint256 taskId = _activeTask();
        _workRound(taskId);
        _sealSlots(taskId, ACCEPT_ALL, 0x7);
        uint256 keylessSlot;
        for (uint256 v = 0; v < 3; ++v) {
            if (_validatorAt(taskId, v) == validators[2]) keylessSlot = v;
        }
        uint256 keyed = 0x7 ^ (1 << keylessSlot);
        (uint256[2] memory sigma, uint256[4] memory apk2) = _aggregate(taskId, ACCEPT_ALL, keyed);
        (, uint256 mask) = stateView.aggregateKeyOf(taskId);
        assertEq(mask, keyed, "mask: the keyed slots");
        bytes32[] memory salts = _saltsOf(taskId, 0x7);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.SignersOutsideBlsMask.selector, taskId, 0x7, keyed));
        registry.attestAggregate(taskId, 0, ACCEPT_ALL, 0x7, sigma, apk2, salts);
    }
}

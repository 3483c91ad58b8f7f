// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {RegistryFixture} from "../base/RegistryFixture.sol";
import {ITaskRegistry} from "../../../contracts/interfaces/ITaskRegistry.sol";
import {Role} from "../../../contracts/libraries/Types.sol";
import {IERC20Errors} from "@openzeppelin/contracts/interfaces/draft-IERC6093.sol";
import {Pausable} from "@openzeppelin/contracts/utils/Pausable.sol";

/// @notice SPECIFICATION.md 5.2: creating a task with approve, and the bounds on its parameters
///         (permit and EIP-712 creation are TaskFront's: tests/forge/periphery/).
contract CreationTest is RegistryFixture {
    // ------------------------------------------------------------ approve

    function test_createTask_escrowsBountyAndOpensTask() public {
        uint256 before = token.balanceOf(requester);
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.TaskCreated(1, requester, SPEC_CID, SPEC_DIGEST, BOUNTY, NUM_SAMPLERS, NUM_VALIDATORS, NUM_ROUNDS);
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.TaskStatusChanged(1, ITaskRegistry.Status.Open);
        uint256 taskId = _createTask();

        assertEq(taskId, 1, "first id");
        assertEq(stateView.taskCount(), 1, "task count");
        assertEq(token.balanceOf(requester), before - BOUNTY, "requester paid");
        assertEq(vault.escrowOf(taskId), BOUNTY, "escrow");
        ITaskRegistry.Task memory t = _task(taskId);
        assertEq(t.requester, requester, "requester");
        assertEq(uint256(t.status), uint256(ITaskRegistry.Status.Open), "status");
        assertEq(t.bounty, BOUNTY, "bounty");
        assertEq(t.numSamplers, NUM_SAMPLERS, "samplers");
        assertEq(t.numValidators, NUM_VALIDATORS, "validators");
        assertEq(t.numRounds, NUM_ROUNDS, "rounds");
        assertEq(t.claimDeadline, registry.protocolTime() + CLAIM_WINDOW, "claim deadline");
        assertEq(t.commitWindow, COMMIT_WINDOW, "commit window");
        assertEq(t.revealWindow, REVEAL_WINDOW, "reveal window");
        assertEq(t.attestWindow, ATTEST_WINDOW, "attest window");
        assertEq(t.specDigest, SPEC_DIGEST, "digest");
        assertEq(keccak256(bytes(t.specCid)), keccak256(bytes(SPEC_CID)), "cid");
        assertEq(t.sharesBps[uint8(Role.Trainer)], 7000, "trainer share");
        assertEq(t.sharesBps[uint8(Role.Sampler)], 2000, "sampler share");
        assertEq(t.sharesBps[uint8(Role.Validator)], 1000, "validator share");
        assertEq(t.checkpointRoot, bytes32(0), "initial checkpoint");
    }

    function test_createTask_numbersTasksSequentially() public {
        assertEq(_createTask(), 1, "first");
        assertEq(_createTask(), 2, "second");
        assertEq(stateView.taskCount(), 2, "count");
    }

    function test_createTask_revertsWithoutAllowance() public {
        vm.prank(requester);
        token.approve(address(registry), BOUNTY - 1);
        vm.expectRevert(
            abi.encodeWithSelector(
                IERC20Errors.ERC20InsufficientAllowance.selector, address(registry), BOUNTY - 1, BOUNTY
            )
        );
        _createTask();
    }

    function test_createTask_revertsWhilePaused() public {
        vm.prank(admin);
        registry.pause();
        vm.expectRevert(abi.encodeWithSelector(Pausable.EnforcedPause.selector));
        _createTask();
    }

    function test_createTask_acceptsEveryBoundValue() public {
        ITaskRegistry.TaskParams memory p = _params();
        p.numSamplers = 32;
        p.numValidators = 64;
        p.numRounds = 1000;
        p.claimWindow = 1 minutes;
        p.commitWindow = 30 days;
        p.revealWindow = 1 minutes;
        p.attestWindow = 30 days;
        p.specCid = string(new bytes(128));
        p.bounty = config.minBountyPerSlotRound() * 1000 * (32 + 1 + 64); // the minimum of this shape
        uint256 taskId = _createTask(p);
        assertEq(_task(taskId).numValidators, 64, "max validators");
        p.numSamplers = 1;
        p.numValidators = 1;
        p.numRounds = 1;
        p.specCid = "x";
        _createTask(p);
    }

    // ------------------------------------------------------------ parameter bounds

    function _expectCreateReverts(ITaskRegistry.TaskParams memory p, bytes memory err) private {
        vm.expectRevert(err);
        vm.prank(requester);
        registry.createTask(p);
    }

    function test_createTask_rejectsEmptySpecCid() public {
        ITaskRegistry.TaskParams memory p = _params();
        p.specCid = "";
        _expectCreateReverts(p, abi.encodeWithSelector(ITaskRegistry.InvalidSpec.selector));
    }

    function test_createTask_rejectsSpecCidLongerThan128Bytes() public {
        ITaskRegistry.TaskParams memory p = _params();
        p.specCid = string(new bytes(129));
        _expectCreateReverts(p, abi.encodeWithSelector(ITaskRegistry.InvalidSpec.selector));
    }

    function test_createTask_rejectsZeroSpecDigest() public {
        ITaskRegistry.TaskParams memory p = _params();
        p.specDigest = bytes32(0);
        _expectCreateReverts(p, abi.encodeWithSelector(ITaskRegistry.InvalidSpec.selector));
    }

    function test_createTask_rejectsZeroBounty() public {
        ITaskRegistry.TaskParams memory p = _params();
        p.bounty = 0;
        _expectCreateReverts(p, abi.encodeWithSelector(ITaskRegistry.InvalidBounty.selector));
    }

    function test_createTask_rejectsZeroSamplers() public {
        ITaskRegistry.TaskParams memory p = _params();
        p.numSamplers = 0;
        _expectCreateReverts(
            p, abi.encodeWithSelector(ITaskRegistry.SlotCountOutOfBounds.selector, Role.Sampler, 0, 32)
        );
    }

    function test_createTask_rejectsMoreThan32Samplers() public {
        ITaskRegistry.TaskParams memory p = _params();
        p.numSamplers = 33;
        _expectCreateReverts(
            p, abi.encodeWithSelector(ITaskRegistry.SlotCountOutOfBounds.selector, Role.Sampler, 33, 32)
        );
    }

    function test_createTask_rejectsZeroValidators() public {
        ITaskRegistry.TaskParams memory p = _params();
        p.numValidators = 0;
        _expectCreateReverts(
            p, abi.encodeWithSelector(ITaskRegistry.SlotCountOutOfBounds.selector, Role.Validator, 0, 64)
        );
    }

    function test_createTask_rejectsMoreThan64Validators() public {
        ITaskRegistry.TaskParams memory p = _params();
        p.numValidators = 65;
        _expectCreateReverts(
            p, abi.encodeWithSelector(ITaskRegistry.SlotCountOutOfBounds.selector, Role.Validator, 65, 64)
        );
    }

    function test_createTask_rejectsZeroRounds() public {
        ITaskRegistry.TaskParams memory p = _params();
        p.numRounds = 0;
        _expectCreateReverts(p, abi.encodeWithSelector(ITaskRegistry.RoundsOutOfBounds.selector, 0, 1000));
    }

    function test_createTask_rejectsMoreThan1000Rounds() public {
        ITaskRegistry.TaskParams memory p = _params();
        p.numRounds = 1001;
        _expectCreateReverts(p, abi.encodeWithSelector(ITaskRegistry.RoundsOutOfBounds.selector, 1001, 1000));
    }

    function _windowError(uint256 window) private pure returns (bytes memory) {
        return abi.encodeWithSelector(ITaskRegistry.WindowOutOfBounds.selector, window, 1 minutes, 30 days);
    }

    function test_createTask_rejectsClaimWindowUnderOneMinute() public {
        ITaskRegistry.TaskParams memory p = _params();
        p.claimWindow = 59;
        _expectCreateReverts(p, _windowError(59));
    }

    function test_createTask_rejectsClaimWindowOver30Days() public {
        ITaskRegistry.TaskParams memory p = _params();
        p.claimWindow = 30 days + 1;
        _expectCreateReverts(p, _windowError(30 days + 1));
    }

    function test_createTask_rejectsCommitWindowOutOfBounds() public {
        ITaskRegistry.TaskParams memory p = _params();
        p.commitWindow = 0;
        _expectCreateReverts(p, _windowError(0));
    }

    function test_createTask_rejectsRevealWindowOutOfBounds() public {
        ITaskRegistry.TaskParams memory p = _params();
        p.revealWindow = 30 days + 1;
        _expectCreateReverts(p, _windowError(30 days + 1));
    }

    function test_createTask_rejectsAttestWindowOutOfBounds() public {
        ITaskRegistry.TaskParams memory p = _params();
        p.attestWindow = 59;
        _expectCreateReverts(p, _windowError(59));
    }
}

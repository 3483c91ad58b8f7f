// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {TaskFrontBase, WalletStub} from "./TaskFrontBase.sol";
import {ITaskRegistry} from "../../../contracts/interfaces/ITaskRegistry.sol";
import {ITaskFront} from "../../../contracts/interfaces/ITaskFront.sol";
import {Pausable} from "@openzeppelin/contracts/utils/Pausable.sol";

/// @notice SPECIFICATION.md 8: a task created for a requester from its EIP-712 CreateTask signature,
///         relayed by anyone through the TaskFront; the bounty comes from the requester (allowance,
///         or a permit, even one someone submitted first), an ERC-1271 wallet may sign.
contract TaskFrontSignatureTest is TaskFrontBase {
    function test_createTaskWithSig_relayedSignatureCreatesTaskForRequester() public {
        ITaskRegistry.TaskParams memory p = _params();
        uint256 deadline = vm.getBlockTimestamp() + 1 hours;
        bytes memory sig = _signCreate(REQUESTER_KEY, p, requester, deadline);
        uint256 relayerBalance = token.balanceOf(relayer);

        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.TaskCreated(1, requester, SPEC_CID, SPEC_DIGEST, BOUNTY, NUM_SAMPLERS, NUM_VALIDATORS, NUM_ROUNDS);
        vm.prank(relayer);
        uint256 taskId = front.createTaskWithSig(p, requester, deadline, sig, _noPermit());

        assertEq(_task(taskId).requester, requester, "requester");
        assertEq(vault.escrowOf(taskId), BOUNTY, "escrow");
        assertEq(front.nonces(requester), 1, "nonce consumed");
        assertEq(token.balanceOf(relayer), relayerBalance, "relayer pays nothing");
    }

    function test_createTaskWithSig_acceptsSignatureAtItsDeadline() public {
        ITaskRegistry.TaskParams memory p = _params();
        uint256 deadline = vm.getBlockTimestamp();
        bytes memory sig = _signCreate(REQUESTER_KEY, p, requester, deadline);
        vm.prank(relayer);
        front.createTaskWithSig(p, requester, deadline, sig, _noPermit());
        assertEq(stateView.taskCount(), 1, "created");
    }

    function test_createTaskWithSig_fundsBountyWithPermit() public {
        _revokeAllowance();
        ITaskRegistry.TaskParams memory p = _params();
        uint256 deadline = vm.getBlockTimestamp() + 1 hours;
        bytes memory sig = _signCreate(REQUESTER_KEY, p, requester, deadline);
        ITaskFront.Permit memory permit = _signPermit(BOUNTY, deadline);
        vm.prank(relayer);
        uint256 taskId = front.createTaskWithSig(p, requester, deadline, sig, permit);
        assertEq(vault.escrowOf(taskId), BOUNTY, "escrow");
    }

    function test_createTaskWithSig_frontRunPermitIsTolerated() public {
        _revokeAllowance();
        ITaskRegistry.TaskParams memory p = _params();
        uint256 deadline = vm.getBlockTimestamp() + 1 hours;
        bytes memory sig = _signCreate(REQUESTER_KEY, p, requester, deadline);
        ITaskFront.Permit memory permit = _signPermit(BOUNTY, deadline);
        // Someone submits the permit first: the front's own permit call fails and is ignored.
        token.permit(requester, address(registry), BOUNTY, permit.deadline, permit.v, permit.r, permit.s);
        vm.prank(relayer);
        uint256 taskId = front.createTaskWithSig(p, requester, deadline, sig, permit);
        assertEq(vault.escrowOf(taskId), BOUNTY, "escrow");
        assertEq(_task(taskId).requester, requester, "requester");
    }

    function test_createTaskWithSig_acceptsContractWalletSignature() public {
        WalletStub wallet = new WalletStub(requester);
        vm.prank(requester);
        token.transfer(address(wallet), BOUNTY);
        wallet.approve(address(token), address(registry), BOUNTY);
        ITaskRegistry.TaskParams memory p = _params();
        uint256 deadline = vm.getBlockTimestamp() + 1 hours;
        bytes memory sig = _signCreate(REQUESTER_KEY, p, address(wallet), deadline);
        vm.prank(relayer);
        uint256 taskId = front.createTaskWithSig(p, address(wallet), deadline, sig, _noPermit());
        assertEq(_task(taskId).requester, address(wallet), "wallet is requester");
    }

    function test_createTaskWithSig_revertsWhilePaused() public {
        vm.prank(admin);
        registry.pause();
        ITaskRegistry.TaskParams memory p = _params();
        uint256 deadline = vm.getBlockTimestamp() + 1 hours;
        bytes memory sig = _signCreate(REQUESTER_KEY, p, requester, deadline);
        vm.expectRevert(abi.encodeWithSelector(Pausable.EnforcedPause.selector));
        vm.prank(relayer);
        front.createTaskWithSig(p, requester, deadline, sig, _noPermit());
    }
}

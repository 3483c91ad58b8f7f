// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {TaskFrontBase} from "./TaskFrontBase.sol";
import {ITaskRegistry} from "../../../contracts/interfaces/ITaskRegistry.sol";
import {ITaskFront} from "../../../contracts/interfaces/ITaskFront.sol";

/// @notice SPECIFICATION.md 8 and 10 (replayed signatures): the TaskFront refuses a signature that
///         is expired, replayed (its nonce used), from another key, over other parameters or over
///         another domain; a refused signature consumes no nonce.
contract TaskFrontSignatureRejectionsTest is TaskFrontBase {
    function test_createTaskWithSig_rejectsReplayedSignature() public {
        ITaskRegistry.TaskParams memory p = _params();
        uint256 deadline = vm.getBlockTimestamp() + 1 hours;
        bytes memory sig = _signCreate(REQUESTER_KEY, p, requester, deadline);
        vm.prank(relayer);
        front.createTaskWithSig(p, requester, deadline, sig, _noPermit());

        vm.expectRevert(abi.encodeWithSelector(ITaskFront.InvalidSignature.selector, requester));
        vm.prank(relayer);
        front.createTaskWithSig(p, requester, deadline, sig, _noPermit());
    }

    function test_createTaskWithSig_rejectsExpiredSignature() public {
        ITaskRegistry.TaskParams memory p = _params();
        uint256 deadline = vm.getBlockTimestamp() - 1;
        bytes memory sig = _signCreate(REQUESTER_KEY, p, requester, deadline);
        vm.expectRevert(abi.encodeWithSelector(ITaskFront.SignatureExpired.selector, deadline));
        vm.prank(relayer);
        front.createTaskWithSig(p, requester, deadline, sig, _noPermit());
    }

    function test_createTaskWithSig_rejectsSignatureFromAnotherKey() public {
        ITaskRegistry.TaskParams memory p = _params();
        uint256 deadline = vm.getBlockTimestamp() + 1 hours;
        bytes memory sig = _signCreate(0xB0B, p, requester, deadline);
        vm.expectRevert(abi.encodeWithSelector(ITaskFront.InvalidSignature.selector, requester));
        vm.prank(relayer);
        front.createTaskWithSig(p, requester, deadline, sig, _noPermit());
        assertEq(front.nonces(requester), 0, "nonce kept");
    }

    function test_createTaskWithSig_rejectsAlteredParameters() public {
        ITaskRegistry.TaskParams memory p = _params();
        uint256 deadline = vm.getBlockTimestamp() + 1 hours;
        bytes memory sig = _signCreate(REQUESTER_KEY, p, requester, deadline);
        p.bounty = BOUNTY * 2;
        vm.expectRevert(abi.encodeWithSelector(ITaskFront.InvalidSignature.selector, requester));
        vm.prank(relayer);
        front.createTaskWithSig(p, requester, deadline, sig, _noPermit());
    }

    function test_createTaskWithSig_rejectsSignatureOverTheRegistrysOldDomain() public {
        // What a requester signed for the registry before the front existed never verifies here.
        ITaskRegistry.TaskParams memory p = _params();
        uint256 deadline = vm.getBlockTimestamp() + 1 hours;
        bytes32 old = _digestFor("decentrl TaskRegistry", address(registry), p, requester, 0, deadline);
        bytes memory sig = _sign(REQUESTER_KEY, old);
        vm.expectRevert(abi.encodeWithSelector(ITaskFront.InvalidSignature.selector, requester));
        vm.prank(relayer);
        front.createTaskWithSig(p, requester, deadline, sig, _noPermit());
    }
}

// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {TaskFrontBase, WalletStub} from "./TaskFrontBase.sol";
import {ITaskRegistry} from "../../../contracts/interfaces/ITaskRegistry.sol";
import {ITaskFront} from "../../../contracts/interfaces/ITaskFront.sol";
import {Pausable} from "@openzeppelin/contracts/utils/Pausable.sol";

/// @notice SPECIFICATION.md 8: a task created for a requester from its EIP-712 CreateTask signature,
///         relayed by anyone through the TaskFront (domain "decentrl TaskFront", version 1).
contract TaskFrontSignatureTest is TaskFrontBase {
    function _independentDigest(ITaskRegistry.TaskParams memory p, address who, uint256 nonce, uint256 deadline)
        private
        view
        returns (bytes32)
    {
        return _digestFor("decentrl TaskFront", address(front), p, who, nonce, deadline);
    }

    /// @dev The EIP-712 CreateTask digest under domain (`name`, "1", chain id, `verifier`), computed
    ///      independently of the contracts.
    function _digestFor(
        string memory name,
        address verifier,
        ITaskRegistry.TaskParams memory p,
        address who,
        uint256 nonce,
        uint256 deadline
    ) private view returns (bytes32) {
        bytes32 domain = keccak256(
            abi.encode(
                keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"),
                keccak256(bytes(name)),
                keccak256("1"),
                block.chainid,
                verifier
            )
        );
        bytes32 typehash = keccak256(
            "CreateTask(address requester,string specCid,bytes32 specDigest,uint256 bounty,uint8 numSamplers,"
            "uint8 numValidators,uint16 numRounds,uint32 claimWindow,uint32 commitWindow,uint32 revealWindow,"
            "uint32 attestWindow,uint256 nonce,uint256 deadline)"
        );
        bytes memory head = abi.encode(
            typehash, who, keccak256(bytes(p.specCid)), p.specDigest, p.bounty, p.numSamplers, p.numValidators, p.numRounds
        );
        bytes memory tail = abi.encode(p.claimWindow, p.commitWindow, p.revealWindow, p.attestWindow, nonce, deadline);
        return keccak256(abi.encodePacked("\x19\x01", domain, keccak256(bytes.concat(head, tail))));
    }

    function test_createTaskDigest_isTheSpecifiedEip712Digest() public view {
        ITaskRegistry.TaskParams memory p = _params();
        assertEq(
            front.createTaskDigest(p, requester, 7, 123), _independentDigest(p, requester, 7, 123), "digest"
        );
    }

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

    function test_createTaskDigest_bindsTheNonce() public view {
        ITaskRegistry.TaskParams memory p = _params();
        assertTrue(front.createTaskDigest(p, requester, 0, 123) != front.createTaskDigest(p, requester, 1, 123), "nonce");
        assertEq(front.createTaskDigest(p, requester, 1, 123), _independentDigest(p, requester, 1, 123), "digest");
    }
}

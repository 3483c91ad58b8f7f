// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {RegistryFixture} from "../base/RegistryFixture.sol";
import {ITaskRegistry} from "../../../contracts/interfaces/ITaskRegistry.sol";
import {TaskRegistry} from "../../../contracts/TaskRegistry.sol";
import {Role} from "../../../contracts/libraries/Types.sol";
import {IERC20Errors} from "@openzeppelin/contracts/interfaces/draft-IERC6093.sol";
import {Pausable} from "@openzeppelin/contracts/utils/Pausable.sol";

/// @notice A contract wallet that accepts one signer's ECDSA signatures (ERC-1271).
contract WalletStub {
    address private immutable _owner;

    constructor(address owner_) {
        _owner = owner_;
    }

    function isValidSignature(bytes32 digest, bytes calldata signature) external view returns (bytes4) {
        (bytes32 r, bytes32 s) = abi.decode(signature[:64], (bytes32, bytes32));
        address signer = ecrecover(digest, uint8(signature[64]), r, s);
        return signer == _owner ? bytes4(0x1626ba7e) : bytes4(0xffffffff);
    }

    function approve(address token, address spender, uint256 amount) external {
        (bool ok,) = token.call(abi.encodeWithSignature("approve(address,uint256)", spender, amount));
        require(ok);
    }
}

/// @notice SPECIFICATION.md 5.2 and 8: creating tasks with approve, permit and EIP-712 signature.
contract CreationTest is RegistryFixture {
    bytes32 private constant PERMIT_TYPEHASH =
        keccak256("Permit(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)");

    // ------------------------------------------------------------ approve

    function test_createTask_escrowsBountyAndOpensTask() public {
        uint256 before = token.balanceOf(requester);
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.TaskCreated(1, requester, SPEC_CID, SPEC_DIGEST, BOUNTY, NUM_SAMPLERS, NUM_VALIDATORS, NUM_ROUNDS);
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.TaskStatusChanged(1, ITaskRegistry.Status.Open);
        uint256 taskId = _createTask();

        assertEq(taskId, 1, "first id");
        assertEq(registry.taskCount(), 1, "task count");
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
        assertEq(registry.taskCount(), 2, "count");
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
        p.bounty = 1;
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

    // ------------------------------------------------------------ permit

    function _signPermit(uint256 value, uint256 deadline) private view returns (ITaskRegistry.Permit memory p) {
        bytes32 structHash = keccak256(
            abi.encode(PERMIT_TYPEHASH, requester, address(registry), value, token.nonces(requester), deadline)
        );
        bytes32 digest = keccak256(abi.encodePacked("\x19\x01", token.DOMAIN_SEPARATOR(), structHash));
        (p.v, p.r, p.s) = vm.sign(REQUESTER_KEY, digest);
        p.deadline = deadline;
    }

    function _revokeAllowance() private {
        vm.prank(requester);
        token.approve(address(registry), 0);
    }

    function test_createTaskWithPermit_fundsBountyFromPermit() public {
        _revokeAllowance();
        ITaskRegistry.Permit memory permit = _signPermit(BOUNTY, vm.getBlockTimestamp() + 1 hours);
        ITaskRegistry.TaskParams memory p = _params();
        vm.prank(requester);
        uint256 taskId = registry.createTaskWithPermit(p, permit);
        assertEq(vault.escrowOf(taskId), BOUNTY, "escrow");
        assertEq(token.nonces(requester), 1, "permit used");
        assertEq(token.allowance(requester, address(registry)), 0, "allowance spent");
    }

    function test_createTaskWithPermit_failedPermitFallsBackToAllowance() public {
        ITaskRegistry.Permit memory permit = _signPermit(BOUNTY, vm.getBlockTimestamp() + 1 hours);
        permit.s = bytes32(uint256(permit.s) ^ 1); // corrupt the signature
        ITaskRegistry.TaskParams memory p = _params();
        vm.prank(requester);
        uint256 taskId = registry.createTaskWithPermit(p, permit);
        assertEq(vault.escrowOf(taskId), BOUNTY, "escrow from allowance");
        assertEq(token.nonces(requester), 0, "permit not used");
    }

    function test_createTaskWithPermit_frontRunPermitStillCreatesTask() public {
        _revokeAllowance();
        ITaskRegistry.Permit memory permit = _signPermit(BOUNTY, vm.getBlockTimestamp() + 1 hours);
        // Someone submits the same permit first: the registry's own permit call then fails.
        token.permit(requester, address(registry), BOUNTY, permit.deadline, permit.v, permit.r, permit.s);
        ITaskRegistry.TaskParams memory p = _params();
        vm.prank(requester);
        uint256 taskId = registry.createTaskWithPermit(p, permit);
        assertEq(vault.escrowOf(taskId), BOUNTY, "escrow");
    }

    function test_createTaskWithPermit_failedPermitWithoutAllowanceReverts() public {
        _revokeAllowance();
        ITaskRegistry.Permit memory permit = _signPermit(BOUNTY - 1, vm.getBlockTimestamp() + 1 hours);
        ITaskRegistry.TaskParams memory p = _params();
        vm.expectRevert(
            abi.encodeWithSelector(IERC20Errors.ERC20InsufficientAllowance.selector, address(registry), 0, BOUNTY)
        );
        vm.prank(requester);
        registry.createTaskWithPermit(p, permit);
    }

    function test_createTaskWithPermit_zeroDeadlineSkipsPermit() public {
        ITaskRegistry.TaskParams memory p = _params();
        vm.prank(requester);
        uint256 taskId = registry.createTaskWithPermit(p, _noPermit());
        assertEq(vault.escrowOf(taskId), BOUNTY, "escrow from allowance");
    }

    function test_createTaskWithPermit_revertsWhilePaused() public {
        vm.prank(admin);
        registry.pause();
        ITaskRegistry.TaskParams memory p = _params();
        vm.expectRevert(abi.encodeWithSelector(Pausable.EnforcedPause.selector));
        vm.prank(requester);
        registry.createTaskWithPermit(p, _noPermit());
    }

    // ------------------------------------------------------------ EIP-712 signature

    function _independentDigest(ITaskRegistry.TaskParams memory p, address who, uint256 nonce, uint256 deadline)
        private
        view
        returns (bytes32)
    {
        bytes32 domain = keccak256(
            abi.encode(
                keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"),
                keccak256("decentrl TaskRegistry"),
                keccak256("1"),
                block.chainid,
                address(registry)
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

    function _sign(uint256 key, bytes32 digest) private pure returns (bytes memory) {
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(key, digest);
        return abi.encodePacked(r, s, v);
    }

    function _signCreate(uint256 key, ITaskRegistry.TaskParams memory p, address who, uint256 deadline)
        private
        view
        returns (bytes memory)
    {
        return _sign(key, registry.createTaskDigest(p, who, registry.nonces(who), deadline));
    }

    function test_createTaskDigest_isTheSpecifiedEip712Digest() public view {
        ITaskRegistry.TaskParams memory p = _params();
        assertEq(
            registry.createTaskDigest(p, requester, 7, 123), _independentDigest(p, requester, 7, 123), "digest"
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
        uint256 taskId = registry.createTaskWithSig(p, requester, deadline, sig, _noPermit());

        assertEq(_task(taskId).requester, requester, "requester");
        assertEq(vault.escrowOf(taskId), BOUNTY, "escrow");
        assertEq(registry.nonces(requester), 1, "nonce consumed");
        assertEq(token.balanceOf(relayer), relayerBalance, "relayer pays nothing");
    }

    function test_createTaskWithSig_acceptsSignatureAtItsDeadline() public {
        ITaskRegistry.TaskParams memory p = _params();
        uint256 deadline = vm.getBlockTimestamp();
        bytes memory sig = _signCreate(REQUESTER_KEY, p, requester, deadline);
        vm.prank(relayer);
        registry.createTaskWithSig(p, requester, deadline, sig, _noPermit());
        assertEq(registry.taskCount(), 1, "created");
    }

    function test_createTaskWithSig_fundsBountyWithPermit() public {
        _revokeAllowance();
        ITaskRegistry.TaskParams memory p = _params();
        uint256 deadline = vm.getBlockTimestamp() + 1 hours;
        bytes memory sig = _signCreate(REQUESTER_KEY, p, requester, deadline);
        ITaskRegistry.Permit memory permit = _signPermit(BOUNTY, deadline);
        vm.prank(relayer);
        uint256 taskId = registry.createTaskWithSig(p, requester, deadline, sig, permit);
        assertEq(vault.escrowOf(taskId), BOUNTY, "escrow");
    }

    function test_createTaskWithSig_rejectsReplayedSignature() public {
        ITaskRegistry.TaskParams memory p = _params();
        uint256 deadline = vm.getBlockTimestamp() + 1 hours;
        bytes memory sig = _signCreate(REQUESTER_KEY, p, requester, deadline);
        vm.prank(relayer);
        registry.createTaskWithSig(p, requester, deadline, sig, _noPermit());

        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.InvalidSignature.selector, requester));
        vm.prank(relayer);
        registry.createTaskWithSig(p, requester, deadline, sig, _noPermit());
    }

    function test_createTaskWithSig_rejectsExpiredSignature() public {
        ITaskRegistry.TaskParams memory p = _params();
        uint256 deadline = vm.getBlockTimestamp() - 1;
        bytes memory sig = _signCreate(REQUESTER_KEY, p, requester, deadline);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.SignatureExpired.selector, deadline));
        vm.prank(relayer);
        registry.createTaskWithSig(p, requester, deadline, sig, _noPermit());
    }

    function test_createTaskWithSig_rejectsSignatureFromAnotherKey() public {
        ITaskRegistry.TaskParams memory p = _params();
        uint256 deadline = vm.getBlockTimestamp() + 1 hours;
        bytes memory sig = _signCreate(0xB0B, p, requester, deadline);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.InvalidSignature.selector, requester));
        vm.prank(relayer);
        registry.createTaskWithSig(p, requester, deadline, sig, _noPermit());
        assertEq(registry.nonces(requester), 0, "nonce kept");
    }

    function test_createTaskWithSig_rejectsAlteredParameters() public {
        ITaskRegistry.TaskParams memory p = _params();
        uint256 deadline = vm.getBlockTimestamp() + 1 hours;
        bytes memory sig = _signCreate(REQUESTER_KEY, p, requester, deadline);
        p.bounty = BOUNTY * 2;
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.InvalidSignature.selector, requester));
        vm.prank(relayer);
        registry.createTaskWithSig(p, requester, deadline, sig, _noPermit());
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
        uint256 taskId = registry.createTaskWithSig(p, address(wallet), deadline, sig, _noPermit());
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
        registry.createTaskWithSig(p, requester, deadline, sig, _noPermit());
    }
}

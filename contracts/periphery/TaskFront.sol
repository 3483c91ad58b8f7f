// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {Nonces} from "@openzeppelin/contracts/utils/Nonces.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";
import {IERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Permit.sol";
import {ITaskFront} from "../interfaces/ITaskFront.sol";
import {ITaskRegistry} from "../interfaces/ITaskRegistry.sol";

/// @title TaskFront
/// @notice Permit-funded and signature-relayed task creation in front of the TaskRegistry; see
///         ITaskFront. The registry accepts `createTaskFor` from this contract only.
contract TaskFront is ITaskFront, EIP712, Nonces {
    bytes32 public constant CREATE_TASK_TYPEHASH = keccak256(
        "CreateTask(address requester,string specCid,bytes32 specDigest,uint256 bounty,uint8 numSamplers,"
        "uint8 numValidators,uint16 numRounds,uint32 claimWindow,uint32 commitWindow,uint32 revealWindow,"
        "uint32 attestWindow,uint256 nonce,uint256 deadline)"
    );

    ITaskRegistry public immutable registry;
    IERC20Permit private immutable _token;

    constructor(ITaskRegistry registry_) EIP712("decentrl TaskFront", "1") {
        registry = registry_;
        _token = IERC20Permit(address(registry_.token()));
    }

    /// @inheritdoc ITaskFront
    function createTaskWithPermit(ITaskRegistry.TaskParams calldata params, Permit calldata permit)
        external
        returns (uint256)
    {
        _tryPermit(msg.sender, params.bounty, permit);
        return registry.createTaskFor(params, msg.sender);
    }

    /// @inheritdoc ITaskFront
    function createTaskWithSig(
        ITaskRegistry.TaskParams calldata params,
        address requester,
        uint256 deadline,
        bytes calldata signature,
        Permit calldata permit
    ) external returns (uint256) {
        if (block.timestamp > deadline) revert SignatureExpired(deadline);
        bytes32 digest = _createTaskDigest(params, requester, _useNonce(requester), deadline);
        if (!SignatureChecker.isValidSignatureNow(requester, digest, signature)) revert InvalidSignature(requester);
        _tryPermit(requester, params.bounty, permit);
        return registry.createTaskFor(params, requester);
    }

    /// @inheritdoc ITaskFront
    function createTaskDigest(ITaskRegistry.TaskParams calldata params, address requester, uint256 nonce, uint256 deadline)
        external
        view
        returns (bytes32)
    {
        return _createTaskDigest(params, requester, nonce, deadline);
    }

    /// @inheritdoc ITaskFront
    function nonces(address requester) public view override(ITaskFront, Nonces) returns (uint256) {
        return super.nonces(requester);
    }

    function _createTaskDigest(ITaskRegistry.TaskParams calldata p, address requester, uint256 nonce, uint256 deadline)
        private
        view
        returns (bytes32)
    {
        // Encoded in two halves to keep the stack shallow; the layout equals one abi.encode of all fields.
        bytes memory head = abi.encode(
            CREATE_TASK_TYPEHASH,
            requester,
            keccak256(bytes(p.specCid)),
            p.specDigest,
            p.bounty,
            p.numSamplers,
            p.numValidators,
            p.numRounds
        );
        bytes memory tail =
            abi.encode(p.claimWindow, p.commitWindow, p.revealWindow, p.attestWindow, nonce, deadline);
        return _hashTypedDataV4(keccak256(bytes.concat(head, tail)));
    }

    /// @dev A failed permit is ignored on purpose: someone may have front-run it with the same
    ///      signature, in which case the allowance is already there (OpenZeppelin's advice).
    function _tryPermit(address owner, uint256 value, Permit calldata permit) private {
        if (permit.deadline == 0) return;
        try _token.permit(owner, address(registry), value, permit.deadline, permit.v, permit.r, permit.s) {} catch {}
    }
}

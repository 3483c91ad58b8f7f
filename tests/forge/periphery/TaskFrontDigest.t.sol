// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {TaskFrontBase} from "./TaskFrontBase.sol";
import {ITaskRegistry} from "../../../contracts/interfaces/ITaskRegistry.sol";

/// @notice SPECIFICATION.md 8: what a requester signs for `createTaskWithSig` is the EIP-712
///         CreateTask digest under the TaskFront's own domain ("decentrl TaskFront", version 1,
///         chain id, the front's address), nonce and deadline included.
contract TaskFrontDigestTest is TaskFrontBase {
    function test_createTaskDigest_isTheSpecifiedEip712Digest() public view {
        ITaskRegistry.TaskParams memory p = _params();
        assertEq(
            front.createTaskDigest(p, requester, 7, 123), _independentDigest(p, requester, 7, 123), "digest"
        );
    }

    function test_createTaskDigest_bindsTheNonce() public view {
        ITaskRegistry.TaskParams memory p = _params();
        assertTrue(front.createTaskDigest(p, requester, 0, 123) != front.createTaskDigest(p, requester, 1, 123), "nonce");
        assertEq(front.createTaskDigest(p, requester, 1, 123), _independentDigest(p, requester, 1, 123), "digest");
    }

    function test_eip712Domain_isTheFrontsOwn() public view {
        (, string memory name, string memory version, uint256 chainId, address verifier,,) = front.eip712Domain();
        assertEq(keccak256(bytes(name)), keccak256("decentrl TaskFront"), "name");
        assertEq(keccak256(bytes(version)), keccak256("1"), "version");
        assertEq(chainId, block.chainid, "chain id");
        assertEq(verifier, address(front), "verifying contract: the front");
        assertEq(
            front.CREATE_TASK_TYPEHASH(),
            keccak256(
                "CreateTask(address requester,string specCid,bytes32 specDigest,uint256 bounty,uint8 numSamplers,"
                "uint8 numValidators,uint16 numRounds,uint32 claimWindow,uint32 commitWindow,uint32 revealWindow,"
                "uint32 attestWindow,uint256 nonce,uint256 deadline)"
            ),
            "type hash"
        );
    }
}

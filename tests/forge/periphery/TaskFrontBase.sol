// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {RegistryFixture} from "../base/RegistryFixture.sol";
import {ITaskRegistry} from "../../../contracts/interfaces/ITaskRegistry.sol";
import {ITaskFront} from "../../../contracts/interfaces/ITaskFront.sol";

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

/// @notice Signing helpers for the TaskFront tests: the requester's EIP-2612 permit (spender: the
///         registry, which pulls the bounty) and its EIP-712 CreateTask signature.
abstract contract TaskFrontBase is RegistryFixture {
    bytes32 internal constant PERMIT_TYPEHASH =
        keccak256("Permit(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)");

    function _signPermit(uint256 value, uint256 deadline) internal view returns (ITaskFront.Permit memory p) {
        bytes32 structHash = keccak256(
            abi.encode(PERMIT_TYPEHASH, requester, address(registry), value, token.nonces(requester), deadline)
        );
        bytes32 digest = keccak256(abi.encodePacked("\x19\x01", token.DOMAIN_SEPARATOR(), structHash));
        (p.v, p.r, p.s) = vm.sign(REQUESTER_KEY, digest);
        p.deadline = deadline;
    }

    function _revokeAllowance() internal {
        vm.prank(requester);
        token.approve(address(registry), 0);
    }

    function _sign(uint256 key, bytes32 digest) internal pure returns (bytes memory) {
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(key, digest);
        return abi.encodePacked(r, s, v);
    }

    function _signCreate(uint256 key, ITaskRegistry.TaskParams memory p, address who, uint256 deadline)
        internal
        view
        returns (bytes memory)
    {
        return _sign(key, front.createTaskDigest(p, who, front.nonces(who), deadline));
    }

    /// @dev The digest the front must compute, from the specification alone.
    function _independentDigest(ITaskRegistry.TaskParams memory p, address who, uint256 nonce, uint256 deadline)
        internal
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
    ) internal view returns (bytes32) {
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
}

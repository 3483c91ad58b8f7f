// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {RegistryFixture} from "../base/RegistryFixture.sol";
import {StateView} from "../../../contracts/periphery/StateView.sol";
import {ITaskRegistry} from "../../../contracts/interfaces/ITaskRegistry.sol";
import {IDisputeManager} from "../../../contracts/interfaces/IDisputeManager.sol";
import {IProtocolConfig} from "../../../contracts/interfaces/IProtocolConfig.sol";
import {Role} from "../../../contracts/libraries/Types.sol";

/// @notice Just enough of a registry for a StateView's constructor (its config).
contract RegistryStub {
    IProtocolConfig public immutable config;

    constructor(IProtocolConfig config_) {
        config = config_;
    }
}

/// @notice What StateView computes for nodes to sign or commit is what the registry checks:
///         the attestation message names the registry (not the view) and the chain, and the
///         commitment is the one `reveal` opens (tests/forge/registry/AggregateAttest.t.sol checks
///         signatures over the message).
contract StateViewMessagesTest is RegistryFixture {
    function testFuzz_attestationMessage_isTheSpecifiedMessage(uint256 taskId, uint256 round, uint256 bitmap) public view {
        bytes32 expected = keccak256(
            abi.encode(keccak256("decentrl.attest.v1"), block.chainid, address(registry), taskId, round, bitmap)
        );
        assertEq(stateView.attestationMessage(taskId, round, bitmap), expected, "message");
    }

    function test_attestationMessage_namesTheRegistryNotTheView() public {
        StateView another = new StateView(registry, disputes);
        assertEq(another.attestationMessage(1, 0, 7), stateView.attestationMessage(1, 0, 7), "any view, same message");
        StateView elsewhere = new StateView(ITaskRegistry(address(new RegistryStub(config))), IDisputeManager(address(0)));
        assertTrue(elsewhere.attestationMessage(1, 0, 7) != stateView.attestationMessage(1, 0, 7), "another registry");
    }

    function testFuzz_commitmentFor_opensInTheRegistrysReveal(bytes32 root, bytes32 salt, uint8 cidLength) public {
        vm.assume(root != bytes32(0));
        bytes memory cid = new bytes(1 + cidLength % 128);
        for (uint256 i = 0; i < cid.length; ++i) cid[i] = bytes1(uint8(0x61 + (uint256(salt) >> i) % 26));
        uint256 taskId = _activeTask();
        address s0 = _samplerAt(taskId, 0);
        bytes32 commitment = stateView.commitmentFor(taskId, 0, s0, root, string(cid), salt);
        assertEq(
            commitment, keccak256(abi.encode(taskId, 0, s0, root, keccak256(cid), salt)), "SPECIFICATION.md 5.4"
        );
        vm.prank(s0);
        registry.commit(taskId, commitment);
        _commit(taskId, _samplerAt(taskId, 1));
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.CommitmentMismatch.selector, taskId, s0));
        vm.prank(s0);
        registry.reveal(taskId, root, string(cid), bytes32(uint256(salt) ^ 1));
        vm.prank(s0);
        registry.reveal(taskId, root, string(cid), salt);
        assertTrue(stateView.submissionOf(taskId, 0, Role.Sampler, 0).revealed, "revealed");
    }
}

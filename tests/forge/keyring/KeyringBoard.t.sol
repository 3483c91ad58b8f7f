// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {RegistryFixture} from "../base/RegistryFixture.sol";
import {IKeyringBoard} from "../../../contracts/interfaces/IKeyringBoard.sol";
import {KeyringBoard} from "../../../contracts/KeyringBoard.sol";

/// @notice SPECIFICATION.md 5.7: only a task's requester posts its keyring CID; a new post replaces it.
contract KeyringBoardTest is RegistryFixture {
    string private constant KEYRING_CID = "bafkreihdwdcefgh4dqkjv67uzcmw7ojee6xedzdetojuzjevtenxquvyku";
    string private constant NEXT_CID = "bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy";

    KeyringBoard private board;
    uint256 private taskId;

    function setUp() public override {
        super.setUp();
        board = keyrings; // deployed by the fixture, as scripts/deploy.py does
        taskId = _createTask();
    }

    function test_requesterPostsKeyring_storedAndEmitted() public {
        vm.expectEmit(true, true, true, true, address(board));
        emit IKeyringBoard.KeyringPosted(taskId, requester, KEYRING_CID);
        vm.prank(requester);
        board.postKeyring(taskId, KEYRING_CID);
        assertEq(keccak256(bytes(board.keyringOf(taskId))), keccak256(bytes(KEYRING_CID)), "keyring cid");
    }

    function test_laterPostReplacesKeyring() public {
        vm.startPrank(requester);
        board.postKeyring(taskId, KEYRING_CID);
        board.postKeyring(taskId, NEXT_CID);
        vm.stopPrank();
        assertEq(keccak256(bytes(board.keyringOf(taskId))), keccak256(bytes(NEXT_CID)), "replaced cid");
    }

    function test_keyringOf_emptyBeforeAnyPost() public view {
        assertEq(bytes(board.keyringOf(taskId)).length, 0, "no keyring yet");
    }

    function test_nonRequester_reverts() public {
        address node = samplers[0];
        vm.expectRevert(abi.encodeWithSelector(IKeyringBoard.NotRequester.selector, taskId, node));
        vm.prank(node);
        board.postKeyring(taskId, KEYRING_CID);
    }

    function test_unknownTask_revertsNotRequester() public {
        // TaskState reads a zeroed Task (requester 0) for an id never created
        vm.expectRevert(abi.encodeWithSelector(IKeyringBoard.NotRequester.selector, taskId + 1, requester));
        vm.prank(requester);
        board.postKeyring(taskId + 1, KEYRING_CID);
    }

    function test_emptyCid_reverts() public {
        vm.expectRevert(IKeyringBoard.InvalidKeyringCid.selector);
        vm.prank(requester);
        board.postKeyring(taskId, "");
    }

    function test_cidLongerThan128Bytes_reverts() public {
        bytes memory longCid = new bytes(129);
        vm.expectRevert(IKeyringBoard.InvalidKeyringCid.selector);
        vm.prank(requester);
        board.postKeyring(taskId, string(longCid));
    }

    function test_registryIsTheOneGiven() public view {
        assertEq(address(board.registry()), address(registry), "registry");
    }
}

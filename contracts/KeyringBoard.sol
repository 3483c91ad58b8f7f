// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IKeyringBoard} from "./interfaces/IKeyringBoard.sol";
import {ITaskRegistry} from "./interfaces/ITaskRegistry.sol";
import {TaskState} from "./libraries/TaskState.sol";

/// @title KeyringBoard
/// @notice Keyring announcements for encrypted task inputs; see IKeyringBoard.
/// @dev A contract of its own so that encrypted inputs change nothing in TaskRegistry.
contract KeyringBoard is IKeyringBoard {
    uint256 private constant MAX_CID_LENGTH = 128;

    ITaskRegistry private immutable _registry;
    mapping(uint256 taskId => string cid) private _keyrings;

    constructor(ITaskRegistry registry_) {
        _registry = registry_;
    }

    /// @inheritdoc IKeyringBoard
    function postKeyring(uint256 taskId, string calldata cid) external {
        uint256 length = bytes(cid).length;
        if (length == 0 || length > MAX_CID_LENGTH) revert InvalidKeyringCid();
        // an id never created reads as a zeroed task: requester 0, never the caller
        if (TaskState.taskHead(_registry, taskId).requester != msg.sender) revert NotRequester(taskId, msg.sender);
        _keyrings[taskId] = cid;
        emit KeyringPosted(taskId, msg.sender, cid);
    }

    /// @inheritdoc IKeyringBoard
    function keyringOf(uint256 taskId) external view returns (string memory) {
        return _keyrings[taskId];
    }

    /// @inheritdoc IKeyringBoard
    function registry() external view returns (ITaskRegistry) {
        return _registry;
    }
}

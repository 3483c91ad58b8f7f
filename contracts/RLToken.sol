// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {ERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/ERC20Permit.sol";

/// @title RLToken
/// @notice The decentrl token: bounties, stakes and rewards are paid in it.
/// @dev Fixed supply minted once, so conservation (balances + stakes + escrow + claimable = supply)
///      can be checked against a constant. EIP-2612 permit lets a requester fund a task with a signature.
contract RLToken is ERC20, ERC20Permit {
    constructor(address initialHolder, uint256 initialSupply)
        ERC20("decentrl RL Token", "DRL")
        ERC20Permit("decentrl RL Token")
    {
        _mint(initialHolder, initialSupply);
    }
}

// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {TestBase} from "../base/Vm.sol";
import {IAccessControl} from "@openzeppelin/contracts/access/IAccessControl.sol";
import {RLToken} from "../../../contracts/RLToken.sol";

/// @notice Shared actors and helpers for the unit tests of the token, stakes, reputation and vault.
abstract contract UnitBase is TestBase {
    uint256 internal constant TOKEN = 1e18;
    uint256 internal constant SUPPLY = 1_000_000_000 * TOKEN;

    address internal admin = address(0xAD);
    address internal protocol = address(0x9807);
    address internal alice = address(0xA11CE);
    address internal bob = address(0xB0B);
    address internal stranger = address(0x5747);

    RLToken internal token;

    function _deployToken() internal {
        token = new RLToken(admin, SUPPLY);
        vm.label(address(token), "RLToken");
    }

    function _fund(address to, uint256 amount) internal {
        vm.prank(admin);
        token.transfer(to, amount);
    }

    function _expectUnauthorized(address account, bytes32 role) internal {
        vm.expectRevert(abi.encodeWithSelector(IAccessControl.AccessControlUnauthorizedAccount.selector, account, role));
    }
}

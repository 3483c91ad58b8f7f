// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {UnitBase} from "./UnitBase.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {ERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/ERC20Permit.sol";
import {IERC20Errors} from "@openzeppelin/contracts/interfaces/draft-IERC6093.sol";
import {RLToken} from "../../../contracts/RLToken.sol";

contract RLTokenTest is UnitBase {
    bytes32 internal constant PERMIT_TYPEHASH =
        keccak256("Permit(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)");
    uint256 internal constant OWNER_KEY = 0xA11CE5;
    address internal owner;

    function setUp() public {
        _deployToken();
        owner = vm.addr(OWNER_KEY);
        _fund(owner, 1000 * TOKEN);
    }

    function _digest(address owner_, address spender, uint256 value, uint256 nonce, uint256 deadline)
        internal
        view
        returns (bytes32)
    {
        bytes32 structHash = keccak256(abi.encode(PERMIT_TYPEHASH, owner_, spender, value, nonce, deadline));
        return keccak256(abi.encodePacked("\x19\x01", token.DOMAIN_SEPARATOR(), structHash));
    }

    function _sign(uint256 key, address spender, uint256 value, uint256 nonce, uint256 deadline)
        internal
        view
        returns (uint8 v, bytes32 r, bytes32 s)
    {
        return vm.sign(key, _digest(vm.addr(key), spender, value, nonce, deadline));
    }

    function test_metadata() public view {
        assertEq(keccak256(bytes(token.name())), keccak256("decentrl RL Token"), "name");
        assertEq(keccak256(bytes(token.symbol())), keccak256("DRL"), "symbol");
        assertEq(token.decimals(), 18, "decimals");
    }

    function test_constructorMintsWholeSupplyToInitialHolder() public {
        vm.expectEmit(true, true, false, true);
        emit IERC20.Transfer(address(0), alice, 42);
        RLToken fresh = new RLToken(alice, 42);
        assertEq(fresh.totalSupply(), 42, "supply");
        assertEq(fresh.balanceOf(alice), 42, "holder");
    }

    function test_constructorRejectsZeroHolder() public {
        vm.expectRevert(abi.encodeWithSelector(IERC20Errors.ERC20InvalidReceiver.selector, address(0)));
        new RLToken(address(0), 1);
    }

    function test_domainSeparatorBindsNameVersionChainAndAddress() public view {
        bytes32 expected = keccak256(
            abi.encode(
                keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"),
                keccak256("decentrl RL Token"),
                keccak256("1"),
                block.chainid,
                address(token)
            )
        );
        assertEq(token.DOMAIN_SEPARATOR(), expected, "domain separator");
    }

    function test_permitSetsAllowanceAndUsesNonce() public {
        uint256 deadline = block.timestamp + 1 hours;
        (uint8 v, bytes32 r, bytes32 s) = _sign(OWNER_KEY, bob, 300 * TOKEN, 0, deadline);
        vm.expectEmit(true, true, false, true, address(token));
        emit IERC20.Approval(owner, bob, 300 * TOKEN);
        vm.prank(stranger); // anyone may relay a permit
        token.permit(owner, bob, 300 * TOKEN, deadline, v, r, s);
        assertEq(token.allowance(owner, bob), 300 * TOKEN, "allowance");
        assertEq(token.nonces(owner), 1, "nonce");

        vm.prank(bob);
        token.transferFrom(owner, bob, 300 * TOKEN);
        assertEq(token.balanceOf(bob), 300 * TOKEN, "spent through permit");
    }

    function test_permitAtDeadlineSucceeds() public {
        uint256 deadline = block.timestamp;
        (uint8 v, bytes32 r, bytes32 s) = _sign(OWNER_KEY, bob, 1, 0, deadline);
        token.permit(owner, bob, 1, deadline, v, r, s);
        assertEq(token.allowance(owner, bob), 1, "allowance");
    }

    function test_permitRejectsExpiredSignature() public {
        vm.warp(1000);
        uint256 deadline = 999;
        (uint8 v, bytes32 r, bytes32 s) = _sign(OWNER_KEY, bob, 1, 0, deadline);
        vm.expectRevert(abi.encodeWithSelector(ERC20Permit.ERC2612ExpiredSignature.selector, deadline));
        token.permit(owner, bob, 1, deadline, v, r, s);
    }

    function test_permitRejectsReplay() public {
        uint256 deadline = block.timestamp + 1;
        (uint8 v, bytes32 r, bytes32 s) = _sign(OWNER_KEY, bob, 5, 0, deadline);
        token.permit(owner, bob, 5, deadline, v, r, s);
        // The nonce moved on, so the same signature now recovers to some other address.
        address recovered = ecrecover(_digest(owner, bob, 5, 1, deadline), v, r, s);
        vm.expectRevert(abi.encodeWithSelector(ERC20Permit.ERC2612InvalidSigner.selector, recovered, owner));
        token.permit(owner, bob, 5, deadline, v, r, s);
    }

    function test_permitRejectsWrongSigner() public {
        uint256 otherKey = 0xB0B5;
        uint256 deadline = block.timestamp + 1;
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(otherKey, _digest(owner, bob, 5, 0, deadline));
        vm.expectRevert(abi.encodeWithSelector(ERC20Permit.ERC2612InvalidSigner.selector, vm.addr(otherKey), owner));
        token.permit(owner, bob, 5, deadline, v, r, s);
    }

    function test_permitRejectsTamperedValue() public {
        uint256 deadline = block.timestamp + 1;
        (uint8 v, bytes32 r, bytes32 s) = _sign(OWNER_KEY, bob, 5, 0, deadline);
        address recovered = ecrecover(_digest(owner, bob, 6, 0, deadline), v, r, s);
        vm.expectRevert(abi.encodeWithSelector(ERC20Permit.ERC2612InvalidSigner.selector, recovered, owner));
        token.permit(owner, bob, 6, deadline, v, r, s);
        assertEq(token.nonces(owner), 0, "nonce untouched");
    }

    function test_transferMovesBalance() public {
        vm.expectEmit(true, true, false, true, address(token));
        emit IERC20.Transfer(owner, alice, 7);
        vm.prank(owner);
        token.transfer(alice, 7);
        assertEq(token.balanceOf(alice), 7, "alice");
        assertEq(token.balanceOf(owner), 1000 * TOKEN - 7, "owner");
        assertEq(token.totalSupply(), SUPPLY, "supply unchanged");
    }

    function test_transferRejectsOverdraft() public {
        vm.expectRevert(
            abi.encodeWithSelector(IERC20Errors.ERC20InsufficientBalance.selector, alice, 0, 1)
        );
        vm.prank(alice);
        token.transfer(bob, 1);
    }

    function test_transferFromRejectsMissingAllowance() public {
        vm.expectRevert(
            abi.encodeWithSelector(IERC20Errors.ERC20InsufficientAllowance.selector, bob, 0, 1)
        );
        vm.prank(bob);
        token.transferFrom(owner, bob, 1);
    }

    function testFuzz_permitAnyValueAndDeadline(uint256 value, uint256 deadline) public {
        deadline = deadline < block.timestamp ? block.timestamp : deadline;
        (uint8 v, bytes32 r, bytes32 s) = _sign(OWNER_KEY, bob, value, 0, deadline);
        token.permit(owner, bob, value, deadline, v, r, s);
        assertEq(token.allowance(owner, bob), value, "allowance");
    }
}

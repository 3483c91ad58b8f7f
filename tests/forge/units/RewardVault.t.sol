// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {UnitBase} from "./UnitBase.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {RewardVault} from "../../../contracts/RewardVault.sol";
import {IRewardVault} from "../../../contracts/interfaces/IRewardVault.sol";

contract RewardVaultTest is UnitBase {
    RewardVault internal vault;
    bytes32 internal escrowRole;
    uint256 internal constant TASK = 7;

    function setUp() public {
        _deployToken();
        vault = new RewardVault(token, admin);
        escrowRole = vault.ESCROW_ROLE();
        vm.prank(admin);
        vault.grantRole(escrowRole, protocol);
    }

    /// @dev What the registry does: transfer the bounty in, then record it.
    function _deposit(uint256 taskId, uint256 amount) internal {
        _fund(address(vault), amount);
        vm.prank(protocol);
        vault.recordDeposit(taskId, amount);
    }

    function _credit(uint256 taskId, address account, uint256 amount) internal {
        vm.prank(protocol);
        vault.credit(taskId, account, amount);
    }

    function _assertBacked() internal view {
        assertEq(
            token.balanceOf(address(vault)), vault.totalEscrow() + vault.totalClaimable(), "balance == escrow + claimable"
        );
    }

    // ------------------------------------------------------------ constructor

    function test_constructor() public view {
        assertEq(address(vault.token()), address(token), "token");
        assertTrue(vault.hasRole(vault.DEFAULT_ADMIN_ROLE(), admin), "admin");
        assertTrue(!vault.hasRole(escrowRole, admin), "admin holds no escrow role");
    }

    function test_constructorRejectsZeroToken() public {
        vm.expectRevert(IRewardVault.ZeroAddress.selector);
        new RewardVault(IERC20(address(0)), admin);
    }

    function test_constructorRejectsZeroAdmin() public {
        vm.expectRevert(IRewardVault.ZeroAddress.selector);
        new RewardVault(token, address(0));
    }

    // ------------------------------------------------------------ deposit

    function test_recordDepositEscrowsReceivedTokens() public {
        _fund(address(vault), 1000);
        vm.expectEmit(true, false, false, true, address(vault));
        emit IRewardVault.Deposited(TASK, 1000);
        vm.prank(protocol);
        vault.recordDeposit(TASK, 1000);
        assertEq(vault.escrowOf(TASK), 1000, "escrow");
        assertEq(vault.totalEscrow(), 1000, "total escrow");
        _deposit(TASK, 5);
        assertEq(vault.escrowOf(TASK), 1005, "adds up");
        _deposit(TASK + 1, 3);
        assertEq(vault.totalEscrow(), 1008, "total over tasks");
        _assertBacked();
    }

    function test_recordDepositRejectsUnbackedAmount() public {
        _deposit(TASK, 100);
        _credit(TASK, alice, 40);
        _fund(address(vault), 49);
        // Expected balance counts escrow (60) and claimable (40) already held, plus the new 50.
        vm.expectRevert(abi.encodeWithSelector(IRewardVault.DepositNotReceived.selector, 150, 149));
        vm.prank(protocol);
        vault.recordDeposit(TASK + 1, 50);
    }

    function test_recordDepositCannotDoubleCountOneTransfer() public {
        _deposit(TASK, 100);
        vm.expectRevert(abi.encodeWithSelector(IRewardVault.DepositNotReceived.selector, 200, 100));
        vm.prank(protocol);
        vault.recordDeposit(TASK + 1, 100);
    }

    function test_recordDepositRejectsZero() public {
        vm.expectRevert(IRewardVault.ZeroAmount.selector);
        vm.prank(protocol);
        vault.recordDeposit(TASK, 0);
    }

    function test_recordDepositRequiresEscrowRole() public {
        _expectUnauthorized(admin, escrowRole);
        vm.prank(admin);
        vault.recordDeposit(TASK, 1);
    }

    // ------------------------------------------------------------ credit

    function test_creditMovesEscrowToClaimable() public {
        _deposit(TASK, 100);
        vm.expectEmit(true, true, false, true, address(vault));
        emit IRewardVault.Credited(TASK, alice, 30);
        _credit(TASK, alice, 30);
        _credit(TASK, alice, 70);
        assertEq(vault.escrowOf(TASK), 0, "escrow emptied");
        assertEq(vault.claimableOf(alice), 100, "claimable");
        assertEq(vault.totalEscrow(), 0, "total escrow");
        assertEq(vault.totalClaimable(), 100, "total claimable");
        _assertBacked();
    }

    function test_creditRejectsMoreThanTaskEscrow() public {
        _deposit(TASK, 100);
        _deposit(TASK + 1, 1000); // another task's escrow cannot be borrowed
        vm.expectRevert(abi.encodeWithSelector(IRewardVault.InsufficientEscrow.selector, TASK, 100, 101));
        _credit(TASK, alice, 101);
    }

    function test_creditRejectsZeroAccount() public {
        _deposit(TASK, 100);
        vm.expectRevert(IRewardVault.ZeroAddress.selector);
        _credit(TASK, address(0), 1);
    }

    function test_creditRequiresEscrowRole() public {
        _expectUnauthorized(alice, escrowRole);
        vm.prank(alice);
        vault.credit(TASK, alice, 0);
    }

    // ------------------------------------------------------------ refund

    function test_refundMovesRemainingEscrow() public {
        _deposit(TASK, 100);
        _credit(TASK, alice, 33);
        vm.expectEmit(true, true, false, true, address(vault));
        emit IRewardVault.Refunded(TASK, bob, 67);
        vm.prank(protocol);
        uint256 refunded = vault.refund(TASK, bob);
        assertEq(refunded, 67, "returned");
        assertEq(vault.escrowOf(TASK), 0, "escrow emptied");
        assertEq(vault.claimableOf(bob), 67, "requester claimable");
        assertEq(vault.totalClaimable(), 100, "total claimable");
        _assertBacked();
    }

    function test_refundOfEmptyEscrowIsZero() public {
        vm.expectEmit(true, true, false, true, address(vault));
        emit IRewardVault.Refunded(TASK, bob, 0);
        vm.prank(protocol);
        uint256 refunded = vault.refund(TASK, bob);
        assertEq(refunded, 0, "nothing");
        assertEq(vault.claimableOf(bob), 0, "nothing claimable");
    }

    function test_refundRejectsZeroAccount() public {
        vm.expectRevert(IRewardVault.ZeroAddress.selector);
        vm.prank(protocol);
        vault.refund(TASK, address(0));
    }

    function test_refundRequiresEscrowRole() public {
        _expectUnauthorized(bob, escrowRole);
        vm.prank(bob);
        vault.refund(TASK, bob);
    }

    // ------------------------------------------------------------ withdraw

    function test_withdrawPaysCallerBalanceToAnyAddress() public {
        _deposit(TASK, 100);
        _credit(TASK, alice, 100);
        vm.expectEmit(true, true, false, true, address(vault));
        emit IRewardVault.Withdrawn(alice, bob, 60);
        vm.prank(alice);
        vault.withdraw(bob, 60);
        assertEq(token.balanceOf(bob), 60, "paid to bob");
        assertEq(vault.claimableOf(alice), 40, "rest claimable");
        assertEq(vault.totalClaimable(), 40, "total");
        vm.prank(alice);
        vault.withdraw(alice, 40);
        assertEq(token.balanceOf(alice), 40, "paid to alice");
        assertEq(vault.claimableOf(alice), 0, "emptied");
        _assertBacked();
    }

    function test_withdrawRejectsMoreThanClaimable() public {
        _deposit(TASK, 100);
        _credit(TASK, alice, 10);
        vm.expectRevert(abi.encodeWithSelector(IRewardVault.InsufficientClaimable.selector, alice, 10, 11));
        vm.prank(alice);
        vault.withdraw(alice, 11);
        // Escrow is not claimable by anyone.
        vm.expectRevert(abi.encodeWithSelector(IRewardVault.InsufficientClaimable.selector, protocol, 0, 1));
        vm.prank(protocol);
        vault.withdraw(protocol, 1);
    }

    function test_withdrawRejectsZeroAmount() public {
        vm.expectRevert(IRewardVault.ZeroAmount.selector);
        vm.prank(alice);
        vault.withdraw(alice, 0);
    }

    function test_withdrawRejectsZeroRecipient() public {
        vm.expectRevert(IRewardVault.ZeroAddress.selector);
        vm.prank(alice);
        vault.withdraw(address(0), 1);
    }

    function test_directTransferIsNotClaimableButKeepsDepositsWorking() public {
        _fund(address(vault), 500); // a stray transfer
        _deposit(TASK, 100);
        assertEq(vault.totalEscrow(), 100, "only recorded deposits escrowed");
        assertGe(token.balanceOf(address(vault)), vault.totalEscrow() + vault.totalClaimable(), "over-backed");
    }

    function testFuzz_accountingStaysBacked(uint96 bounty, uint96 paid, uint96 pulled) public {
        uint256 b = 1 + uint256(bounty) % SUPPLY;
        uint256 p = uint256(paid) % (b + 1);
        _deposit(TASK, b);
        if (p > 0) _credit(TASK, alice, p);
        vm.prank(protocol);
        uint256 refunded = vault.refund(TASK, bob);
        assertEq(p + refunded, b, "credit + refund == bounty");
        uint256 w = uint256(pulled) % (p + 1);
        if (w > 0) {
            vm.prank(alice);
            vault.withdraw(alice, w);
        }
        assertEq(vault.totalClaimable(), b - w, "claimable");
        assertEq(vault.totalEscrow(), 0, "escrow");
        _assertBacked();
    }
}

// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {UnitBase} from "./UnitBase.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Errors} from "@openzeppelin/contracts/interfaces/draft-IERC6093.sol";
import {SafeCast} from "@openzeppelin/contracts/utils/math/SafeCast.sol";
import {RLToken} from "../../../contracts/RLToken.sol";
import {StakeManager} from "../../../contracts/StakeManager.sol";
import {IStakeManager} from "../../../contracts/interfaces/IStakeManager.sol";
import {Role} from "../../../contracts/libraries/Types.sol";

contract StakeManagerTest is UnitBase {
    StakeManager internal stakes;
    address internal treasury = address(0x7EA5);
    uint256 internal constant UNBONDING = 7 days;
    bytes32 internal governorRole;
    bytes32 internal protocolRole;

    function setUp() public {
        _deployToken();
        stakes = new StakeManager(token, admin, _mins(), UNBONDING);
        governorRole = stakes.GOVERNOR_ROLE();
        protocolRole = stakes.PROTOCOL_ROLE();
        vm.prank(admin);
        stakes.grantRole(protocolRole, protocol);
        _fundAndApprove(alice, 10_000 * TOKEN);
        _fundAndApprove(bob, 10_000 * TOKEN);
        vm.warp(1_000_000);
    }

    function _mins() internal pure returns (uint256[3] memory m) {
        m = [100 * TOKEN, 500 * TOKEN, 200 * TOKEN];
    }

    function _fundAndApprove(address who, uint256 amount) internal {
        _fund(who, amount);
        vm.prank(who);
        token.approve(address(stakes), type(uint256).max);
    }

    function _stake(address who, Role role, uint256 amount) internal {
        vm.prank(who);
        stakes.stake(role, amount);
    }

    function _info(address who, Role role) internal view returns (IStakeManager.StakeInfo memory) {
        return stakes.stakeOf(who, role);
    }

    // ------------------------------------------------------------ constructor

    function test_constructorSetsParametersAndRoles() public view {
        assertEq(address(stakes.token()), address(token), "token");
        assertEq(stakes.minStake(Role.Sampler), 100 * TOKEN, "sampler min");
        assertEq(stakes.minStake(Role.Trainer), 500 * TOKEN, "trainer min");
        assertEq(stakes.minStake(Role.Validator), 200 * TOKEN, "validator min");
        assertEq(stakes.unbondingPeriod(), UNBONDING, "unbonding");
        assertTrue(stakes.hasRole(stakes.DEFAULT_ADMIN_ROLE(), admin), "admin role");
        assertTrue(stakes.hasRole(governorRole, admin), "governor role");
        assertTrue(!stakes.hasRole(protocolRole, admin), "admin is not protocol");
        assertEq(stakes.totalStaked(), 0, "nothing staked");
        assertEq(stakes.validatorCount(), 0, "no validators");
    }

    function test_constructorEmitsParameterEvents() public {
        vm.expectEmit(true, false, false, true);
        emit IStakeManager.MinStakeSet(Role.Sampler, 1);
        vm.expectEmit(true, false, false, true);
        emit IStakeManager.MinStakeSet(Role.Trainer, 2);
        vm.expectEmit(true, false, false, true);
        emit IStakeManager.MinStakeSet(Role.Validator, 3);
        vm.expectEmit(false, false, false, true);
        emit IStakeManager.UnbondingPeriodSet(1 days);
        new StakeManager(token, admin, [uint256(1), 2, 3], 1 days);
    }

    function test_constructorRejectsZeroToken() public {
        vm.expectRevert(IStakeManager.ZeroAddress.selector);
        new StakeManager(IERC20(address(0)), admin, _mins(), UNBONDING);
    }

    function test_constructorRejectsZeroAdmin() public {
        vm.expectRevert(IStakeManager.ZeroAddress.selector);
        new StakeManager(token, address(0), _mins(), UNBONDING);
    }

    function test_constructorRejectsZeroMinStake() public {
        vm.expectRevert(IStakeManager.ZeroAmount.selector);
        new StakeManager(token, admin, [uint256(1), 0, 3], UNBONDING);
    }

    function test_constructorRejectsUnbondingOutOfBounds() public {
        vm.expectRevert(
            abi.encodeWithSelector(IStakeManager.UnbondingPeriodOutOfBounds.selector, 1 days - 1, 1 days, 90 days)
        );
        new StakeManager(token, admin, _mins(), 1 days - 1);
    }

    // ------------------------------------------------------------ stake

    function test_stakePullsTokensAndEmits() public {
        vm.expectEmit(true, true, false, true, address(stakes));
        emit IStakeManager.Staked(alice, Role.Sampler, 150 * TOKEN, 150 * TOKEN);
        _stake(alice, Role.Sampler, 150 * TOKEN);
        vm.expectEmit(true, true, false, true, address(stakes));
        emit IStakeManager.Staked(alice, Role.Sampler, 50 * TOKEN, 200 * TOKEN);
        _stake(alice, Role.Sampler, 50 * TOKEN);

        assertEq(_info(alice, Role.Sampler).staked, 200 * TOKEN, "staked");
        assertEq(stakes.availableStake(alice, Role.Sampler), 200 * TOKEN, "available");
        assertEq(stakes.totalStaked(), 200 * TOKEN, "total");
        assertEq(token.balanceOf(address(stakes)), 200 * TOKEN, "held");
        assertEq(token.balanceOf(alice), 9_800 * TOKEN, "pulled");
        assertEq(stakes.validatorCount(), 0, "samplers are not in the validator pool");
    }

    function test_stakeKeepsRolesApart() public {
        _stake(alice, Role.Sampler, 1);
        _stake(alice, Role.Trainer, 2);
        assertEq(_info(alice, Role.Sampler).staked, 1, "sampler");
        assertEq(_info(alice, Role.Trainer).staked, 2, "trainer");
        assertEq(_info(alice, Role.Validator).staked, 0, "validator");
    }

    function test_stakeAsValidatorJoinsPoolOnce() public {
        _stake(alice, Role.Validator, 200 * TOKEN);
        _stake(alice, Role.Validator, 1);
        _stake(bob, Role.Validator, 200 * TOKEN);
        assertEq(stakes.validatorCount(), 2, "pool size");
        assertEq(stakes.validatorAt(0), alice, "first");
        assertEq(stakes.validatorAt(1), bob, "second");
    }

    function test_stakeRejectsZero() public {
        vm.expectRevert(IStakeManager.ZeroAmount.selector);
        _stake(alice, Role.Sampler, 0);
    }

    function test_stakeRejectsAmountBeyondUint128() public {
        uint256 huge = uint256(type(uint128).max) + 1;
        RLToken big = new RLToken(alice, huge);
        StakeManager bigStakes = new StakeManager(big, admin, _mins(), UNBONDING);
        vm.startPrank(alice);
        big.approve(address(bigStakes), huge);
        vm.expectRevert(abi.encodeWithSelector(SafeCast.SafeCastOverflowedUintDowncast.selector, 128, huge));
        bigStakes.stake(Role.Sampler, huge);
        vm.stopPrank();
    }

    function test_stakeWithoutAllowanceReverts() public {
        vm.expectRevert(
            abi.encodeWithSelector(IERC20Errors.ERC20InsufficientAllowance.selector, address(stakes), 0, 1)
        );
        vm.prank(stranger);
        stakes.stake(Role.Sampler, 1);
        assertEq(stakes.totalStaked(), 0, "nothing staked");
    }

    // ------------------------------------------------------------ unstake

    function test_requestUnstakeMovesToUnbonding() public {
        _stake(alice, Role.Trainer, 600 * TOKEN);
        uint256 readyAt = block.timestamp + UNBONDING;
        vm.expectEmit(true, true, false, true, address(stakes));
        emit IStakeManager.UnstakeRequested(alice, Role.Trainer, 100 * TOKEN, readyAt);
        vm.prank(alice);
        stakes.requestUnstake(Role.Trainer, 100 * TOKEN);
        IStakeManager.StakeInfo memory info = _info(alice, Role.Trainer);
        assertEq(info.staked, 500 * TOKEN, "staked");
        assertEq(info.unbonding, 100 * TOKEN, "unbonding");
        assertEq(info.unbondingReadyAt, readyAt, "ready at");
        assertEq(stakes.totalStaked(), 600 * TOKEN, "unbonding still counts as staked");
    }

    function test_requestUnstakeRestartsClock() public {
        _stake(alice, Role.Sampler, 300);
        vm.prank(alice);
        stakes.requestUnstake(Role.Sampler, 100);
        vm.warp(block.timestamp + 3 days);
        vm.prank(alice);
        stakes.requestUnstake(Role.Sampler, 50);
        IStakeManager.StakeInfo memory info = _info(alice, Role.Sampler);
        assertEq(info.unbonding, 150, "accumulates");
        assertEq(info.unbondingReadyAt, block.timestamp + UNBONDING, "clock restarted");
    }

    function test_requestUnstakeRejectsZero() public {
        vm.expectRevert(IStakeManager.ZeroAmount.selector);
        vm.prank(alice);
        stakes.requestUnstake(Role.Sampler, 0);
    }

    function test_requestUnstakeCannotTouchLockedStake() public {
        _stake(alice, Role.Sampler, 300);
        vm.prank(protocol);
        stakes.lock(alice, Role.Sampler, 200);
        vm.expectRevert(
            abi.encodeWithSelector(IStakeManager.InsufficientUnlockedStake.selector, alice, Role.Sampler, 100, 101)
        );
        vm.prank(alice);
        stakes.requestUnstake(Role.Sampler, 101);
        vm.prank(alice);
        stakes.requestUnstake(Role.Sampler, 100);
        assertEq(_info(alice, Role.Sampler).staked, 200, "locked part stays");
    }

    function test_onlyValidatorsAtTheMinimumAreInThePool() public {
        _stake(alice, Role.Validator, 200 * TOKEN - 1);
        assertEq(stakes.validatorCount(), 0, "below the minimum: not in the pool");
        _stake(alice, Role.Validator, 1);
        _stake(bob, Role.Validator, 200 * TOKEN);
        assertEq(stakes.validatorCount(), 2, "at the minimum: in");
        vm.prank(alice);
        stakes.requestUnstake(Role.Validator, 1);
        assertEq(stakes.validatorCount(), 1, "fell below the minimum: left the pool");
        assertEq(stakes.validatorAt(0), bob, "bob remains");
        _stake(alice, Role.Validator, 1);
        assertEq(stakes.validatorCount(), 2, "back at the minimum: in again");
    }

    function test_theDrawListIsAppendOnlyInTheOrderOfFirstListing() public {
        uint256 start = vm.getBlockNumber();
        _stake(alice, Role.Validator, 200 * TOKEN);
        vm.roll(start + 1);
        _stake(bob, Role.Validator, 200 * TOKEN);
        assertEq(stakes.drawPoolSize(start), 0, "nobody listed before the first stake's block");
        assertEq(stakes.drawPoolSize(start + 1), 1, "alice listed in block start");
        assertEq(stakes.drawPoolSize(start + 2), 2, "bob in block start + 1");
        assertEq(stakes.drawCandidate(0), alice, "first");
        assertEq(stakes.drawCandidate(1), bob, "second");
        vm.roll(start + 2);
        // alice falls below the minimum: she leaves the pool, not the draw list (nothing moves)
        vm.prank(alice);
        stakes.requestUnstake(Role.Validator, 1);
        assertEq(stakes.validatorCount(), 1, "left the pool");
        assertEq(stakes.drawPoolSize(start + 3), 2, "still listed");
        assertEq(stakes.drawCandidate(0), alice, "in her place");
        // back at the minimum: not listed twice
        _stake(alice, Role.Validator, 1);
        assertEq(stakes.drawPoolSize(start + 3), 2, "listed once");
        // below the minimum a stake is not listed at all
        vm.roll(start + 3);
        address carol = address(0xCA201);
        _fundAndApprove(carol, 1_000 * TOKEN);
        _stake(carol, Role.Validator, 200 * TOKEN - 1);
        assertEq(stakes.drawPoolSize(start + 100), 2, "a stake below the minimum is not listed");
    }

    // ------------------------------------------------------------ withdraw

    function test_withdrawUnbondedAfterPeriod() public {
        _stake(alice, Role.Sampler, 300);
        vm.prank(alice);
        stakes.requestUnstake(Role.Sampler, 120);
        uint256 before = token.balanceOf(alice);
        vm.warp(block.timestamp + UNBONDING);
        vm.expectEmit(true, true, false, true, address(stakes));
        emit IStakeManager.UnbondedWithdrawn(alice, Role.Sampler, 120);
        vm.prank(alice);
        stakes.withdrawUnbonded(Role.Sampler);
        assertEq(token.balanceOf(alice), before + 120, "paid");
        IStakeManager.StakeInfo memory info = _info(alice, Role.Sampler);
        assertEq(info.unbonding, 0, "unbonding cleared");
        assertEq(info.unbondingReadyAt, 0, "clock cleared");
        assertEq(info.staked, 180, "active untouched");
        assertEq(stakes.totalStaked(), 180, "total");
    }

    function test_withdrawUnbondedRejectsNothing() public {
        vm.expectRevert(abi.encodeWithSelector(IStakeManager.NothingUnbonding.selector, alice, Role.Trainer));
        vm.prank(alice);
        stakes.withdrawUnbonded(Role.Trainer);
    }

    function test_withdrawUnbondedRejectsEarly() public {
        _stake(alice, Role.Sampler, 300);
        vm.prank(alice);
        stakes.requestUnstake(Role.Sampler, 100);
        uint256 readyAt = block.timestamp + UNBONDING;
        vm.warp(readyAt - 1);
        vm.expectRevert(
            abi.encodeWithSelector(IStakeManager.UnbondingNotReady.selector, alice, Role.Sampler, readyAt)
        );
        vm.prank(alice);
        stakes.withdrawUnbonded(Role.Sampler);
    }

    // ------------------------------------------------------------ pause (BLS keys: StakeManagerBls.t.sol)

    function test_setNodePausedTogglesAndEmits() public {
        vm.expectEmit(true, false, false, true, address(stakes));
        emit IStakeManager.NodePauseSet(alice, true);
        vm.prank(alice);
        stakes.setNodePaused(true);
        assertTrue(stakes.isNodePaused(alice), "paused");
        vm.expectEmit(true, false, false, true, address(stakes));
        emit IStakeManager.NodePauseSet(alice, false);
        vm.prank(alice);
        stakes.setNodePaused(false);
        assertTrue(!stakes.isNodePaused(alice), "unpaused");
    }

    // ------------------------------------------------------------ lock / unlock

    function test_lockAndUnlock() public {
        _stake(alice, Role.Validator, 500);
        vm.expectEmit(true, true, false, true, address(stakes));
        emit IStakeManager.StakeLocked(alice, Role.Validator, 300);
        vm.prank(protocol);
        stakes.lock(alice, Role.Validator, 300);
        assertEq(_info(alice, Role.Validator).locked, 300, "locked");
        assertEq(stakes.availableStake(alice, Role.Validator), 200, "available");

        vm.expectEmit(true, true, false, true, address(stakes));
        emit IStakeManager.StakeUnlocked(alice, Role.Validator, 100);
        vm.prank(protocol);
        stakes.unlock(alice, Role.Validator, 100);
        assertEq(_info(alice, Role.Validator).locked, 200, "unlocked part");
        assertEq(stakes.availableStake(alice, Role.Validator), 300, "available again");
    }

    function test_lockExactlyAvailable() public {
        _stake(alice, Role.Sampler, 100);
        vm.prank(protocol);
        stakes.lock(alice, Role.Sampler, 100);
        assertEq(stakes.availableStake(alice, Role.Sampler), 0, "all locked");
    }

    function test_lockRejectsMoreThanAvailable() public {
        _stake(alice, Role.Sampler, 100);
        vm.prank(protocol);
        stakes.lock(alice, Role.Sampler, 60);
        vm.expectRevert(
            abi.encodeWithSelector(IStakeManager.InsufficientUnlockedStake.selector, alice, Role.Sampler, 40, 41)
        );
        vm.prank(protocol);
        stakes.lock(alice, Role.Sampler, 41);
    }

    function test_unlockRejectsMoreThanLocked() public {
        _stake(alice, Role.Sampler, 100);
        vm.prank(protocol);
        stakes.lock(alice, Role.Sampler, 60);
        vm.expectRevert(
            abi.encodeWithSelector(IStakeManager.InsufficientLockedStake.selector, alice, Role.Sampler, 60, 61)
        );
        vm.prank(protocol);
        stakes.unlock(alice, Role.Sampler, 61);
    }

    function test_lockRequiresProtocolRole() public {
        _expectUnauthorized(admin, protocolRole);
        vm.prank(admin);
        stakes.lock(alice, Role.Sampler, 0);
    }

    function test_unlockRequiresProtocolRole() public {
        _expectUnauthorized(alice, protocolRole);
        vm.prank(alice);
        stakes.unlock(alice, Role.Sampler, 0);
    }

    // ------------------------------------------------------------ slash

    function test_slashTakesFromActiveFirst() public {
        _stake(alice, Role.Trainer, 1000);
        vm.prank(alice);
        stakes.requestUnstake(Role.Trainer, 400);
        vm.expectEmit(true, true, true, true, address(stakes));
        emit IStakeManager.Slashed(alice, Role.Trainer, 250, treasury);
        vm.prank(protocol);
        uint256 slashed = stakes.slash(alice, Role.Trainer, 250, treasury);
        assertEq(slashed, 250, "returned");
        IStakeManager.StakeInfo memory info = _info(alice, Role.Trainer);
        assertEq(info.staked, 350, "active reduced");
        assertEq(info.unbonding, 400, "unbonding untouched");
        assertEq(token.balanceOf(treasury), 250, "recipient paid");
        assertEq(stakes.totalStaked(), 750, "total");
    }

    function test_slashReachesIntoUnbondingAndWithdrawPaysTheRest() public {
        _stake(alice, Role.Trainer, 1000);
        vm.prank(alice);
        stakes.requestUnstake(Role.Trainer, 400);
        vm.prank(protocol);
        uint256 slashed = stakes.slash(alice, Role.Trainer, 700, treasury);
        assertEq(slashed, 700, "returned");
        IStakeManager.StakeInfo memory info = _info(alice, Role.Trainer);
        assertEq(info.staked, 0, "active emptied");
        assertEq(info.unbonding, 300, "100 taken from unbonding");
        assertEq(stakes.totalStaked(), 300, "total");

        uint256 before = token.balanceOf(alice);
        vm.warp(block.timestamp + UNBONDING);
        vm.expectEmit(true, true, false, true, address(stakes));
        emit IStakeManager.UnbondedWithdrawn(alice, Role.Trainer, 300);
        vm.prank(alice);
        stakes.withdrawUnbonded(Role.Trainer);
        assertEq(token.balanceOf(alice), before + 300, "only the post-slash unbonding is paid");
        assertEq(stakes.totalStaked(), 0, "nothing left");
        assertEq(token.balanceOf(address(stakes)), 0, "manager empty");
    }

    function test_slashCapsAtStakePlusUnbonding() public {
        _stake(alice, Role.Sampler, 500);
        vm.prank(alice);
        stakes.requestUnstake(Role.Sampler, 200);
        vm.expectEmit(true, true, true, true, address(stakes));
        emit IStakeManager.Slashed(alice, Role.Sampler, 500, treasury);
        vm.prank(protocol);
        uint256 slashed = stakes.slash(alice, Role.Sampler, 10_000, treasury);
        assertEq(slashed, 500, "everything, no more");
        IStakeManager.StakeInfo memory info = _info(alice, Role.Sampler);
        assertEq(info.staked, 0, "active");
        assertEq(info.unbonding, 0, "unbonding");
        vm.expectRevert(abi.encodeWithSelector(IStakeManager.NothingUnbonding.selector, alice, Role.Sampler));
        vm.prank(alice);
        stakes.withdrawUnbonded(Role.Sampler);
    }

    function test_slashNeverTakesLockedStake() public {
        _stake(alice, Role.Sampler, 500);
        vm.prank(protocol);
        stakes.lock(alice, Role.Sampler, 400);
        vm.prank(protocol);
        uint256 slashed = stakes.slash(alice, Role.Sampler, 300, treasury);
        IStakeManager.StakeInfo memory info = _info(alice, Role.Sampler);
        assertEq(slashed, 100, "only the unlocked part");
        assertEq(info.staked, 400, "staked");
        assertEq(info.locked, 400, "the lock is whole");
        assertEq(stakes.availableStake(alice, Role.Sampler), 0, "nothing available");
    }

    function test_slashLeavesLockedWhenStillCovered() public {
        _stake(alice, Role.Sampler, 500);
        vm.prank(protocol);
        stakes.lock(alice, Role.Sampler, 100);
        vm.prank(protocol);
        stakes.slash(alice, Role.Sampler, 300, treasury);
        IStakeManager.StakeInfo memory info = _info(alice, Role.Sampler);
        assertEq(info.locked, 100, "locked kept");
        assertEq(info.staked, 200, "staked");
    }

    function test_slashOfNothingEmitsZeroAndMovesNoTokens() public {
        vm.expectEmit(true, true, true, true, address(stakes));
        emit IStakeManager.Slashed(bob, Role.Sampler, 0, treasury);
        vm.prank(protocol);
        uint256 slashed = stakes.slash(bob, Role.Sampler, 100, treasury);
        assertEq(slashed, 0, "nothing");
        assertEq(token.balanceOf(treasury), 0, "treasury untouched");
    }

    function test_slashBelowTheMinimumDropsAValidatorFromThePool() public {
        _stake(alice, Role.Validator, 201 * TOKEN);
        vm.prank(protocol);
        stakes.slash(alice, Role.Validator, TOKEN, treasury);
        assertEq(stakes.validatorCount(), 1, "still at the minimum");
        vm.prank(protocol);
        stakes.slash(alice, Role.Validator, 1, treasury);
        assertEq(stakes.validatorCount(), 0, "dropped");
    }

    function test_slashRejectsZeroRecipient() public {
        vm.expectRevert(IStakeManager.ZeroAddress.selector);
        vm.prank(protocol);
        stakes.slash(alice, Role.Sampler, 1, address(0));
    }

    function test_slashRequiresProtocolRole() public {
        _expectUnauthorized(stranger, protocolRole);
        vm.prank(stranger);
        stakes.slash(alice, Role.Sampler, 1, treasury);
    }

    function testFuzz_lockedNeverExceedsStaked(uint128 stakeAmt, uint128 lockAmt, uint128 unstakeAmt, uint128 slashAmt)
        public
    {
        uint256 s = 1 + uint256(stakeAmt) % (10_000 * TOKEN);
        uint256 l = uint256(lockAmt) % (s + 1);
        uint256 u = uint256(unstakeAmt) % (s - l + 1);
        uint256 x = uint256(slashAmt) % (2 * s + 1);
        _stake(alice, Role.Sampler, s);
        vm.prank(protocol);
        stakes.lock(alice, Role.Sampler, l);
        if (u > 0) {
            vm.prank(alice);
            stakes.requestUnstake(Role.Sampler, u);
        }
        vm.prank(protocol);
        uint256 slashed = stakes.slash(alice, Role.Sampler, x, treasury);
        IStakeManager.StakeInfo memory info = _info(alice, Role.Sampler);
        assertLe(info.locked, info.staked, "locked <= staked");
        assertEq(info.locked, l, "the lock is whole");
        assertEq(slashed, x < s - l ? x : s - l, "slashed bounded by the stake that is not locked");
        assertEq(uint256(info.staked) + info.unbonding + slashed, s, "nothing lost");
        assertEq(stakes.totalStaked(), uint256(info.staked) + info.unbonding, "total");
        assertEq(token.balanceOf(address(stakes)), stakes.totalStaked(), "balance backs total");
    }

    // ------------------------------------------------------------ governance

    function test_setMinStake() public {
        vm.expectEmit(true, false, false, true, address(stakes));
        emit IStakeManager.MinStakeSet(Role.Trainer, 1);
        vm.prank(admin);
        stakes.setMinStake(Role.Trainer, 1);
        assertEq(stakes.minStake(Role.Trainer), 1, "set");
    }

    function test_setMinStakeRejectsZero() public {
        vm.expectRevert(IStakeManager.ZeroAmount.selector);
        vm.prank(admin);
        stakes.setMinStake(Role.Sampler, 0);
    }

    function test_setMinStakeRequiresGovernor() public {
        _expectUnauthorized(protocol, governorRole);
        vm.prank(protocol);
        stakes.setMinStake(Role.Sampler, 1);
    }

    function test_setUnbondingPeriodBounds() public {
        vm.startPrank(admin);
        vm.expectEmit(false, false, false, true, address(stakes));
        emit IStakeManager.UnbondingPeriodSet(1 days);
        stakes.setUnbondingPeriod(1 days);
        assertEq(stakes.unbondingPeriod(), 1 days, "min");
        stakes.setUnbondingPeriod(90 days);
        assertEq(stakes.unbondingPeriod(), 90 days, "max");
        vm.expectRevert(
            abi.encodeWithSelector(IStakeManager.UnbondingPeriodOutOfBounds.selector, 1 days - 1, 1 days, 90 days)
        );
        stakes.setUnbondingPeriod(1 days - 1);
        vm.expectRevert(
            abi.encodeWithSelector(IStakeManager.UnbondingPeriodOutOfBounds.selector, 90 days + 1, 1 days, 90 days)
        );
        stakes.setUnbondingPeriod(90 days + 1);
        vm.stopPrank();
        assertEq(stakes.unbondingPeriod(), 90 days, "unchanged by rejected calls");
    }

    function test_setUnbondingPeriodRequiresGovernor() public {
        _expectUnauthorized(alice, governorRole);
        vm.prank(alice);
        stakes.setUnbondingPeriod(2 days);
    }

    function test_newUnbondingPeriodAppliesToNextRequest() public {
        vm.prank(admin);
        stakes.setUnbondingPeriod(2 days);
        _stake(alice, Role.Sampler, 10);
        vm.prank(alice);
        stakes.requestUnstake(Role.Sampler, 10);
        assertEq(_info(alice, Role.Sampler).unbondingReadyAt, block.timestamp + 2 days, "ready at");
    }
}

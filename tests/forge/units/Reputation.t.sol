// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {UnitBase} from "./UnitBase.sol";
import {Reputation} from "../../../contracts/Reputation.sol";
import {IReputation} from "../../../contracts/interfaces/IReputation.sol";
import {Outcome} from "../../../contracts/libraries/Types.sol";

contract ReputationTest is UnitBase {
    Reputation internal rep;
    bytes32 internal governorRole;
    bytes32 internal reporterRole;
    address internal node = address(0x40DE);

    function setUp() public {
        rep = new Reputation(admin);
        governorRole = rep.GOVERNOR_ROLE();
        reporterRole = rep.REPORTER_ROLE();
        vm.prank(admin);
        rep.grantRole(reporterRole, protocol);
        vm.warp(1_000_000);
    }

    function _record(address who, Outcome outcome) internal {
        vm.prank(protocol);
        rep.record(who, outcome);
    }

    function _recover(address who) internal {
        vm.prank(who);
        rep.recover();
    }

    // ------------------------------------------------------------ constructor

    function test_constructorDefaults() public view {
        assertEq(rep.threshold(), 60, "threshold");
        assertEq(rep.delta(Outcome.Accepted), 2, "accepted");
        assertEq(rep.delta(Outcome.Rejected), 20, "rejected");
        assertEq(rep.delta(Outcome.Missed), 10, "missed");
        assertEq(rep.delta(Outcome.AgainstQuorum), 15, "against quorum");
        assertEq(rep.delta(Outcome.Recovered), 0, "recovered has no delta");
        assertTrue(rep.hasRole(rep.DEFAULT_ADMIN_ROLE(), admin), "admin");
        assertTrue(rep.hasRole(governorRole, admin), "governor");
    }

    function test_constructorEmitsPolicy() public {
        vm.expectEmit(false, false, false, true);
        emit IReputation.ThresholdSet(60);
        vm.expectEmit(true, false, false, true);
        emit IReputation.DeltaSet(Outcome.Accepted, 2);
        vm.expectEmit(true, false, false, true);
        emit IReputation.DeltaSet(Outcome.Rejected, 20);
        vm.expectEmit(true, false, false, true);
        emit IReputation.DeltaSet(Outcome.Missed, 10);
        vm.expectEmit(true, false, false, true);
        emit IReputation.DeltaSet(Outcome.AgainstQuorum, 15);
        vm.expectEmit(false, false, false, true);
        emit IReputation.RecoveryCooldownSet(7 days);
        new Reputation(admin);
    }

    function test_constructorRejectsZeroAdmin() public {
        vm.expectRevert(IReputation.ZeroAddress.selector);
        new Reputation(address(0));
    }

    // ------------------------------------------------------------ views of an unseen node

    function test_unseenNodeHasStartScore() public view {
        assertEq(rep.scoreOf(node), 70, "start score");
        assertTrue(rep.isEligible(node), "eligible");
        IReputation.Record memory r = rep.recordOf(node);
        assertEq(r.score, 70, "record score");
        assertTrue(!r.seen, "not seen");
        assertEq(r.recoveries, 0, "recoveries");
        assertEq(r.lastPenaltyAt, 0, "no penalty");
        assertEq(rep.recoveryAvailableAt(node), 0, "not below threshold");
    }

    // ------------------------------------------------------------ record

    function test_recordAcceptedRaisesScore() public {
        vm.expectEmit(true, true, false, true, address(rep));
        emit IReputation.ReputationChanged(node, 70, 72, Outcome.Accepted);
        _record(node, Outcome.Accepted);
        IReputation.Record memory r = rep.recordOf(node);
        assertEq(r.score, 72, "score");
        assertTrue(r.seen, "seen");
        assertEq(r.lastPenaltyAt, 0, "acceptance is no penalty");
    }

    function test_recordAcceptedClampsAt100() public {
        for (uint256 i = 0; i < 15; ++i) _record(node, Outcome.Accepted); // 70 + 30 = 100
        assertEq(rep.scoreOf(node), 100, "at max");
        vm.expectEmit(true, true, false, true, address(rep));
        emit IReputation.ReputationChanged(node, 100, 100, Outcome.Accepted);
        _record(node, Outcome.Accepted);
        assertEq(rep.scoreOf(node), 100, "clamped");
    }

    function test_recordAcceptedClampsPartialStep() public {
        vm.prank(admin);
        rep.setDelta(Outcome.Accepted, 50);
        _record(node, Outcome.Accepted); // 70 + 50 > 100
        assertEq(rep.scoreOf(node), 100, "clamped to 100");
    }

    function test_recordPenaltiesLowerScoreAndStampTime() public {
        vm.expectEmit(true, true, false, true, address(rep));
        emit IReputation.ReputationChanged(node, 70, 50, Outcome.Rejected);
        _record(node, Outcome.Rejected);
        assertEq(rep.recordOf(node).lastPenaltyAt, block.timestamp, "stamped");
        vm.warp(block.timestamp + 5);
        vm.expectEmit(true, true, false, true, address(rep));
        emit IReputation.ReputationChanged(node, 50, 40, Outcome.Missed);
        _record(node, Outcome.Missed);
        vm.expectEmit(true, true, false, true, address(rep));
        emit IReputation.ReputationChanged(node, 40, 25, Outcome.AgainstQuorum);
        _record(node, Outcome.AgainstQuorum);
        assertEq(rep.recordOf(node).lastPenaltyAt, block.timestamp, "restamped");
        assertTrue(!rep.isEligible(node), "below threshold");
    }

    function test_recordPenaltyClampsAtZero() public {
        _record(node, Outcome.Rejected); // 50
        _record(node, Outcome.Rejected); // 30
        _record(node, Outcome.Rejected); // 10
        vm.expectEmit(true, true, false, true, address(rep));
        emit IReputation.ReputationChanged(node, 10, 0, Outcome.Rejected);
        _record(node, Outcome.Rejected);
        vm.expectEmit(true, true, false, true, address(rep));
        emit IReputation.ReputationChanged(node, 0, 0, Outcome.Missed);
        _record(node, Outcome.Missed);
        assertEq(rep.scoreOf(node), 0, "floor");
    }

    function test_recordPenaltyEqualToScoreReachesZero() public {
        vm.prank(admin);
        rep.setDelta(Outcome.Rejected, 35);
        _record(node, Outcome.Rejected); // 35
        _record(node, Outcome.Rejected); // exactly 0
        assertEq(rep.scoreOf(node), 0, "zero");
    }

    function test_recordRejectsRecoveredOutcome() public {
        vm.expectRevert(abi.encodeWithSelector(IReputation.NotAReportableOutcome.selector, Outcome.Recovered));
        _record(node, Outcome.Recovered);
    }

    function test_recordRequiresReporter() public {
        _expectUnauthorized(admin, reporterRole);
        vm.prank(admin);
        rep.record(node, Outcome.Accepted);
    }

    // ------------------------------------------------------------ recover

    function test_recoverRejectsNodeAtThreshold() public {
        vm.expectRevert(abi.encodeWithSelector(IReputation.NotBelowThreshold.selector, node, 70, 60));
        _recover(node);
        _record(node, Outcome.Missed); // exactly 60
        vm.expectRevert(abi.encodeWithSelector(IReputation.NotBelowThreshold.selector, node, 60, 60));
        _recover(node);
    }

    function test_recoverAfterCooldownRestoresThreshold() public {
        _record(node, Outcome.Rejected); // 50
        uint256 at = block.timestamp + 7 days;
        assertEq(rep.recoveryAvailableAt(node), at, "available at");
        vm.warp(at - 1);
        vm.expectRevert(abi.encodeWithSelector(IReputation.RecoveryNotReady.selector, node, at));
        _recover(node);
        vm.warp(at);
        vm.expectEmit(true, true, false, true, address(rep));
        emit IReputation.ReputationChanged(node, 50, 60, Outcome.Recovered);
        _recover(node);
        IReputation.Record memory r = rep.recordOf(node);
        assertEq(r.score, 60, "at threshold");
        assertEq(r.recoveries, 1, "counted");
        assertTrue(rep.isEligible(node), "eligible again");
        assertEq(rep.recoveryAvailableAt(node), 0, "no recovery pending");
    }

    function test_recoveryCooldownDoublesPerRecovery() public {
        uint256 base = 7 days;
        for (uint256 k = 0; k < 3; ++k) {
            _record(node, Outcome.Rejected);
            uint256 at = block.timestamp + (base << k);
            assertEq(rep.recoveryAvailableAt(node), at, "doubled cooldown");
            vm.warp(at - 1);
            vm.expectRevert(abi.encodeWithSelector(IReputation.RecoveryNotReady.selector, node, at));
            _recover(node);
            vm.warp(at);
            _recover(node);
        }
        assertEq(rep.recordOf(node).recoveries, 3, "three recoveries");
    }

    function test_recoveryCooldownDoublingCappedAtEight() public {
        vm.prank(admin);
        rep.setRecoveryCooldown(1 hours);
        for (uint256 k = 0; k < 12; ++k) {
            _record(node, Outcome.Rejected);
            uint256 doublings = k < 8 ? k : 8;
            uint256 at = block.timestamp + (1 hours << doublings);
            assertEq(rep.recoveryAvailableAt(node), at, "capped doubling");
            vm.warp(at);
            _recover(node);
        }
        assertEq(rep.recordOf(node).recoveries, 12, "recoveries");
    }

    function test_recoveriesCounterSaturatesAt255() public {
        vm.prank(admin);
        rep.setRecoveryCooldown(1 hours);
        for (uint256 k = 0; k < 256; ++k) {
            _record(node, Outcome.Rejected);
            vm.warp(block.timestamp + (1 hours << 8));
            _recover(node);
        }
        IReputation.Record memory r = rep.recordOf(node);
        assertEq(r.recoveries, 255, "saturated, no overflow");
        assertEq(r.score, 60, "recovered");
    }

    function test_recoverUsesCurrentThreshold() public {
        _record(node, Outcome.Rejected); // 50
        vm.prank(admin);
        rep.setThreshold(55);
        vm.warp(block.timestamp + 7 days);
        vm.expectEmit(true, true, false, true, address(rep));
        emit IReputation.ReputationChanged(node, 50, 55, Outcome.Recovered);
        _recover(node);
        assertEq(rep.scoreOf(node), 55, "new threshold");
    }

    function test_unseenNodeBelowRaisedThresholdRecoversAfterBaseCooldown() public {
        vm.prank(admin);
        rep.setThreshold(80);
        // Never penalised: lastPenaltyAt is 0, so the cooldown counts from the epoch.
        assertEq(rep.recoveryAvailableAt(node), 7 days, "from epoch");
        _recover(node);
        IReputation.Record memory r = rep.recordOf(node);
        assertEq(r.score, 80, "raised to threshold");
        assertTrue(r.seen, "now seen");
    }

    // ------------------------------------------------------------ governance

    function test_setThresholdBounds() public {
        vm.startPrank(admin);
        vm.expectEmit(false, false, false, true, address(rep));
        emit IReputation.ThresholdSet(1);
        rep.setThreshold(1);
        assertEq(rep.threshold(), 1, "min");
        rep.setThreshold(100);
        assertEq(rep.threshold(), 100, "max");
        vm.expectRevert(abi.encodeWithSelector(IReputation.ThresholdOutOfBounds.selector, 0));
        rep.setThreshold(0);
        vm.expectRevert(abi.encodeWithSelector(IReputation.ThresholdOutOfBounds.selector, 101));
        rep.setThreshold(101);
        vm.stopPrank();
        assertEq(rep.threshold(), 100, "unchanged");
    }

    function test_setDeltaBounds() public {
        vm.startPrank(admin);
        vm.expectEmit(true, false, false, true, address(rep));
        emit IReputation.DeltaSet(Outcome.Accepted, 0);
        rep.setDelta(Outcome.Accepted, 0);
        assertEq(rep.delta(Outcome.Accepted), 0, "accepted may be zero");
        rep.setDelta(Outcome.Rejected, 50);
        assertEq(rep.delta(Outcome.Rejected), 50, "max");
        rep.setDelta(Outcome.Missed, 1);
        assertEq(rep.delta(Outcome.Missed), 1, "min penalty");
        vm.expectRevert(abi.encodeWithSelector(IReputation.DeltaOutOfBounds.selector, Outcome.Accepted, 51));
        rep.setDelta(Outcome.Accepted, 51);
        vm.expectRevert(abi.encodeWithSelector(IReputation.DeltaOutOfBounds.selector, Outcome.Rejected, 0));
        rep.setDelta(Outcome.Rejected, 0);
        vm.expectRevert(abi.encodeWithSelector(IReputation.DeltaOutOfBounds.selector, Outcome.Missed, 0));
        rep.setDelta(Outcome.Missed, 0);
        vm.expectRevert(abi.encodeWithSelector(IReputation.DeltaOutOfBounds.selector, Outcome.AgainstQuorum, 0));
        rep.setDelta(Outcome.AgainstQuorum, 0);
        vm.expectRevert(abi.encodeWithSelector(IReputation.DeltaOutOfBounds.selector, Outcome.Recovered, 5));
        rep.setDelta(Outcome.Recovered, 5);
        vm.stopPrank();
    }

    function test_zeroAcceptedDeltaLeavesScore() public {
        vm.prank(admin);
        rep.setDelta(Outcome.Accepted, 0);
        _record(node, Outcome.Accepted);
        assertEq(rep.scoreOf(node), 70, "unchanged");
    }

    function test_setRecoveryCooldownBounds() public {
        vm.startPrank(admin);
        vm.expectEmit(false, false, false, true, address(rep));
        emit IReputation.RecoveryCooldownSet(1 hours);
        rep.setRecoveryCooldown(1 hours);
        rep.setRecoveryCooldown(90 days);
        vm.expectRevert(abi.encodeWithSelector(IReputation.CooldownOutOfBounds.selector, 1 hours - 1));
        rep.setRecoveryCooldown(1 hours - 1);
        vm.expectRevert(abi.encodeWithSelector(IReputation.CooldownOutOfBounds.selector, 90 days + 1));
        rep.setRecoveryCooldown(90 days + 1);
        vm.stopPrank();
        _record(node, Outcome.Rejected);
        assertEq(rep.recoveryAvailableAt(node), block.timestamp + 90 days, "max cooldown in force");
    }

    function test_settersRequireGovernor() public {
        _expectUnauthorized(protocol, governorRole);
        vm.prank(protocol);
        rep.setThreshold(50);
        _expectUnauthorized(protocol, governorRole);
        vm.prank(protocol);
        rep.setDelta(Outcome.Accepted, 1);
        _expectUnauthorized(protocol, governorRole);
        vm.prank(protocol);
        rep.setRecoveryCooldown(1 days);
    }

    function testFuzz_scoreStaysWithinBounds(uint8[24] memory outcomes) public {
        for (uint256 i = 0; i < outcomes.length; ++i) {
            Outcome o = Outcome(outcomes[i] % 4);
            uint256 before = rep.scoreOf(node);
            _record(node, o);
            uint256 afterScore = rep.scoreOf(node);
            assertLe(afterScore, 100, "<= 100");
            if (o == Outcome.Accepted) {
                assertEq(afterScore, before + 2 > 100 ? 100 : before + 2, "raise");
            } else {
                uint256 d = rep.delta(o);
                assertEq(afterScore, d > before ? 0 : before - d, "lower");
            }
        }
    }
}

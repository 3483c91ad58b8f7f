// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {TestBase} from "../base/Vm.sol";
import {Handler} from "./Handler.sol";
import {RLToken} from "../../../contracts/RLToken.sol";
import {StakeManager} from "../../../contracts/StakeManager.sol";
import {Reputation} from "../../../contracts/Reputation.sol";
import {RewardVault} from "../../../contracts/RewardVault.sol";
import {TaskRegistry} from "../../../contracts/TaskRegistry.sol";
import {ProtocolConfig} from "../../../contracts/ProtocolConfig.sol";
import {TaskFront} from "../../../contracts/periphery/TaskFront.sol";
import {StateView} from "../../../contracts/periphery/StateView.sol";
import {KeyringBoard} from "../../../contracts/KeyringBoard.sol";
import {DisputeManager} from "../../../contracts/DisputeManager.sol";
import {ITaskRegistry} from "../../../contracts/interfaces/ITaskRegistry.sol";
import {IStakeManager} from "../../../contracts/interfaces/IStakeManager.sol";
import {Role} from "../../../contracts/libraries/Types.sol";
import {BN254} from "../../../contracts/libraries/BN254.sol";

/// @notice Deploys and wires the protocol as scripts/deploy.py does, funds a fixed set of actors,
///         and states the accounting invariants as internal checks.
abstract contract InvariantBase is TestBase {
    uint256 internal constant TOKEN = 1e18;
    uint256 internal constant SUPPLY = 1_000_000_000 * TOKEN;
    uint256 internal constant N_REQUESTERS = 3;
    uint256 internal constant N_NODES = 10;

    address internal admin = address(0xAD);
    address internal treasury = address(0x7EA5);
    address internal slasher = address(0x51A5);

    RLToken internal token;
    StakeManager internal stakes;
    Reputation internal reputation;
    RewardVault internal vault;
    ProtocolConfig internal config;
    TaskRegistry internal registry;
    TaskFront internal front;
    KeyringBoard internal keyrings;
    DisputeManager internal disputes; // deployed, not active (scripts/deploy.py's default)
    StateView internal stateView;
    Handler internal handler;
    address[] internal requesters;
    address[] internal nodes;

    function _deploy() internal {
        vm.warp(1_000_000);
        vm.roll(1000);
        vm.startPrank(admin);
        token = new RLToken(admin, SUPPLY);
        stakes = new StakeManager(token, admin, [100 * TOKEN, 500 * TOKEN, 200 * TOKEN], 7 days);
        reputation = new Reputation(admin);
        vault = new RewardVault(token, admin);
        config = new ProtocolConfig(admin, treasury);
        // No minimum bounty here: the handler creates dust-sized tasks on purpose, to check the payout
        // rounding (the minimum itself is tests/forge/registry/MinBounty.t.sol's).
        config.setMinBountyPerSlotRound(0);
        registry = new TaskRegistry(token, stakes, reputation, vault, config, admin);
        stakes.grantRole(stakes.PROTOCOL_ROLE(), address(registry));
        reputation.grantRole(reputation.REPORTER_ROLE(), address(registry));
        vault.grantRole(vault.ESCROW_ROLE(), address(registry));
        front = new TaskFront(registry);
        keyrings = new KeyringBoard(registry);
        disputes = new DisputeManager(token, registry, stakes, reputation, vault, config);
        stakes.grantRole(stakes.PROTOCOL_ROLE(), address(disputes));
        reputation.grantRole(reputation.REPORTER_ROLE(), address(disputes));
        stateView = new StateView(registry, disputes);
        registry.setTaskFront(address(front));
        stakes.grantRole(stakes.PROTOCOL_ROLE(), slasher);
        for (uint256 i = 0; i < N_REQUESTERS; ++i) {
            address r = address(uint160(0x1000 + i));
            requesters.push(r);
            token.transfer(r, 1_000_000 * TOKEN);
        }
        for (uint256 i = 0; i < N_NODES; ++i) {
            address n = address(uint160(0x2000 + i));
            nodes.push(n);
            token.transfer(n, 20_000 * TOKEN);
        }
        vm.stopPrank();
        for (uint256 i = 0; i < N_REQUESTERS; ++i) {
            vm.prank(requesters[i]);
            token.approve(address(registry), type(uint256).max);
        }
        // Every node starts staked for two or three assignments in each role.
        for (uint256 i = 0; i < N_NODES; ++i) {
            vm.startPrank(nodes[i]);
            token.approve(address(stakes), type(uint256).max);
            stakes.stake(Role.Sampler, 300 * TOKEN);
            stakes.stake(Role.Trainer, 1000 * TOKEN);
            stakes.stake(Role.Validator, 400 * TOKEN);
            vm.stopPrank();
        }
        handler = new Handler(token, stakes, reputation, vault, registry, stateView, slasher, treasury, requesters, nodes);
        handler.syncModel();
        handler.registerBlsKeys();
    }

    // ------------------------------------------------------------ (a) conservation

    function _checkConservation() internal view {
        uint256 sum = token.balanceOf(admin) + token.balanceOf(treasury) + token.balanceOf(slasher)
            + token.balanceOf(address(handler)) + token.balanceOf(address(registry));
        for (uint256 i = 0; i < requesters.length; ++i) sum += token.balanceOf(requesters[i]);
        for (uint256 i = 0; i < nodes.length; ++i) sum += token.balanceOf(nodes[i]);
        uint256 held = token.balanceOf(address(stakes));
        uint256 inVault = token.balanceOf(address(vault));
        assertEq(sum + held + inVault, token.totalSupply(), "actors + stakes + vault == supply");
        assertEq(held, stakes.totalStaked(), "StakeManager balance == totalStaked");
        assertEq(inVault, vault.totalEscrow() + vault.totalClaimable(), "vault balance == escrow + claimable");
        assertEq(token.balanceOf(address(registry)), 0, "registry holds nothing");
    }

    // ------------------------------------------------------------ (b) per-task escrow

    function _checkTaskEscrow() internal view {
        uint256 count = stateView.taskCount();
        uint256 escrowSum;
        for (uint256 id = 1; id <= count; ++id) {
            ITaskRegistry.Task memory t = stateView.taskOf(id);
            uint256[3] memory paid = stateView.paidOf(id);
            uint256 paidSum = paid[0] + paid[1] + paid[2];
            uint256 escrow = vault.escrowOf(id);
            escrowSum += escrow;
            for (uint256 r = 0; r < 3; ++r) assertEq(paid[r], handler.ghostPaid(id, r), "paidOf == RewardEarned sum");
            assertLe(paidSum + escrow, t.bounty, "paid + escrow <= bounty");
            bool settled = t.status == ITaskRegistry.Status.Completed || t.status == ITaskRegistry.Status.Cancelled
                || t.status == ITaskRegistry.Status.Failed || t.status == ITaskRegistry.Status.NoResult;
            assertTrue(settled == handler.ghostSettled(id), "TaskSettled seen iff settled");
            // Honest outcomes (SPECIFICATION.md 5.1): Completed only with an accepted checkpoint, NoResult only without.
            if (t.status == ITaskRegistry.Status.Completed) assertTrue(t.checkpointRoot != bytes32(0), "completed with a checkpoint");
            if (t.status == ITaskRegistry.Status.NoResult) assertEq(t.checkpointRoot, bytes32(0), "no result: no checkpoint");
            if (settled) {
                assertEq(paidSum + handler.ghostRefund(id), t.bounty, "settled: paid + refund == bounty");
                assertEq(escrow, 0, "settled: no escrow left");
            } else {
                assertEq(paidSum + escrow, t.bounty, "running: paid + escrow == bounty");
            }
        }
        assertEq(escrowSum, vault.totalEscrow(), "sum of task escrows == totalEscrow");
    }

    // ------------------------------------------------------------ (c) role shares

    function _checkRoleShares() internal view {
        assertEq(handler.ghostWrongRewardAmounts(), 0, "each reward is exactly one slot's share of the round pool");
        uint256 count = stateView.taskCount();
        for (uint256 id = 1; id <= count; ++id) {
            ITaskRegistry.Task memory t = stateView.taskOf(id);
            uint256[3] memory paid = stateView.paidOf(id);
            for (uint256 r = 0; r < 3; ++r) {
                uint256 share = t.bounty * t.sharesBps[r] / 10_000;
                assertLe(paid[r], share, "role paid <= its share");
                // Per round, at most one reward per slot (with exact slot shares: never over the round pool).
                uint256 slots = r == 0 ? t.numSamplers : (r == 1 ? 1 : t.numValidators);
                for (uint256 round = 0; round < t.numRounds; ++round) {
                    assertLe(handler.payees(id, round)[r], slots, "at most one reward per slot and round");
                }
                if (handler.ghostFullyAccepted(id)) {
                    uint256 payeeCount = r == uint256(Role.Sampler)
                        ? t.numSamplers
                        : (r == uint256(Role.Trainer) ? 1 : t.numValidators);
                    assertTrue(share - paid[r] < uint256(t.numRounds) * payeeCount, "all accepted: dust < rounds*payees");
                }
            }
        }
    }

    // ------------------------------------------------------------ (d) nothing paid twice

    function _checkNothingPaidTwice() internal view {
        assertEq(handler.ghostCredited(), handler.ghostVaultCredited(), "every vault credit is a RewardEarned");
        assertEq(
            handler.ghostCredited() + handler.ghostRefunded(),
            vault.totalClaimable() + handler.ghostWithdrawn(),
            "credited + refunded == claimable + withdrawn"
        );
        uint256 claimable;
        for (uint256 i = 0; i < requesters.length; ++i) claimable += vault.claimableOf(requesters[i]);
        for (uint256 i = 0; i < nodes.length; ++i) claimable += vault.claimableOf(nodes[i]);
        assertEq(claimable, vault.totalClaimable(), "claimable balances add up");
        assertEq(handler.ghostRewardWithdrawMismatches(), 0, "withdraw paid exactly the amount");
    }

    // ------------------------------------------------------------ (e) eligibility at assignment

    function _checkOnlyEligibleAssigned() internal view {
        assertEq(handler.ghostIneligibleAssignments(), 0, "no assignment below the reputation threshold");
        assertEq(handler.ghostPausedAssignments(), 0, "no assignment of a paused node");
        assertEq(handler.ghostUnderstakedAssignments(), 0, "no assignment without the minimum unlocked stake");
    }

    // ------------------------------------------------------------ (f) stakes

    function _checkStakes() internal view {
        uint256[3][] memory expectedLocked = new uint256[3][](nodes.length);
        uint256 count = stateView.taskCount();
        for (uint256 id = 1; id <= count; ++id) {
            ITaskRegistry.Task memory t = stateView.taskOf(id);
            bool running = t.status == ITaskRegistry.Status.Open || t.status == ITaskRegistry.Status.Drawing
                || t.status == ITaskRegistry.Status.Active;
            if (!running) continue;
            for (uint256 r = 0; r < 3; ++r) {
                uint256 slots = r == 0 ? t.numSamplers : (r == 1 ? 1 : t.numValidators);
                for (uint256 k = 0; k < slots; ++k) {
                    ITaskRegistry.Slot memory slot = stateView.slotOf(id, Role(r), k);
                    if (slot.node != address(0)) expectedLocked[_nodeIndex(slot.node)][r] += slot.lockedStake;
                }
            }
        }
        uint256 total;
        for (uint256 i = 0; i < nodes.length; ++i) {
            for (uint256 r = 0; r < 3; ++r) {
                IStakeManager.StakeInfo memory info = stakes.stakeOf(nodes[i], Role(r));
                assertLe(info.locked, info.staked, "locked <= staked");
                assertEq(info.locked, expectedLocked[i][r], "locked == stake of held slots");
                assertEq(info.staked, handler.modelStaked(nodes[i], Role(r)), "staked matches model");
                assertEq(info.unbonding, handler.modelUnbonding(nodes[i], Role(r)), "unbonding matches model");
                total += uint256(info.staked) + info.unbonding;
            }
        }
        assertEq(total, stakes.totalStaked(), "totalStaked == sum of stakes");
        assertEq(handler.ghostUnbondedMismatches(), 0, "withdrawUnbonded paid exactly the post-slash unbonding; no slash beyond the stake");
    }

    // ------------------------------------------------------------ (g) liveness

    /// @dev Every running task can be moved on once its deadline has passed: `advance` never gets
    ///      stuck (it would lock the stakes and the escrow of the task for good). Tried on a state
    ///      snapshot, which is thrown away afterwards.
    function _checkAdvanceNeverStuck() internal {
        uint256 count = stateView.taskCount();
        for (uint256 id = 1; id <= count; ++id) {
            ITaskRegistry.Task memory t = stateView.taskOf(id);
            bool active = t.status == ITaskRegistry.Status.Active;
            if (!active && t.status != ITaskRegistry.Status.Open && t.status != ITaskRegistry.Status.Drawing) continue;
            uint256 snap = vm.snapshotState();
            uint256 deadline = active ? t.phaseDeadline : t.claimDeadline;
            if (block.timestamp <= deadline) vm.warp(deadline + 1);
            (bool ok, bytes memory reason) = address(registry).call(abi.encodeCall(registry.advance, (id)));
            if (!ok) revert AssertionFailed(string.concat("advance stuck: ", string(reason)), id, uint256(t.status));
            vm.revertToState(snap);
        }
    }

    // ------------------------------------------------------------ (h) no penalty without input

    /// @dev A trainer misses a deadline only in a round with a revealed sample, a validator only in a
    ///      round with a revealed submission: a round without samples ends idle, penalising nobody.
    function _checkNoPenaltyWithoutInput() internal view {
        assertEq(handler.ghostMissedWithoutInput(), 0, "no trainer or validator missed a phase it had no input for");
    }

    function _nodeIndex(address node) internal view returns (uint256) {
        for (uint256 i = 0; i < nodes.length; ++i) {
            if (nodes[i] == node) return i;
        }
        revert AssertionFailed("slot held by an unknown node", uint160(node), 0);
    }

    function _checkAll() internal view {
        _checkConservation();
        _checkTaskEscrow();
        _checkRoleShares();
        _checkNothingPaidTwice();
        _checkOnlyEligibleAssigned();
        _checkStakes();
        _checkNoPenaltyWithoutInput();
        _checkNoForgedAggregate();
        _checkAggregateKeys();
        _checkAttestAccounting();
        _checkDraws();
    }

    // ------------------------------------------------------------ (l) forced errors

    function _checkDraws() internal view {
        assertEq(handler.ghostBadDrawOpensAccepted(), 0, "no draw opened with a wrong secret");
        assertEq(handler.ghostForcedMismatches(), 0, "forced == keccak(secret, seed) % 10000 < forcedErrorBps");
    }

    // ------------------------------------------------------------ (i) BLS aggregates

    function _checkNoForgedAggregate() internal view {
        assertEq(handler.ghostForgedAggregatesAccepted(), 0, "no aggregate over another message or signer set is accepted");
    }

    /// @dev Each task's stored aggregate key is the sum of the G1 keys of the holders of its mask's
    ///      slots, and the mask is exactly the held validator slots whose holder had a BLS key when
    ///      it took the slot (the handler's record, from SlotAssigned); keys are never replaced.
    function _checkAggregateKeys() internal view {
        assertEq(handler.ghostKeysReplaced(), 0, "a BLS key was replaced");
        uint256 count = stateView.taskCount();
        for (uint256 id = 1; id <= count; ++id) {
            ITaskRegistry.Task memory t = stateView.taskOf(id);
            uint256[2] memory sum;
            uint256 expectedMask;
            for (uint256 v = 0; v < t.numValidators; ++v) {
                address node = stateView.slotOf(id, Role.Validator, v).node;
                if (node == address(0) || !handler.keyedAtJoin(id, v)) continue;
                expectedMask |= 1 << v;
                sum = BN254.add(sum, stakes.blsKeyG1Of(node));
            }
            (uint256[2] memory apk, uint256 mask) = stateView.aggregateKeyOf(id);
            assertEq(mask, expectedMask, "BLS mask == held slots keyed at join");
            assertEq(apk[0], sum[0], "task key x == sum of the mask holders' G1 keys");
            assertEq(apk[1], sum[1], "task key y == sum of the mask holders' G1 keys");
        }
    }

    /// @dev While a task's Attest phase is open, its held validator slots are exactly those still
    ///      expected (pending), those that sealed a vote and those that joined too late to work this
    ///      round. While AttestReveal is open, pending counts exactly the sealed votes not yet opened
    ///      and the workers' draws not yet opened (SPECIFICATION.md 5.5.3), and no sealed slot has
    ///      voted: what AggregateAttest relies on when it takes a sealed vote as "expected this round
    ///      and not yet voted" (SPECIFICATION.md 5.5.1). Only revealed submissions have draws, and
    ///      none is opened before AttestReveal.
    function _checkAttestAccounting() internal view {
        uint256 count = stateView.taskCount();
        for (uint256 id = 1; id <= count; ++id) {
            ITaskRegistry.Task memory t = stateView.taskOf(id);
            if (t.status != ITaskRegistry.Status.Active || t.phase < ITaskRegistry.Phase.Attest) continue;
            uint256 accounted = t.pending;
            uint256 sealedVotes;
            uint256 unopened = stateView.drawnMask(id, t.round) & ~stateView.openedDrawMask(id, t.round);
            uint256 drawsToOpen;
            for (uint256 i = 0; i <= t.numSamplers; ++i) {
                if ((unopened >> i) & 1 == 1) ++drawsToOpen;
            }
            for (uint256 v = 0; v < t.numValidators; ++v) {
                ITaskRegistry.Slot memory slot = stateView.slotOf(id, Role.Validator, v);
                bool isSealed = stateView.attestCommitmentOf(id, t.round, v) != bytes32(0);
                if (isSealed) {
                    ++sealedVotes;
                    assertTrue(slot.node != address(0), "a sealed vote's slot is held");
                    assertTrue(!registry.attestationOf(id, t.round, v).voted, "a sealed vote has not voted");
                }
                if (slot.node == address(0)) continue;
                if (slot.sinceRound > t.round || isSealed) ++accounted;
            }
            if (t.phase == ITaskRegistry.Phase.Attest) {
                assertEq(t.filledValidators, accounted, "Attest: filledValidators == pending + sealed + late joiners");
            } else {
                assertEq(t.pending, sealedVotes + drawsToOpen, "AttestReveal: pending == sealed votes + draws not yet opened");
            }
            // Draws (forced errors): only revealed submissions have one, and none opens before AttestReveal.
            assertEq(stateView.drawnMask(id, t.round) & ~uint256(t.revealedMask), 0, "a draw is a revealed submission's");
            if (t.phase == ITaskRegistry.Phase.Attest) {
                assertEq(stateView.openedDrawMask(id, t.round), 0, "no draw opened before AttestReveal");
            }
        }
    }
}

// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {InvariantBase} from "./InvariantBase.sol";
import {Handler} from "./Handler.sol";
import {FuzzSelector} from "./VmLogs.sol";

/// @notice Stateful invariants of the protocol's accounting (runs/depth from foundry.toml).
contract ProtocolInvariants is InvariantBase {
    function setUp() public {
        _deploy();
    }

    function targetContracts() public view returns (address[] memory targets) {
        targets = new address[](1);
        targets[0] = address(handler);
    }

    function targetSelectors() public view returns (FuzzSelector[] memory targets) {
        bytes4[] memory s = new bytes4[](25);
        s[0] = Handler.createTask.selector;
        s[1] = Handler.cancelTask.selector;
        s[2] = Handler.stake.selector;
        s[3] = Handler.requestUnstake.selector;
        s[4] = Handler.withdrawUnbonded.selector;
        s[5] = Handler.setPaused.selector;
        s[6] = Handler.slashDirect.selector;
        s[7] = Handler.claim.selector;
        s[8] = Handler.draw.selector;
        s[9] = Handler.commit.selector;
        s[10] = Handler.reveal.selector;
        s[11] = Handler.attest.selector;
        s[12] = Handler.warpAndAdvance.selector;
        s[13] = Handler.withdrawReward.selector;
        s[14] = Handler.recover.selector;
        s[15] = Handler.progress.selector;
        s[16] = Handler.progress2.selector;
        s[17] = Handler.progress3.selector;
        s[18] = Handler.progress4.selector;
        s[19] = Handler.progress5.selector;
        s[20] = Handler.progress6.selector;
        s[21] = Handler.progress7.selector;
        s[22] = Handler.progress8.selector;
        s[23] = Handler.createTask.selector; // weighted: tasks are what the other actions need
        s[24] = Handler.registerLateKey.selector;
        targets = new FuzzSelector[](1);
        targets[0] = FuzzSelector(address(handler), s);
    }

    /// (a) tokens are neither created nor lost; each holder's books match its balance.
    function invariant_conservation() public view {
        _checkConservation();
    }

    /// (b) a task never pays out more than its bounty; once settled, paid + refund == bounty.
    function invariant_taskEscrowBounded() public view {
        _checkTaskEscrow();
    }

    /// (c) no role gets more than its share; with all work accepted, only rounding dust is missing.
    function invariant_roleShares() public view {
        _checkRoleShares();
    }

    /// (d) every credit is a RewardEarned, and claimable + withdrawn == credited + refunded.
    function invariant_nothingPaidTwice() public view {
        _checkNothingPaidTwice();
    }

    /// (e) every assignment went to a node at or above the reputation threshold (and not paused).
    function invariant_onlyEligibleAssigned() public view {
        _checkOnlyEligibleAssigned();
    }

    /// (g) a running task past its deadline can always be advanced (never stuck).
    function invariant_advanceNeverStuck() public {
        _checkAdvanceNeverStuck();
    }

    /// (f) locked <= staked, locked backs exactly the held slots, slashes follow the model.
    function invariant_stakes() public view {
        _checkStakes();
    }

    /// (h) nobody is penalised for missing work it had no input for (a round without samples).
    function invariant_noPenaltyWithoutInput() public view {
        _checkNoPenaltyWithoutInput();
    }

    /// (i) a BLS aggregate counts only when its signers signed exactly this verdict.
    function invariant_noForgedAggregate() public view {
        _checkNoForgedAggregate();
    }

    /// (l) a draw opens only with its secret, and is forced exactly as the formula says.
    function invariant_drawsOpenOnlyWithTheirSecret() public view {
        _checkDraws();
    }

    /// (j) each task's aggregate key == sum of the G1 keys of its BLS mask's slot holders.
    function invariant_aggregateKeys() public view {
        _checkAggregateKeys();
    }

    /// (k) Attest: filledValidators == pending + sealed + late joiners; AttestReveal: pending ==
    ///     sealed votes + draws not yet opened, no sealed vote has voted; draws are revealed work's.
    function invariant_attestAccounting() public view {
        _checkAttestAccounting();
    }
}

// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {DisputeFixture} from "./DisputeFixture.sol";
import {EpisodeFixtures} from "./EpisodeFixtures.sol";
import {IDisputeManager} from "../../../contracts/interfaces/IDisputeManager.sol";
import {ITaskRegistry} from "../../../contracts/interfaces/ITaskRegistry.sol";
import {EpisodeCheck} from "../../../contracts/libraries/EpisodeCheck.sol";
import {Role} from "../../../contracts/libraries/Types.sol";

/// @notice SPECIFICATION.md "Disputes", on-chain settlement: episodes encoded by the workers' Python
///         code (tools/episode_fixtures.py) proven against the sampler's revealed root.
contract DisputeProofTest is DisputeFixture {
    uint256 internal constant HONEST = 0;
    uint256 internal constant HONEST_ESCAPED = 1;
    uint256 internal constant WRONG_ROUND = 2;
    uint256 internal constant WRONG_SHARD = 3;
    uint256 internal constant WRONG_SEEDS = 4;
    uint256 internal constant BAD_MAGIC = 5;

    function test_fault_upholds_a_dispute_of_an_accepted_sample() public {
        uint256 taskId = _decidedRound(ACCEPT_ALL);
        address cheat = _samplerAt(taskId, 0);
        uint256 id = _open(taskId, Role.Sampler, 0);
        uint256 requesterClaimable = vault.claimableOf(requester);
        _prove(id, WRONG_SEEDS);
        _assertDisputeStatus(id, IDisputeManager.Status.Upheld);
        assertEq(vault.heldOf(taskId, 0, cheat), 0, "cheat's pay reclaimed");
        assertEq(stateView.paidOf(taskId)[uint8(Role.Sampler)], _sampleShare(), "only the honest sampler stays paid");
        _assertStatus(taskId, ITaskRegistry.Status.Failed);
        // The requester gets the cheat's and the three validators' pay back plus the unspent escrow.
        assertGe(vault.claimableOf(requester) - requesterClaimable, _sampleShare() + 3 * _validatorShare(), "refund");
        // The accepters lose their pay (above), not stake: the pot is the cheat's slash.
        assertEq(stateView.owedOf(disputer), BOND + MIN_SAMPLER_STAKE / 10, "bond back plus the slash");
        assertEq(reputation.scoreOf(cheat), 70 + 2 - 20, "cheat marked down");
    }

    function test_fault_dismisses_a_dispute_of_a_rejected_sample() public {
        // Sampler 0's bad shard was rightly rejected; a dispute of it loses its bond to the prover.
        uint256 taskId = _decidedRound(0x6);
        uint256 id = _open(taskId, Role.Sampler, 0);
        address prover = _named("prover");
        vm.prank(prover);
        disputes.proveFault(id, EpisodeFixtures.item(WRONG_ROUND), EpisodeFixtures.proof(WRONG_ROUND));
        _assertDisputeStatus(id, IDisputeManager.Status.Dismissed);
        assertEq(stateView.owedOf(prover), BOND, "bond to the prover");
        assertEq(stateView.owedOf(disputer), 0, "disputer loses");
        _assertStatus(taskId, ITaskRegistry.Status.Active);
    }

    function test_each_checkable_fault_is_recognised() public {
        uint256 taskId = _decidedRound(ACCEPT_ALL);
        uint256[4] memory bad = [WRONG_ROUND, WRONG_SHARD, WRONG_SEEDS, BAD_MAGIC];
        EpisodeCheck.Fault[4] memory kinds = [
            EpisodeCheck.Fault.WrongRound,
            EpisodeCheck.Fault.WrongShard,
            EpisodeCheck.Fault.WrongSeeds,
            EpisodeCheck.Fault.BadEncoding
        ];
        uint256 id = _open(taskId, Role.Sampler, 0);
        for (uint256 k = 0; k < 4; ++k) {
            uint256 snap = vm.snapshotState();
            vm.expectEmit(true, true, false, true, address(disputes));
            emit IDisputeManager.FaultProven(id, address(this), kinds[k]);
            disputes.proveFault(id, EpisodeFixtures.item(bad[k]), EpisodeFixtures.proof(bad[k]));
            vm.revertToState(snap);
        }
    }

    function test_honest_episodes_prove_nothing() public {
        uint256 taskId = _decidedRound(ACCEPT_ALL);
        uint256 id = _open(taskId, Role.Sampler, 0);
        vm.expectRevert(abi.encodeWithSelector(IDisputeManager.NoFaultProven.selector, id));
        disputes.proveFault(id, EpisodeFixtures.item(HONEST), EpisodeFixtures.proof(HONEST));
        vm.expectRevert(abi.encodeWithSelector(IDisputeManager.NoFaultProven.selector, id));
        disputes.proveFault(id, EpisodeFixtures.item(HONEST_ESCAPED), EpisodeFixtures.proof(HONEST_ESCAPED));
    }

    function test_item_not_under_the_root_reverts() public {
        uint256 taskId = _decidedRound(ACCEPT_ALL);
        uint256 id = _open(taskId, Role.Sampler, 0);
        vm.expectRevert(abi.encodeWithSelector(IDisputeManager.NotInRoot.selector, id));
        disputes.proveFault(id, EpisodeFixtures.item(WRONG_SEEDS), EpisodeFixtures.proof(WRONG_ROUND));
        // Sampler 1 revealed another root: the fixture's faulty episode is not its own.
        uint256 other = _open(taskId, Role.Sampler, 1);
        vm.expectRevert(abi.encodeWithSelector(IDisputeManager.NotInRoot.selector, other));
        disputes.proveFault(other, EpisodeFixtures.item(WRONG_SEEDS), EpisodeFixtures.proof(WRONG_SEEDS));
    }

    function test_trainer_disputes_are_not_provable() public {
        uint256 taskId = _decidedRound(ACCEPT_ALL);
        uint256 id = _open(taskId, Role.Trainer, 0);
        vm.expectRevert(abi.encodeWithSelector(IDisputeManager.NotProvable.selector, id, Role.Trainer));
        disputes.proveFault(id, EpisodeFixtures.item(WRONG_SEEDS), EpisodeFixtures.proof(WRONG_SEEDS));
    }

    function test_settled_dispute_cannot_be_proven_again() public {
        uint256 taskId = _decidedRound(ACCEPT_ALL);
        uint256 id = _open(taskId, Role.Sampler, 0);
        _prove(id, WRONG_SEEDS);
        vm.expectRevert(
            abi.encodeWithSelector(IDisputeManager.WrongDisputeStatus.selector, id, IDisputeManager.Status.Upheld)
        );
        _prove(id, WRONG_ROUND);
    }

    function test_fault_during_voting_releases_jurors_without_penalty() public {
        uint256 taskId = _decidedRound(ACCEPT_ALL);
        uint256 id = _open(taskId, Role.Sampler, 0);
        _drawJurors(id);
        address juror = stateView.jurorOf(id, 0).node;
        assertEq(_lockedOf(juror, Role.Validator), MIN_VALIDATOR_STAKE, "juror locked");
        _prove(id, WRONG_SHARD);
        assertEq(_lockedOf(juror, Role.Validator), 0, "juror unlocked");
        assertEq(reputation.scoreOf(juror), 70, "juror untouched");
        assertEq(stateView.owedOf(juror), 0, "no award without a vote");
    }

    function _prove(uint256 id, uint256 i) private {
        disputes.proveFault(id, EpisodeFixtures.item(i), EpisodeFixtures.proof(i));
    }
}

// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {RegistryFixture} from "../base/RegistryFixture.sol";
import {IDisputeManager} from "../../../contracts/interfaces/IDisputeManager.sol";
import {ITaskRegistry} from "../../../contracts/interfaces/ITaskRegistry.sol";
import {Role} from "../../../contracts/libraries/Types.sol";
import {EpisodeFixtures} from "./EpisodeFixtures.sol";

/// @notice The protocol with its DisputeManager active as scripts/deploy.py makes it, seven more
///         validators (the 2n + 1 jurors of a default task: the pool is then the task's three plus
///         exactly seven outsiders), a funded disputer and helpers that reach a disputable round.
abstract contract DisputeFixture is RegistryFixture {
    uint256 internal constant BOND = 100e18;
    uint256 internal constant JURORS = 2 * NUM_VALIDATORS + 1;

    address internal disputer;
    address[] internal extraValidators;

    function setUp() public virtual override {
        super.setUp();
        // scripts/deploy.py with activate_disputes: the deployed DisputeManager becomes the registry's.
        vm.prank(admin);
        registry.setDisputeManager(address(disputes));
        for (uint256 i = 0; i < JURORS; ++i) {
            extraValidators.push(_stakedNode(string.concat("juror", _digit(i)), Role.Validator, MIN_VALIDATOR_STAKE));
        }
        disputer = _named("disputer");
        vm.prank(admin);
        token.transfer(disputer, 10 * BOND);
        vm.prank(disputer);
        token.approve(address(disputes), type(uint256).max);
    }

    /// @dev An active task whose round 0 was worked by everyone (sampler slot 0 revealing the
    ///      episode fixtures' root) and attested with `bitmap` by every validator: round 0 has
    ///      verdicts and the dispute window is open.
    function _decidedRound(uint256 bitmap) internal returns (uint256 taskId) {
        taskId = _activeTask();
        address first = _samplerAt(taskId, 0);
        bytes32 commitment = stateView.commitmentFor(taskId, 0, first, EpisodeFixtures.root(), RESULT_CID, bytes32(0));
        vm.prank(first);
        registry.commit(taskId, commitment);
        _commit(taskId, _samplerAt(taskId, 1));
        vm.prank(first);
        registry.reveal(taskId, EpisodeFixtures.root(), RESULT_CID, bytes32(0));
        _reveal(taskId, _samplerAt(taskId, 1));
        address t = _trainerOf(taskId);
        _commit(taskId, t);
        _reveal(taskId, t);
        _attestAll(taskId, bitmap);
    }

    function _open(uint256 taskId, Role role, uint256 slot) internal returns (uint256) {
        vm.prank(disputer);
        return disputes.openDispute(taskId, 0, role, slot, BOND, IDisputeManager.Evidence.Whole, 0);
    }

    /// @dev Draws the jurors of `disputeId` (the pool has exactly enough outsiders).
    function _drawJurors(uint256 disputeId) internal {
        vm.roll(stateView.disputeOf(disputeId).seedBlock + 1);
        disputes.drawJurors(disputeId);
    }

    /// @dev The first `upholds` jurors vote uphold, the next `dismisses` dismiss, the rest abstain:
    ///      the votes are committed, then (past the commit deadline when some abstain) revealed.
    function _vote(uint256 disputeId, uint256 upholds, uint256 dismisses) internal {
        uint256 voters = upholds + dismisses;
        for (uint256 s = 0; s < voters; ++s) {
            _commit(disputeId, s, s < upholds);
        }
        if (voters < stateView.disputeOf(disputeId).jurorCount) _warpPastCommits(disputeId);
        for (uint256 s = 0; s < voters; ++s) {
            _reveal(disputeId, s, s < upholds);
        }
    }

    function _salt(uint256 seat) internal pure returns (bytes32) {
        return keccak256(abi.encode("salt", seat));
    }

    function _commitment(uint256 disputeId, address juror, bool uphold, bytes32 salt) internal pure returns (bytes32) {
        return keccak256(abi.encode(disputeId, juror, uphold, salt));
    }

    function _commit(uint256 disputeId, uint256 seat, bool uphold) internal {
        address juror = stateView.jurorOf(disputeId, seat).node;
        vm.prank(juror);
        disputes.commitVote(disputeId, _commitment(disputeId, juror, uphold, _salt(seat)));
    }

    function _reveal(uint256 disputeId, uint256 seat, bool uphold) internal {
        vm.prank(stateView.jurorOf(disputeId, seat).node);
        disputes.revealVote(disputeId, uphold, _salt(seat));
    }

    function _warpPastCommits(uint256 disputeId) internal {
        _warpToProtocolTime(uint256(stateView.disputeOf(disputeId).voteDeadline) + 1);
    }

    function _warpPastWindow(uint256 taskId) internal {
        _warpToProtocolTime(stateView.windowEndOf(taskId, 0) + 1);
    }

    function _warpPastVote(uint256 disputeId) internal {
        _warpToProtocolTime(uint256(stateView.disputeOf(disputeId).revealDeadline) + 1);
    }

    function _sampleShare() internal pure returns (uint256) {
        return BOUNTY * 2000 / 10_000 / NUM_ROUNDS / NUM_SAMPLERS;
    }

    function _validatorShare() internal pure returns (uint256) {
        return BOUNTY * 1000 / 10_000 / NUM_ROUNDS / NUM_VALIDATORS;
    }

    function _assertDisputeStatus(uint256 disputeId, IDisputeManager.Status status) internal view {
        assertEq(uint256(stateView.disputeOf(disputeId).status), uint256(status), "dispute status");
    }
}

// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {ForcedFixture} from "../base/ForcedFixture.sol";
import {ITaskRegistry} from "../../../contracts/interfaces/ITaskRegistry.sol";
import {Role} from "../../../contracts/libraries/Types.sol";

/// @notice SPECIFICATION.md 5.5.3: a worker commits the draw of the first round it works in its slot
///         with commitDraw (its later draws come with its reveals' salts), before that round's seed
///         is fixed; a round-0 draw is then opened and judged like any other.
contract CommitDrawTest is ForcedFixture {
    uint256 private taskId;

    function setUp() public override {
        super.setUp();
        taskId = _createTask();
    }

    function _commitDrawAs(address node, uint256 round) private {
        bytes32 commitment = _drawCommitmentOf(taskId, round, node);
        vm.prank(node);
        registry.commitDraw(taskId, commitment);
    }

    /// @dev Every worker claims and commits its round-0 draw, then the validators are drawn.
    function _activeWithFirstDraws() private {
        _fillSlots(taskId);
        for (uint256 i = 0; i < 2; ++i) {
            _commitDrawAs(samplers[i], 0);
        }
        _commitDrawAs(trainers[0], 0);
        _draw(taskId);
    }

    function test_commitDraw_storesTheFirstRoundsCommitmentAndEmits() public {
        _claim(taskId, samplers[0], Role.Sampler);
        bytes32 commitment = _drawCommitmentOf(taskId, 0, samplers[0]);
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.DrawCommitted(taskId, 0, samplers[0], commitment);
        vm.prank(samplers[0]);
        registry.commitDraw(taskId, commitment);
        assertEq(stateView.drawCommitmentOf(taskId, 0, samplers[0]), commitment, "stored for round 0");
    }

    function test_roundZeroIsSeededAndItsDrawsAreOpenedAndJudged() public {
        _activeWithFirstDraws();
        bytes32 seed = stateView.roundSeed(taskId, 0);
        assertEq(seed, blockhash(block.number - 1), "seeded when round 0's SampleCommit began");
        _workRound(taskId);
        assertEq(stateView.drawnMask(taskId, 0), S0 | S1 | TR, "every worker has a round-0 draw");
        _sealVotes(taskId, [ACCEPT_ALL, ACCEPT_ALL, ACCEPT_ALL]);
        assertEq(_task(taskId).pending, 6, "three votes and three draws");
        _openDraws(taskId);
        uint256 forced;
        address[3] memory nodes = [samplers[0], samplers[1], trainers[0]];
        for (uint256 i = 0; i < 3; ++i) {
            if (_isForced(taskId, nodes[i], 0)) forced |= 1 << i;
        }
        assertEq(stateView.forcedMask(taskId, 0), forced, "forced as the formula says");
        assertEq(stateView.openedDrawMask(taskId, 0), S0 | S1 | TR, "all opened");
    }

    function test_commitDraw_afterTheFirstRoundBeganIsTooLate() public {
        _fillSlots(taskId);
        _draw(taskId); // round 0 begins: its seed is fixed
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.DrawTooLate.selector, taskId, 0));
        _commitDrawAs(samplers[0], 0);
    }

    function test_commitDraw_ofAWorkerStartingNextRoundIsOnTime() public {
        _activeWithFirstDraws();
        _commit(taskId, samplers[0]); // sampler 1 misses round 0's commit
        _expire(taskId); // it is vacated; SampleReveal begins
        _claim(taskId, samplers[2], Role.Sampler);
        assertEq(_samplerAt(taskId, 1), samplers[2], "the spare took slot 1");
        assertEq(stateView.slotOf(taskId, Role.Sampler, 1).sinceRound, 1, "it works from round 1");
        _commitDrawAs(samplers[2], 1);
        assertEq(
            stateView.drawCommitmentOf(taskId, 1, samplers[2]), _drawCommitmentOf(taskId, 1, samplers[2]), "round 1's"
        );
    }

    function test_commitDraw_refusesValidatorsOutsidersZeroAndRepeats() public {
        _activeWithFirstDraws();
        address validator = _validatorAt(taskId, 0);
        vm.prank(validator);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.NoDraw.selector, taskId, validator));
        registry.commitDraw(taskId, bytes32(uint256(1)));
        vm.prank(samplers[2]); // not in the task
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.NoDraw.selector, taskId, samplers[2]));
        registry.commitDraw(taskId, bytes32(uint256(1)));
        vm.prank(samplers[0]);
        vm.expectRevert(ITaskRegistry.EmptyCommitment.selector);
        registry.commitDraw(taskId, bytes32(0));
    }

    function test_commitDraw_once() public {
        _claim(taskId, samplers[0], Role.Sampler);
        _commitDrawAs(samplers[0], 0);
        vm.expectRevert(abi.encodeWithSelector(ITaskRegistry.AlreadyCommitted.selector, taskId, samplers[0]));
        _commitDrawAs(samplers[0], 0);
    }

    function test_commitDraw_onASettledTaskIsRefused() public {
        _claim(taskId, samplers[0], Role.Sampler);
        vm.prank(requester);
        registry.cancelTask(taskId);
        vm.expectRevert(
            abi.encodeWithSelector(ITaskRegistry.WrongStatus.selector, taskId, ITaskRegistry.Status.Cancelled)
        );
        _commitDrawAs(samplers[0], 0);
    }
}

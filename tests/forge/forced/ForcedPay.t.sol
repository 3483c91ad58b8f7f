// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {ForcedFixture} from "../base/ForcedFixture.sol";
import {VmLogs} from "../invariant/VmLogs.sol";
import {ITaskRegistry} from "../../../contracts/interfaces/ITaskRegistry.sol";
import {Role} from "../../../contracts/libraries/Types.sol";

/// @notice SPECIFICATION.md 5.5.3, validators' pay: accepting forced work another validator found
///         the plant in earns nothing that round (stake, reputation and slot kept; PlantMissed); the
///         honest plant answer is paid; nobody is penalised for a plant nobody found; a "plant" on
///         unforced work is a no, with the dissent rules of SPECIFICATION.md 5.5 unchanged.
contract ForcedPayTest is ForcedFixture {
    VmLogs private constant logs = VmLogs(address(uint160(uint256(keccak256("hevm cheat code")))));

    uint256 private constant PLANT_S0 = (ACCEPT_ALL & ~S0) | (S0 << 64);
    uint256 private constant REJECT_S0 = ACCEPT_ALL & ~S0;

    address[3] private v;
    uint256[3] private claimable;
    uint256[3] private score;
    uint256[3] private staked;

    function _snapshot(uint256 taskId) private {
        for (uint256 i = 0; i < 3; ++i) {
            v[i] = _validatorAt(taskId, i);
            claimable[i] = vault.claimableOf(v[i]);
            score[i] = reputation.scoreOf(v[i]);
            staked[i] = _stakeOf(v[i], Role.Validator);
        }
    }

    function _earned(uint256 i) private view returns (uint256) {
        return vault.claimableOf(v[i]) - claimable[i];
    }

    function _assertPaid(uint256 i) private view {
        assertEq(_earned(i), VALIDATOR_PAY, "paid");
        assertEq(reputation.scoreOf(v[i]), score[i] + 2, "+2");
    }

    /// @dev Not paid, and nothing else: stake, reputation and slot kept.
    function _assertUnpaidOnly(uint256 taskId, uint256 i) private view {
        assertEq(_earned(i), 0, "no pay");
        assertEq(_stakeOf(v[i], Role.Validator), staked[i], "stake kept");
        assertEq(reputation.scoreOf(v[i]), score[i], "reputation kept");
        assertEq(_validatorAt(taskId, i), v[i], "slot kept");
    }

    /// @dev How many events with topic0 `sig` the recorded logs hold.
    function _count(VmLogs.Log[] memory entries, bytes32 sig) private pure returns (uint256 n) {
        for (uint256 i = 0; i < entries.length; ++i) {
            if (entries[i].topics.length > 0 && entries[i].topics[0] == sig) ++n;
        }
    }

    function test_anAcceptAllValidatorMissesAPlantAnotherFound() public {
        uint256 taskId = _roundOneAttest(S0);
        _snapshot(taskId);
        _sealVotes(taskId, [ACCEPT_ALL, PLANT_S0, PLANT_S0]);
        address last = _openAllButLastVote(taskId);
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.PlantMissed(taskId, 1, v[0], 0, S0);
        _open(taskId, last);
        assertEq(uint256(_verdictOf(taskId, 1, S0)), uint256(ITaskRegistry.Verdict.Accepted), "the worker is not hurt");
        _assertUnpaidOnly(taskId, 0);
        _assertPaid(1);
        _assertPaid(2);
    }

    function test_nobodyIsPenalisedForAPlantNobodyFound() public {
        uint256 taskId = _roundOneAttest(S0 | S1 | TR);
        _snapshot(taskId);
        _sealVotes(taskId, [ACCEPT_ALL, ACCEPT_ALL, ACCEPT_ALL]);
        logs.recordLogs();
        _openAll(taskId);
        VmLogs.Log[] memory entries = logs.getRecordedLogs();
        assertEq(_count(entries, ITaskRegistry.PlantMissed.selector), 0, "no PlantMissed");
        assertEq(_count(entries, ITaskRegistry.Dissented.selector), 0, "no dissent");
        for (uint256 i = 0; i < 3; ++i) {
            _assertPaid(i);
        }
    }

    function test_everyGuessMustBeRight() public {
        // Sampler 0 and the trainer forced; each validator finds one plant and accepts the other.
        uint256 taskId = _roundOneAttest(S0 | TR);
        _snapshot(taskId);
        uint256 plantTr = (ACCEPT_ALL & ~TR) | (TR << 64);
        _sealVotes(taskId, [ACCEPT_ALL, PLANT_S0, plantTr]);
        address last = _openAllButLastVote(taskId);
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.PlantMissed(taskId, 1, v[0], 0, S0 | TR);
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.PlantMissed(taskId, 1, v[1], 1, TR);
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.PlantMissed(taskId, 1, v[2], 2, S0);
        _open(taskId, last);
        for (uint256 i = 0; i < 3; ++i) {
            _assertUnpaidOnly(taskId, i);
        }
    }

    function test_aRejectionOfForcedWorkTheQuorumAcceptedIsADissent() public {
        uint256 taskId = _roundOneAttest(S0);
        _snapshot(taskId);
        _sealVotes(taskId, [REJECT_S0, PLANT_S0, PLANT_S0]);
        address last = _openAllButLastVote(taskId);
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.Dissented(taskId, 1, v[0], 0, S0);
        _open(taskId, last);
        // Without a dispute manager a dissent is not paid (SPECIFICATION.md 5.5), nor penalised.
        _assertUnpaidOnly(taskId, 0);
        assertTrue(!stateView.dissentedIn(taskId, 1, v[0]), "held only with disputes on");
        _assertPaid(1);
        _assertPaid(2);
    }

    function test_aPlantAnswerOnUnforcedWorkTheQuorumAcceptedIsADissent() public {
        uint256 taskId = _roundOneAttest(0);
        _snapshot(taskId);
        _sealVotes(taskId, [PLANT_S0, ACCEPT_ALL, ACCEPT_ALL]);
        address last = _openAllButLastVote(taskId);
        vm.expectEmit(true, true, true, true, address(registry));
        emit ITaskRegistry.Dissented(taskId, 1, v[0], 0, S0);
        _open(taskId, last);
        assertEq(uint256(_verdictOf(taskId, 1, S0)), uint256(ITaskRegistry.Verdict.Accepted), "accepted 2-1");
        _assertUnpaidOnly(taskId, 0);
        _assertPaid(1);
        _assertPaid(2);
    }

    function test_aPlantAnswerOnForcedWorkTheQuorumRejectedIsNotPaid() public {
        uint256 taskId = _roundOneAttest(S0);
        _snapshot(taskId);
        _sealVotes(taskId, [PLANT_S0, REJECT_S0, REJECT_S0]);
        logs.recordLogs();
        _openAll(taskId);
        VmLogs.Log[] memory entries = logs.getRecordedLogs();
        assertEq(uint256(_verdictOf(taskId, 1, S0)), uint256(ITaskRegistry.Verdict.Rejected), "rejected");
        assertEq(_count(entries, ITaskRegistry.PlantMissed.selector), 0, "it did not accept: no plant missed");
        assertEq(_count(entries, ITaskRegistry.Dissented.selector), 0, "nor a dissent");
        _assertUnpaidOnly(taskId, 0); // said yes to rejected work, like an outvoted acceptance
        _assertPaid(1);
        _assertPaid(2);
    }

    function test_aPlantAnswerOnUnforcedWorkTheQuorumRejectedAgrees() public {
        uint256 taskId = _roundOneAttest(0);
        _snapshot(taskId);
        _sealVotes(taskId, [PLANT_S0, REJECT_S0, REJECT_S0]);
        _openAll(taskId);
        assertEq(uint256(_verdictOf(taskId, 1, S0)), uint256(ITaskRegistry.Verdict.Rejected), "rejected 3-0");
        for (uint256 i = 0; i < 3; ++i) {
            _assertPaid(i);
        }
    }

    function test_anOutvotedAcceptanceOfUnforcedWorkIsUnchanged() public {
        uint256 taskId = _roundOneAttest(0);
        _snapshot(taskId);
        _sealVotes(taskId, [ACCEPT_ALL, REJECT_S0, REJECT_S0]);
        _openAll(taskId);
        _assertUnpaidOnly(taskId, 0);
        _assertPaid(1);
        _assertPaid(2);
    }
}

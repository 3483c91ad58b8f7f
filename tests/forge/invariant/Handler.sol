// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Vm} from "../base/Vm.sol";
import {VmLogs} from "./VmLogs.sol";
import {RLToken} from "../../../contracts/RLToken.sol";
import {StakeManager} from "../../../contracts/StakeManager.sol";
import {Reputation} from "../../../contracts/Reputation.sol";
import {RewardVault} from "../../../contracts/RewardVault.sol";
import {TaskRegistry} from "../../../contracts/TaskRegistry.sol";
import {StateView} from "../../../contracts/periphery/StateView.sol";
import {ITaskRegistry} from "../../../contracts/interfaces/ITaskRegistry.sol";
import {IStakeManager} from "../../../contracts/interfaces/IStakeManager.sol";
import {IRewardVault} from "../../../contracts/interfaces/IRewardVault.sol";
import {Role, Outcome} from "../../../contracts/libraries/Types.sol";
import {BN254} from "../../../contracts/libraries/BN254.sol";
import {BlsVectors} from "../base/BlsVectors.sol";

/// @notice Drives the deployed protocol with bounded random actions from a fixed set of actors and
///         keeps ghost accounting from the events it sees. Every action catches the protocol's
///         reverts (fail_on_revert = false) and counts what succeeded.
contract Handler {
    Vm internal constant vm = Vm(address(uint160(uint256(keccak256("hevm cheat code")))));
    VmLogs internal constant vmLogs = VmLogs(address(uint160(uint256(keccak256("hevm cheat code")))));

    uint256 internal constant MAX_TASKS = 30;
    uint256 internal constant MAX_RUNNING = 3;

    RLToken public immutable token;
    StakeManager public immutable stakes;
    Reputation public immutable reputation;
    RewardVault public immutable vault;
    TaskRegistry public immutable registry;
    StateView public immutable stateView;
    address public immutable slasher; // a second PROTOCOL_ROLE holder (e.g. a governance module)
    address public immutable treasury;

    address[] internal _requesters;
    address[] internal _nodes;
    uint256[] internal _live; // tasks not yet settled (from TaskCreated / TaskSettled)

    struct Secret {
        bytes32 root;
        string cid;
        bytes32 salt;
        bool honest;
    }

    // ------------------------------------------------------------ ghosts
    mapping(uint256 taskId => mapping(uint256 round => mapping(address node => Secret))) internal _secrets;
    mapping(uint256 taskId => uint256[3]) public ghostPaid; // from RewardEarned
    mapping(uint256 taskId => uint256) public ghostRefund; // from TaskSettled
    mapping(uint256 taskId => bool) public ghostSettled;
    mapping(uint256 taskId => mapping(uint256 round => uint256[3])) internal _payees; // RewardEarned count
    mapping(uint256 taskId => bool) public ghostFullyAccepted;
    mapping(address node => mapping(Role role => uint256)) public modelStaked;
    mapping(address node => mapping(Role role => uint256)) public modelUnbonding;
    // Scores and pause flags just before the call that may assign.
    mapping(address node => uint256) internal _scoreBefore;
    mapping(address node => bool) internal _pausedBefore;
    mapping(address node => mapping(Role role => uint256)) internal _availableBefore;

    uint256 public ghostCredited; // sum of RewardEarned
    uint256 public ghostVaultCredited; // sum of vault Credited
    uint256 public ghostRefunded; // sum of vault Refunded
    uint256 public ghostWithdrawn; // sum of vault withdrawals
    uint256 public ghostAssignments;
    uint256 public ghostIneligibleAssignments;
    uint256 public ghostPausedAssignments;
    uint256 public ghostUnderstakedAssignments;
    uint256 public ghostUnbondedWithdrawals;
    uint256 public ghostUnbondedMismatches;
    uint256 public ghostRewardWithdrawMismatches;
    uint256 public ghostSlashes;
    uint256 public ghostSlashedFromUnbonding;
    uint256 public ghostFullyAcceptedTasks;
    uint256 public ghostWrongRewardAmounts; // RewardEarned not equal to one slot's share of the round pool
    uint256 public ghostRecoveries;
    uint256 public ghostRejectedReveals;
    uint256 public ghostLowReputationClaimsRefused; // claims refused with ReputationTooLow
    uint256[6] public ghostVacatedByReason; // SlotVacated by Outcome
    uint256[8] public ghostSettledByStatus;
    uint256 public ghostMissedWithoutInput; // a trainer or validator vacated Missed in a round with nothing to work on
    uint256 public ghostRoundsWithoutSample; // RoundFinalized of a round in which no sample was revealed
    uint256 internal _advancingRound; // the round of the task being advanced (Missed comes only from advance)
    // BLS: the first BlsVectors.KEYS nodes hold vector keys (registered with their proofs of possession).
    mapping(address node => uint256) internal _blsKeyPlusOne;
    uint256 public ghostAggregates; // aggregate attestations recorded
    uint256 public ghostAggregateSigners; // validator votes they carried
    uint256 public ghostForgedAggregatesTried;
    uint256 public ghostForgedAggregatesAccepted; // must stay 0
    // Nodes 0..EARLY_KEYS-1 register before the run; the rest of the vector keys during it
    // (registerLateKey), after some of them already hold validator slots.
    uint256 internal constant EARLY_KEYS = 5;
    // Whether the holder of a validator slot had a BLS key when it took the slot (from SlotAssigned
    // and the handler's own record of registrations): the slots the task's BLS mask must hold.
    mapping(uint256 taskId => mapping(uint256 slot => bool)) public keyedAtJoin;
    mapping(uint256 taskId => mapping(uint256 round => uint256)) internal _soloVotes;
    // The bitmap each validator sealed (what it opens, alone or in an aggregate).
    mapping(uint256 taskId => mapping(uint256 round => mapping(address node => uint256))) internal _sealed;
    uint256 public ghostLateKeys; // keys registered during the run
    uint256 public ghostLateKeysWhileValidating; // ... by a node holding a validator slot of a running task
    uint256 public ghostKeysReplaced; // a second registration that succeeded: must stay 0
    uint256 public ghostAggregatesWithNonSigners; // honest aggregates with a mask slot that did not sign
    uint256 public ghostAggregatesAfterSoloVotes; // honest aggregates in a round with votes opened alone
    // Forced errors: draws opened (and how many forced), openings with a wrong secret tried and
    // accepted (must stay 0), PlantMissed events.
    uint256 public ghostDrawsOpened;
    uint256 public ghostForcedDraws;
    uint256 public ghostBadDrawOpensTried;
    uint256 public ghostBadDrawOpensAccepted;
    uint256 public ghostPlantMissed;
    uint256 public ghostForcedMismatches; // DrawOpened.forced differing from the handler's own computation

    mapping(bytes32 action => uint256) public calls;
    mapping(bytes32 action => uint256) public successes;
    uint256 public totalSuccesses;

    constructor(
        RLToken token_,
        StakeManager stakes_,
        Reputation reputation_,
        RewardVault vault_,
        TaskRegistry registry_,
        StateView stateView_,
        address slasher_,
        address treasury_,
        address[] memory requesters_,
        address[] memory nodes_
    ) {
        token = token_;
        stakes = stakes_;
        reputation = reputation_;
        vault = vault_;
        registry = registry_;
        stateView = stateView_;
        slasher = slasher_;
        treasury = treasury_;
        _requesters = requesters_;
        _nodes = nodes_;
    }

    /// @notice Registers vector key i (with its proof of possession) for node i, i < EARLY_KEYS.
    function registerBlsKeys() external {
        for (uint256 i = 0; i < EARLY_KEYS && i < _nodes.length; ++i) {
            _registerKey(_nodes[i], i);
            _blsKeyPlusOne[_nodes[i]] = i + 1;
        }
    }

    /// @notice Node i (EARLY_KEYS <= i < BlsVectors.KEYS) registers vector key i if it has none; a
    ///         node that has one tries another key, which must be refused (keys are write-once).
    function registerLateKey(uint256 seed) external {
        uint256 i = seed % BlsVectors.KEYS;
        address node = _nodes[i];
        bool replacing = _blsKeyPlusOne[node] != 0;
        if (!replacing && i < EARLY_KEYS) return;
        uint256 keyIndex = replacing ? (_blsKeyPlusOne[node] % BlsVectors.KEYS) : i; // another key
        _begin("registerLateKey");
        try this.registerKeyAs(node, keyIndex) {
            if (replacing) ++ghostKeysReplaced;
            else ++ghostLateKeys;
            if (!replacing && _validating(node)) ++ghostLateKeysWhileValidating;
            _blsKeyPlusOne[node] = keyIndex + 1;
            _ok("registerLateKey");
        } catch {
            _fail();
        }
    }

    function _validating(address node) internal view returns (bool) {
        for (uint256 k = 0; k < _live.length; ++k) {
            ITaskRegistry.Membership memory m = stateView.membershipOf(_live[k], node);
            if (m.assigned && m.role == Role.Validator) return true;
        }
        return false;
    }

    /// @dev External so that registerLateKey can catch its revert.
    function registerKeyAs(address node, uint256 i) external {
        if (msg.sender != address(this)) return;
        _registerKey(node, i);
    }

    function _registerKey(address node, uint256 i) internal {
        uint256[4] memory pk2 = BlsVectors.apk2(1 << i);
        uint256[2] memory pk1 = BN254.mul(BN254.g1(), BlsVectors.secret(i));
        uint256[2] memory pop = BN254.mul(BN254.hashToG1(stakes.blsPopMessage(node, pk2, pk1)), BlsVectors.secret(i));
        vm.prank(node);
        stakes.registerBlsKey(pk2, pk1, pop);
    }

    /// @notice Tells the model about stake placed before the fuzzing starts.
    function syncModel() external {
        for (uint256 i = 0; i < _nodes.length; ++i) {
            for (uint256 r = 0; r < 3; ++r) {
                IStakeManager.StakeInfo memory info = stakes.stakeOf(_nodes[i], Role(r));
                modelStaked[_nodes[i]][Role(r)] = info.staked;
                modelUnbonding[_nodes[i]][Role(r)] = info.unbonding;
            }
        }
    }

    // ------------------------------------------------------------ views for the invariants

    function requesters() external view returns (address[] memory) {
        return _requesters;
    }

    function nodes() external view returns (address[] memory) {
        return _nodes;
    }

    function payees(uint256 taskId, uint256 round) external view returns (uint256[3] memory) {
        return _payees[taskId][round];
    }

    // ------------------------------------------------------------ requesters

    function createTask(uint256 who, uint256 bounty, uint8 ns, uint8 nv, uint8 nr) external {
        _createTask(who, bounty, ns, nv, nr);
    }

    function _createTask(uint256 who, uint256 bounty, uint256 ns, uint256 nv, uint256 nr) internal {
        if (stateView.taskCount() >= MAX_TASKS || _running() >= MAX_RUNNING) return;
        address requester = _requesters[who % _requesters.length];
        uint256 mode = bounty % 3;
        if (mode == 0) bounty = _bound(bounty >> 2, 1, 10_000); // dust-sized
        else if (mode == 1) bounty = _bound(bounty >> 2, 1e18, 1e22);
        else bounty = _bound(bounty >> 2, 1, 1e22); // anything, rarely divisible
        ITaskRegistry.TaskParams memory p = ITaskRegistry.TaskParams({
            specCid: "bafyspec",
            specDigest: keccak256(abi.encode(bounty, ns)),
            bounty: bounty,
            numSamplers: uint8(_bound(ns, 1, 3)),
            numValidators: uint8(_bound(nv, 1, 4)),
            numRounds: uint16(_bound(nr, 1, 4)),
            claimWindow: 4 hours,
            commitWindow: 30 minutes,
            revealWindow: 30 minutes,
            attestWindow: 30 minutes
        });
        _begin("createTask");
        vm.prank(requester);
        try registry.createTask(p) {
            _ok("createTask");
        } catch {
            _fail();
        }
    }

    function cancelTask(uint256 taskSeed) external {
        uint256 taskId = _pickTask(taskSeed);
        if (taskId == 0) return;
        if (taskSeed % 3 != 0) return; // rarely: cancelled tasks never reach the rounds
        address requester = stateView.taskOf(taskId).requester;
        _begin("cancelTask");
        vm.prank(requester);
        try registry.cancelTask(taskId) {
            _ok("cancelTask");
        } catch {
            _fail();
        }
    }

    // ------------------------------------------------------------ nodes: stakes

    function stake(uint256 nodeSeed, uint8 roleSeed, uint256 amount) external {
        address node = _node(nodeSeed);
        Role role = Role(roleSeed % 3);
        amount = _bound(amount, 1, 2 * stakes.minStake(role));
        _begin("stake");
        vm.prank(node);
        try stakes.stake(role, amount) {
            modelStaked[node][role] += amount;
            _ok("stake");
        } catch {
            _fail();
        }
    }

    function requestUnstake(uint256 nodeSeed, uint8 roleSeed, uint256 amount) external {
        address node = _node(nodeSeed);
        Role role = Role(roleSeed % 3);
        uint256 available = stakes.availableStake(node, role);
        if (available == 0) return;
        amount = _bound(amount, 1, available / 2 + 1);
        _begin("requestUnstake");
        vm.prank(node);
        try stakes.requestUnstake(role, amount) {
            modelStaked[node][role] -= amount;
            modelUnbonding[node][role] += amount;
            _ok("requestUnstake");
        } catch {
            _fail();
        }
    }

    function withdrawUnbonded(uint256 nodeSeed, uint8 roleSeed, uint8 waitSeed) external {
        // Waiting out the unbonding period also expires every running task: do it rarely.
        bool waitForIt = waitSeed % 8 == 0;
        address node = _node(nodeSeed);
        Role role = Role(roleSeed % 3);
        IStakeManager.StakeInfo memory info = stakes.stakeOf(node, role);
        if (waitForIt && info.unbonding > 0 && block.timestamp < info.unbondingReadyAt) {
            vm.warp(info.unbondingReadyAt);
        }
        uint256 before = token.balanceOf(node);
        _begin("withdrawUnbonded");
        vm.prank(node);
        try stakes.withdrawUnbonded(role) {
            // The model follows every slash independently: the payout must be its unbonding exactly.
            uint256 paid = token.balanceOf(node) - before;
            if (paid != modelUnbonding[node][role] || stakes.stakeOf(node, role).unbonding != 0) {
                ++ghostUnbondedMismatches;
            }
            modelUnbonding[node][role] = 0;
            ++ghostUnbondedWithdrawals;
            _ok("withdrawUnbonded");
        } catch {
            _fail();
        }
    }

    function setPaused(uint256 nodeSeed, uint8 pauseSeed) external {
        address node = _node(nodeSeed);
        _begin("setPaused");
        vm.prank(node);
        // Mostly unpause, so pauses do not starve the run of eligible nodes.
        try stakes.setNodePaused(pauseSeed % 4 == 0) {
            _ok("setPaused");
        } catch {
            _fail();
        }
    }

    /// @notice Another protocol module slashes a node that has nothing locked; this is how
    ///         unbonding stake gets slashed at all (the registry only slashes locked stake).
    function slashDirect(uint256 nodeSeed, uint8 roleSeed, uint256 amount) external {
        address node = _node(nodeSeed);
        Role role = Role(roleSeed % 3);
        IStakeManager.StakeInfo memory info = stakes.stakeOf(node, role);
        if (info.locked != 0 || info.unbonding == 0) return;
        amount = _bound(amount, 0, uint256(info.staked) + info.unbonding + 10);
        _begin("slashDirect");
        vm.prank(slasher);
        try stakes.slash(node, role, amount, treasury) {
            _ok("slashDirect");
        } catch {
            _fail();
        }
    }

    // ------------------------------------------------------------ assignment

    function claim(uint256 taskSeed, uint256 nodeSeed, bool asTrainer) external {
        uint256 taskId = _pickTask(taskSeed);
        if (taskId == 0) return;
        _claim(taskId, nodeSeed, asTrainer ? Role.Trainer : Role.Sampler);
    }

    function draw(uint256 taskSeed, uint8 blocks) external {
        uint256 taskId = _pickTask(taskSeed);
        if (taskId == 0) return;
        // Prefer a task waiting for validators.
        uint256 count = _live.length;
        for (uint256 i = 0; i < count; ++i) {
            uint256 id = _live[(taskSeed % count + i) % count];
            ITaskRegistry.Task memory t = stateView.taskOf(id);
            bool waiting = t.status == ITaskRegistry.Status.Drawing
                || (t.status == ITaskRegistry.Status.Active && t.filledValidators < t.numValidators);
            if (waiting) {
                taskId = id;
                break;
            }
        }
        _draw(taskId, blocks);
    }

    // ------------------------------------------------------------ rounds

    function commit(uint256 taskSeed, uint256 nodeSeed, uint256 resultSeed) external {
        uint256 taskId = _pickTask(taskSeed);
        if (taskId == 0) return;
        // 1 in 4: a bad result (commits and reveals fine, honest validators reject it);
        // 1 in 8: a junk commitment that no reveal can open.
        _commit(taskId, nodeSeed, resultSeed, resultSeed % 4 != 0, resultSeed % 8 == 1);
    }

    function reveal(uint256 taskSeed, uint256 nodeSeed, uint8 saltSeed) external {
        uint256 taskId = _pickTask(taskSeed);
        if (taskId == 0) return;
        _reveal(taskId, nodeSeed, saltSeed % 5 == 0);
    }

    /// @notice Seals a vote (Attest) or opens one (AttestReveal; 1 in 5 with a wrong salt, which
    ///         must revert); in AttestReveal, first (1 in 3) a worker opens its draw, with a wrong
    ///         secret 1 in 4 times (which must revert).
    function attest(uint256 taskSeed, uint256 nodeSeed, uint256 bitmapSeed) external {
        uint256 taskId = _pickTask(taskSeed);
        if (taskId == 0) return;
        if (bitmapSeed % 3 == 1 && _openDraw(taskId, nodeSeed, (bitmapSeed >> 4) % 4 == 0)) return;
        uint256 bitmap = bitmapSeed % 3 == 0 ? bitmapSeed >> 2 : type(uint256).max;
        // 1 in 4: first a forged aggregate (wrong message or wrong signer set), which must revert.
        if (bitmapSeed % 4 == 0) _attestAggregate(taskId, nodeSeed, 1 + (bitmapSeed >> 8) % 3);
        if (!_sealVote(taskId, nodeSeed, bitmap)) _openVote(taskId, nodeSeed, bitmapSeed % 5 == 0);
    }

    function warpAndAdvance(uint256 taskSeed, uint256 dt, bool pastDeadline) external {
        uint256 taskId = _pickTask(taskSeed);
        if (taskId == 0) return;
        _advance(taskId, dt, pastDeadline);
    }

    /// @notice One honest step of whatever the task needs next (weighted: listed several times).
    function progress(uint256 taskSeed, uint256 seed) public {
        if (_running() == 0) {
            _createTask(seed, taskSeed, seed >> 8, seed >> 16, seed >> 24);
            return;
        }
        uint256 taskId = _pickTask(taskSeed);
        ITaskRegistry.Task memory t = stateView.taskOf(taskId);
        bool samplersFull = t.filledSamplers == t.numSamplers;
        Role workRole = !t.trainerFilled && (samplersFull || seed % 2 == 0) ? Role.Trainer : Role.Sampler;
        if (t.status == ITaskRegistry.Status.Open) {
            bool claimed = _claimAs(taskId, _eligibleFreeNode(taskId, seed, workRole), workRole);
            if (!claimed && seed % 5 == 0) _advance(taskId, 0, true);
        } else if (t.status == ITaskRegistry.Status.Drawing) {
            if (!_draw(taskId, uint8(seed)) && seed % 5 == 0) _advance(taskId, 0, true);
        } else if (t.status == ITaskRegistry.Status.Active) {
            if (t.filledValidators < t.numValidators && t.seedBlock != 0 && seed % 3 == 0) {
                _draw(taskId, uint8(seed));
            } else if ((!samplersFull || !t.trainerFilled) && seed % 3 == 1) {
                _claimAs(taskId, _eligibleFreeNode(taskId, seed, workRole), workRole);
            } else if (t.phase == ITaskRegistry.Phase.SampleCommit || t.phase == ITaskRegistry.Phase.TrainCommit) {
                // Mostly honest work; 1 in 6 a bad result that honest validators reject.
                bool honest = _clean(taskId) || seed % 6 != 5;
                if (!_commit(taskId, seed, seed, honest, false)) _advance(taskId, 0, true);
            } else if (t.phase == ITaskRegistry.Phase.Attest) {
                // Mostly truthful votes; 1 in 4 the opposite of the truth (against the quorum when it decides).
                bool contrarian = !_clean(taskId) && seed % 4 == 3;
                uint256 bitmap = contrarian ? ~_truthfulBitmap(taskId, t) : _truthfulBitmap(taskId, t);
                if (!_sealVote(taskId, seed, bitmap)) _advance(taskId, 0, true);
            } else if (t.phase == ITaskRegistry.Phase.AttestReveal) {
                // Workers open their draws first (in tasks other than the clean ones, 1 in 4 steps
                // leaves them for later: a worker may end up withholding its draw; 1 in 8 first tries
                // a wrong secret, which must revert).
                bool later = !_clean(taskId) && seed % 4 == 3;
                if (!later && _openDraw(taskId, seed, (seed >> 12) % 8 == 0)) return;
                // 1 in 3: the sealed votes of some registered validators are opened by one BLS
                // aggregate, now and then after a forged one (which must revert, leaving no trace).
                if (seed % 3 == 2 && (seed >> 4) % 3 == 0) _attestAggregate(taskId, seed >> 8, 1 + (seed >> 6) % 3);
                bool voted = seed % 3 == 2 && _attestAggregate(taskId, seed >> 8, 0);
                if (!voted && !_openVote(taskId, seed, false)) _advance(taskId, 0, true);
            } else if (!_reveal(taskId, seed, false)) {
                _advance(taskId, 0, true);
            }
        }
    }

    function progress2(uint256 taskSeed, uint256 seed) external {
        progress(taskSeed, seed);
    }

    function progress3(uint256 taskSeed, uint256 seed) external {
        progress(taskSeed, seed);
    }

    function progress4(uint256 taskSeed, uint256 seed) external {
        progress(taskSeed, seed);
    }

    function progress5(uint256 taskSeed, uint256 seed) external {
        progress(taskSeed, seed);
    }

    function progress6(uint256 taskSeed, uint256 seed) external {
        progress(taskSeed, seed);
    }

    function progress7(uint256 taskSeed, uint256 seed) external {
        progress(taskSeed, seed);
    }

    function progress8(uint256 taskSeed, uint256 seed) external {
        progress(taskSeed, seed);
    }

    // ------------------------------------------------------------ rewards and reputation

    function withdrawReward(uint256 actorSeed, uint256 amount) external {
        address account = _claimant(actorSeed);
        uint256 claimable = vault.claimableOf(account);
        if (claimable == 0) return;
        amount = _bound(amount, 1, claimable);
        uint256 before = token.balanceOf(account);
        _begin("withdrawReward");
        vm.prank(account);
        try vault.withdraw(account, amount) {
            ghostWithdrawn += amount;
            if (token.balanceOf(account) - before != amount) ++ghostRewardWithdrawMismatches;
            _ok("withdrawReward");
        } catch {
            _fail();
        }
    }

    function recover(uint256 nodeSeed, uint8 waitSeed) external {
        bool waitForIt = waitSeed % 4 == 0;
        address node = _nodes[nodeSeed % _nodes.length];
        // Prefer a node that needs it.
        for (uint256 i = 0; i < _nodes.length; ++i) {
            address candidate = _nodes[(nodeSeed % _nodes.length + i) % _nodes.length];
            if (!reputation.isEligible(candidate)) {
                node = candidate;
                break;
            }
        }
        uint256 at = reputation.recoveryAvailableAt(node);
        if (waitForIt && at > block.timestamp) vm.warp(at);
        _begin("recover");
        vm.prank(node);
        try reputation.recover() {
            ++ghostRecoveries;
            _ok("recover");
        } catch {
            _fail();
        }
    }

    // ------------------------------------------------------------ internals: actions

    function _claim(uint256 taskId, uint256 nodeSeed, Role role) internal returns (bool) {
        return _claimAs(taskId, _freeNode(taskId, nodeSeed), role);
    }

    function _claimAs(uint256 taskId, address node, Role role) internal returns (bool) {
        _snapshotEligibility();
        _begin("claim");
        vm.prank(node);
        try registry.claimSlot(taskId, role) {
            _ok("claim");
            return true;
        } catch (bytes memory reason) {
            if (bytes4(reason) == ITaskRegistry.ReputationTooLow.selector) ++ghostLowReputationClaimsRefused;
            _fail();
            return false;
        }
    }

    function _draw(uint256 taskId, uint8 blocks) internal returns (bool) {
        vm.roll(block.number + 1 + blocks % 3);
        _snapshotEligibility();
        _begin("draw");
        try registry.drawValidators(taskId) {
            _ok("draw");
            return true;
        } catch {
            _fail();
            return false;
        }
    }

    function _commit(uint256 taskId, uint256 nodeSeed, uint256 resultSeed, bool honest, bool junk)
        internal
        returns (bool)
    {
        ITaskRegistry.Task memory t = stateView.taskOf(taskId);
        if (t.status != ITaskRegistry.Status.Active) return false;
        Role role;
        if (t.phase == ITaskRegistry.Phase.SampleCommit) role = Role.Sampler;
        else if (t.phase == ITaskRegistry.Phase.TrainCommit) role = Role.Trainer;
        else return false;
        address node = _worker(taskId, t, role, nodeSeed, true);
        if (node == address(0)) return false;
        // The salt is the node's draw commitment for the next round (forced errors).
        Secret memory sec = Secret({
            root: keccak256(abi.encode("root", resultSeed)),
            cid: string(abi.encodePacked("bafy", bytes4(uint32(resultSeed)))),
            salt: _nextDrawCommitment(taskId, t.round, node),
            honest: honest
        });
        bytes32 commitment = junk
            ? keccak256(abi.encode("junk", resultSeed))
            : stateView.commitmentFor(taskId, t.round, node, sec.root, sec.cid, sec.salt);
        _begin("commit");
        vm.prank(node);
        try registry.commit(taskId, commitment) {
            _secrets[taskId][t.round][node] = sec;
            _ok("commit");
            return true;
        } catch {
            _fail();
            return false;
        }
    }

    function _reveal(uint256 taskId, uint256 nodeSeed, bool wrongSalt) internal returns (bool) {
        ITaskRegistry.Task memory t = stateView.taskOf(taskId);
        if (t.status != ITaskRegistry.Status.Active) return false;
        Role role;
        if (t.phase == ITaskRegistry.Phase.SampleReveal) role = Role.Sampler;
        else if (t.phase == ITaskRegistry.Phase.TrainReveal) role = Role.Trainer;
        else return false;
        address node = _worker(taskId, t, role, nodeSeed, false);
        if (node == address(0)) return false;
        Secret memory sec = _secrets[taskId][t.round][node];
        bytes32 salt = wrongSalt ? bytes32(uint256(sec.salt) ^ 1) : sec.salt;
        _begin("reveal");
        vm.prank(node);
        try registry.reveal(taskId, sec.root, sec.cid, salt) {
            _ok("reveal");
            return true;
        } catch {
            ++ghostRejectedReveals;
            _fail();
            return false;
        }
    }

    /// @dev `node`'s draw commitment for the round after `round` (its reveal's salt).
    function _nextDrawCommitment(uint256 taskId, uint256 round, address node) internal view returns (bytes32) {
        return stateView.drawCommitmentFor(taskId, round + 1, node, _drawSecret(taskId, round + 1, node));
    }

    function _drawSecret(uint256 taskId, uint256 round, address node) internal pure returns (bytes32) {
        return keccak256(abi.encode("draw-secret", taskId, round, node));
    }

    /// @dev Whether `node`'s draw of `round` is forced (computed here, from the secret and the seed).
    function _forced(uint256 taskId, uint256 round, address node) internal view returns (bool) {
        bytes32 seed = stateView.roundSeed(taskId, round);
        uint256 value = uint256(keccak256(abi.encode(_drawSecret(taskId, round, node), seed)));
        return value % 10_000 < stateView.forcedErrorBps();
    }

    /// @dev AttestReveal phase: a worker with a draw still to open opens it (with a wrong secret:
    ///      must revert).
    function _openDraw(uint256 taskId, uint256 seed, bool wrongSecret) internal returns (bool) {
        ITaskRegistry.Task memory t = stateView.taskOf(taskId);
        if (t.status != ITaskRegistry.Status.Active || t.phase != ITaskRegistry.Phase.AttestReveal) return false;
        (address node, uint256 bit) = _drawToOpen(taskId, t, seed);
        if (node == address(0)) return false;
        bytes32 secret = _drawSecret(taskId, t.round, node);
        if (wrongSecret) {
            secret = bytes32(uint256(secret) ^ 1);
            ++ghostBadDrawOpensTried;
        }
        bool forced = _forced(taskId, t.round, node);
        _begin("openDraw");
        vm.prank(node);
        try registry.openDraw(taskId, t.round, secret) {
            if (wrongSecret) ++ghostBadDrawOpensAccepted;
            _checkForced(taskId, t.round, bit, forced);
            _ok("openDraw");
            return true;
        } catch {
            _fail();
            return false;
        }
    }

    /// @dev A worker of the round with a draw not yet opened (from `seed` on) and its submission bit.
    function _drawToOpen(uint256 taskId, ITaskRegistry.Task memory t, uint256 seed)
        internal
        view
        returns (address node, uint256 bit)
    {
        uint256 toOpen = stateView.drawnMask(taskId, t.round) & ~stateView.openedDrawMask(taskId, t.round);
        if (toOpen == 0) return (address(0), 0);
        uint256 n = uint256(t.numSamplers) + 1;
        uint256 i = seed % n;
        while ((toOpen >> i) & 1 == 0) i = (i + 1) % n;
        Role role = i == t.numSamplers ? Role.Trainer : Role.Sampler;
        node = stateView.submissionOf(taskId, t.round, role, role == Role.Trainer ? 0 : i).node;
        bit = 1 << i;
    }

    /// @dev Counts a draw the registry recorded as forced otherwise than computed here.
    function _checkForced(uint256 taskId, uint256 round, uint256 bit, bool forced) internal {
        bool recorded = stateView.forcedMask(taskId, round) & bit != 0;
        if (recorded != forced) ++ghostForcedMismatches;
    }

    function _voteSalt(uint256 taskId, uint256 round, address node) internal pure returns (bytes32) {
        return keccak256(abi.encode("vote-salt", taskId, round, node));
    }

    /// @dev Attest phase: a validator that has not sealed a vote seals `bitmap`.
    function _sealVote(uint256 taskId, uint256 nodeSeed, uint256 bitmap) internal returns (bool) {
        ITaskRegistry.Task memory t = stateView.taskOf(taskId);
        if (t.status != ITaskRegistry.Status.Active || t.phase != ITaskRegistry.Phase.Attest) return false;
        address node = _worker(taskId, t, Role.Validator, nodeSeed, true);
        if (node == address(0)) return false;
        bytes32 commitment =
            stateView.attestCommitmentFor(taskId, t.round, node, bitmap, _voteSalt(taskId, t.round, node));
        _begin("attest");
        vm.prank(node);
        try registry.commitAttestation(taskId, t.round, commitment) {
            _sealed[taskId][t.round][node] = bitmap;
            _ok("attest");
            return true;
        } catch {
            _fail();
            return false;
        }
    }

    /// @dev AttestReveal phase: a validator with a sealed vote opens it (with a wrong salt: must revert).
    function _openVote(uint256 taskId, uint256 nodeSeed, bool wrongSalt) internal returns (bool) {
        ITaskRegistry.Task memory t = stateView.taskOf(taskId);
        if (t.status != ITaskRegistry.Status.Active || t.phase != ITaskRegistry.Phase.AttestReveal) return false;
        address node = _worker(taskId, t, Role.Validator, nodeSeed, false);
        if (node == address(0)) return false;
        bytes32 salt = _voteSalt(taskId, t.round, node);
        if (wrongSalt) salt = bytes32(uint256(salt) ^ 1);
        _begin("attest");
        vm.prank(node);
        try registry.attest(taskId, t.round, _sealed[taskId][t.round][node], salt) {
            ++_soloVotes[taskId][t.round];
            _ok("attest");
            return true;
        } catch {
            if (wrongSalt) ++ghostRejectedReveals;
            _fail();
            return false;
        }
    }

    /// @dev An aggregate opening the sealed votes of validators of the task holding BLS keys, all of
    ///      one bitmap (that of a signer picked by `seed`; a subset of them picked by `seed`).
    ///      forgery 0: honest; 1: signed over another bitmap; 2: the aggregate G2 key of another
    ///      signer set; 3: the signers' honest signature and key with the bit of a slot that did not
    ///      sign set as well (when the task has such a slot). A forgery that is accepted is counted.
    function _attestAggregate(uint256 taskId, uint256 seed, uint256 forgery) internal returns (bool) {
        ITaskRegistry.Task memory t = stateView.taskOf(taskId);
        if (t.status != ITaskRegistry.Status.Active || t.phase != ITaskRegistry.Phase.AttestReveal) return false;
        (uint256 slotMask, uint256 keyMask, uint256 signers, uint256 bitmap) = _blsSigners(taskId, t, seed);
        if (signers == 0) return false;
        (uint256[2] memory sigma, uint256[4] memory apk2) = _signature(taskId, t.round, bitmap, keyMask, forgery);
        uint256 others = _keyedHeld(taskId, t) & ~slotMask;
        if (forgery == 3) {
            if (others == 0) return false;
            slotMask |= others & (~others + 1); // one non-signer's bit
        }
        if (forgery != 0) ++ghostForgedAggregatesTried;
        bytes32[] memory salts = _saltsOf(taskId, t.round, slotMask, signers + (forgery == 3 ? 1 : 0));
        _begin(forgery == 0 ? bytes32("aggregate") : bytes32("forgedAggregate"));
        try registry.attestAggregate(taskId, t.round, bitmap, slotMask, sigma, apk2, salts) {
            if (forgery != 0) ++ghostForgedAggregatesAccepted;
            if (others != 0) ++ghostAggregatesWithNonSigners;
            if (_soloVotes[taskId][t.round] != 0) ++ghostAggregatesAfterSoloVotes;
            ++ghostAggregates;
            ghostAggregateSigners += signers;
            _ok(forgery == 0 ? bytes32("aggregate") : bytes32("forgedAggregate"));
            return true;
        } catch {
            _fail();
            return false;
        }
    }

    /// @dev The vote salts of the holders of `slotMask` (`n` slots), in slot order.
    function _saltsOf(uint256 taskId, uint256 round, uint256 slotMask, uint256 n)
        internal
        view
        returns (bytes32[] memory salts)
    {
        salts = new bytes32[](n);
        uint256 i;
        for (uint256 v = 0; slotMask >> v != 0; ++v) {
            if ((slotMask >> v) & 1 == 1) salts[i++] = _voteSalt(taskId, round, _holder(taskId, v));
        }
    }

    function _holder(uint256 taskId, uint256 v) internal view returns (address) {
        return stateView.slotOf(taskId, Role.Validator, v).node;
    }

    /// @dev The aggregate signature and G2 key of the signer set `keyMask` (forgery 1: over another
    ///      bitmap; 2: with the G2 key of another set).
    function _signature(uint256 taskId, uint256 round, uint256 bitmap, uint256 keyMask, uint256 forgery)
        internal
        view
        returns (uint256[2] memory sigma, uint256[4] memory apk2)
    {
        bytes32 message = stateView.attestationMessage(taskId, round, forgery == 1 ? bitmap ^ 1 : bitmap);
        // Key i's secret is BASE·2^i, so a signer set's secret is BASE·keyMask (BlsVectors).
        sigma = BN254.mul(BN254.hashToG1(message), mulmod(BlsVectors.BASE, keyMask, BN254.N));
        apk2 = BlsVectors.apk2(forgery == 2 ? keyMask ^ (keyMask == 1 ? 3 : 1) : keyMask);
    }

    /// @dev Validator slots of the task holding a sealed vote not yet opened, whose holder has a
    ///      BLS key and sealed the same bitmap as the first such slot from `seed`: all of them, or
    ///      (1 in 4) those `seed`'s bits pick (all when none is picked).
    function _blsSigners(uint256 taskId, ITaskRegistry.Task memory t, uint256 seed)
        internal
        view
        returns (uint256 slotMask, uint256 keyMask, uint256 signers, uint256 bitmap)
    {
        uint256 candidates;
        bool chosen;
        for (uint256 k = 0; k < t.numValidators; ++k) {
            uint256 v = (seed + k) % t.numValidators;
            address node = _holder(taskId, v);
            if (node == address(0) || !keyedAtJoin[taskId][v]) continue;
            if (stateView.attestCommitmentOf(taskId, t.round, v) == bytes32(0)) continue;
            uint256 sealedBitmap = _sealed[taskId][t.round][node];
            if (!chosen) (chosen, bitmap) = (true, sealedBitmap);
            if (sealedBitmap == bitmap) candidates |= 1 << v;
        }
        slotMask = seed % 4 == 0 ? candidates & (seed >> 2) : candidates;
        if (slotMask == 0) slotMask = candidates;
        for (uint256 v = 0; v < t.numValidators; ++v) {
            if ((slotMask >> v) & 1 == 0) continue;
            keyMask |= 1 << (_blsKeyPlusOne[_holder(taskId, v)] - 1);
            ++signers;
        }
    }

    /// @dev The held validator slots whose holder had a key when it took the slot (the handler's model
    ///      of the task's BLS mask).
    function _keyedHeld(uint256 taskId, ITaskRegistry.Task memory t) internal view returns (uint256 mask) {
        for (uint256 v = 0; v < t.numValidators; ++v) {
            if (stateView.slotOf(taskId, Role.Validator, v).node != address(0) && keyedAtJoin[taskId][v]) mask |= 1 << v;
        }
    }

    /// @dev Every third task gets only honest work and truthful votes from `progress`, so that
    ///      some tasks complete with all work accepted (invariant (c)'s exact split).
    function _clean(uint256 taskId) internal pure returns (bool) {
        return taskId % 3 == 1;
    }

    /// @dev What an honest validator votes: accept exactly the honest results, answering "plant" for
    ///      those whose worker's draw is forced (an honest forced worker planted; the validator finds
    ///      the plant and nothing else).
    function _truthfulBitmap(uint256 taskId, ITaskRegistry.Task memory t) internal view returns (uint256 bitmap) {
        uint256 drawn = stateView.drawnMask(taskId, t.round);
        for (uint256 i = 0; i <= t.numSamplers; ++i) {
            Role role = i < t.numSamplers ? Role.Sampler : Role.Trainer;
            ITaskRegistry.Submission memory sub = stateView.submissionOf(taskId, t.round, role, i < t.numSamplers ? i : 0);
            if (!sub.revealed || !_secrets[taskId][t.round][sub.node].honest) continue;
            bool forced = (drawn >> i) & 1 == 1 && _forced(taskId, t.round, sub.node);
            bitmap |= 1 << (forced ? 64 + i : i);
        }
    }

    function _advance(uint256 taskId, uint256 dt, bool pastDeadline) internal returns (bool) {
        ITaskRegistry.Task memory t = stateView.taskOf(taskId);
        bool active = t.status == ITaskRegistry.Status.Active;
        uint256 deadline = active ? t.phaseDeadline : t.claimDeadline;
        // Jumping past a claim deadline fails the task: only the progress action does that, rarely.
        if (pastDeadline && block.timestamp <= deadline && (active || dt % 4 == 0)) vm.warp(deadline + 1);
        else vm.warp(block.timestamp + _bound(dt, 0, 40 minutes));
        _advancingRound = t.round;
        _begin("advance");
        try registry.advance(taskId) {
            _ok("advance");
            return true;
        } catch {
            _fail();
            return false;
        }
    }

    // ------------------------------------------------------------ internals: choosing

    function _bound(uint256 x, uint256 lo, uint256 hi) internal pure returns (uint256) {
        return lo + x % (hi - lo + 1);
    }

    function _node(uint256 seed) internal view returns (address) {
        return _nodes[seed % _nodes.length];
    }

    function _claimant(uint256 seed) internal view returns (address) {
        uint256 n = _nodes.length + _requesters.length;
        for (uint256 i = 0; i < n; ++i) {
            uint256 k = (seed % n + i) % n;
            address a = k < _nodes.length ? _nodes[k] : _requesters[k - _nodes.length];
            if (vault.claimableOf(a) > 0) return a;
        }
        return _nodes[seed % _nodes.length];
    }

    /// @dev A task that is still running if there is one (task ids start at 1); 0 when none exist.
    function _pickTask(uint256 seed) internal view returns (uint256) {
        if (_live.length > 0) return _live[seed % _live.length];
        uint256 count = stateView.taskCount();
        return count == 0 ? 0 : 1 + seed % count;
    }

    function _freeNode(uint256 taskId, uint256 seed) internal view returns (address) {
        for (uint256 i = 0; i < _nodes.length; ++i) {
            address n = _nodes[(seed % _nodes.length + i) % _nodes.length];
            if (!stateView.membershipOf(taskId, n).assigned) return n;
        }
        return _nodes[seed % _nodes.length];
    }

    /// @dev A node that can take `role` in the task right now, if there is one.
    function _eligibleFreeNode(uint256 taskId, uint256 seed, Role role) internal view returns (address) {
        for (uint256 i = 0; i < _nodes.length; ++i) {
            address n = _nodes[(seed % _nodes.length + i) % _nodes.length];
            if (stateView.membershipOf(taskId, n).assigned || stakes.isNodePaused(n)) continue;
            if (!reputation.isEligible(n) || stakes.availableStake(n, role) < stakes.minStake(role)) continue;
            return n;
        }
        return _nodes[seed % _nodes.length];
    }

    function _running() internal view returns (uint256) {
        return _live.length;
    }

    /// @dev An assigned `role` member expected this round that has not yet committed (or, for
    ///      `fresh == false`, has committed but not revealed); for validators, its vote.
    function _worker(uint256 taskId, ITaskRegistry.Task memory t, Role role, uint256 seed, bool fresh)
        internal
        view
        returns (address)
    {
        for (uint256 i = 0; i < _nodes.length; ++i) {
            address n = _nodes[(seed % _nodes.length + i) % _nodes.length];
            ITaskRegistry.Membership memory m = stateView.membershipOf(taskId, n);
            if (!m.assigned || m.role != role) continue;
            if (stateView.slotOf(taskId, role, m.slot).sinceRound > t.round) continue;
            if (role == Role.Validator) {
                bool isSealed = stateView.attestCommitmentOf(taskId, t.round, m.slot) != bytes32(0);
                if (fresh ? !isSealed && !registry.attestationOf(taskId, t.round, m.slot).voted : isSealed) return n;
                continue;
            }
            ITaskRegistry.Submission memory sub = stateView.submissionOf(taskId, t.round, role, m.slot);
            if (fresh ? sub.commitment == bytes32(0) : (sub.commitment != bytes32(0) && !sub.revealed)) return n;
        }
        return address(0);
    }

    function _snapshotEligibility() internal {
        for (uint256 i = 0; i < _nodes.length; ++i) {
            _scoreBefore[_nodes[i]] = reputation.scoreOf(_nodes[i]);
            _pausedBefore[_nodes[i]] = stakes.isNodePaused(_nodes[i]);
            for (uint256 r = 0; r < 3; ++r) {
                _availableBefore[_nodes[i]][Role(r)] = stakes.availableStake(_nodes[i], Role(r));
            }
        }
    }

    // ------------------------------------------------------------ internals: bookkeeping

    function _begin(bytes32 action) internal {
        ++calls[action];
        vmLogs.recordLogs();
    }

    function _fail() internal {
        vmLogs.getRecordedLogs(); // drop whatever a failed call left
    }

    function _ok(bytes32 action) internal {
        ++successes[action];
        ++totalSuccesses;
        VmLogs.Log[] memory logs = vmLogs.getRecordedLogs();
        for (uint256 i = 0; i < logs.length; ++i) {
            _process(logs[i]);
        }
    }

    function _process(VmLogs.Log memory log) internal {
        bytes32 sig = log.topics[0];
        if (log.emitter == address(registry)) {
            if (sig == ITaskRegistry.TaskCreated.selector) {
                _live.push(uint256(log.topics[1]));
            } else if (sig == ITaskRegistry.RewardEarned.selector) {
                uint256 taskId = uint256(log.topics[1]);
                uint256 round = uint256(log.topics[2]);
                (Role role, uint256 amount) = abi.decode(log.data, (Role, uint256));
                ghostPaid[taskId][uint8(role)] += amount;
                if (amount != _slotShare(taskId, role)) ++ghostWrongRewardAmounts;
                ghostCredited += amount;
                _payees[taskId][round][uint8(role)] += 1;
            } else if (sig == ITaskRegistry.TaskSettled.selector) {
                uint256 taskId = uint256(log.topics[1]);
                (ITaskRegistry.Status status,, uint256 refund) =
                    abi.decode(log.data, (ITaskRegistry.Status, uint256[3], uint256));
                ghostRefund[taskId] += refund;
                ghostSettled[taskId] = true;
                for (uint256 k = 0; k < _live.length; ++k) {
                    if (_live[k] == taskId) {
                        _live[k] = _live[_live.length - 1];
                        _live.pop();
                        break;
                    }
                }
                ++ghostSettledByStatus[uint8(status)];
                if (status == ITaskRegistry.Status.Completed && _allAccepted(taskId)) {
                    ghostFullyAccepted[taskId] = true;
                    ++ghostFullyAcceptedTasks;
                }
            } else if (sig == ITaskRegistry.SlotVacated.selector) {
                (, uint8 reason) = abi.decode(log.data, (uint256, uint8));
                ++ghostVacatedByReason[reason];
                if (reason == uint8(Outcome.Missed)) {
                    _checkHadInput(uint256(log.topics[1]), Role(uint256(log.topics[3])), _advancingRound);
                }
            } else if (sig == ITaskRegistry.RoundFinalized.selector) {
                uint256 taskId = uint256(log.topics[1]);
                if (!_revealed(taskId, uint256(log.topics[2]), false)) ++ghostRoundsWithoutSample;
            } else if (sig == ITaskRegistry.DrawOpened.selector) {
                ++ghostDrawsOpened;
                (,, bool forced) = abi.decode(log.data, (Role, uint256, bool));
                if (forced) ++ghostForcedDraws;
            } else if (sig == ITaskRegistry.PlantMissed.selector) {
                ++ghostPlantMissed;
            } else if (sig == ITaskRegistry.SlotAssigned.selector) {
                address node = address(uint160(uint256(log.topics[2])));
                ++ghostAssignments;
                if (_scoreBefore[node] < reputation.threshold()) ++ghostIneligibleAssignments;
                if (_pausedBefore[node]) ++ghostPausedAssignments;
                // Within one call, earlier assignments of the same node lock stake too.
                Role role = Role(uint256(log.topics[3]));
                uint256 minStake = stakes.minStake(role);
                if (_availableBefore[node][role] < minStake) ++ghostUnderstakedAssignments;
                else _availableBefore[node][role] -= minStake;
                if (role == Role.Validator) {
                    (uint256 slot,) = abi.decode(log.data, (uint256, uint256));
                    keyedAtJoin[uint256(log.topics[1])][slot] = _blsKeyPlusOne[node] != 0;
                }
            }
        } else if (log.emitter == address(stakes)) {
            if (sig == IStakeManager.Slashed.selector) {
                address node = address(uint160(uint256(log.topics[1])));
                Role role = Role(uint256(log.topics[2]));
                uint256 amount = abi.decode(log.data, (uint256));
                uint256 fromActive = amount < modelStaked[node][role] ? amount : modelStaked[node][role];
                modelStaked[node][role] -= fromActive;
                uint256 fromUnbonding = amount - fromActive;
                if (fromUnbonding > modelUnbonding[node][role]) {
                    // Slashed more than the node had: flag it (a revert here would hide it).
                    ++ghostUnbondedMismatches;
                    fromUnbonding = modelUnbonding[node][role];
                }
                modelUnbonding[node][role] -= fromUnbonding;
                if (amount > fromActive) ++ghostSlashedFromUnbonding;
                if (amount > 0) ++ghostSlashes;
            }
        } else if (log.emitter == address(vault)) {
            if (sig == IRewardVault.Credited.selector) {
                ghostVaultCredited += abi.decode(log.data, (uint256));
            } else if (sig == IRewardVault.Refunded.selector) {
                ghostRefunded += abi.decode(log.data, (uint256));
            }
        }
    }

    /// @dev A trainer is only expected with a revealed sample to train on, a validator only with a
    ///      revealed submission to attest (SPECIFICATION.md 5.4): nobody misses work it had no input for.
    function _checkHadInput(uint256 taskId, Role role, uint256 round) internal {
        if (role == Role.Sampler) return;
        if (!_revealed(taskId, round, role == Role.Validator)) ++ghostMissedWithoutInput;
    }

    /// @dev Whether a sample (or, with `orTrainer`, the trainer's checkpoint) was revealed in the round.
    function _revealed(uint256 taskId, uint256 round, bool orTrainer) internal view returns (bool) {
        uint256 n = stateView.taskOf(taskId).numSamplers;
        for (uint256 i = 0; i < n; ++i) {
            if (stateView.submissionOf(taskId, round, Role.Sampler, i).revealed) return true;
        }
        return orTrainer && stateView.submissionOf(taskId, round, Role.Trainer, 0).revealed;
    }

    /// @dev Per-slot pay: what one accepted node of `role` earns in one round, computed here
    ///      independently of Payouts.
    function _slotShare(uint256 taskId, Role role) internal view returns (uint256) {
        ITaskRegistry.Task memory t = stateView.taskOf(taskId);
        uint256 slots = role == Role.Sampler ? t.numSamplers : (role == Role.Trainer ? 1 : t.numValidators);
        return t.bounty * t.sharesBps[uint8(role)] / 10_000 / t.numRounds / slots;
    }

    function _allAccepted(uint256 taskId) internal view returns (bool) {
        ITaskRegistry.Task memory t = stateView.taskOf(taskId);
        for (uint256 r = 0; r < t.numRounds; ++r) {
            uint256[3] memory p = _payees[taskId][r];
            if (p[0] != t.numSamplers || p[1] != 1 || p[2] != t.numValidators) return false;
        }
        return true;
    }
}

// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {TestBase} from "./Vm.sol";
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
import {ITaskFront} from "../../../contracts/interfaces/ITaskFront.sol";
import {ITaskRegistry} from "../../../contracts/interfaces/ITaskRegistry.sol";
import {IStakeManager} from "../../../contracts/interfaces/IStakeManager.sol";
import {IReputation} from "../../../contracts/interfaces/IReputation.sol";
import {IRewardVault} from "../../../contracts/interfaces/IRewardVault.sol";
import {Role, Outcome} from "../../../contracts/libraries/Types.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";

/// @notice The protocol deployed and wired as scripts/deploy.py does it (disputes deployed, not
///         active), with staked actors and helpers that drive a task through claims, the validator
///         draw and its rounds. Reads go through `stateView`, as clients' do.
/// @dev Default task: 2 samplers, 3 validators, 3 rounds, bounty 30,000 DRL. The validator pool is
///      exactly the three default validators, so a draw assigns all of them (in a seed-dependent
///      order: look slots up with `_validatorAt`).
abstract contract RegistryFixture is TestBase {
    uint256 internal constant SUPPLY = 1_000_000_000e18;
    uint256 internal constant MIN_SAMPLER_STAKE = 100e18;
    uint256 internal constant MIN_TRAINER_STAKE = 500e18;
    uint256 internal constant MIN_VALIDATOR_STAKE = 200e18;
    uint256 internal constant UNBONDING_PERIOD = 7 days;

    uint256 internal constant BOUNTY = 30_000e18;
    uint8 internal constant NUM_SAMPLERS = 2;
    uint8 internal constant NUM_VALIDATORS = 3;
    uint16 internal constant NUM_ROUNDS = 3;
    uint32 internal constant CLAIM_WINDOW = 1 days;
    uint32 internal constant COMMIT_WINDOW = 1 hours;
    uint32 internal constant REVEAL_WINDOW = 30 minutes;
    uint32 internal constant ATTEST_WINDOW = 20 minutes;
    string internal constant SPEC_CID = "bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi";
    bytes32 internal constant SPEC_DIGEST = keccak256("spec bytes");
    string internal constant RESULT_CID = "bafkreihdwdcefgh4dqkjv67uzcmw7ojee6xedzdetojuzjevtenxquvyku";

    uint256 internal constant REQUESTER_KEY = 0xA11CE;
    /// @dev With 2 samplers the trainer's bit is bit 2: everything accepted.
    uint256 internal constant ACCEPT_ALL = 0x7;

    RLToken internal token;
    StakeManager internal stakes;
    Reputation internal reputation;
    RewardVault internal vault;
    ProtocolConfig internal config;
    TaskRegistry internal registry;
    TaskFront internal front;
    KeyringBoard internal keyrings;
    DisputeManager internal disputes; // deployed and granted its roles; active once the registry's (DisputeFixture)
    StateView internal stateView;

    address internal admin;
    address internal treasury;
    address internal requester;
    address internal relayer;
    address[] internal samplers; // 3: two for the default task and one spare
    address[] internal trainers; // 2: one for the default task and one spare
    address[] internal validators; // 3: the whole default pool

    function setUp() public virtual {
        vm.warp(1_700_000_000);
        vm.roll(1_000);
        admin = _named("admin");
        treasury = _named("treasury");
        requester = vm.addr(REQUESTER_KEY);
        vm.label(requester, "requester");
        relayer = _named("relayer");

        vm.startPrank(admin);
        token = new RLToken(admin, SUPPLY);
        stakes = new StakeManager(
            IERC20(address(token)),
            admin,
            [MIN_SAMPLER_STAKE, MIN_TRAINER_STAKE, MIN_VALIDATOR_STAKE],
            UNBONDING_PERIOD
        );
        reputation = new Reputation(admin);
        vault = new RewardVault(IERC20(address(token)), admin);
        config = new ProtocolConfig(admin, treasury);
        registry = new TaskRegistry(IERC20(address(token)), stakes, reputation, vault, config, admin);
        stakes.grantRole(stakes.PROTOCOL_ROLE(), address(registry));
        reputation.grantRole(reputation.REPORTER_ROLE(), address(registry));
        vault.grantRole(vault.ESCROW_ROLE(), address(registry));
        front = new TaskFront(registry);
        keyrings = new KeyringBoard(registry);
        disputes = new DisputeManager(IERC20(address(token)), registry, stakes, reputation, vault, config);
        stakes.grantRole(stakes.PROTOCOL_ROLE(), address(disputes));
        reputation.grantRole(reputation.REPORTER_ROLE(), address(disputes));
        stateView = new StateView(registry, disputes);
        registry.setTaskFront(address(front));
        token.transfer(requester, 10 * BOUNTY);
        vm.stopPrank();

        vm.prank(requester);
        token.approve(address(registry), type(uint256).max);

        for (uint256 i = 0; i < 3; ++i) {
            samplers.push(_stakedNode(string.concat("sampler", _digit(i)), Role.Sampler, MIN_SAMPLER_STAKE));
            validators.push(_stakedNode(string.concat("validator", _digit(i)), Role.Validator, MIN_VALIDATOR_STAKE));
        }
        for (uint256 i = 0; i < 2; ++i) {
            trainers.push(_stakedNode(string.concat("trainer", _digit(i)), Role.Trainer, MIN_TRAINER_STAKE));
        }
    }

    // ------------------------------------------------------------ actors

    function _named(string memory name) internal returns (address a) {
        a = address(uint160(uint256(keccak256(bytes(name)))));
        vm.label(a, name);
    }

    function _digit(uint256 i) internal pure returns (string memory) {
        return string(abi.encodePacked(bytes1(uint8(48 + i))));
    }

    /// @dev A fresh node funded by the admin and staked `amount` for `role`.
    function _stakedNode(string memory name, Role role, uint256 amount) internal returns (address node) {
        node = _named(name);
        _stake(node, role, amount);
    }

    function _stake(address node, Role role, uint256 amount) internal {
        vm.prank(admin);
        token.transfer(node, amount);
        vm.startPrank(node);
        token.approve(address(stakes), amount);
        stakes.stake(role, amount);
        vm.stopPrank();
    }

    /// @dev Gives this test contract the reporter role and records `outcome` for `node` `times` times.
    function _recordOutcome(address node, Outcome outcome, uint256 times) internal {
        bytes32 reporterRole = reputation.REPORTER_ROLE();
        vm.prank(admin);
        reputation.grantRole(reporterRole, address(this));
        for (uint256 i = 0; i < times; ++i) {
            reputation.record(node, outcome);
        }
    }

    // ------------------------------------------------------------ tasks

    function _params() internal pure returns (ITaskRegistry.TaskParams memory) {
        return ITaskRegistry.TaskParams({
            specCid: SPEC_CID,
            specDigest: SPEC_DIGEST,
            bounty: BOUNTY,
            numSamplers: NUM_SAMPLERS,
            numValidators: NUM_VALIDATORS,
            numRounds: NUM_ROUNDS,
            claimWindow: CLAIM_WINDOW,
            commitWindow: COMMIT_WINDOW,
            revealWindow: REVEAL_WINDOW,
            attestWindow: ATTEST_WINDOW
        });
    }

    function _noPermit() internal pure returns (ITaskFront.Permit memory p) {}

    function _createTask() internal returns (uint256) {
        return _createTask(_params());
    }

    function _createTask(ITaskRegistry.TaskParams memory p) internal returns (uint256) {
        vm.prank(requester);
        return registry.createTask(p);
    }

    function _task(uint256 taskId) internal view returns (ITaskRegistry.Task memory) {
        return stateView.taskOf(taskId);
    }

    function _claim(uint256 taskId, address node, Role role) internal returns (uint256) {
        vm.prank(node);
        return registry.claimSlot(taskId, role);
    }

    /// @dev Default samplers and trainer claim every slot: the task moves to Drawing.
    function _fillSlots(uint256 taskId) internal {
        uint256 n = _task(taskId).numSamplers;
        for (uint256 i = 0; i < n; ++i) {
            _claim(taskId, samplers[i], Role.Sampler);
        }
        _claim(taskId, trainers[0], Role.Trainer);
    }

    /// @dev Mines blocks until the armed seed block has a hash.
    function _rollPastSeed(uint256 taskId) internal {
        vm.roll(_task(taskId).seedBlock + 1);
    }

    function _draw(uint256 taskId) internal {
        _rollPastSeed(taskId);
        registry.drawValidators(taskId);
    }

    /// @dev A default task with every slot filled and validators drawn: round 0, SampleCommit.
    function _activeTask() internal returns (uint256 taskId) {
        taskId = _createTask();
        _fillSlots(taskId);
        _draw(taskId);
    }

    function _samplerAt(uint256 taskId, uint256 slot) internal view returns (address) {
        return stateView.slotOf(taskId, Role.Sampler, slot).node;
    }

    function _trainerOf(uint256 taskId) internal view returns (address) {
        return stateView.slotOf(taskId, Role.Trainer, 0).node;
    }

    function _validatorAt(uint256 taskId, uint256 slot) internal view returns (address) {
        return stateView.slotOf(taskId, Role.Validator, slot).node;
    }

    // ------------------------------------------------------------ time

    /// @dev Warps wall-clock time so that protocol time is `target`.
    function _warpToProtocolTime(uint256 target) internal {
        vm.warp(vm.getBlockTimestamp() + target - registry.protocolTime());
    }

    /// @dev Warps to one second after the current phase's deadline.
    function _warpPastPhase(uint256 taskId) internal {
        _warpToProtocolTime(uint256(_task(taskId).phaseDeadline) + 1);
    }

    /// @dev Lets the current phase expire and advances the task.
    function _expire(uint256 taskId) internal {
        _warpPastPhase(taskId);
        registry.advance(taskId);
    }

    // ------------------------------------------------------------ results

    function _root(address node, uint256 round) internal pure returns (bytes32) {
        return keccak256(abi.encode("root", node, round));
    }

    /// @dev The salt of `node`'s result of `round`: a real draw commitment for round + 1 (forced
    ///      errors, SPECIFICATION.md 5.5.3), so that every multi-round test opens its draws.
    function _salt(uint256 taskId, address node, uint256 round) internal view returns (bytes32) {
        return _drawCommitmentOf(taskId, round + 1, node);
    }

    /// @dev The commitment of SPECIFICATION.md 5.4, computed independently of `commitmentFor`.
    function _commitmentOf(uint256 taskId, uint256 round, address node) internal view returns (bytes32) {
        return keccak256(
            abi.encode(taskId, round, node, _root(node, round), keccak256(bytes(RESULT_CID)), _salt(taskId, node, round))
        );
    }

    function _commit(uint256 taskId, address node) internal {
        uint256 round = _task(taskId).round;
        bytes32 commitment = _commitmentOf(taskId, round, node);
        vm.prank(node);
        registry.commit(taskId, commitment);
    }

    function _reveal(uint256 taskId, address node) internal {
        uint256 round = _task(taskId).round;
        bytes32 root = _root(node, round);
        bytes32 salt = _salt(taskId, node, round);
        vm.prank(node);
        registry.reveal(taskId, root, RESULT_CID, salt);
    }

    // ------------------------------------------------------------ draws (forced errors)

    /// @dev Draw secrets a test chose (see `_drawSecret`), by task, node and round.
    mapping(uint256 taskId => mapping(address node => mapping(uint256 round => bytes32))) internal chosenSecret;

    /// @dev The draw secret `node` holds for `round` (committed by its reveal of round - 1): one a
    ///      test chose, else a fixed one.
    function _drawSecret(uint256 taskId, address node, uint256 round) internal view returns (bytes32) {
        bytes32 chosen = chosenSecret[taskId][node][round];
        return chosen != bytes32(0) ? chosen : keccak256(abi.encode("draw-secret", taskId, node, round));
    }

    /// @dev The draw commitment of SPECIFICATION.md 5.5.3, computed independently of `drawCommitmentFor`.
    function _drawCommitmentOf(uint256 taskId, uint256 round, address node) internal view returns (bytes32) {
        return keccak256(abi.encode(taskId, round, node, _drawSecret(taskId, node, round)));
    }

    /// @dev Whether `node`'s draw of `round` is forced, computed independently of the registry.
    function _isForced(uint256 taskId, address node, uint256 round) internal view returns (bool) {
        bytes32 seed = stateView.roundSeed(taskId, round);
        return uint256(keccak256(abi.encode(_drawSecret(taskId, node, round), seed))) % 10_000 < config.forcedErrorBps();
    }

    /// @dev AttestReveal phase: `node` opens its draw of the current round.
    function _openDraw(uint256 taskId, address node) internal {
        uint256 round = _task(taskId).round;
        vm.prank(node);
        registry.openDraw(taskId, round, _drawSecret(taskId, node, round));
    }

    /// @dev The submitter of submission bit `i` of the current round.
    function _submitterOf(uint256 taskId, uint256 i) internal view returns (address) {
        ITaskRegistry.Task memory t = _task(taskId);
        Role role = i == t.numSamplers ? Role.Trainer : Role.Sampler;
        return stateView.submissionOf(taskId, t.round, role, i == t.numSamplers ? 0 : i).node;
    }

    /// @dev AttestReveal phase: every worker with a draw still to open opens it.
    function _openDraws(uint256 taskId) internal {
        ITaskRegistry.Task memory t = _task(taskId);
        uint256 toOpen = stateView.drawnMask(taskId, t.round) & ~stateView.openedDrawMask(taskId, t.round);
        for (uint256 i = 0; i <= t.numSamplers; ++i) {
            if ((toOpen >> i) & 1 == 1) _openDraw(taskId, _submitterOf(taskId, i));
        }
    }

    // ------------------------------------------------------------ sealed votes

    /// @dev The bitmap each validator sealed, by task and round (what `_open` reveals).
    mapping(uint256 taskId => mapping(uint256 round => mapping(address validator => uint256))) internal sealedBitmap;

    function _voteSalt(address validator, uint256 round) internal pure returns (bytes32) {
        return keccak256(abi.encode("vote-salt", validator, round));
    }

    /// @dev The vote commitment of SPECIFICATION.md 5.4, computed independently of `attestCommitmentFor`.
    function _voteCommitmentOf(uint256 taskId, uint256 round, address validator, uint256 bitmap)
        internal
        pure
        returns (bytes32)
    {
        return keccak256(abi.encode(taskId, round, validator, bitmap, _voteSalt(validator, round)));
    }

    /// @dev Attest phase: `validator` seals a vote for `bitmap`.
    function _seal(uint256 taskId, address validator, uint256 bitmap) internal {
        _sealAt(taskId, _task(taskId).round, validator, bitmap);
    }

    /// @dev `_seal` for a given round, with no call before the registry's (so a test may expect a revert).
    function _sealAt(uint256 taskId, uint256 round, address validator, uint256 bitmap) internal {
        sealedBitmap[taskId][round][validator] = bitmap;
        vm.prank(validator);
        registry.commitAttestation(taskId, round, _voteCommitmentOf(taskId, round, validator, bitmap));
    }

    /// @dev AttestReveal phase: `validator` opens the vote it sealed.
    function _open(uint256 taskId, address validator) internal {
        uint256 round = _task(taskId).round;
        _openAt(taskId, round, validator, sealedBitmap[taskId][round][validator]);
    }

    /// @dev Opens `bitmap` with `validator`'s salt of `round`, with no call before the registry's.
    function _openAt(uint256 taskId, uint256 round, address validator, uint256 bitmap) internal {
        vm.prank(validator);
        registry.attest(taskId, round, bitmap, _voteSalt(validator, round));
    }

    /// @dev Opens every draw still to open, then every sealed vote of the round in slot order (the
    ///      last one finalizes the round).
    function _openAll(uint256 taskId) internal {
        _openDraws(taskId);
        ITaskRegistry.Task memory t = _task(taskId);
        for (uint256 v = 0; v < t.numValidators; ++v) {
            if (stateView.attestCommitmentOf(taskId, t.round, v) != bytes32(0)) _open(taskId, _validatorAt(taskId, v));
        }
    }

    /// @dev Nodes of `role` holding a slot now and expected this round, by slot.
    function _working(uint256 taskId, Role role) internal view returns (address[] memory nodes) {
        ITaskRegistry.Task memory t = _task(taskId);
        uint256 count = role == Role.Sampler ? t.numSamplers : role == Role.Trainer ? 1 : t.numValidators;
        nodes = new address[](count);
        uint256 n;
        for (uint256 i = 0; i < count; ++i) {
            ITaskRegistry.Slot memory s = stateView.slotOf(taskId, role, i);
            if (s.node != address(0) && s.sinceRound <= t.round) nodes[n++] = s.node;
        }
        assembly {
            mstore(nodes, n)
        }
    }

    function _commitSamplers(uint256 taskId) internal {
        address[] memory nodes = _working(taskId, Role.Sampler);
        for (uint256 i = 0; i < nodes.length; ++i) {
            _commit(taskId, nodes[i]);
        }
    }

    function _revealSamplers(uint256 taskId) internal {
        address[] memory nodes = _working(taskId, Role.Sampler);
        for (uint256 i = 0; i < nodes.length; ++i) {
            _reveal(taskId, nodes[i]);
        }
    }

    /// @dev Samplers and trainer commit and reveal: the task reaches Attest.
    function _workRound(uint256 taskId) internal {
        _commitSamplers(taskId);
        _revealSamplers(taskId);
        address t = _trainerOf(taskId);
        _commit(taskId, t);
        _reveal(taskId, t);
    }

    /// @dev Every working validator seals `bitmap` (which closes Attest), then each opens it.
    function _attestAll(uint256 taskId, uint256 bitmap) internal {
        address[] memory nodes = _working(taskId, Role.Validator);
        for (uint256 i = 0; i < nodes.length; ++i) {
            _seal(taskId, nodes[i], bitmap);
        }
        _openAll(taskId);
    }

    /// @dev A whole round in which everyone works and every validator votes `bitmap`.
    function _runRound(uint256 taskId, uint256 bitmap) internal {
        _workRound(taskId);
        _attestAll(taskId, bitmap);
    }

    // ------------------------------------------------------------ assertions

    function _assertStatus(uint256 taskId, ITaskRegistry.Status status) internal view {
        assertEq(uint256(_task(taskId).status), uint256(status), "status");
    }

    function _assertPhase(uint256 taskId, uint256 round, ITaskRegistry.Phase phase) internal view {
        ITaskRegistry.Task memory t = _task(taskId);
        assertEq(t.round, round, "round");
        assertEq(uint256(t.phase), uint256(phase), "phase");
    }

    function _lockedOf(address node, Role role) internal view returns (uint256) {
        return stakes.stakeOf(node, role).locked;
    }

    function _stakeOf(address node, Role role) internal view returns (uint256) {
        return stakes.stakeOf(node, role).staked;
    }
}

// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {SafeCast} from "@openzeppelin/contracts/utils/math/SafeCast.sol";
import {EnumerableSet} from "@openzeppelin/contracts/utils/structs/EnumerableSet.sol";
import {IStakeManager} from "./interfaces/IStakeManager.sol";
import {Role} from "./libraries/Types.sol";
import {BN254} from "./libraries/BN254.sol";

/// @title StakeManager
/// @notice Holds operator stakes per role; the protocol locks, unlocks and slashes them.
contract StakeManager is IStakeManager, AccessControl, ReentrancyGuard {
    using SafeERC20 for IERC20;
    using SafeCast for uint256;
    using EnumerableSet for EnumerableSet.AddressSet;

    /// @dev An entry of the draw list: a validator and the block it first staked the minimum in.
    struct Listing {
        address node;
        uint64 listedAt;
    }

    bytes32 public constant GOVERNOR_ROLE = keccak256("GOVERNOR_ROLE");
    /// @notice Held by the TaskRegistry: may lock, unlock and slash.
    bytes32 public constant PROTOCOL_ROLE = keccak256("PROTOCOL_ROLE");
    /// @notice Domain tag of the message a BLS proof of possession signs (see `blsPopMessage`).
    bytes32 public constant BLS_POP_DOMAIN = keccak256("decentrl.bls-pop.v1");

    uint256 public constant MIN_UNBONDING_PERIOD = 1 days;
    uint256 public constant MAX_UNBONDING_PERIOD = 90 days;

    IERC20 public immutable token;

    mapping(address node => mapping(Role role => StakeInfo)) private _stakes;
    mapping(Role role => uint256) private _minStake;
    mapping(address node => bool) private _nodePaused;
    mapping(address node => uint256[4]) private _blsKeys;
    mapping(address node => uint256[2]) private _blsKeysG1;
    // Validators with active stake: the pool the TaskRegistry draws from.
    EnumerableSet.AddressSet private _validators;
    /// @dev The draw list (drawPoolSize): append-only, in the order of first listing.
    Listing[] private _drawList;
    mapping(address node => bool) private _drawListed;
    uint256 private _unbondingPeriod;
    uint256 private _totalStaked;

    constructor(IERC20 token_, address admin, uint256[3] memory minStakes, uint256 unbondingPeriod_) {
        if (address(token_) == address(0) || admin == address(0)) revert ZeroAddress();
        token = token_;
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        _grantRole(GOVERNOR_ROLE, admin);
        for (uint256 i = 0; i < 3; ++i) {
            _setMinStake(Role(i), minStakes[i]);
        }
        _setUnbondingPeriod(unbondingPeriod_);
    }

    /// @inheritdoc IStakeManager
    function stake(Role role, uint256 amount) external nonReentrant {
        if (amount == 0) revert ZeroAmount();
        StakeInfo storage info = _stakes[msg.sender][role];
        info.staked += amount.toUint128();
        _totalStaked += amount;
        _syncPool(msg.sender, role, info);
        token.safeTransferFrom(msg.sender, address(this), amount);
        emit Staked(msg.sender, role, amount, info.staked);
    }

    /// @inheritdoc IStakeManager
    function requestUnstake(Role role, uint256 amount) external {
        if (amount == 0) revert ZeroAmount();
        StakeInfo storage info = _stakes[msg.sender][role];
        uint256 available = info.staked - info.locked;
        if (amount > available) revert InsufficientUnlockedStake(msg.sender, role, available, amount);
        // amount <= staked - locked (checked above), so the cast cannot truncate.
        info.staked -= uint128(amount);
        info.unbonding += uint128(amount);
        uint256 readyAt = block.timestamp + _unbondingPeriod;
        info.unbondingReadyAt = readyAt.toUint64();
        _syncPool(msg.sender, role, info);
        emit UnstakeRequested(msg.sender, role, amount, readyAt);
    }

    /// @inheritdoc IStakeManager
    function withdrawUnbonded(Role role) external nonReentrant {
        StakeInfo storage info = _stakes[msg.sender][role];
        uint256 amount = info.unbonding;
        if (amount == 0) revert NothingUnbonding(msg.sender, role);
        if (block.timestamp < info.unbondingReadyAt) {
            revert UnbondingNotReady(msg.sender, role, info.unbondingReadyAt);
        }
        info.unbonding = 0;
        info.unbondingReadyAt = 0;
        _totalStaked -= amount;
        token.safeTransfer(msg.sender, amount);
        emit UnbondedWithdrawn(msg.sender, role, amount);
    }

    /// @inheritdoc IStakeManager
    function setNodePaused(bool paused) external {
        _nodePaused[msg.sender] = paused;
        emit NodePauseSet(msg.sender, paused);
    }

    /// @inheritdoc IStakeManager
    function registerBlsKey(
        uint256[4] calldata pubkey,
        uint256[2] calldata pubkeyG1,
        uint256[2] calldata proofOfPossession
    ) external {
        // Any validator stake may register its key, below the pool's minimum too: a node's key goes
        // on-chain when it first stakes, and it reaches the minimum later (SPECIFICATION.md 3).
        // slither-disable-next-line incorrect-equality
        if (_stakes[msg.sender][Role.Validator].staked == 0) revert NotAValidator(msg.sender);
        // Write-once: a task's aggregate key subtracts, when a slot is vacated, the key its holder
        // had when it took the slot (keys derive from the account key, so rotation has no use).
        if ((_blsKeysG1[msg.sender][0] | _blsKeysG1[msg.sender][1]) != 0) revert BlsKeyAlreadyRegistered(msg.sender);
        uint256[4] memory pk2 = pubkey;
        uint256[2] memory pk1 = pubkeyG1;
        // Neither key may be the point at infinity: with both at infinity every check below holds.
        if ((pk2[0] | pk2[1] | pk2[2] | pk2[3]) == 0 || (pk1[0] | pk1[1]) == 0 || !BN254.isOnCurveG1(pk1)) {
            revert InvalidBlsKey(msg.sender);
        }
        // e(pk1, -g2) · e(g1, pk2) == 1: both keys have the same secret. The precompile rejects a
        // pk2 off the twist or outside the prime-order subgroup (callOk false).
        (bool callOk, bool same) = BN254.pairing2(pk1, BN254.negG2(), BN254.g1(), pk2);
        if (!callOk) revert InvalidBlsKey(msg.sender);
        if (!same) revert BlsKeysMismatch(msg.sender);
        // e(pop, -g2) · e(H(m), pk2) == 1 for m naming this node and these keys: the registrant knows
        // the secret, so no one can register pk_rogue = pk_attacker - pk_victim (rogue-key attack).
        uint256[2] memory pop = proofOfPossession;
        bytes32 message = blsPopMessage(msg.sender, pubkey, pubkeyG1);
        bool valid = false;
        if (BN254.isOnCurveG1(pop)) {
            (bool popCallOk, bool popHolds) = BN254.pairing2(pop, BN254.negG2(), BN254.hashToG1(message), pk2);
            valid = popCallOk && popHolds;
        }
        if (!valid) revert InvalidProofOfPossession(msg.sender);
        _blsKeys[msg.sender] = pk2;
        _blsKeysG1[msg.sender] = pk1;
        emit BlsKeyRegistered(msg.sender, keccak256(abi.encodePacked(pubkey)), pubkey);
    }

    /// @inheritdoc IStakeManager
    function lock(address node, Role role, uint256 amount) external onlyRole(PROTOCOL_ROLE) {
        StakeInfo storage info = _stakes[node][role];
        uint256 available = info.staked - info.locked;
        if (amount > available) revert InsufficientUnlockedStake(node, role, available, amount);
        info.locked += uint128(amount);
        emit StakeLocked(node, role, amount);
    }

    /// @inheritdoc IStakeManager
    function unlock(address node, Role role, uint256 amount) external onlyRole(PROTOCOL_ROLE) {
        StakeInfo storage info = _stakes[node][role];
        if (amount > info.locked) revert InsufficientLockedStake(node, role, info.locked, amount);
        info.locked -= uint128(amount);
        emit StakeUnlocked(node, role, amount);
    }

    /// @inheritdoc IStakeManager
    function slash(address node, Role role, uint256 amount, address recipient)
        external
        onlyRole(PROTOCOL_ROLE)
        nonReentrant
        returns (uint256 slashed)
    {
        if (recipient == address(0)) revert ZeroAddress();
        StakeInfo storage info = _stakes[node][role];
        // Stake locked for an assignment is never taken: its unlock must not fail.
        uint256 free = info.staked - info.locked;
        uint256 fromActive = amount < free ? amount : free;
        uint256 rest = amount - fromActive;
        uint256 fromUnbonding = rest < info.unbonding ? rest : info.unbonding;
        // Both parts are bounded by the fields they come from, so the casts cannot truncate.
        info.staked -= uint128(fromActive);
        info.unbonding -= uint128(fromUnbonding);
        slashed = fromActive + fromUnbonding;
        _totalStaked -= slashed;
        _syncPool(node, role, info);
        if (slashed > 0) token.safeTransfer(recipient, slashed);
        emit Slashed(node, role, slashed, recipient);
    }

    /// @inheritdoc IStakeManager
    function setMinStake(Role role, uint256 amount) external onlyRole(GOVERNOR_ROLE) {
        _setMinStake(role, amount);
    }

    /// @inheritdoc IStakeManager
    function setUnbondingPeriod(uint256 period) external onlyRole(GOVERNOR_ROLE) {
        _setUnbondingPeriod(period);
    }

    /// @inheritdoc IStakeManager
    function stakeOf(address node, Role role) external view returns (StakeInfo memory) {
        return _stakes[node][role];
    }

    /// @inheritdoc IStakeManager
    function availableStake(address node, Role role) external view returns (uint256) {
        StakeInfo storage info = _stakes[node][role];
        return info.staked - info.locked;
    }

    /// @inheritdoc IStakeManager
    function minStake(Role role) external view returns (uint256) {
        return _minStake[role];
    }

    /// @inheritdoc IStakeManager
    function unbondingPeriod() external view returns (uint256) {
        return _unbondingPeriod;
    }

    /// @inheritdoc IStakeManager
    function totalStaked() external view returns (uint256) {
        return _totalStaked;
    }

    /// @inheritdoc IStakeManager
    function isNodePaused(address node) external view returns (bool) {
        return _nodePaused[node];
    }

    /// @inheritdoc IStakeManager
    function validatorCount() external view returns (uint256) {
        return _validators.length();
    }

    /// @inheritdoc IStakeManager
    function validatorAt(uint256 index) external view returns (address) {
        return _validators.at(index);
    }

    /// @inheritdoc IStakeManager
    function drawPoolSize(uint256 beforeBlock) external view returns (uint256 size) {
        // Entries are appended in block order: the pool is the prefix listed before beforeBlock.
        uint256 high = _drawList.length;
        while (size < high) {
            uint256 mid = (size + high) / 2;
            if (_drawList[mid].listedAt < beforeBlock) size = mid + 1;
            else high = mid;
        }
    }

    /// @inheritdoc IStakeManager
    function drawCandidate(uint256 index) external view returns (address) {
        return _drawList[index].node;
    }

    /// @inheritdoc IStakeManager
    function blsKeyOf(address node) external view returns (uint256[4] memory, uint256[2] memory) {
        return (_blsKeys[node], _blsKeysG1[node]);
    }

    /// @inheritdoc IStakeManager
    function blsKeyG1Of(address node) external view returns (uint256[2] memory) {
        return _blsKeysG1[node];
    }

    /// @inheritdoc IStakeManager
    function aggregateBlsKey(address[] calldata nodes) external view returns (uint256[2] memory apk) {
        for (uint256 i = 0; i < nodes.length; ++i) {
            uint256[2] memory key = _blsKeysG1[nodes[i]];
            if ((key[0] | key[1]) == 0) revert BlsKeyNotRegistered(nodes[i]);
            apk = BN254.add(apk, key);
        }
    }

    /// @inheritdoc IStakeManager
    function blsPopMessage(address node, uint256[4] calldata pubkey, uint256[2] calldata pubkeyG1)
        public
        view
        returns (bytes32)
    {
        return keccak256(abi.encode(BLS_POP_DOMAIN, block.chainid, address(this), node, pubkey, pubkeyG1));
    }

    function _setMinStake(Role role, uint256 amount) private {
        if (amount == 0) revert ZeroAmount();
        _minStake[role] = amount;
        emit MinStakeSet(role, amount);
    }

    function _setUnbondingPeriod(uint256 period) private {
        if (period < MIN_UNBONDING_PERIOD || period > MAX_UNBONDING_PERIOD) {
            revert UnbondingPeriodOutOfBounds(period, MIN_UNBONDING_PERIOD, MAX_UNBONDING_PERIOD);
        }
        _unbondingPeriod = period;
        emit UnbondingPeriodSet(period);
    }

    /// @dev The validator pool holds the validators staking at least the minimum: a stake of a few
    ///      wei from many addresses would otherwise fill the pool that draws walk, making each draw
    ///      examine mostly nodes that cannot serve (and re-arm until tasks fail). A change of the
    ///      minimum applies to a node at its next stake change; draws check eligibility anyway.
    function _syncPool(address node, Role role, StakeInfo storage info) private {
        if (role != Role.Validator) return;
        // Whether the set changed is not needed: adding a member or removing a non-member is a no-op.
        if (info.staked >= _minStake[Role.Validator]) {
            // slither-disable-next-line unused-return
            _validators.add(node);
            // Listed once, for good: a draw's pool must not change once its seed is known
            // (SPECIFICATION.md 5.3); a member that left is skipped as ineligible.
            if (!_drawListed[node]) {
                _drawListed[node] = true;
                _drawList.push(Listing(node, uint64(block.number)));
            }
        } else {
            // slither-disable-next-line unused-return
            _validators.remove(node);
        }
    }
}

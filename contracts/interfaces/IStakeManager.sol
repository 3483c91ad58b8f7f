// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Role} from "../libraries/Types.sol";

/// @title IStakeManager
/// @notice Operators stake tokens per role. Stake assigned to a task is locked; stake leaving the
///         system goes through an unbonding period during which it can still be slashed.
interface IStakeManager {
    /// @notice Stake of one node in one role.
    /// @param staked Active stake (includes `locked`).
    /// @param locked Part of `staked` backing current task assignments; cannot be unstaked.
    /// @param unbonding Stake on its way out; still slashable until withdrawn.
    /// @param unbondingReadyAt Timestamp from which `unbonding` can be withdrawn.
    struct StakeInfo {
        uint128 staked;
        uint128 locked;
        uint128 unbonding;
        uint64 unbondingReadyAt;
    }

    error ZeroAmount();
    error InsufficientUnlockedStake(address node, Role role, uint256 available, uint256 requested);
    error InsufficientLockedStake(address node, Role role, uint256 locked, uint256 requested);
    error NothingUnbonding(address node, Role role);
    error UnbondingNotReady(address node, Role role, uint256 readyAt);
    error UnbondingPeriodOutOfBounds(uint256 period, uint256 min, uint256 max);
    error NotAValidator(address node);
    /// @notice A BLS key is the point at infinity, off its curve or outside the prime-order subgroup.
    error InvalidBlsKey(address node);
    /// @notice The G1 and G2 keys do not share their secret: e(pk1, g2) != e(g1, pk2).
    error BlsKeysMismatch(address node);
    /// @notice The proof of possession is not the key's signature of `blsPopMessage`.
    error InvalidProofOfPossession(address node);
    /// @notice The node has no BLS key, so it cannot be part of an aggregate attestation.
    error BlsKeyNotRegistered(address node);
    /// @notice The node already has a BLS key: keys are write-once (SPECIFICATION.md 3.1).
    error BlsKeyAlreadyRegistered(address node);
    error ZeroAddress();

    event Staked(address indexed node, Role indexed role, uint256 amount, uint256 totalStaked);
    event UnstakeRequested(address indexed node, Role indexed role, uint256 amount, uint256 readyAt);
    event UnbondedWithdrawn(address indexed node, Role indexed role, uint256 amount);
    event StakeLocked(address indexed node, Role indexed role, uint256 amount);
    event StakeUnlocked(address indexed node, Role indexed role, uint256 amount);
    event Slashed(address indexed node, Role indexed role, uint256 amount, address indexed recipient);
    event MinStakeSet(Role indexed role, uint256 amount);
    event UnbondingPeriodSet(uint256 period);
    event NodePauseSet(address indexed node, bool paused);
    event BlsKeyRegistered(address indexed node, bytes32 indexed keyHash, uint256[4] pubkey);

    /// @notice Adds `amount` to the caller's stake in `role` (pulled with transferFrom).
    function stake(Role role, uint256 amount) external;

    /// @notice Moves `amount` of unlocked stake into unbonding; restarts the unbonding clock.
    function requestUnstake(Role role, uint256 amount) external;

    /// @notice Pays out the caller's unbonded stake once its unbonding period is over.
    function withdrawUnbonded(Role role) external;

    /// @notice Lets an operator take its node out of (and back into) new assignments.
    function setNodePaused(bool paused) external;

    /// @notice Registers the caller's BN254 BLS key, once: `pubkey` = sk·g2 in G2 (precompile
    ///         order [x.c1, x.c0, y.c1, y.c0]), `pubkeyG1` = sk·g1 (lets the registry aggregate keys
    ///         with ecAdd), and `proofOfPossession` = sk·H(blsPopMessage(caller, pubkey, pubkeyG1)).
    /// @dev Reverts `InvalidBlsKey` for a key at infinity, off its curve or outside the subgroup,
    ///      `BlsKeysMismatch` when the two keys have different secrets and `InvalidProofOfPossession`
    ///      for a wrong proof (the rogue-key defence; see SPECIFICATION.md 3.1) and
    ///      `BlsKeyAlreadyRegistered` when the caller has a key: the registry keeps per-task sums of
    ///      its validators' keys, so a key must stay what it was when its holder took a slot.
    function registerBlsKey(
        uint256[4] calldata pubkey,
        uint256[2] calldata pubkeyG1,
        uint256[2] calldata proofOfPossession
    ) external;

    /// @notice Locks `amount` of a node's unlocked stake for an assignment. Protocol only.
    function lock(address node, Role role, uint256 amount) external;

    /// @notice Releases `amount` of a node's locked stake. Protocol only.
    function unlock(address node, Role role, uint256 amount) external;

    /// @notice Takes up to `amount` from the node's active stake that is not locked, then from its
    ///         unbonding stake, and sends it to `recipient`; stake locked for an assignment is never
    ///         taken (its unlock must not fail). Protocol only. Returns what was actually slashed.
    function slash(address node, Role role, uint256 amount, address recipient) external returns (uint256);

    /// @notice Sets the minimum stake a node needs (unlocked) to take one assignment in `role`.
    function setMinStake(Role role, uint256 amount) external;

    /// @notice Sets how long unstaked tokens stay slashable before they can be withdrawn.
    function setUnbondingPeriod(uint256 period) external;

    function stakeOf(address node, Role role) external view returns (StakeInfo memory);
    function availableStake(address node, Role role) external view returns (uint256);
    function minStake(Role role) external view returns (uint256);
    function unbondingPeriod() external view returns (uint256);
    function totalStaked() external view returns (uint256);
    function isNodePaused(address node) external view returns (bool);
    /// @notice The validators staking at least the validator minimum now (in no fixed order).
    function validatorCount() external view returns (uint256);
    function validatorAt(uint256 index) external view returns (address);
    /// @notice How many entries of the draw list (`drawCandidate`) were listed before `beforeBlock`:
    ///         the pool a draw seeded by `beforeBlock`'s hash walks. The list holds every address
    ///         that ever staked the validator minimum, in the order it first did, and is never
    ///         reordered or shortened, so this pool is fixed before the seed is known.
    function drawPoolSize(uint256 beforeBlock) external view returns (uint256);
    /// @notice Entry `index` of the draw list (it may no longer be eligible: draws check).
    function drawCandidate(uint256 index) external view returns (address);
    /// @notice A node's registered BLS keys (all zeros when none).
    function blsKeyOf(address node) external view returns (uint256[4] memory pubkey, uint256[2] memory pubkeyG1);

    /// @notice A node's registered G1 key (all zeros when none): what the registry adds to a task's
    ///         aggregate key when the node takes a validator slot.
    function blsKeyG1Of(address node) external view returns (uint256[2] memory pubkeyG1);

    /// @notice Sum of the G1 keys of `nodes`; reverts `BlsKeyNotRegistered` for a node without one.
    function aggregateBlsKey(address[] calldata nodes) external view returns (uint256[2] memory apk);

    /// @notice The 32-byte message a proof of possession signs: keccak256(abi.encode(BLS_POP_DOMAIN,
    ///         chain id, this contract, node, pubkey, pubkeyG1)).
    function blsPopMessage(address node, uint256[4] calldata pubkey, uint256[2] calldata pubkeyG1)
        external
        view
        returns (bytes32);
}

// StakeManager: stakes per node and role, their locks, unbonding and slashes; BLS keys; pauses.
import { Address, BigInt, Bytes, ethereum } from "@graphprotocol/graph-ts";
import {
  BlsKeyRegistered,
  MinStakeSet,
  NodePauseSet,
  Slashed,
  StakeLocked,
  StakeUnlocked,
  Staked,
  UnbondedWithdrawn,
  UnbondingPeriodSet,
  UnstakeRequested,
} from "../../generated/StakeManager/StakeManager";
import { Stake, StakeChange } from "../../generated/schema";
import { eventId, getNode, getProtocol, getStake, roleName } from "../helpers";
import { recordParameter } from "./common";

function recordChange(
  event: ethereum.Event,
  stake: Stake,
  node: Address,
  role: i32,
  action: string,
  amount: BigInt,
  readyAt: BigInt | null,
  recipient: Bytes | null,
): void {
  stake.save();
  const change = new StakeChange(eventId(event));
  change.stake = stake.id;
  change.node = node.toHexString();
  change.role = roleName(role);
  change.action = action;
  change.amount = amount;
  change.readyAt = readyAt;
  change.recipient = recipient;
  change.blockNumber = event.block.number;
  change.timestamp = event.block.timestamp;
  change.transactionHash = event.transaction.hash;
  change.save();
}

export function handleStaked(event: Staked): void {
  const p = event.params;
  const stake = getStake(p.node, p.role);
  // totalStaked is the node's new active stake in the role: take it as the contract says.
  stake.staked = p.totalStaked;
  recordChange(event, stake, p.node, p.role, "Staked", p.amount, null, null);
  const protocol = getProtocol();
  protocol.totalStaked = protocol.totalStaked.plus(p.amount);
  protocol.save();
}

export function handleUnstakeRequested(event: UnstakeRequested): void {
  const p = event.params;
  const stake = getStake(p.node, p.role);
  stake.staked = stake.staked.minus(p.amount);
  stake.unbonding = stake.unbonding.plus(p.amount);
  stake.unbondingReadyAt = p.readyAt;
  recordChange(event, stake, p.node, p.role, "UnstakeRequested", p.amount, p.readyAt, null);
}

export function handleUnbondedWithdrawn(event: UnbondedWithdrawn): void {
  const p = event.params;
  const stake = getStake(p.node, p.role);
  stake.unbonding = stake.unbonding.minus(p.amount);
  stake.unbondingReadyAt = BigInt.zero();
  stake.withdrawn = stake.withdrawn.plus(p.amount);
  recordChange(event, stake, p.node, p.role, "UnbondedWithdrawn", p.amount, null, null);
  const protocol = getProtocol();
  protocol.totalStaked = protocol.totalStaked.minus(p.amount);
  protocol.save();
}

export function handleStakeLocked(event: StakeLocked): void {
  const p = event.params;
  const stake = getStake(p.node, p.role);
  stake.locked = stake.locked.plus(p.amount);
  recordChange(event, stake, p.node, p.role, "Locked", p.amount, null, null);
}

export function handleStakeUnlocked(event: StakeUnlocked): void {
  const p = event.params;
  const stake = getStake(p.node, p.role);
  stake.locked = stake.locked.minus(p.amount);
  recordChange(event, stake, p.node, p.role, "Unlocked", p.amount, null, null);
}

/** StakeManager.slash: active stake first, then unbonding; locked never exceeds staked after. */
export function handleSlashed(event: Slashed): void {
  const p = event.params;
  const stake = getStake(p.node, p.role);
  const fromActive = p.amount.lt(stake.staked) ? p.amount : stake.staked;
  stake.staked = stake.staked.minus(fromActive);
  stake.unbonding = stake.unbonding.minus(p.amount.minus(fromActive));
  if (stake.locked.gt(stake.staked)) stake.locked = stake.staked;
  stake.slashed = stake.slashed.plus(p.amount);
  recordChange(event, stake, p.node, p.role, "Slashed", p.amount, null, p.recipient);

  const node = getNode(p.node);
  node.totalSlashed = node.totalSlashed.plus(p.amount);
  node.save();
  const protocol = getProtocol();
  protocol.totalStaked = protocol.totalStaked.minus(p.amount);
  protocol.save();
}

export function handleMinStakeSet(event: MinStakeSet): void {
  const p = event.params;
  const protocol = getProtocol();
  const minStakes = protocol.minStakes;
  minStakes[p.role] = p.amount;
  protocol.minStakes = minStakes;
  protocol.save();
  recordParameter(event, "MinStakeSet", roleName(p.role), p.amount.toString());
}

export function handleUnbondingPeriodSet(event: UnbondingPeriodSet): void {
  const protocol = getProtocol();
  protocol.unbondingPeriod = event.params.period;
  protocol.save();
  recordParameter(event, "UnbondingPeriodSet", null, event.params.period.toString());
}

export function handleNodePauseSet(event: NodePauseSet): void {
  const node = getNode(event.params.node);
  node.paused = event.params.paused;
  node.save();
}

export function handleBlsKeyRegistered(event: BlsKeyRegistered): void {
  const node = getNode(event.params.node);
  node.blsKeyHash = event.params.keyHash;
  node.blsPubkey = event.params.pubkey;
  node.save();
}

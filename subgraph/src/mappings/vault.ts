// RewardVault: task escrows, held round pay, and every account's claimable balance (SPECIFICATION.md 6).
import { Address, BigInt, Bytes, ethereum } from "@graphprotocol/graph-ts";
import {
  Credited,
  Deposited,
  Held,
  Reclaimed,
  Refunded,
  Released,
  Withdrawn,
} from "../../generated/RewardVault/RewardVault";
import { HeldPay, Task, VaultEvent } from "../../generated/schema";
import { eventId, getAccount, getProtocol, heldPayId, taskId } from "../helpers";

function record(
  event: ethereum.Event,
  action: string,
  task: BigInt | null,
  round: BigInt | null,
  account: Address | null,
  to: Bytes | null,
  amount: BigInt,
): void {
  const e = new VaultEvent(eventId(event));
  e.action = action;
  // Truthiness, not `== null`: BigInt and Bytes overload `==` (AssemblyScript).
  if (task) e.task = taskId(task);
  if (round) e.round = round.toI32();
  if (account) e.account = getAccount(account).id;
  e.to = to;
  e.amount = amount;
  e.blockNumber = event.block.number;
  e.timestamp = event.block.timestamp;
  e.transactionHash = event.transaction.hash;
  e.save();
}

/** Escrow leaving the task (to a claimable balance). */
function takeEscrow(task: BigInt, amount: BigInt): void {
  const t = Task.load(taskId(task));
  if (t != null) {
    t.escrow = t.escrow.minus(amount);
    t.save();
  }
  const protocol = getProtocol();
  protocol.totalEscrow = protocol.totalEscrow.minus(amount);
  protocol.save();
}

function addClaimable(account: Address, amount: BigInt): void {
  const a = getAccount(account);
  a.vaultClaimable = a.vaultClaimable.plus(amount);
  a.save();
}

function settleHeld(task: BigInt, round: BigInt, account: Address, status: string, to: Bytes | null): void {
  const held = HeldPay.load(heldPayId(task, round, account));
  if (held == null) throw new Error("no held pay " + heldPayId(task, round, account));
  held.status = status;
  held.reclaimedTo = to;
  held.save();
}

export function handleDeposited(event: Deposited): void {
  const p = event.params;
  // The registry deposits a task's bounty just before TaskCreated, which starts the task's escrow at
  // the bounty; a deposit to an already indexed task adds to it.
  const t = Task.load(taskId(p.taskId));
  if (t != null) {
    t.escrow = t.escrow.plus(p.amount);
    t.save();
  }
  const protocol = getProtocol();
  protocol.totalEscrow = protocol.totalEscrow.plus(p.amount);
  protocol.save();
  record(event, "Deposited", p.taskId, null, null, null, p.amount);
}

export function handleCredited(event: Credited): void {
  const p = event.params;
  takeEscrow(p.taskId, p.amount);
  addClaimable(p.account, p.amount);
  record(event, "Credited", p.taskId, null, p.account, null, p.amount);
}

export function handleRefunded(event: Refunded): void {
  const p = event.params;
  takeEscrow(p.taskId, p.amount);
  addClaimable(p.account, p.amount);
  record(event, "Refunded", p.taskId, null, p.account, null, p.amount);
}

export function handleHeld(event: Held): void {
  const p = event.params;
  const held = new HeldPay(heldPayId(p.taskId, p.round, p.account));
  held.task = taskId(p.taskId);
  held.round = p.round.toI32();
  held.account = getAccount(p.account).id;
  held.amount = p.amount;
  held.status = "Held";
  held.save();
  record(event, "Held", p.taskId, p.round, p.account, null, p.amount);
}

export function handleReleased(event: Released): void {
  const p = event.params;
  settleHeld(p.taskId, p.round, p.account, "Released", null);
  takeEscrow(p.taskId, p.amount);
  addClaimable(p.account, p.amount);
  record(event, "Released", p.taskId, p.round, p.account, null, p.amount);
}

export function handleReclaimed(event: Reclaimed): void {
  const p = event.params;
  settleHeld(p.taskId, p.round, p.account, "Reclaimed", p.to);
  takeEscrow(p.taskId, p.amount);
  addClaimable(p.to, p.amount);
  record(event, "Reclaimed", p.taskId, p.round, p.account, p.to, p.amount);
}

export function handleVaultWithdrawn(event: Withdrawn): void {
  const p = event.params;
  const a = getAccount(p.account);
  a.vaultClaimable = a.vaultClaimable.minus(p.amount);
  a.save();
  record(event, "Withdrawn", null, null, p.account, p.to, p.amount);
}

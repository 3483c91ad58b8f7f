// TaskRegistry: its own events and those of its libraries RoundLogic, AggregateAttest and SlotLogic,
// which run by delegatecall and so are emitted from the registry's address (SPECIFICATION.md 1 and 11).
import { BigInt, Bytes, ethereum } from "@graphprotocol/graph-ts";
import {
  AggregateAttested,
  AttestationCommitted,
  Attested as AttestedEvent,
  DisputeManagerSet,
  Dissented,
  DrawArmed,
  DrawCommitted,
  DrawOpened,
  Paused,
  PayReclaimed,
  PhaseStarted,
  PlantMissed,
  ResultCommitted,
  ResultRevealed,
  RewardEarned,
  RoundFinalized,
  SlotAssigned,
  SlotVacated,
  TaskCreated,
  TaskFrontSet,
  TaskSettled,
  TaskStatusChanged,
  Unpaused,
  VerdictReached,
} from "../../generated/TaskRegistry/TaskRegistry";
import {
  AggregateAttestation,
  Assignment,
  Attestation,
  Dissent,
  Draw,
  DrawCommitment,
  HeldPay,
  Node,
  PauseEvent,
  Payout,
  PlantMiss,
  Slot,
  Submission,
  Task,
  TaskStatusChange,
  VoteCommitment,
} from "../../generated/schema";
import {
  bitCount,
  eventId,
  getAccount,
  getNode,
  getProtocol,
  getRound,
  getSlot,
  heldPayId,
  isBitSet,
  loadTask,
  outcomeName,
  phaseName,
  roleName,
  roundId,
  slotId,
  submissionId,
  taskId,
  taskStatusName,
  verdictName,
} from "../helpers";
import { recordParameter } from "./common";

// Role values (Types.sol).
const SAMPLER = 0;
const TRAINER = 1;
const VALIDATOR = 2;

export function handleTaskCreated(event: TaskCreated): void {
  const p = event.params;
  const task = new Task(taskId(p.taskId));
  task.taskId = p.taskId;
  task.requester = getAccount(p.requester).id;
  task.specCid = p.specCid;
  task.specDigest = p.specDigest;
  task.bounty = p.bounty;
  task.numSamplers = p.numSamplers;
  task.numValidators = p.numValidators;
  task.numRounds = p.numRounds;
  task.status = "Open";
  task.currentRound = 0;
  // The registry records the bounty's deposit in the vault (Deposited) just before TaskCreated.
  task.escrow = p.bounty;
  task.earned = BigInt.zero();
  task.createdBlock = event.block.number;
  task.createdAt = event.block.timestamp;
  task.createdTransaction = event.transaction.hash;
  task.save();

  const protocol = getProtocol();
  protocol.taskCount += 1;
  protocol.save();
}

export function handleTaskStatusChanged(event: TaskStatusChanged): void {
  const task = loadTask(event.params.taskId);
  task.status = taskStatusName(event.params.status);
  task.save();

  const change = new TaskStatusChange(eventId(event));
  change.task = task.id;
  change.status = task.status;
  change.blockNumber = event.block.number;
  change.timestamp = event.block.timestamp;
  change.transactionHash = event.transaction.hash;
  change.save();
}

export function handleSlotAssigned(event: SlotAssigned): void {
  const p = event.params;
  loadTask(p.taskId);
  const node = getNode(p.node);
  node.activeSlots += 1;
  node.save();

  const slot = getSlot(p.taskId, p.role, p.slot);
  const assignment = new Assignment(eventId(event));
  assignment.task = taskId(p.taskId);
  assignment.slot = slot.id;
  assignment.node = node.id;
  assignment.role = roleName(p.role);
  assignment.index = p.slot.toI32();
  assignment.sinceRound = p.sinceRound.toI32();
  assignment.active = true;
  assignment.assignedAt = event.block.timestamp;
  assignment.transactionHash = event.transaction.hash;
  assignment.save();

  slot.node = node.id;
  slot.assignment = assignment.id;
  slot.save();
}

export function handleSlotVacated(event: SlotVacated): void {
  const p = event.params;
  const slot = getSlot(p.taskId, p.role, p.slot);
  const current = slot.assignment;
  if (current != null) endAssignment(current!, event, outcomeName(p.reason));
  slot.node = null;
  slot.assignment = null;
  slot.save();
}

export function handleDrawArmed(event: DrawArmed): void {
  const task = loadTask(event.params.taskId);
  task.drawSeedBlock = event.params.seedBlock;
  task.save();
}

export function handlePhaseStarted(event: PhaseStarted): void {
  const p = event.params;
  const task = loadTask(p.taskId);
  task.currentRound = p.round.toI32();
  task.phase = phaseName(p.phase);
  task.phaseDeadline = p.deadline;
  task.save();

  const round = getRound(p.taskId, p.round, event);
  round.phase = task.phase!;
  round.phaseDeadline = p.deadline;
  round.save();
}

export function handleResultCommitted(event: ResultCommitted): void {
  const p = event.params;
  const round = getRound(p.taskId, p.round, event);
  round.commits += 1;
  round.save();

  const sub = new Submission(submissionId(p.taskId, p.round, p.role, p.slot));
  sub.task = taskId(p.taskId);
  sub.round = round.id;
  sub.node = getNode(p.node).id;
  sub.role = roleName(p.role);
  sub.slot = p.slot.toI32();
  sub.commitment = p.commitment;
  sub.committedAt = event.block.timestamp;
  sub.revealed = false;
  sub.verdict = "None";
  sub.save();
}

export function handleResultRevealed(event: ResultRevealed): void {
  const p = event.params;
  const round = getRound(p.taskId, p.round, event);
  round.reveals += 1;
  round.save();

  const sub = loadSubmission(p.taskId, p.round, p.role, p.slot);
  sub.revealed = true;
  sub.root = p.root;
  sub.cid = p.cid;
  sub.revealedAt = event.block.timestamp;
  sub.save();
}

export function handleAttestationCommitted(event: AttestationCommitted): void {
  const p = event.params;
  const round = getRound(p.taskId, p.round, event);
  const c = new VoteCommitment(eventId(event));
  c.task = taskId(p.taskId);
  c.round = round.id;
  c.validator = getNode(p.validator).id;
  c.slot = p.slot.toI32();
  c.commitment = p.commitment;
  c.blockNumber = event.block.number;
  c.timestamp = event.block.timestamp;
  c.transactionHash = event.transaction.hash;
  c.save();
  round.save(); // created here when this is the round's first event the subgraph sees
}

export function handleAttested(event: AttestedEvent): void {
  const p = event.params;
  const round = getRound(p.taskId, p.round, event);
  round.votes += 1;
  round.save();
  saveAttestation(eventId(event), event, p.taskId, round.id, getNode(p.validator).id, p.slot.toI32(), p.acceptBitmap, null);
}

export function handleAggregateAttested(event: AggregateAttested): void {
  const p = event.params;
  const round = getRound(p.taskId, p.round, event);
  const id = eventId(event);
  const aggregate = new AggregateAttestation(id);
  aggregate.task = taskId(p.taskId);
  aggregate.round = round.id;
  aggregate.signerBitmap = p.signerBitmap;
  aggregate.acceptBitmap = acceptBits(p.acceptBitmap);
  aggregate.plantBitmap = plantBits(p.acceptBitmap);
  aggregate.signerCount = bitCount(p.signerBitmap);
  aggregate.submitter = event.transaction.from;
  aggregate.blockNumber = event.block.number;
  aggregate.timestamp = event.block.timestamp;
  aggregate.transactionHash = event.transaction.hash;
  aggregate.save();

  // The event names slots, not validators: each signer is its slot's holder (SPECIFICATION.md 11),
  // which the registry checked when it accepted the aggregate in this same transaction.
  const task = loadTask(p.taskId);
  for (let v = 0; v < task.numValidators; v++) {
    if (!isBitSet(p.signerBitmap, v)) continue;
    const slot = Slot.load(slotId(p.taskId, VALIDATOR, BigInt.fromI32(v)));
    if (slot == null) continue;
    const holder = slot.node;
    if (holder == null) continue;
    saveAttestation(id + "-" + v.toString(), event, p.taskId, round.id, holder!, v, p.acceptBitmap, id);
  }
  round.votes += aggregate.signerCount;
  round.save();
}

export function handleVerdictReached(event: VerdictReached): void {
  const p = event.params;
  const sub = loadSubmission(p.taskId, p.round, p.role, p.slot);
  sub.verdict = verdictName(p.verdict);
  sub.accepts = p.accepts.toI32();
  sub.rejects = p.rejects.toI32();
  sub.verdictAt = event.block.timestamp;
  sub.save();
}

export function handleDissented(event: Dissented): void {
  const p = event.params;
  const dissent = new Dissent(roundId(p.taskId, p.round) + "-" + p.slot.toString());
  dissent.task = taskId(p.taskId);
  dissent.round = roundId(p.taskId, p.round);
  dissent.validator = getNode(p.validator).id;
  dissent.slot = p.slot.toI32();
  dissent.dissentBitmap = p.dissentBitmap;
  dissent.timestamp = event.block.timestamp;
  dissent.transactionHash = event.transaction.hash;
  dissent.save();
}

export function handleDrawCommitted(event: DrawCommitted): void {
  const p = event.params;
  const round = getRound(p.taskId, p.round, event);
  const c = new DrawCommitment(eventId(event));
  c.task = taskId(p.taskId);
  c.round = round.id;
  c.node = getNode(p.node).id;
  c.commitment = p.commitment;
  c.blockNumber = event.block.number;
  c.timestamp = event.block.timestamp;
  c.transactionHash = event.transaction.hash;
  c.save();
  round.save(); // created here when this is the round's first event the subgraph sees
}

export function handleDrawOpened(event: DrawOpened): void {
  const p = event.params;
  const sub = loadSubmission(p.taskId, p.round, p.role, p.slot);
  sub.forced = p.forced;
  sub.save();
  const draw = new Draw(sub.id);
  draw.task = taskId(p.taskId);
  draw.round = roundId(p.taskId, p.round);
  draw.submission = sub.id;
  draw.node = getNode(p.node).id;
  draw.role = roleName(p.role);
  draw.slot = p.slot.toI32();
  draw.forced = p.forced;
  draw.timestamp = event.block.timestamp;
  draw.transactionHash = event.transaction.hash;
  draw.save();
}

export function handlePlantMissed(event: PlantMissed): void {
  const p = event.params;
  const miss = new PlantMiss(roundId(p.taskId, p.round) + "-" + p.validatorSlot.toString());
  miss.task = taskId(p.taskId);
  miss.round = roundId(p.taskId, p.round);
  miss.validator = getNode(p.node).id;
  miss.slot = p.validatorSlot.toI32();
  miss.bitsMissed = p.bitsMissed;
  miss.timestamp = event.block.timestamp;
  miss.transactionHash = event.transaction.hash;
  miss.save();
}

export function handleRewardEarned(event: RewardEarned): void {
  const p = event.params;
  const payout = new Payout(eventId(event));
  payout.task = taskId(p.taskId);
  payout.round = roundId(p.taskId, p.round);
  payout.node = getNode(p.node).id;
  payout.role = roleName(p.role);
  payout.amount = p.amount;
  payout.reclaimed = false;
  payout.blockNumber = event.block.number;
  payout.timestamp = event.block.timestamp;
  payout.transactionHash = event.transaction.hash;

  if (p.role != VALIDATOR) {
    // A worker role is paid for its accepted submission: find it through the node's slot.
    const sub = findSubmission(p.taskId, p.round, p.role, p.node);
    if (sub != null) {
      payout.submission = sub.id;
      sub.payout = payout.id;
      sub.save();
    }
  }
  // With a dispute manager set, the vault held this pay (Held) earlier in the same transaction.
  const held = HeldPay.load(heldPayId(p.taskId, p.round, p.node));
  if (held != null) {
    payout.heldPay = held.id;
    held.payout = payout.id;
    held.save();
  }
  payout.save();

  const node = getNode(p.node);
  node.totalEarned = node.totalEarned.plus(p.amount);
  node.save();
  const task = loadTask(p.taskId);
  task.earned = task.earned.plus(p.amount);
  task.save();
}

export function handlePayReclaimed(event: PayReclaimed): void {
  const p = event.params;
  const held = HeldPay.load(heldPayId(p.taskId, p.round, p.node));
  if (held != null && held.payout != null) {
    const payout = Payout.load(held.payout!);
    if (payout != null) {
      payout.reclaimed = true;
      payout.save();
    }
  }
  const node = getNode(p.node);
  node.totalEarned = node.totalEarned.minus(p.amount);
  node.save();
  const task = loadTask(p.taskId);
  task.earned = task.earned.minus(p.amount);
  task.save();
}

export function handleRoundFinalized(event: RoundFinalized): void {
  const p = event.params;
  const task = loadTask(p.taskId);
  const initial = p.checkpointRoot.equals(Bytes.fromHexString("0x" + "00".repeat(32)));
  task.checkpointRoot = initial ? null : p.checkpointRoot;
  task.checkpointCid = initial ? null : p.checkpointCid;
  task.save();

  const round = getRound(p.taskId, p.round, event);
  round.finalized = true;
  round.finalizedAt = event.block.timestamp;
  round.checkpointRoot = task.checkpointRoot;
  round.checkpointCid = task.checkpointCid;
  round.save();
}

export function handleTaskSettled(event: TaskSettled): void {
  const p = event.params;
  const task = loadTask(p.taskId);
  task.status = taskStatusName(p.status);
  task.paidByRole = p.paidByRole;
  task.refund = p.refund;
  task.settledAt = event.block.timestamp;
  task.save();

  // Settlement releases every slot still held (the registry unlocks their stakes).
  for (let role = 0; role < 3; role++) {
    const count = role == SAMPLER ? task.numSamplers : role == TRAINER ? 1 : task.numValidators;
    for (let i = 0; i < count; i++) {
      const slot = Slot.load(slotId(p.taskId, role, BigInt.fromI32(i)));
      if (slot == null) continue;
      const current = slot.assignment;
      if (current != null) endAssignment(current!, event, null);
    }
  }
}

export function handleDisputeManagerSet(event: DisputeManagerSet): void {
  const protocol = getProtocol();
  protocol.disputeManager = event.params.disputeManager;
  protocol.save();
  recordParameter(event, "DisputeManagerSet", null, event.params.disputeManager.toHexString());
}

export function handleTaskFrontSet(event: TaskFrontSet): void {
  const protocol = getProtocol();
  protocol.taskFront = event.params.taskFront;
  protocol.save();
  recordParameter(event, "TaskFrontSet", null, event.params.taskFront.toHexString());
}

export function handlePaused(event: Paused): void {
  setPaused(event, true, event.params.account);
}

export function handleUnpaused(event: Unpaused): void {
  setPaused(event, false, event.params.account);
}

// ---------------------------------------------------------------- helpers

/** Ends an active tenure: vacated (with the reason) or released by the task's settlement (null). */
function endAssignment(id: string, event: ethereum.Event, reason: string | null): void {
  const assignment = Assignment.load(id);
  if (assignment == null || !assignment.active) return;
  assignment.active = false;
  assignment.vacatedReason = reason;
  assignment.endedAt = event.block.timestamp;
  assignment.save();
  const node = Node.load(assignment.node)!;
  node.activeSlots -= 1;
  node.save();
}

function loadSubmission(task: BigInt, round: BigInt, role: i32, slot: BigInt): Submission {
  const sub = Submission.load(submissionId(task, round, role, slot));
  // A reveal or verdict always follows the commitment it refers to.
  if (sub == null) {
    throw new Error("submission " + submissionId(task, round, role, slot) + " not indexed");
  }
  return sub;
}

/** The node's submission in a worker role: the trainer has one slot, a sampler's is found by scan. */
function findSubmission(task: BigInt, round: BigInt, role: i32, node: Bytes): Submission | null {
  const t = loadTask(task);
  const slots = role == TRAINER ? 1 : t.numSamplers;
  for (let i = 0; i < slots; i++) {
    const sub = Submission.load(submissionId(task, round, role, BigInt.fromI32(i)));
    if (sub != null && sub.node == node.toHexString()) return sub;
  }
  return null;
}

function saveAttestation(
  id: string,
  event: ethereum.Event,
  task: BigInt,
  round: string,
  validator: string,
  slot: i32,
  acceptBitmap: BigInt,
  aggregate: string | null,
): void {
  const a = new Attestation(id);
  a.task = taskId(task);
  a.round = round;
  a.validator = validator;
  a.slot = slot;
  a.acceptBitmap = acceptBits(acceptBitmap);
  a.plantBitmap = plantBits(acceptBitmap);
  a.aggregate = aggregate;
  a.blockNumber = event.block.number;
  a.timestamp = event.block.timestamp;
  a.transactionHash = event.transaction.hash;
  a.save();
}

/** The accept bits of a vote as the registry emits it (bit i accepts submission i, i < 64). */
function acceptBits(vote: BigInt): BigInt {
  return vote.bitAnd(BigInt.fromU64(u64.MAX_VALUE));
}

/** The plant answers of a vote as the registry emits it (bit 64 + i: "plant" for submission i). */
function plantBits(vote: BigInt): BigInt {
  return vote.rightShift(64).bitAnd(BigInt.fromU64(u64.MAX_VALUE));
}

function setPaused(event: ethereum.Event, paused: bool, account: Bytes): void {
  const protocol = getProtocol();
  protocol.registryPaused = paused;
  protocol.save();
  const e = new PauseEvent(eventId(event));
  e.contract = event.address;
  e.paused = paused;
  e.account = account;
  e.blockNumber = event.block.number;
  e.timestamp = event.block.timestamp;
  e.transactionHash = event.transaction.hash;
  e.save();
}

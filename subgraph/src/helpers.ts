// Shared by every mapping: ids, enum names, and load-or-create of the entities several contracts touch.
import { Address, BigInt, ethereum, log } from "@graphprotocol/graph-ts";
import { Account, Node, Protocol, Round, Slot, Stake, Task } from "../generated/schema";

export const PROTOCOL_ID = "decentrl";
// Reputation.START_SCORE: a node never seen has it.
export const START_SCORE = 70;

const ROLES = ["Sampler", "Trainer", "Validator"];
const OUTCOMES = ["Accepted", "Rejected", "Missed", "AgainstQuorum", "Recovered", "Withheld"];
const TASK_STATUSES = ["None", "Open", "Drawing", "Active", "Completed", "Cancelled", "Failed", "NoResult"];
const PHASES = ["SampleCommit", "SampleReveal", "TrainCommit", "TrainReveal", "Attest", "AttestReveal"];
const VERDICTS = ["None", "Accepted", "Rejected", "Inconclusive"];
const DISPUTE_STATUSES = ["None", "Drawing", "Voting", "Upheld", "Dismissed", "Void"];
const FAULTS = ["None", "BadEncoding", "WrongRound", "WrongShard", "WrongSeeds"];
const EVIDENCE = ["Whole", "Episode", "Transition", "DataChunk"];

// The ABI decoder rejects an out-of-range Solidity enum, so an index past the list means the
// contracts grew a value this subgraph does not know: stop indexing rather than store a guess.
function enumName(names: string[], index: i32, what: string): string {
  if (index < 0 || index >= names.length) {
    log.critical("unknown {} value {}", [what, index.toString()]);
  }
  return names[index];
}

export function roleName(index: i32): string {
  return enumName(ROLES, index, "Role");
}
export function outcomeName(index: i32): string {
  return enumName(OUTCOMES, index, "Outcome");
}
export function taskStatusName(index: i32): string {
  return enumName(TASK_STATUSES, index, "TaskStatus");
}
export function phaseName(index: i32): string {
  return enumName(PHASES, index, "Phase");
}
export function verdictName(index: i32): string {
  return enumName(VERDICTS, index, "Verdict");
}
export function disputeStatusName(index: i32): string {
  return enumName(DISPUTE_STATUSES, index, "DisputeStatus");
}
export function faultName(index: i32): string {
  return enumName(FAULTS, index, "Fault");
}

export function evidenceName(index: i32): string {
  return enumName(EVIDENCE, index, "Evidence");
}

/** `txHash-logIndex`: the id of an entity that stands for one event. */
export function eventId(event: ethereum.Event): string {
  return event.transaction.hash.toHexString() + "-" + event.logIndex.toString();
}

export function taskId(id: BigInt): string {
  return id.toString();
}
export function roundId(task: BigInt, round: BigInt): string {
  return task.toString() + "-" + round.toString();
}
export function submissionId(task: BigInt, round: BigInt, role: i32, slot: BigInt): string {
  return roundId(task, round) + "-" + roleName(role) + "-" + slot.toString();
}
export function slotId(task: BigInt, role: i32, slot: BigInt): string {
  return task.toString() + "-" + roleName(role) + "-" + slot.toString();
}
export function stakeId(node: Address, role: i32): string {
  return node.toHexString() + "-" + roleName(role);
}
export function heldPayId(task: BigInt, round: BigInt, account: Address): string {
  return roundId(task, round) + "-" + account.toHexString();
}

function zeros(n: i32): BigInt[] {
  const out = new Array<BigInt>(n);
  for (let i = 0; i < n; i++) out[i] = BigInt.zero();
  return out;
}

export function getProtocol(): Protocol {
  let p = Protocol.load(PROTOCOL_ID);
  if (p == null) {
    p = new Protocol(PROTOCOL_ID);
    p.taskCount = 0;
    p.disputeCount = 0;
    p.registryPaused = false;
    p.trainerBps = 0;
    p.samplerBps = 0;
    p.validatorBps = 0;
    p.slashBps = 0;
    p.minStakes = zeros(3);
    p.unbondingPeriod = BigInt.zero();
    p.reputationThreshold = 0;
    const deltas = new Array<i32>(OUTCOMES.length);
    for (let i = 0; i < OUTCOMES.length; i++) deltas[i] = 0;
    p.reputationDeltas = deltas;
    p.recoveryCooldown = BigInt.zero();
    p.disputeWindow = BigInt.zero();
    p.voteWindow = BigInt.zero();
    p.minBond = BigInt.zero();
    p.forcedErrorBps = 0;
    p.minBountyPerSlotRound = BigInt.zero();
    p.totalStaked = BigInt.zero();
    p.totalEscrow = BigInt.zero();
  }
  return p;
}

export function getAccount(address: Address): Account {
  const id = address.toHexString();
  let a = Account.load(id);
  if (a == null) {
    a = new Account(id);
    a.address = address;
    a.tokenBalance = BigInt.zero();
    a.vaultClaimable = BigInt.zero();
    a.disputeOwed = BigInt.zero();
    a.save();
  }
  return a;
}

export function getNode(address: Address): Node {
  const id = address.toHexString();
  let n = Node.load(id);
  if (n == null) {
    getAccount(address);
    n = new Node(id);
    n.address = address;
    n.account = id;
    n.reputation = START_SCORE;
    n.paused = false;
    n.totalEarned = BigInt.zero();
    n.totalSlashed = BigInt.zero();
    n.activeSlots = 0;
    n.save();
  }
  return n;
}

export function getStake(node: Address, role: i32): Stake {
  const id = stakeId(node, role);
  let s = Stake.load(id);
  if (s == null) {
    getNode(node);
    s = new Stake(id);
    s.node = node.toHexString();
    s.role = roleName(role);
    s.staked = BigInt.zero();
    s.locked = BigInt.zero();
    s.unbonding = BigInt.zero();
    s.unbondingReadyAt = BigInt.zero();
    s.slashed = BigInt.zero();
    s.withdrawn = BigInt.zero();
  }
  return s;
}

/** A task every registry event after TaskCreated refers to: its absence is an indexing bug. */
export function loadTask(id: BigInt): Task {
  const t = Task.load(taskId(id));
  if (t == null) log.critical("task {} not indexed (its TaskCreated was missed)", [id.toString()]);
  return t!;
}

export function getRound(task: BigInt, round: BigInt, event: ethereum.Event): Round {
  const id = roundId(task, round);
  let r = Round.load(id);
  if (r == null) {
    r = new Round(id);
    r.task = taskId(task);
    r.round = round.toI32();
    r.phase = "SampleCommit";
    r.phaseDeadline = BigInt.zero();
    r.startedAt = event.block.timestamp;
    r.commits = 0;
    r.reveals = 0;
    r.votes = 0;
    r.finalized = false;
  }
  return r;
}

export function getSlot(task: BigInt, role: i32, index: BigInt): Slot {
  const id = slotId(task, role, index);
  let s = Slot.load(id);
  if (s == null) {
    s = new Slot(id);
    s.task = taskId(task);
    s.role = roleName(role);
    s.index = index.toI32();
  }
  return s;
}

/** Number of set bits of a bitmap (validator slots, at most 64, so the loop is short). */
export function bitCount(bitmap: BigInt): i32 {
  let n = 0;
  let rest = bitmap;
  const two = BigInt.fromI32(2);
  while (rest.gt(BigInt.zero())) {
    if (rest.mod(two).equals(BigInt.fromI32(1))) n++;
    rest = rest.div(two);
  }
  return n;
}

export function isBitSet(bitmap: BigInt, bit: i32): bool {
  return bitmap.rightShift(<u8>bit).bitAnd(BigInt.fromI32(1)).equals(BigInt.fromI32(1));
}

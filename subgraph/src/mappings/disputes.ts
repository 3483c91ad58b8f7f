// DisputeManager: disputes of decided verdicts, their jurors, penalties and awards (SPECIFICATION.md 13),
// with the events of its JuryLogic library (the draw, voting, the jurors' release), which runs by
// delegatecall and so emits from the DisputeManager's address.
import { BigInt } from "@graphprotocol/graph-ts";
import {
  DisputeOpened,
  DisputeSettled,
  EvidenceStated,
  FaultProven,
  JurorDrawArmed,
  JurorDrawn,
  JurorReleased,
  JurorCommitted,
  JurorVoted,
  Owed,
  PartyPenalised,
  VotingStarted,
  Withdrawn,
} from "../../generated/DisputeManager/DisputeManager";
import { Dispute, DisputeAward, DisputePenalty, DisputeWithdrawal, Juror, Submission } from "../../generated/schema";
import {
  disputeStatusName,
  eventId,
  evidenceName,
  faultName,
  getAccount,
  getNode,
  getProtocol,
  roleName,
  roundId,
  submissionId,
  taskId,
  verdictName,
} from "../helpers";

function loadDispute(id: BigInt): Dispute {
  const d = Dispute.load(id.toString());
  if (d == null) throw new Error("dispute " + id.toString() + " not indexed");
  return d;
}

function loadJuror(dispute: BigInt, juror: string): Juror {
  const j = Juror.load(dispute.toString() + "-" + juror);
  if (j == null) throw new Error("juror " + juror + " of dispute " + dispute.toString() + " not indexed");
  return j;
}

export function handleDisputeOpened(event: DisputeOpened): void {
  const p = event.params;
  const subId = submissionId(p.taskId, p.round, p.role, p.slot);
  // Only a decided verdict can be disputed, so the submission was committed, revealed and judged.
  const sub = Submission.load(subId);
  if (sub == null) throw new Error("disputed submission " + subId + " not indexed");

  const d = new Dispute(p.disputeId.toString());
  d.disputeId = p.disputeId;
  d.task = taskId(p.taskId);
  d.round = roundId(p.taskId, p.round);
  d.submission = subId;
  d.role = roleName(p.role);
  d.slot = p.slot.toI32();
  d.verdict = verdictName(p.verdict);
  // EvidenceStated follows in the same transaction.
  d.evidence = "Whole";
  d.item = BigInt.zero();
  d.disputer = getAccount(p.disputer).id;
  d.submitter = sub.node;
  d.bond = p.bond;
  d.status = "Drawing";
  d.jurorCount = 0;
  d.upholdVotes = 0;
  d.dismissVotes = 0;
  d.openedAt = event.block.timestamp;
  d.save();

  const protocol = getProtocol();
  protocol.disputeCount += 1;
  protocol.save();
}

export function handleEvidenceStated(event: EvidenceStated): void {
  const d = loadDispute(event.params.disputeId);
  d.evidence = evidenceName(event.params.evidence);
  d.item = event.params.item;
  d.save();
}

export function handleJurorDrawArmed(event: JurorDrawArmed): void {
  const d = loadDispute(event.params.disputeId);
  d.seedBlock = event.params.seedBlock;
  d.save();
}

export function handleJurorDrawn(event: JurorDrawn): void {
  const p = event.params;
  const d = loadDispute(p.disputeId);
  d.jurorCount += 1;
  d.save();
  const node = getNode(p.juror);
  const j = new Juror(d.id + "-" + node.id);
  j.dispute = d.id;
  j.node = node.id;
  j.seat = p.seat.toI32();
  j.lockedStake = p.lockedStake;
  j.committed = false;
  j.voted = false;
  j.released = false;
  j.save();
}

export function handleVotingStarted(event: VotingStarted): void {
  const d = loadDispute(event.params.disputeId);
  d.status = "Voting";
  d.voteDeadline = event.params.deadline;
  d.save();
}

export function handleJurorCommitted(event: JurorCommitted): void {
  const j = loadJuror(event.params.disputeId, event.params.juror.toHexString());
  j.committed = true;
  j.save();
}

export function handleJurorVoted(event: JurorVoted): void {
  const p = event.params;
  const d = loadDispute(p.disputeId);
  if (p.uphold) d.upholdVotes += 1;
  else d.dismissVotes += 1;
  d.save();
  const j = loadJuror(p.disputeId, p.juror.toHexString());
  j.voted = true;
  j.uphold = p.uphold;
  j.save();
}

export function handleFaultProven(event: FaultProven): void {
  const d = loadDispute(event.params.disputeId);
  d.fault = faultName(event.params.fault);
  d.prover = event.params.prover;
  d.save();
}

export function handleDisputeSettled(event: DisputeSettled): void {
  const p = event.params;
  const d = loadDispute(p.disputeId);
  d.status = disputeStatusName(p.outcome);
  d.upholdVotes = p.upholdVotes.toI32();
  d.dismissVotes = p.dismissVotes.toI32();
  d.settledAt = event.block.timestamp;
  d.save();
}

export function handlePartyPenalised(event: PartyPenalised): void {
  const p = event.params;
  const penalty = new DisputePenalty(eventId(event));
  penalty.dispute = p.disputeId.toString();
  penalty.node = getNode(p.node).id;
  penalty.role = roleName(p.role);
  penalty.slashed = p.slashed;
  penalty.payReclaimed = p.payReclaimed;
  penalty.blockNumber = event.block.number;
  penalty.timestamp = event.block.timestamp;
  penalty.transactionHash = event.transaction.hash;
  penalty.save();
}

export function handleJurorReleased(event: JurorReleased): void {
  const p = event.params;
  const j = loadJuror(p.disputeId, p.juror.toHexString());
  j.released = true;
  j.withMajority = p.withMajority;
  j.slashed = p.slashed;
  j.save();
}

export function handleOwed(event: Owed): void {
  const p = event.params;
  const account = getAccount(p.account);
  account.disputeOwed = account.disputeOwed.plus(p.amount);
  account.save();
  const award = new DisputeAward(eventId(event));
  award.dispute = p.disputeId.toString();
  award.account = account.id;
  award.amount = p.amount;
  award.blockNumber = event.block.number;
  award.timestamp = event.block.timestamp;
  award.transactionHash = event.transaction.hash;
  award.save();
}

export function handleDisputeWithdrawn(event: Withdrawn): void {
  const p = event.params;
  const account = getAccount(p.account);
  account.disputeOwed = account.disputeOwed.minus(p.amount);
  account.save();
  const w = new DisputeWithdrawal(eventId(event));
  w.account = account.id;
  w.to = p.to;
  w.amount = p.amount;
  w.blockNumber = event.block.number;
  w.timestamp = event.block.timestamp;
  w.transactionHash = event.transaction.hash;
  w.save();
}

// Reputation: every score change, and the parameters that set them.
import { DeltaSet, RecoveryCooldownSet, ReputationChanged, ThresholdSet } from "../../generated/Reputation/Reputation";
import { ReputationChange } from "../../generated/schema";
import { eventId, getNode, getProtocol, outcomeName } from "../helpers";
import { recordParameter } from "./common";

export function handleReputationChanged(event: ReputationChanged): void {
  const p = event.params;
  const node = getNode(p.node);
  node.reputation = p.newScore.toI32();
  node.save();

  const change = new ReputationChange(eventId(event));
  change.node = node.id;
  change.oldScore = p.oldScore.toI32();
  change.newScore = p.newScore.toI32();
  change.delta = change.newScore - change.oldScore;
  change.outcome = outcomeName(p.outcome);
  change.blockNumber = event.block.number;
  change.timestamp = event.block.timestamp;
  change.transactionHash = event.transaction.hash;
  change.save();
}

export function handleThresholdSet(event: ThresholdSet): void {
  const protocol = getProtocol();
  protocol.reputationThreshold = event.params.threshold.toI32();
  protocol.save();
  recordParameter(event, "ThresholdSet", null, event.params.threshold.toString());
}

export function handleDeltaSet(event: DeltaSet): void {
  const p = event.params;
  const protocol = getProtocol();
  const deltas = protocol.reputationDeltas;
  deltas[p.outcome] = p.delta.toI32();
  protocol.reputationDeltas = deltas;
  protocol.save();
  recordParameter(event, "DeltaSet", outcomeName(p.outcome), p.delta.toString());
}

export function handleRecoveryCooldownSet(event: RecoveryCooldownSet): void {
  const protocol = getProtocol();
  protocol.recoveryCooldown = event.params.cooldown;
  protocol.save();
  recordParameter(event, "RecoveryCooldownSet", null, event.params.cooldown.toString());
}

// ProtocolConfig: the governable parameters both the registry and the dispute side read (SPECIFICATION.md 1).
// Its AccessControl events go through common.ts like every other contract's.
import {
  DisputeWindowSet,
  ForcedErrorBpsSet,
  MinBondSet,
  MinBountyPerSlotRoundSet,
  RoleSharesSet,
  SlashBpsSet,
  TreasurySet,
  VoteWindowSet,
} from "../../generated/ProtocolConfig/ProtocolConfig";
import { getProtocol } from "../helpers";
import { recordParameter } from "./common";

export function handleRoleSharesSet(event: RoleSharesSet): void {
  const p = event.params;
  const protocol = getProtocol();
  protocol.trainerBps = p.trainerBps.toI32();
  protocol.samplerBps = p.samplerBps.toI32();
  protocol.validatorBps = p.validatorBps.toI32();
  protocol.save();
  const value = p.trainerBps.toString() + "/" + p.samplerBps.toString() + "/" + p.validatorBps.toString();
  recordParameter(event, "RoleSharesSet", null, value);
}

export function handleSlashBpsSet(event: SlashBpsSet): void {
  const protocol = getProtocol();
  protocol.slashBps = event.params.bps.toI32();
  protocol.save();
  recordParameter(event, "SlashBpsSet", null, event.params.bps.toString());
}

export function handleTreasurySet(event: TreasurySet): void {
  const protocol = getProtocol();
  protocol.treasury = event.params.treasury;
  protocol.save();
  recordParameter(event, "TreasurySet", null, event.params.treasury.toHexString());
}

export function handleDisputeWindowSet(event: DisputeWindowSet): void {
  const protocol = getProtocol();
  protocol.disputeWindow = event.params.window;
  protocol.save();
  recordParameter(event, "DisputeWindowSet", null, event.params.window.toString());
}

export function handleVoteWindowSet(event: VoteWindowSet): void {
  const protocol = getProtocol();
  protocol.voteWindow = event.params.window;
  protocol.save();
  recordParameter(event, "VoteWindowSet", null, event.params.window.toString());
}

export function handleForcedErrorBpsSet(event: ForcedErrorBpsSet): void {
  const protocol = getProtocol();
  protocol.forcedErrorBps = event.params.bps.toI32();
  protocol.save();
  recordParameter(event, "ForcedErrorBpsSet", null, event.params.bps.toString());
}

export function handleMinBondSet(event: MinBondSet): void {
  const protocol = getProtocol();
  protocol.minBond = event.params.bond;
  protocol.save();
  recordParameter(event, "MinBondSet", null, event.params.bond.toString());
}

export function handleMinBountyPerSlotRoundSet(event: MinBountyPerSlotRoundSet): void {
  const protocol = getProtocol();
  protocol.minBountyPerSlotRound = event.params.perSlotRound;
  protocol.save();
  recordParameter(event, "MinBountyPerSlotRoundSet", null, event.params.perSlotRound.toString());
}

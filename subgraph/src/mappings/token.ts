// RLToken: balances and allowances (ERC-20 with EIP-2612 permit).
import { Address } from "@graphprotocol/graph-ts";
import { Approval, Transfer } from "../../generated/RLToken/RLToken";
import { Allowance, TokenTransfer } from "../../generated/schema";
import { eventId, getAccount } from "../helpers";

export function handleTransfer(event: Transfer): void {
  const p = event.params;
  // The zero address stands for the mint (and a burn, which RLToken does not have): no account.
  if (p.from != Address.zero()) {
    const from = getAccount(p.from);
    from.tokenBalance = from.tokenBalance.minus(p.value);
    from.save();
  }
  if (p.to != Address.zero()) {
    const to = getAccount(p.to);
    to.tokenBalance = to.tokenBalance.plus(p.value);
    to.save();
  }
  const t = new TokenTransfer(eventId(event));
  t.from = p.from;
  t.to = p.to;
  t.value = p.value;
  t.blockNumber = event.block.number;
  t.timestamp = event.block.timestamp;
  t.transactionHash = event.transaction.hash;
  t.save();
}

export function handleApproval(event: Approval): void {
  const p = event.params;
  const id = p.owner.toHexString() + "-" + p.spender.toHexString();
  let a = Allowance.load(id);
  if (a == null) {
    a = new Allowance(id);
    a.owner = p.owner;
    a.spender = p.spender;
  }
  a.value = p.value;
  a.save();
}

// What several contracts emit alike: OpenZeppelin AccessControl and EIP-712 events, parameter setters.
//
// ProtocolConfig, TaskRegistry, StakeManager, Reputation and RewardVault all emit OpenZeppelin's
// RoleGranted, RoleRevoked and RoleAdminChanged, and TaskFront and RLToken EIP712DomainChanged, with
// one signature each: one handler serves every data source (the event classes generated for each
// contract are the same; the TaskRegistry's role events and the TaskFront's domain event stand for all).
import { Bytes, ethereum } from "@graphprotocol/graph-ts";
import { RoleAdminChanged, RoleGranted, RoleRevoked } from "../../generated/TaskRegistry/TaskRegistry";
import { EIP712DomainChanged } from "../../generated/TaskFront/TaskFront";
import { AccessRole, DomainChange, ParameterChange, RoleMember } from "../../generated/schema";
import { eventId } from "../helpers";

const DEFAULT_ADMIN_ROLE = "0x0000000000000000000000000000000000000000000000000000000000000000";

export function recordParameter(event: ethereum.Event, parameter: string, key: string | null, value: string): void {
  const change = new ParameterChange(eventId(event));
  change.contract = event.address;
  change.parameter = parameter;
  change.key = key;
  change.value = value;
  change.blockNumber = event.block.number;
  change.timestamp = event.block.timestamp;
  change.transactionHash = event.transaction.hash;
  change.save();
}

function recordDomainChange(event: ethereum.Event): void {
  const change = new DomainChange(eventId(event));
  change.contract = event.address;
  change.blockNumber = event.block.number;
  change.timestamp = event.block.timestamp;
  change.transactionHash = event.transaction.hash;
  change.save();
}

function getAccessRole(contract: Bytes, role: Bytes): AccessRole {
  const id = contract.toHexString() + "-" + role.toHexString();
  let r = AccessRole.load(id);
  if (r == null) {
    r = new AccessRole(id);
    r.contract = contract;
    r.role = role;
    r.adminRole = Bytes.fromHexString(DEFAULT_ADMIN_ROLE);
    r.save();
  }
  return r;
}

function recordRoleMembership(
  event: ethereum.Event,
  role: Bytes,
  account: Bytes,
  sender: Bytes,
  active: bool,
): void {
  const accessRole = getAccessRole(event.address, role);
  const id = accessRole.id + "-" + account.toHexString();
  let member = RoleMember.load(id);
  if (member == null) {
    member = new RoleMember(id);
    member.accessRole = accessRole.id;
    member.account = account;
  }
  member.active = active;
  member.changedBy = sender;
  member.changedAt = event.block.timestamp;
  member.save();
}

function recordRoleAdminChanged(event: ethereum.Event, role: Bytes, newAdminRole: Bytes): void {
  const accessRole = getAccessRole(event.address, role);
  accessRole.adminRole = newAdminRole;
  accessRole.save();
}

export function handleRoleGranted(event: RoleGranted): void {
  recordRoleMembership(event, event.params.role, event.params.account, event.params.sender, true);
}

export function handleRoleRevoked(event: RoleRevoked): void {
  recordRoleMembership(event, event.params.role, event.params.account, event.params.sender, false);
}

export function handleRoleAdminChanged(event: RoleAdminChanged): void {
  recordRoleAdminChanged(event, event.params.role, event.params.newAdminRole);
}

export function handleEIP712DomainChanged(event: EIP712DomainChanged): void {
  recordDomainChange(event);
}

// KeyringBoard: the keyrings of tasks' encrypted inputs (SPECIFICATION.md 5.7).
import { KeyringPosted } from "../../generated/KeyringBoard/KeyringBoard";
import { Keyring } from "../../generated/schema";
import { eventId, loadTask } from "../helpers";

export function handleKeyringPosted(event: KeyringPosted): void {
  const p = event.params;
  const task = loadTask(p.taskId);
  task.keyringCid = p.cid;
  task.save();

  const k = new Keyring(eventId(event));
  k.task = task.id;
  k.requester = p.requester;
  k.cid = p.cid;
  k.blockNumber = event.block.number;
  k.timestamp = event.block.timestamp;
  k.transactionHash = event.transaction.hash;
  k.save();
}

"""Which chain events a node queues at all.

Every node sees every TaskRegistry event, but most concern other nodes' tasks: with 100 tasks in
flight a node would queue a thousand jobs that each read the chain only to find "not mine", and
its own work would wait behind them. The watcher therefore follows which tasks this node holds a
slot in (SlotAssigned / SlotVacated naming it, TaskSettled) and queues:

- TaskCreated, SlotVacated of others, DrawArmed: always (claims, reclaims, keepers);
- SlotAssigned, RewardEarned: only when it names this node (RewardEarned: its held pay to
  release, workers.node.handlers.dispute_handlers);
- PhaseStarted, RoundFinalized, TaskSettled: only for a task this node holds a slot in (work and
  phase-deadline keeping; a validator disputes what its checks rejected and the verdict did not,
  workers.node.handlers.detector_handlers; a trainer pins a completed task's final policy);
- anything else: as before (the dispatch table decides).

The held set lives in the watcher's SQLite file beside its cursor and is updated before the
cursor moves past the event, so a restarted watcher neither forgets a task nor misses one (an
event seen twice is applied twice, to the same effect: a task held when it settled is remembered
as such, so its TaskSettled seen again is queued again).
"""
from __future__ import annotations

from pathlib import Path

from eth_utils import to_checksum_address

from workers.chain.watcher import SqliteFile


class Interest:
    FOLLOWS = frozenset({"SlotAssigned", "SlotVacated", "TaskSettled"})
    """The events whose arguments keep the held set (the watcher must deliver them)."""

    def __init__(self, path: str | Path, address: str):
        file, self.address = SqliteFile(path), to_checksum_address(address)
        self.path, self._connect = file.path, file.connect  # once per thread: asked on every event
        with self._connect() as db:
            db.execute("CREATE TABLE IF NOT EXISTS held (task_id INTEGER PRIMARY KEY)")
            db.execute("CREATE TABLE IF NOT EXISTS settled (task_id INTEGER PRIMARY KEY)")  # held when settled

    def held(self) -> set[int]:
        with self._connect() as db:
            return {row[0] for row in db.execute("SELECT task_id FROM held")}

    def _hold(self, task_id: int, held: bool) -> None:
        with self._connect() as db:
            if held:
                db.execute("INSERT OR IGNORE INTO held VALUES (?)", (task_id,))
            else:
                db.execute("DELETE FROM held WHERE task_id = ?", (task_id,))

    def _holds(self, task_id: int) -> bool:
        with self._connect() as db:
            return db.execute("SELECT 1 FROM held WHERE task_id = ?", (task_id,)).fetchone() is not None

    def _settle(self, task_id: int) -> bool:
        """Drops a settled task from the held set; whether this node held it when it settled."""
        with self._connect() as db:
            if db.execute("DELETE FROM held WHERE task_id = ? RETURNING task_id", (task_id,)).fetchone():
                db.execute("INSERT OR IGNORE INTO settled VALUES (?)", (task_id,))
                return True
            return db.execute("SELECT 1 FROM settled WHERE task_id = ?", (task_id,)).fetchone() is not None

    def wants(self, name: str, args: dict) -> bool:
        """Whether to queue this event for the node (and note what it says about the node's tasks)."""
        task = args.get("taskId")
        mine = args.get("node") is not None and to_checksum_address(args["node"]) == self.address
        if name == "SlotAssigned":
            if mine:
                self._hold(int(task), True)
            return mine
        if name == "RewardEarned":
            return mine
        if name == "SlotVacated":
            if mine:
                self._hold(int(task), False)
            return not mine
        if name == "TaskSettled":
            return self._settle(int(task))
        if name in ("PhaseStarted", "RoundFinalized"):
            return self._holds(int(task))
        return True

"""The node's market records in NODE_DIR/market.sqlite (WAL; safe across its processes): its
measured rates per role's kind of work, environment and policy architecture (throughput), and the
last PASSED_KEPT tasks it passed over, with why (`decentrl node status` shows them)."""
from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

FILE = "market.sqlite"
PASSED_KEPT = 50
"""Passed-over tasks kept (the newest)."""
EMA_WEIGHT = 0.3
"""Weight of a finished job's rate in the moving average (the rest is the average so far)."""


@dataclass(frozen=True)
class PassedOver:
    task_id: int
    role: str
    code: str
    """"priced-out", "infeasible", or for a validator (which cannot decline a draw) "drawn-priced-out",
    "drawn-infeasible"."""
    text: str
    at: float


class MarketBook:
    def __init__(self, node_dir: str | Path):
        self.path = Path(node_dir) / FILE
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._db() as db:
            db.execute("CREATE TABLE IF NOT EXISTS rates (kind TEXT, env TEXT, arch TEXT, per_s REAL, source TEXT, "
                       "updated REAL, PRIMARY KEY (kind, env, arch))")
            db.execute("CREATE TABLE IF NOT EXISTS passed_over (id INTEGER PRIMARY KEY AUTOINCREMENT, task INTEGER, "
                       "role TEXT, code TEXT, text TEXT, at REAL)")

    def _db(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=30)
        db.execute("PRAGMA journal_mode=WAL")
        return db

    # -- rates ---------------------------------------------------------------------------------------

    def rate(self, kind: str, env: str, arch: str) -> float | None:
        """Steps (or samples) per second of `kind` for (env, arch), or None when never measured."""
        with self._db() as db:
            row = db.execute("SELECT per_s FROM rates WHERE kind=? AND env=? AND arch=?", (kind, env, arch)).fetchone()
        return None if row is None else float(row[0])

    def rates(self) -> list[tuple[str, str, str, float, str, float]]:
        """Every (kind, env, arch, per_s, source, updated)."""
        with self._db() as db:
            return db.execute("SELECT kind, env, arch, per_s, source, updated FROM rates ORDER BY kind, env, arch"
                              ).fetchall()

    def calibrated(self, kind: str, env: str, arch: str, per_s: float) -> None:
        """A calibration's rate (kept only where no job has measured one)."""
        with self._db() as db:
            db.execute("INSERT OR IGNORE INTO rates VALUES (?, ?, ?, ?, 'calibrated', ?)",
                       (kind, env, arch, float(per_s), time.time()))

    def observe(self, kind: str, env: str, arch: str, amount: float, seconds: float) -> None:
        """A finished job did `amount` steps (or samples) of `kind` in `seconds`: the moving average
        takes it (the first measurement replaces a calibration's rate outright)."""
        if amount <= 0 or seconds <= 0:
            return
        per_s = amount / seconds
        with self._db() as db:
            row = db.execute("SELECT per_s, source FROM rates WHERE kind=? AND env=? AND arch=?",
                             (kind, env, arch)).fetchone()
            if row is not None and row[1] == "jobs":
                per_s = EMA_WEIGHT * per_s + (1 - EMA_WEIGHT) * float(row[0])
            db.execute("INSERT OR REPLACE INTO rates VALUES (?, ?, ?, ?, 'jobs', ?)",
                       (kind, env, arch, per_s, time.time()))

    # -- passed over ---------------------------------------------------------------------------------

    def pass_over(self, task_id: int, role: str, code: str, text: str) -> None:
        """Record that the node passed over (or was drawn for, a validator) `task_id`, and why;
        only the newest PASSED_KEPT records are kept, one per task and role."""
        with self._db() as db:
            db.execute("DELETE FROM passed_over WHERE task=? AND role=?", (int(task_id), role))
            db.execute("INSERT INTO passed_over (task, role, code, text, at) VALUES (?, ?, ?, ?, ?)",
                       (int(task_id), role, code, text, time.time()))
            db.execute("DELETE FROM passed_over WHERE id NOT IN (SELECT id FROM passed_over ORDER BY id DESC "
                       "LIMIT ?)", (PASSED_KEPT,))

    def passed_over(self, limit: int = PASSED_KEPT) -> list[PassedOver]:
        """The newest records first."""
        with self._db() as db:
            rows = db.execute("SELECT task, role, code, text, at FROM passed_over ORDER BY id DESC LIMIT ?",
                              (limit,)).fetchall()
        return [PassedOver(*row) for row in rows]

"""The operator's prices as a node folder keeps them (NODE_DIR/prices.json, written by `decentrl
node init` and by `node start` with the prices it runs with): wei per 1,000 priced steps per role
and the feasibility margin. `node start` options override the file."""
from __future__ import annotations

import json
from pathlib import Path

FILE = "prices.json"
ROLES = ("sampler", "trainer", "validator")
DEFAULT_MARGIN = 0.5


def load(node_dir: str | Path) -> dict:
    """{"sampler": wei, "trainer": wei, "validator": wei, "feasibility_margin": float}: the file's,
    defaults (0, 0, 0, 0.5) for what it lacks or when there is none."""
    path = Path(node_dir) / FILE
    data = json.loads(path.read_text()) if path.exists() else {}
    unknown = set(data) - {*ROLES, "feasibility_margin"}
    if unknown:
        raise ValueError(f"{path}: unknown keys {sorted(unknown)}; allowed: {', '.join(ROLES)}, feasibility_margin")
    out = {role: int(data.get(role, 0)) for role in ROLES}
    out["feasibility_margin"] = float(data.get("feasibility_margin", DEFAULT_MARGIN))
    return out


def save(node_dir: str | Path, prices: dict) -> Path:
    path = Path(node_dir) / FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({**{role: int(prices[role]) for role in ROLES},
                                "feasibility_margin": float(prices["feasibility_margin"])}, indent=1) + "\n")
    return path

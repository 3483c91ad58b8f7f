#!/usr/bin/env python3
"""Configure brownie's networks (in ~/.brownie/network-config.yaml) for decentrl.

- ``development``: anvil launched by brownie on 127.0.0.1:8545, chain id 31337, prague,
  steps tracing on (revert traces), 20 funded accounts.
- ``anvil-live`` (environment "Ethereum"): a non-development network at 127.0.0.1:8546 for the
  live-path demo; brownie treats it like a public chain (no auto-launch, no isolation).

brownie-config.yaml cannot carry these (a ``networks:`` key crashes brownie 1.22.2), so they go
through ``brownie networks modify/add``. Idempotent: brownie is only called when the stored
settings differ. Run with the project's virtualenv python.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import yaml

BROWNIE = Path(sys.executable).with_name("brownie")
CONFIG_FILE = Path.home() / ".brownie" / "network-config.yaml"

DEV_ID = "development"
DEV_TOP = {"cmd": "anvil", "host": "http://127.0.0.1"}
DEV_CMD_SETTINGS = {
    "port": 8545,
    "chain_id": 31337,
    "evm_version": "prague",
    "steps_tracing": True,
    "accounts": 20,
    "default_balance": 1000000,  # ether per account
    "gas_limit": 30000000,
    "base_fee": 0,
}

LIVE_ENV = "Ethereum"
LIVE_ID = "anvil-live"
LIVE = {"name": "Anvil (live path)", "host": "http://127.0.0.1:8546", "chainid": 31337}


def load() -> dict:
    if not CONFIG_FILE.exists():
        return {}
    with CONFIG_FILE.open() as fp:
        return yaml.safe_load(fp) or {}


def find_dev(cfg: dict) -> dict | None:
    return next((n for n in cfg.get("development", []) if n.get("id") == DEV_ID), None)


def find_live(cfg: dict) -> dict | None:
    for env in cfg.get("live", []):
        for net in env.get("networks", []):
            if net.get("id") == LIVE_ID:
                return net
    return None


def as_args(settings: dict) -> list[str]:
    return [f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in settings.items()]


def brownie(*args: str, quiet: bool = False) -> None:
    # Run outside any project so no brownie-config.yaml is read.
    subprocess.run(
        [str(BROWNIE), "networks", *args],
        check=True,
        cwd=Path.home(),
        stdout=subprocess.DEVNULL if quiet else None,
    )


def main() -> int:
    # brownie creates ~/.brownie (with the default network config) the first time it runs.
    if not CONFIG_FILE.exists():
        brownie("list", quiet=True)
    cfg = load()

    dev = find_dev(cfg)
    if dev is None:
        print(f"configure_brownie: no '{DEV_ID}' network in {CONFIG_FILE}", file=sys.stderr)
        return 1
    dev_ok = all(dev.get(k) == v for k, v in DEV_TOP.items()) and all(
        (dev.get("cmd_settings") or {}).get(k) == v for k, v in DEV_CMD_SETTINGS.items()
    )
    if dev_ok:
        print(f"configure_brownie: '{DEV_ID}' is up to date")
    else:
        brownie("modify", DEV_ID, *as_args({**DEV_TOP, **DEV_CMD_SETTINGS}))

    live = find_live(cfg)
    if live is None:
        brownie("add", LIVE_ENV, LIVE_ID, *as_args(LIVE))
    elif all(live.get(k) == v for k, v in LIVE.items()):
        print(f"configure_brownie: '{LIVE_ID}' is up to date")
    else:
        brownie("modify", LIVE_ID, *as_args(LIVE))

    # Check what brownie will actually read.
    cfg = load()
    dev, live = find_dev(cfg), find_live(cfg)
    assert dev and dev["cmd"] == "anvil" and dev["cmd_settings"]["chain_id"] == 31337, dev
    assert live and live["host"] == LIVE["host"], live
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())

#!/usr/bin/env python3
"""Make solc 0.8.30 available to py-solc-x (and so to brownie).

py-solc-x looks for executables named ``solc-v<version>`` in ``$SOLCX_BINARY_PATH`` or
``~/.solcx``. Native solc binaries cannot be downloaded here, so unless a native solc 0.8.30 is
already there (or on PATH, which is then linked in), this installs a small launcher that runs
the solc-js wrapper ``tools/solc/solc.js`` of this checkout.

Idempotent: an up-to-date launcher is left untouched; a launcher of ours that points at another
checkout is rewritten. Standard library only.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

VERSION = "0.8.30"
MARKER = "# decentrl solc-js wrapper"
ROOT = Path(__file__).resolve().parent.parent
WRAPPER_JS = ROOT / "tools" / "solc" / "solc.js"


def solcx_folder() -> Path:
    env = os.environ.get("SOLCX_BINARY_PATH")
    return Path(env) if env else Path.home() / ".solcx"


def executable_version(path: Path) -> str | None:
    try:
        out = subprocess.run(
            [str(path), "--version"], capture_output=True, text=True, timeout=60, check=False
        ).stdout
    except OSError:
        return None
    match = re.search(r"Version: (\d+\.\d+\.\d+)", out)
    return match.group(1) if match else None


def is_ours(path: Path) -> bool:
    try:
        return MARKER in path.read_text(errors="replace")[:512]
    except (OSError, UnicodeDecodeError):
        return False


def launcher_text(node: str) -> str:
    return f'#!/bin/sh\n{MARKER} (installed by {ROOT}/tools/install_solc.py)\nexec "{node}" "{WRAPPER_JS}" "$@"\n'


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="run the installed solc --version")
    args = parser.parse_args()

    folder = solcx_folder()
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"solc-v{VERSION}"

    if target.exists() and not is_ours(target):
        print(f"install_solc: native solc found at {target}; using it")
        return verify(target) if args.check else 0

    native = shutil.which("solc")
    if native and not is_ours(Path(native)) and executable_version(Path(native)) == VERSION:
        if target.exists() or target.is_symlink():
            target.unlink()
        target.symlink_to(Path(native).resolve())
        print(f"install_solc: linked native {native} as {target}")
        return verify(target) if args.check else 0

    if not WRAPPER_JS.is_file():
        print(f"install_solc: {WRAPPER_JS} is missing", file=sys.stderr)
        return 1
    if not (ROOT / "node_modules" / "solc" / "soljson.js").is_file():
        print("install_solc: node_modules/solc is missing; run `npm install` first", file=sys.stderr)
        return 1
    node = shutil.which("node")
    if node is None:
        print("install_solc: node is not on PATH", file=sys.stderr)
        return 1
    text = launcher_text(str(Path(node).resolve()))
    if target.is_file() and not target.is_symlink() and target.read_text() == text:
        print(f"install_solc: {target} is up to date (solc-js wrapper)")
    else:
        if target.exists() or target.is_symlink():
            target.unlink()
        target.write_text(text)
        target.chmod(0o755)
        print(f"install_solc: installed the solc-js wrapper as {target}")
    return verify(target) if args.check else 0


def verify(target: Path) -> int:
    version = executable_version(target)
    if version != VERSION:
        print(f"install_solc: {target} --version gave {version!r}, expected {VERSION}", file=sys.stderr)
        return 1
    print(f"install_solc: {target} --version -> {version}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

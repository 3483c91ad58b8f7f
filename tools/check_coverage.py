#!/usr/bin/env python3
"""Fail unless forge's LCOV report covers contracts/ well enough.

Counts only source files under contracts/ (mocks and test helpers excluded), from the DA (line)
and BRDA (branch) records, and exits 1 below the thresholds -- or when there is no data at all
for contracts/, which means no forge test exercised them. Standard library only.

    python tools/check_coverage.py lcov.info --lines 95 --branches 90
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from pathlib import Path

EXCLUDED_PARTS = {"mocks", "mock", "test", "tests"}


@dataclass
class FileCoverage:
    lines: dict[int, int] = field(default_factory=dict)
    branches: dict[tuple[str, str, str], bool] = field(default_factory=dict)


def included(path: str, prefix: str) -> bool:
    parts = Path(path).parts
    return path.startswith(prefix) and not EXCLUDED_PARTS.intersection(parts[1:])


def parse(lcov: Path, prefix: str) -> dict[str, FileCoverage]:
    files: dict[str, FileCoverage] = {}
    current: FileCoverage | None = None
    for raw in lcov.read_text().splitlines():
        key, _, value = raw.strip().partition(":")
        if key == "SF":
            current = files.setdefault(value, FileCoverage()) if included(value, prefix) else None
        elif key == "end_of_record":
            current = None
        elif current is None:
            continue
        elif key == "DA":
            line, hits = value.split(",")[:2]
            current.lines[int(line)] = max(current.lines.get(int(line), 0), int(hits))
        elif key == "BRDA":
            line, block, branch, taken = value.split(",")
            hit = taken not in ("-", "0")
            current.branches[(line, block, branch)] = current.branches.get((line, block, branch), False) or hit
    return files


def pct(hit: int, total: int) -> float:
    return 100.0 if total == 0 else 100.0 * hit / total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("lcov", type=Path, nargs="?", default=Path("lcov.info"))
    parser.add_argument("--prefix", default="contracts/", help="source folder to check")
    parser.add_argument("--lines", type=float, default=95.0, help="minimum line coverage, percent")
    parser.add_argument("--branches", type=float, default=90.0, help="minimum branch coverage, percent")
    args = parser.parse_args()

    if not args.lcov.is_file():
        print(f"check_coverage: FAIL: {args.lcov} not found (did forge coverage run?)", file=sys.stderr)
        return 1
    files = parse(args.lcov, args.prefix)
    if not files:
        print(
            f"check_coverage: FAIL: no coverage data for {args.prefix} in {args.lcov} -- "
            "no forge test (tests/forge) exercises the contracts",
            file=sys.stderr,
        )
        return 1

    width = max(len(name) for name in files)
    print(f"{'file':<{width}}  {'lines':>16}  {'branches':>16}")
    lh = lf = bh = bf = 0
    for name in sorted(files):
        cov = files[name]
        fh, ft = sum(1 for n in cov.lines.values() if n > 0), len(cov.lines)
        gh, gt = sum(cov.branches.values()), len(cov.branches)
        lh, lf, bh, bf = lh + fh, lf + ft, bh + gh, bf + gt
        print(f"{name:<{width}}  {pct(fh, ft):6.2f}% ({fh:>3}/{ft:<3})  {pct(gh, gt):6.2f}% ({gh:>3}/{gt:<3})")
    line_pct, branch_pct = pct(lh, lf), pct(bh, bf)
    print(f"{'total':<{width}}  {line_pct:6.2f}% ({lh:>3}/{lf:<3})  {branch_pct:6.2f}% ({bh:>3}/{bf:<3})")

    failed = []
    if line_pct < args.lines:
        failed.append(f"lines {line_pct:.2f}% < {args.lines}%")
    if branch_pct < args.branches:
        failed.append(f"branches {branch_pct:.2f}% < {args.branches}%")
    if failed:
        print(f"check_coverage: FAIL: {'; '.join(failed)} for {args.prefix}", file=sys.stderr)
        return 1
    print(f"check_coverage: OK (lines >= {args.lines}%, branches >= {args.branches}%)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

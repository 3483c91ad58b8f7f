"""pyproject.toml: an operator's `pip install .` pulls no brownie (a development extra), and every
library the node package imports comes with its own dependencies, not through brownie's."""

import ast
import sys
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def _closure(requirements: list[str]) -> set[str]:
    """The distributions `requirements` install, their dependencies' included (as installed here)."""
    seen, todo = set(), [(Requirement(r), "") for r in requirements]
    while todo:
        req, extra = todo.pop()
        if req.marker is not None and not req.marker.evaluate({"extra": extra}):
            continue
        name = canonicalize_name(req.name)
        if name == "decentrl":  # an extra of our own (dev includes plots)
            todo += [(Requirement(r), "") for x in req.extras for r in PROJECT["optional-dependencies"][x]]
            continue
        wanted = [(name, "")] + [(name, x) for x in req.extras]
        for dist, with_extra in wanted:
            if (dist, with_extra) in seen:
                continue
            seen.add((dist, with_extra))
            todo += [(Requirement(r), with_extra) for r in metadata.requires(dist) or []]
    return {dist for dist, _ in seen}


def _imported_top_modules() -> set[str]:
    names = set()
    for path in (ROOT / "workers").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return names - set(sys.stdlib_module_names) - {"workers"}


def test_brownie_is_a_development_extra_only():
    runtime = _closure(PROJECT["dependencies"])
    assert "eth-brownie" not in runtime and "pytest" not in runtime and "hypothesis" not in runtime
    assert "eth-brownie" in {canonicalize_name(Requirement(r).name) for r in PROJECT["optional-dependencies"]["dev"]}


def test_every_library_the_node_imports_is_installed_without_brownie():
    """workers/ imports matplotlib only for plots (the plots extra); everything else at run time."""
    runtime = _closure(PROJECT["dependencies"] + PROJECT["optional-dependencies"]["plots"])
    owners = metadata.packages_distributions()
    missing = {m: owners.get(m) for m in _imported_top_modules()
               if not {canonicalize_name(d) for d in owners.get(m, [])} & runtime}
    assert not missing, f"imported by workers/ but installed only through brownie or the dev extra: {missing}"

"""`brownie` with one fix: `brownie run` works in a checkout whose path has a dot in a folder name.

brownie 1.22 imports a script as the dotted module named by its absolute path
(`/tmp/tmp.x1/scripts/deploy.py` -> `tmp.tmp.x1.scripts.deploy`), so a folder name with a dot
breaks the import (`No module named 'tmp.tmp'`). Its import function is compiled, so it cannot be
patched; instead a meta-path finder answers exactly that dotted name with the script's file (and
its "parents" with empty packages). Everything else is brownie's own command line.

    python tools/brownie_cli.py run scripts/deploy.py --network NAME
"""

import importlib.machinery
import importlib.util
import sys
from pathlib import Path


class ScriptPathFinder:
    """Resolves the dotted names brownie builds from script paths back to the scripts' files."""

    def __init__(self, scripts: list[Path]):
        self.modules: dict[str, Path] = {}
        self.packages: set[str] = set()
        for script in scripts:
            name = ".".join((*script.parts[1:-1], script.stem))
            self.modules[name] = script
            pieces = name.split(".")
            self.packages.update(".".join(pieces[:i]) for i in range(1, len(pieces)))

    def find_spec(self, fullname, path=None, target=None):
        if fullname in self.modules:
            return importlib.util.spec_from_file_location(fullname, self.modules[fullname])
        if fullname in self.packages:
            return importlib.machinery.ModuleSpec(fullname, None, is_package=True)
        return None


def script_path(arg: str) -> Path:
    """The script `brownie run ARG` runs: ARG as a path, or as brownie also takes it, a name in
    scripts/ (`run deploy` is scripts/deploy.py)."""
    path = Path(arg)
    if path.suffix != ".py":
        path = path.with_suffix(".py")
    if not path.exists() and not path.is_absolute() and (Path("scripts") / path).exists():
        path = Path("scripts") / path
    return path.resolve()


def main() -> None:
    args = sys.argv[1:]
    if len(args) > 1 and args[0] == "run":
        sys.meta_path.insert(0, ScriptPathFinder([script_path(args[1])]))
    from brownie._cli.__main__ import main as brownie_main

    sys.argv = ["brownie", *args]
    brownie_main()


if __name__ == "__main__":
    main()

"""The package's layers point one way (workers.LAYERS): a module of `workers` imports from its own
top-level package and from lower layers only. Read from the source, so that every import
statement counts, a function-local one included (it runs only on some paths, and would otherwise
hide a cycle until then); imports by name in a string (Celery's -A, handler_modules) are not."""
import ast
from pathlib import Path

import pytest

import workers

ROOT = Path(workers.__file__).resolve().parent


def imported(path: Path, module: str) -> list[tuple[str, int]]:
    """(imported module, line) of every import statement in the file of `module`, resolved to
    absolute names (`from workers import protocol` is workers.protocol)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([node.module] if node.module else []))
            out += [(f"{base}.{alias.name}", node.lineno) for alias in node.names]
    return out


def top_level(name: str, root: str) -> str | None:
    """The top-level module or package of `root` that `name` is in (None: outside it, or the
    package itself)."""
    parts = name.split(".")
    return parts[1] if parts[0] == root and len(parts) > 1 else None


def is_module(root_dir: Path, name: str) -> bool:
    return (root_dir / name).is_dir() or (root_dir / f"{name}.py").is_file()


def violations(root_dir: Path, layers) -> list[str]:
    """Every import in the package at `root_dir` of a higher layer, or of another package of the
    same layer; also every top-level module that no layer names."""
    root = root_dir.name
    layer_of = {name: i for i, layer in enumerate(layers) for name in layer}
    found = []
    for path in sorted(root_dir.rglob("*.py")):
        relative = path.relative_to(root_dir.parent).with_suffix("")
        module = ".".join(relative.parts[:-1] if path.name == "__init__.py" else relative.parts)
        own = top_level(module, root)
        if own is None:
            continue  # the package's __init__: its layers, no imports
        if own not in layer_of:
            found.append(f"{module}: `{own}` is in no layer of LAYERS; give it its place")
            continue
        for target, line in imported(path, module):
            other = top_level(target, root)
            if other is None or other == own or not is_module(root_dir, other):
                continue  # outside the package, its own package, or a name of the package's __init__
            if layer_of.get(other, len(layers)) >= layer_of[own]:
                found.append(f"{path.relative_to(root_dir.parent)}:{line}: {own} (layer {layer_of[own]}) imports "
                             f"{target} ({other}: layer {layer_of.get(other, 'none')})")
    return found


def test_every_import_points_down_the_layers():
    assert violations(ROOT, workers.LAYERS) == []


def test_the_check_finds_an_upward_import_in_a_function(tmp_path):
    """A function-local import of a higher layer is found, as is one of the same layer, with its
    file and line; a relative import is resolved; imports downward or within a package pass."""
    package = tmp_path / "pkg"
    (package / "low").mkdir(parents=True)
    (package / "high").mkdir()
    (package / "side").mkdir()
    (package / "__init__.py").write_text("")
    (package / "high" / "__init__.py").write_text("from pkg.low import thing\nfrom . import api\n")
    (package / "high" / "api.py").write_text("from .. import low\n")
    (package / "side" / "__init__.py").write_text("")
    (package / "low" / "__init__.py").write_text("from pkg.low import thing\n")
    (package / "low" / "thing.py").write_text("def f():\n    from ..high import api\n    import pkg.side\n")
    found = violations(package, (("low", "side"), ("high",)))
    assert found == ["pkg/low/thing.py:2: low (layer 0) imports pkg.high.api (high: layer 1)",
                     "pkg/low/thing.py:3: low (layer 0) imports pkg.side (side: layer 0)"]
    (package / "new.py").write_text("")
    assert "pkg.new: `new` is in no layer of LAYERS; give it its place" in violations(package, (("low", "side"),
                                                                                               ("high",)))


@pytest.mark.parametrize("layer", workers.LAYERS)
def test_each_layer_names_what_exists(layer):
    for name in layer:
        assert is_module(ROOT, name), f"LAYERS names {name}, which is gone"

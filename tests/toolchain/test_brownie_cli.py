"""tools/brownie_cli.py: brownie's dotted script names resolve back to their files."""

import importlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
from brownie_cli import ScriptPathFinder  # noqa: E402


def test_script_under_a_dotted_folder_imports_by_brownies_name(tmp_path):
    folder = tmp_path / "tmp.with.dots" / "scripts"
    folder.mkdir(parents=True)
    script = folder / "hello.py"
    script.write_text("def main():\n    return 'ran'\n")
    name = ".".join((*script.parts[1:-1], script.stem))  # what brownie imports
    finder = ScriptPathFinder([script])
    sys.meta_path.insert(0, finder)
    try:
        module = importlib.import_module(name)
        assert module.main() == "ran"
        assert Path(module.__file__) == script
    finally:
        sys.meta_path.remove(finder)
        for loaded in [m for m in sys.modules if m == name or name.startswith(m + ".")]:
            del sys.modules[loaded]


def test_other_names_are_left_to_the_normal_import(tmp_path):
    finder = ScriptPathFinder([tmp_path / "a.b" / "s.py"])
    assert finder.find_spec("json") is None
    assert finder.find_spec(".".join((*tmp_path.parts[1:], "a", "c"))) is None


def test_a_script_given_by_its_name_in_scripts_is_found(tmp_path, monkeypatch):
    """`brownie run deploy` is scripts/deploy.py, as in brownie itself."""
    from brownie_cli import script_path

    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "deploy.py").write_text("")
    (tmp_path / "local.py").write_text("")
    monkeypatch.chdir(tmp_path)
    assert script_path("deploy") == tmp_path / "scripts" / "deploy.py"
    assert script_path("scripts/deploy.py") == tmp_path / "scripts" / "deploy.py"
    assert script_path("local") == tmp_path / "local.py"

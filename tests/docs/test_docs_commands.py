"""Every `decentrl ...` line in the docs' shell blocks (docs/*.md, README.md) names a command that
exists, with options that command accepts, and the right number of arguments: the docs cannot
drift from the CLI unnoticed. (What the commands do is tested in tests/workers/cli/.)"""

import re
import shlex
from pathlib import Path

import click
import pytest

from workers.cli import cli

ROOT = Path(__file__).resolve().parents[2]
DOCS = sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]
BLOCK = re.compile(r"```sh\n(.*?)```", re.S)


def doc_commands():
    for path in DOCS:
        for block in BLOCK.findall(path.read_text()):
            for line in block.replace("\\\n", " ").splitlines():  # a continued line is one command, as in a shell
                line = line.split(" #")[0].strip()
                words = shlex.split(line) if line else []
                if "decentrl" in words:
                    yield pytest.param(words[words.index("decentrl") + 1:], id=f"{path.name}: {line}")


def options_of(command: click.Command) -> dict[str, click.Option]:
    return {name: p for p in command.params if isinstance(p, click.Option) for name in (*p.opts, *p.secondary_opts)}


def check(command: click.Command, words: list[str], path: str) -> None:
    """Walks `words` through `command` as click would, failing on anything it would refuse."""
    options, arguments = options_of(command), [p for p in command.params if isinstance(p, click.Argument)]
    given = 0
    while words:
        word = words.pop(0)
        if word.startswith("-"):
            name = word.split("=")[0]
            assert name in options, f"{path}: no option {name} (has {sorted(options)})"
            if not options[name].is_flag and "=" not in word:
                assert words, f"{path}: {name} needs a value"
                words.pop(0)
        elif isinstance(command, click.Group):
            assert word in command.commands, f"{path}: no command {word!r} (has {sorted(command.commands)})"
            return check(command.commands[word], words, f"{path} {word}")
        else:
            given += 1
    assert not isinstance(command, click.Group), f"{path}: a group, not a command"
    required = sum(1 for a in arguments if a.required)
    assert required <= given <= len(arguments), f"{path}: {given} arguments, expects {required}..{len(arguments)}"


def test_the_docs_show_commands():
    assert len(list(doc_commands())) >= 20  # the extraction itself works (the docs show ~27)


@pytest.mark.parametrize("words", list(doc_commands()))
def test_a_documented_command_exists_with_its_options(words):
    check(cli, list(words), "decentrl")

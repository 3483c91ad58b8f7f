"""What `decentrl task result` and `task status --follow` say about a task that ended without a
result (SPECIFICATION.md 5.1): no checkpoint to fetch, the refund to claim, exit status 1."""

from dataclasses import replace

import pytest
from click.testing import CliRunner

from workers.chain.view import TaskInfo
from workers.cli import task as task_cli
from workers.protocol import Phase, Status

NO_RESULT = TaskInfo(4, "0x" + "c" * 40, Status.NO_RESULT, Phase.SAMPLE_COMMIT, 0, 1, 2, 3, 0, 3, True, 0, 1, 0,
                     100, 900, 0, 600, 300, 600, (2000, 7000, 1000), 10**18, b"\x01" * 32, b"\x00" * 32, "bafyspec",
                     "")
SAID = ("task 4 ended without a result: no round's checkpoint was accepted; the unspent bounty was refunded "
        "(decentrl wallet claim)")


@pytest.fixture
def answers(monkeypatch):
    """The task the CLI reads, in order (the last one repeats)."""
    seen = []

    def look(obj, task_id):
        return None, seen.pop(0) if len(seen) > 1 else seen[0]

    monkeypatch.setattr(task_cli, "_task", look)
    return seen


def test_result_of_a_task_without_a_result_says_so_and_names_the_refund(answers, tmp_path):
    answers.append(NO_RESULT)
    result = CliRunner().invoke(task_cli.task_result, ["4", "-o", str(tmp_path / "out")], obj=None)
    assert result.exit_code == 1 and SAID in result.output, result.output
    assert "no checkpoint yet" not in result.output


def test_following_a_task_that_ends_without_a_result_exits_1(answers, capsys):
    import click

    answers.extend([replace(NO_RESULT, status=Status.ACTIVE, phase=Phase.ATTEST), NO_RESULT])
    with pytest.raises(click.ClickException) as raised:
        task_cli.follow_task(None, 4, 0.01)
    assert raised.value.exit_code == 1 and raised.value.message == SAID
    assert "completed" not in capsys.readouterr().out

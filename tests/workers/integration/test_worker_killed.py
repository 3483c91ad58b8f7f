"""The trainer's Celery worker SIGKILLed (whole process group) while it trains round 1 does not lose
the task: its Supervisor restarts it, Redis redelivers the unacknowledged message after the
visibility timeout, the job runs again (checking the chain first) and round 1's checkpoint is
committed once and accepted."""
from network import registry_events

from workers.node.queues.jobs import DONE
from workers.protocol import Role, Verdict


def test_trainer_worker_was_killed_mid_round_and_restarted(run):
    assert getattr(run, "trainer_killed", None) is not None
    worker = run.health["trainer"]["trainer"]  # when the task was done
    assert (worker["restarts"], worker["alive"]) == (1, True)


def test_killed_job_ran_again_to_completion(run):
    record = run.net.node("trainer").jobs().get("trainer", run.trainer_job)
    assert (record.status, record.attempts) == (DONE, 2)


def test_round_1_checkpoint_committed_once_and_accepted(run):
    events = registry_events(run.net)
    trainer = run.net.node("trainer").address
    commits = [e for e in events if e.name == "ResultCommitted" and e.args["node"] == trainer]
    assert [e.args["round"] for e in commits] == [0, 1]
    verdict = next(e for e in events if e.name == "VerdictReached" and e.args["round"] == 1
                   and e.args["role"] == Role.TRAINER)
    assert verdict.args["verdict"] == Verdict.ACCEPTED

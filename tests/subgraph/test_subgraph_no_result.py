"""A task whose only round ends without an accepted checkpoint settles NoResult (SPECIFICATION.md
5.1): the subgraph names the status, keeps the checkpoint empty and books the whole refund."""

from subgraph_story import TOKEN, Story

from workers.protocol import Status

BOUNTY = 1000 * TOKEN


def test_a_task_without_a_checkpoint_reads_no_result():
    s = Story(bounty=BOUNTY)
    s.stake_everyone()
    s.create_task()
    s.fill()
    # nobody committed: the round is finalized idle (zero checkpoint), and it was the last
    s.emit("TaskRegistry", "RoundFinalized", taskId=s.task_id, round=0, checkpointRoot=bytes(32), checkpointCid="")
    s.settle(Status.NO_RESULT)
    result = s.run()
    assert result.error is None, result.error
    task = result.get("Task", "1")
    assert task["status"] == "NoResult"
    statuses = sorted(result.all("TaskStatusChange"), key=lambda c: int(c["blockNumber"]))
    assert statuses[-1]["status"] == "NoResult"
    assert (task["refund"], task["escrow"], task["earned"]) == (str(BOUNTY), "0", "0")

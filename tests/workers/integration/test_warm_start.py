"""Every Celery worker of a real node warms up before it takes its first message: a compute worker
runs workers.node.handlers.table.warm() (its role's compute modules and the node's context: keystore,
deployment, store), a claim lane warm_claims() (the context only). Without it a node's first claim
paid the keystore's decryption and the deployment's loading on its critical path (~250 ms in the
latency bench's network), which went unnoticed while no handler module offered the hooks."""
import json


def messages(log_path) -> list[str]:
    return [json.loads(line)["msg"] for line in log_path.read_text().splitlines() if line.startswith("{")]


def test_every_worker_and_claim_lane_warms_up_before_its_first_message(run):
    for node in run.net.nodes:
        processes = [(node.role, "warm")] + ([("claims", "warm_claims")] if node.role != "validator" else [])
        for process, hook in processes:
            msgs = messages(node.node_dir / "logs" / f"{process}.log")
            warmed = [i for i, m in enumerate(msgs)
                      if m.startswith(f"warm-up: workers.node.handlers.table.{hook}() in ")]
            received = [i for i, m in enumerate(msgs) if m.startswith("Task decentrl.node.handle_event[")
                        and m.endswith("] received")]
            assert warmed, f"{node.name}'s {process} worker logged no warm-up: {msgs[:8]}"
            assert received, f"{node.name}'s {process} worker took no event"
            assert warmed[0] < received[0], f"{node.name}'s {process} worker took an event before warming up"
            assert not any(m.startswith("warming ") and " failed: " in m for m in msgs), (node.name, process)

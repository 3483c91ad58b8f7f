"""The same network with every node's store on one real (offline) js-ipfs node instead of the
embedded store: a 1-round task reaches Completed with every submission accepted, and the final
checkpoint is retrievable from the IPFS node and matches its on-chain root."""
from network import registry_events
from test_task_completes import slot_share

from workers.chain.view import ChainView
from workers.protocol import Role, Status, Verdict
from workers.roles.trainer import verify_checkpoint


def test_task_completes_through_ipfs(ipfs_run):
    view = ChainView(ipfs_run.net.deployment)
    task = view.task(ipfs_run.task_id)
    assert task.status == Status.COMPLETED
    verdicts = sorted((Role(e.args["role"]), e.args["slot"], Verdict(e.args["verdict"]))
                      for e in registry_events(ipfs_run.net) if e.name == "VerdictReached")
    assert verdicts == [(Role.SAMPLER, 0, Verdict.ACCEPTED), (Role.SAMPLER, 1, Verdict.ACCEPTED),
                        (Role.TRAINER, 0, Verdict.ACCEPTED)]
    for node in ipfs_run.net.nodes:
        role = {"sampler": Role.SAMPLER, "trainer": Role.TRAINER, "validator": Role.VALIDATOR}[node.role]
        # held for the round's dispute window (disputes on, as deployed)
        held = view.read(ipfs_run.net.deployment.vault, "heldOf", ipfs_run.task_id, 0, node.address)
        assert held == slot_share(ipfs_run.params, role), node.name
        assert view.claimable(node.address) == 0, node.name
    print(f"\nE2E over IPFS task {ipfs_run.task_id}: rounds=1 wall_s={ipfs_run.wall_s:.1f}")


def test_final_checkpoint_comes_from_the_ipfs_node(ipfs_run):
    task = ChainView(ipfs_run.net.deployment).task(ipfs_run.task_id)
    bundle = ipfs_run.store.get(task.checkpoint_cid)
    assert verify_checkpoint(bundle, task.checkpoint_root).round == 0
    assert not (ipfs_run.net.workdir / "store").exists()  # nothing went through the embedded store

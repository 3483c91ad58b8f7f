"""`decentrl`: the command line of a decentrl node and of a requester.

    decentrl node init [--import-key]          create (or import) the node's encrypted keystore
    decentrl node stake --role R --amount N     approve and stake N DRL for a role
    decentrl node start --roles sampler,...     the chain watcher + one Celery worker per role
    decentrl node status                        account, stakes, reputation, rewards, eligibility
    decentrl node unstake / withdraw-stake      leave a role: unbond, then withdraw after the period
    decentrl node stop [--timeout S]            stop the node `node start` runs in NODE_DIR (SIGTERM, then SIGKILL)
    decentrl node pause / resume                stop / restart receiving new work
    decentrl node recover                       back to the reputation threshold after the cooldown
    decentrl task submit SPEC --bounty N        publish a spec and create a task (EIP-712 signed)
             [--encrypt-inputs POLICY [--post-keys]]  ... with an encrypted initial policy
    decentrl task keys ID [--follow]            wrap the inputs' key for the assigned nodes, post it
    decentrl task list [--all]                  your tasks (TaskCreated by this account): status, round, bounty
    decentrl task status ID [--follow]          status, round, slots, verdicts; what it waits for, until when, and
                                                why nodes refuse its spec (then follows it until it ends)
    decentrl task result ID -o DIR              download and verify the final policy
    decentrl task report ID -o DIR              plots and a page: curve, verdicts, gas, payouts
    decentrl task cancel ID / advance ID        cancel before rounds start / close a phase past its deadline
    decentrl task spec [--env ID] -o FILE       an env's tuned preset (--list: every preset), or the defaults
    decentrl policy eval DIR|FILE|CID           a trained policy's mean return on its env (--episodes, --seed)
    decentrl spec put FILE                      publish a spec alone (checked as nodes read it): its CID and digest
    decentrl wallet balance [ADDRESS]           DRL and ETH of the node's account
    decentrl wallet send TO AMOUNT [--eth]      send DRL (or ETH) from the node's account
    decentrl wallet claim [--amount N]          withdraw earnings and refunds from the RewardVault
    decentrl dispute open TASK ROUND --role R --slot N [--bond N] [--evidence E --item N]
                                                dispute a verdict within the round's dispute window
    decentrl dispute prove ID [--item N]        settle a sampler dispute with an episode fault the chain checks
    decentrl dispute status [ID | --task T]     a dispute's jurors, votes, deadlines and outcome
    decentrl dispute claim                      withdraw bonds and awards; release held pay past its window
    decentrl explorer [--port 8850]             a read-only web page of the network
    decentrl demo [--env ID] [--explorer PORT] [--linger]
                                                the whole network on a local chain, training ID's preset (default
                                                CartPole-v1; watch it on the explorer; --linger keeps it up
                                                afterwards and prints how to use it)

Global options, before or after the command: --rpc URL (default http://127.0.0.1:8545),
--deployment PATH or --network NAME (deployments/<NAME>.json; default "development"), --node-dir
(default $DECENTRL_NODE_DIR or ~/.decentrl), --store-dir, --max-fee-gwei; and --version. Keystore
passwords are prompted for, or read from $DECENTRL_KEYSTORE_PASSWORD.

Only click is imported at start, so `decentrl --help` is instant: web3, torch and celery are
imported inside the commands that use them.
"""

from __future__ import annotations

from workers.cli import demo, dispute, explorer, node, node_stop, policy, report, spec, stake, task, task_list, wallet  # noqa: F401  (each registers its commands on `cli`)
from workers.cli.group import cli

__all__ = ["cli", "main"]


def main(argv=None):
    """The `decentrl` command. SIGTERM (a service manager, `timeout`, `kill`) ends a command the way
    Ctrl-C does, through its cleanup: the embedded Redis a command started is stopped, not left
    running (`node start` handles SIGTERM itself once its processes run)."""
    import signal

    signal.signal(signal.SIGTERM, _terminated)
    cli.main(args=argv, prog_name="decentrl")


def _terminated(signum, frame):
    raise KeyboardInterrupt  # as Ctrl-C: the same cleanup, and a transaction sent is named

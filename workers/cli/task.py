"""`decentrl task ...`: submit a task, post its keys, follow it, fetch its result."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import click

from workers.cli.common import TASK_ID, Context, counted, fmt_drl, parse_drl, send, send_as, writing
from workers.cli.group import cli


@cli.group()
def task():
    """Submit a task and follow it."""


# TaskRegistry's bounds (MAX_SAMPLERS, MAX_VALIDATORS, MAX_ROUNDS, MIN_WINDOW, MAX_WINDOW), checked
# here too so that a bad value is refused before anything is signed or published.
MAX_SAMPLERS, MAX_VALIDATORS, MAX_ROUNDS = 32, 64, 1000
WINDOW = click.IntRange(60, 30 * 24 * 3600)


@task.command("spec")
@click.option("--env", "env_id", default=None,
              help="Write this environment's preset: tuned hyperparameters and its own target (see --list).")
@click.option("--demo", is_flag=True, help="The demo's CartPole-v1 spec (solves in 5 rounds of 2 samplers).")
@click.option("--list", "list_presets", is_flag=True,
              help="List the environments that have a preset: family, work per round, samplers, rounds, target.")
@click.option("--seed", type=click.IntRange(0, 2**53 - 1), default=None, help="The task seed.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, writable=True), default="-", show_default=True,
              help="Where to write the spec (- for stdout).")
def task_spec(env_id, demo, list_presets, seed, output):
    """Write a task spec: with --env ID that environment's tuned preset, else every field at its
    design default (CartPole-v1). Edit it, then `task submit` it with the samplers and rounds the
    preset names (--list, or the note this command prints).

    The file is the spec's JSON, indented for editing (`task submit` publishes its canonical form);
    `task submit` checks every field and names the first bad one (docs/requesters.md lists the
    fields, defaults and limits, and how to choose a preset)."""
    import dataclasses

    from workers.rl.presets import ENV_PRESETS
    from workers.spec import DEMO_CARTPOLE, SpecError, TaskSpec, preset_spec

    if list_presets:
        if env_id or demo:
            raise click.UsageError("--list lists every preset; leave out --env and --demo")
        show_presets()
        return
    if demo and env_id:
        raise click.UsageError("--demo is the CartPole-v1 demo's spec; use either --demo or --env")
    preset = None
    if env_id is not None:
        preset = ENV_PRESETS.get(env_id)
        if preset is None:
            raise click.ClickException(
                f"no preset for {env_id!r}; presets exist for {', '.join(ENV_PRESETS)} (decentrl task spec "
                f"--list). For another environment write the defaults (decentrl task spec -o spec.json), set "
                f"env_id and tune the ppo fields: task submit checks that the nodes can run it")
    try:
        base = DEMO_CARTPOLE if demo else TaskSpec() if preset is None else preset_spec(preset)
        spec = base if seed is None else dataclasses.replace(base, seed=seed)
    except SpecError as exc:  # an env this machine cannot make (a missing extra package, say)
        raise click.ClickException(f"bad spec: {exc}") from None
    text = json.dumps(spec.to_dict(), indent=2, sort_keys=True) + "\n"
    if output == "-":
        click.echo(text, nl=False)
    else:
        with writing("the spec"):
            Path(output).write_text(text)
        click.echo(f"wrote {output}", err=True)
    if preset is not None:
        click.echo(f"{env_id}: submit it with --samplers {preset.shards} --rounds {preset.rounds} "
                   f"({preset.steps_per_round:,} env steps a round; target {preset.solved_return:g})", err=True)


def show_presets() -> None:
    """The preset table: env, family, env steps per round (samplers x steps per shard), rounds, target."""
    from workers.rl.presets import ENV_PRESETS

    rows = [("ENV", "FAMILY", "STEPS/ROUND", "SAMPLERS x STEPS", "ROUNDS", "TARGET")]
    rows += [(p.env_id, p.family, f"{p.steps_per_round:,}", f"{p.shards} x {p.steps_per_shard:,}", str(p.rounds),
              f"{p.solved_return:g}") for p in ENV_PRESETS.values()]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        click.echo("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())


def load_spec(path: str):
    """The TaskSpec in a JSON file; a ClickException naming the bad field."""
    from workers.spec import SpecError, parse

    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise click.ClickException(f"cannot read spec {path}: {exc.strerror}") from None
    try:
        return parse(data)
    except SpecError as exc:
        raise click.ClickException(f"bad spec {path}: {exc}") from None


def open_node_store(store_dir: Path, ipfs_api: str | None):
    from workers.storage import StorageError, open_store

    try:
        return open_store(ipfs_api, store_dir)
    except (StorageError, ValueError) as exc:  # ValueError: an --ipfs-api that is no address
        raise click.ClickException(str(exc)) from None
    except OSError as exc:
        raise click.ClickException(f"cannot use the store folder {store_dir}: {exc.strerror or exc}") from None


@task.command("submit")
@click.argument("spec", type=click.Path(exists=True, dir_okay=False))
@click.option("--bounty", required=True, metavar="DRL", help="Bounty in DRL, paid to the nodes that do the work.")
@click.option("--samplers", type=click.IntRange(1, MAX_SAMPLERS), default=2, show_default=True)
@click.option("--validators", type=click.IntRange(1, MAX_VALIDATORS), default=3, show_default=True)
@click.option("--rounds", type=click.IntRange(1, MAX_ROUNDS), default=5, show_default=True)
@click.option("--claim-window", type=WINDOW, default=3600, show_default=True, help="Seconds.")
@click.option("--commit-window", type=WINDOW, default=600, show_default=True, help="Seconds.")
@click.option("--reveal-window", type=WINDOW, default=300, show_default=True, help="Seconds.")
@click.option("--attest-window", type=WINDOW, default=600, show_default=True, help="Seconds.")
@click.option("--relayer-dir", type=click.Path(file_okay=False), default=None,
              help="Node dir of a relayer that sends the signed request (pays the gas); default: "
                   "the requester sends it itself.")
@click.option("--ipfs-api", default=lambda: os.environ.get("DECENTRL_IPFS_API"),
              help="IPFS RPC API to publish the spec to; default: the embedded store (--store-dir).")
@click.option("--encrypt-inputs", "inputs_path", type=click.Path(exists=True, dir_okay=False), default=None,
              help="A policy (safetensors, the spec's architecture) for round 0, encrypted (AES-256-GCM) so "
                   "that only the task's assigned nodes can read it.")
@click.option("--post-keys", is_flag=True,
              help="With --encrypt-inputs: wait until every slot is filled, then post the keyring "
                   "(else run `decentrl task keys ID`).")
@click.pass_obj
def task_submit(obj: Context, spec, bounty, samplers, validators, rounds, claim_window, commit_window,
                reveal_window, attest_window, relayer_dir, ipfs_api, inputs_path, post_keys):
    """Publish SPEC (a task spec JSON file) and create a task with a bounty.

    The requester (NODE_DIR's keystore) signs the EIP-712 CreateTask request and an EIP-2612
    permit for the bounty; the relayer (or the requester itself) sends createTaskWithSig.
    With --encrypt-inputs only the ciphertext is published; the spec names it (SPECIFICATION 5.7)."""
    if post_keys and not inputs_path:
        raise click.UsageError("--post-keys needs --encrypt-inputs")
    task_spec = load_spec(spec)
    wei = parse_drl(bounty, "--bounty")
    dep = obj.deployment  # WrongNetwork: the RPC's chain is not the deployment's
    from workers.chain.requester import create_task, min_bounty

    minimum = min_bounty(dep, samplers, validators, rounds)
    if wei < minimum:
        raise click.ClickException(f"--bounty {fmt_drl(wei)} is below the protocol's minimum {fmt_drl(minimum)} for "
                                   f"{samplers} samplers, 1 trainer and {validators} validators over "
                                   f"{counted(rounds, 'round')} (ProtocolConfig.minBountyPerSlotRound per slot "
                                   "and round): raise --bounty")
    requester = obj.account()
    balance = dep.token.functions.balanceOf(requester.address).call()
    if balance < wei:
        raise click.ClickException(f"insufficient funds: requester {requester.address} holds {fmt_drl(balance)}, "
                                   f"the bounty is {fmt_drl(wei)}")
    relayer = requester
    if relayer_dir:
        relayer = Context(obj.rpc, obj.deployment_path, obj.network, relayer_dir, str(obj.store_dir)).account()
    if obj.w3.eth.get_balance(relayer.address) == 0:
        raise click.ClickException(f"insufficient funds: {relayer.address} has no ETH to send the transaction")

    from workers.spec_fetch import publish_spec
    from workers.storage import StorageError

    store = open_node_store(obj.store_dir, ipfs_api)
    sender, service = obj.sender(relayer)
    try:
        if inputs_path:
            task_spec = encrypt_inputs(task_spec, Path(inputs_path), requester, store)
        task_id, params, receipt = create_task(
            dep, store, requester, lambda call: send(sender, call, "createTaskWithSig"), task_spec,
            publish=publish_spec, bounty=wei,
            num_samplers=samplers, num_validators=validators, num_rounds=rounds, claim_window=claim_window,
            commit_window=commit_window, reveal_window=reveal_window, attest_window=attest_window)
    except StorageError as exc:  # before anything is signed or sent: nothing is lost, submit again
        raise click.ClickException(f"cannot publish the task's spec: {exc}") from None
    finally:
        service.stop()
    cid = params.spec_cid
    click.echo(f"spec {cid} (digest 0x{task_spec.digest().hex()})")
    click.echo(f"task {task_id} created: bounty {fmt_drl(wei)}, {counted(samplers, 'sampler')}, "
               f"{counted(validators, 'validator')}, {counted(rounds, 'round')} "
               f"(tx {receipt['transactionHash'].to_0x_hex()})")
    if inputs_path and post_keys:
        post_task_keys(obj, requester, task_id, store, wait_s=claim_window, follow=False)
    elif inputs_path:
        click.echo(f"once every slot is filled, post the inputs' keys: decentrl task keys {task_id} --follow")


def encrypt_inputs(task_spec, path: Path, requester, store):
    """The spec with an "inputs" descriptor: the policy in `path` checked against the spec's
    architecture, encrypted with the requester's data key, and only the ciphertext stored."""
    import dataclasses

    from workers.crypto import inputs
    from workers.node.handlers.encrypted_inputs import BadInputs, check_initial_policy

    plaintext = path.read_bytes()
    try:
        check_initial_policy(task_spec, plaintext)
    except BadInputs as exc:  # malformed bytes too (workers.framing.Malformed)
        raise click.ClickException(f"--encrypt-inputs {path}: {exc}") from None
    descriptor, ciphertext = inputs.encrypt(requester.key, plaintext, "initial_policy")
    cid = store.put(ciphertext, pin=True)
    if cid != descriptor.cid:
        raise click.ClickException(f"the store answered CID {cid} for the ciphertext, expected {descriptor.cid}")
    click.echo(f"encrypted inputs {cid} ({descriptor.algorithm}, {descriptor.size} bytes; plaintext not published)")
    return dataclasses.replace(task_spec, encrypted_inputs=descriptor)


KEYS_POLL_S = 1.0


def post_task_keys(obj: Context, requester, task_id: int, store, *, wait_s: float, follow: bool) -> None:
    """Waits (up to wait_s) until the task is active, posts its keyring for the assigned nodes;
    with `follow`, posts again whenever the assignment changes, until the task ends."""
    from workers.crypto.errors import CryptoError
    from workers.crypto.exchange import post_keyring
    from workers.protocol import Status
    from workers.spec import SpecError, parse
    from workers.storage import StorageError

    view, t = _task(obj, task_id)
    if t.requester != requester.address:
        raise click.ClickException(f"task {task_id}'s requester is {t.requester}, not {requester.address}")
    try:
        spec = parse(store.get(t.spec_cid), digest=t.spec_digest)
    except (StorageError, SpecError) as exc:
        raise click.ClickException(f"cannot read task {task_id}'s spec {t.spec_cid}: {exc}") from None
    if spec.encrypted_inputs is None:
        raise click.ClickException(f"task {task_id}'s spec has no encrypted inputs: there are no keys to post")
    deadline = time.monotonic() + wait_s
    while t.status in (Status.OPEN, Status.DRAWING):
        if time.monotonic() > deadline:
            raise click.ClickException(f"task {task_id} is still {t.status.name.lower()} after {wait_s:.0f} s: "
                                       f"its slots are not filled; run `decentrl task keys {task_id}` later")
        time.sleep(KEYS_POLL_S)
        t = view.task(task_id)
    sender, service = obj.sender(requester)
    try:
        while t.status == Status.ACTIVE:
            try:
                posted = post_keyring(view, store, requester, lambda call: send(sender, call, "postKeyring"),
                                      task_id, spec.encrypted_inputs)
            except (CryptoError, StorageError) as exc:
                raise click.ClickException(f"task {task_id}: cannot post the keyring: {exc}") from None
            if posted.receipt is not None:
                click.echo(f"keyring {posted.cid} posted for {len(posted.nodes)} nodes of task {task_id} "
                           f"(tx {posted.receipt['transactionHash'].to_0x_hex()})")
            elif not follow:
                click.echo(f"keyring {posted.cid} already covers the {len(posted.nodes)} nodes of task {task_id}")
            if not follow:
                break
            time.sleep(KEYS_POLL_S)
            t = view.task(task_id)
    finally:
        service.stop()
    if t.status != Status.ACTIVE and not follow:
        raise click.ClickException(f"task {task_id} is {t.status.name.lower()}: no keys to post")


@task.command("keys")
@click.argument("task_id", type=TASK_ID)
@click.option("--follow", is_flag=True, help="Keep posting after each assignment change until the task ends.")
@click.option("--wait", "wait_s", type=float, default=3600.0, show_default=True,
              help="Seconds to wait for every slot to be filled.")
@click.option("--ipfs-api", default=lambda: os.environ.get("DECENTRL_IPFS_API"),
              help="IPFS RPC API to publish the keyring to; default: the embedded store (--store-dir).")
@click.pass_obj
def task_keys(obj: Context, task_id, follow, wait_s, ipfs_api):
    """Wrap the task's encrypted-inputs key for each assigned node and post the keyring (requester only)."""
    store = open_node_store(obj.store_dir, ipfs_api)
    post_task_keys(obj, obj.account(), task_id, store, wait_s=wait_s, follow=follow)


def _task(obj: Context, task_id: int):
    from workers.chain.view import TaskNotFound

    view = obj.view()
    try:
        return view, view.task(task_id)
    except TaskNotFound as exc:
        raise click.ClickException(str(exc)) from None


@task.command("cancel")
@click.argument("task_id", type=TASK_ID)
@click.pass_obj
def task_cancel(obj: Context, task_id):
    """Cancel your task before its rounds start (open or drawing); the whole bounty becomes
    claimable again (`decentrl wallet claim`)."""
    from workers.protocol import Status

    _, t = _task(obj, task_id)
    account = obj.account()
    if t.requester != account.address:
        raise click.ClickException(f"task {task_id} belongs to {t.requester}, not to this keystore's {account.address}")
    if t.status not in (Status.OPEN, Status.DRAWING):
        raise click.ClickException(f"task {task_id} is {t.status.name.lower()}: "
                                   "only an open or drawing task can be cancelled")
    receipt = send_as(obj, account, obj.deployment.registry.functions.cancelTask(task_id), "cancelTask")
    click.echo(f"task {task_id} cancelled (tx {receipt['transactionHash'].to_0x_hex()}); "
               f"claim the refund with: decentrl wallet claim")


@task.command("advance")
@click.argument("task_id", type=TASK_ID)
@click.pass_obj
def task_advance(obj: Context, task_id):
    """Send whatever moves a stuck task on, when anyone may: the validator draw of a drawing task
    (mining its seed block first on a chain that mines only on transactions), or advance() once a
    deadline passed (nodes that did not act are vacated and penalised, the task moves on, or fails
    and is refunded when its slots never filled). Nodes do this themselves; this is for a task that
    looks stuck."""
    from workers.protocol import Status

    view, t = _task(obj, task_id)
    if t.status not in (Status.OPEN, Status.DRAWING, Status.ACTIVE):
        raise click.ClickException(f"task {task_id} is {t.status.name.lower()}: nothing to advance")
    now = view.protocol_time()  # as a transaction sent now sees it (workers.chain.stalls)
    deadline = t.claim_deadline if t.status in (Status.OPEN, Status.DRAWING) else t.phase_deadline
    if t.status == Status.DRAWING and now <= deadline and t.filled_validators < t.num_validators:
        return _draw_validators(obj, view, task_id, t)
    if now <= deadline:
        raise click.ClickException(f"task {task_id}'s deadline is in {deadline - now} s: nothing to advance yet")
    receipt = send_as(obj, obj.account(), obj.deployment.registry.functions.advance(task_id), "advance",
                      estimate_at="pending")
    _, after = _task(obj, task_id)
    click.echo(f"task {task_id} advanced (tx {receipt['transactionHash'].to_0x_hex()}): now {_where(after)}")


def _draw_validators(obj: Context, view, task_id: int, t) -> None:
    """drawValidators for a drawing task, once its seed block is mined: on a chain that mines only
    on transactions nobody may ever send one, so this mines it with empty transactions."""
    sender, service = obj.sender(obj.account())
    try:
        while (head := obj.w3.eth.block_number) < t.seed_block:  # the draw must land after the seed block
            send(sender, None, "an empty transaction to mine the draw's seed block", to=sender.address, value=0)
            click.echo(f"mined block {head + 1} (the draw's seed block is {t.seed_block})")
        receipt = send(sender, obj.deployment.registry.functions.drawValidators(task_id), "drawValidators",
                       estimate_at="pending")
    finally:
        service.stop()
    _, after = _task(obj, task_id)
    drawn = f"{after.filled_validators} of {after.num_validators} validators drawn"
    if after.filled_validators < after.num_validators:
        drawn += (" (too few eligible validators in the pool: the draw is armed again; "
                  f"it is retried until the claim deadline, in {after.claim_deadline - view.protocol_time()} s)")
    click.echo(f"task {task_id}: {drawn} (tx {receipt['transactionHash'].to_0x_hex()}): now {_where(after)}")


def _where(t) -> str:
    from workers.protocol import Status

    if t.status == Status.ACTIVE:
        return f"active, round {t.round + 1} phase {t.phase.name.lower()}"
    return t.status.name.lower()


@task.command("status")
@click.argument("task_id", type=TASK_ID)
@click.option("--follow", is_flag=True,
              help="Then follow the task until it ends (a bar over its rounds, with its phase); exits 1 if it "
                   "fails or is cancelled.")
@click.option("--interval", type=click.FloatRange(0.05, 3600), default=2.0, show_default=True,
              help="With --follow: seconds between two looks at the task.")
@click.option("--ipfs-api", default=lambda: os.environ.get("DECENTRL_IPFS_API"),
              help="IPFS RPC API to check the task's spec against; default: the embedded store (--store-dir).")
@click.pass_obj
def task_status(obj: Context, task_id, follow, interval, ipfs_api):
    """Status, round, phase, slots, this round's verdicts, and what the task waits for until when.

    While the task is open or drawing, its spec is fetched and parsed by the nodes' own rules: a
    spec they refuse is named with the reason (such a task is never claimed)."""
    show_status(obj, task_id, open_node_store(obj.store_dir, ipfs_api))
    if follow:
        follow_task(obj, task_id, interval)


def show_status(obj: Context, task_id: int, store=None) -> None:
    """The task's state, what it waits for, and (with a store, while it is open or drawing) whether
    the nodes can use its spec."""
    from workers.chain.outcome import REFUNDED, describe_end
    from workers.protocol import Status

    view, t = _task(obj, task_id)
    now = view.protocol_time()
    click.echo(f"task {task_id}: {t.status.name.lower()}, requester {t.requester}, bounty {fmt_drl(t.bounty)}")
    ran = t.started
    if t.status == Status.ACTIVE:
        left = t.phase_deadline - now
        click.echo(f"round {t.round + 1} of {t.num_rounds}, phase {t.phase.name.lower()}, deadline in {left} s")
    elif ran:
        click.echo(f"ended in round {t.round + 1} of {t.num_rounds}")
        if t.status != Status.COMPLETED:
            click.echo(f"{describe_end(t)}; {REFUNDED}")
    elif t.status == Status.FAILED:
        click.echo("failed before its first round: its slots were not all filled within the claim window "
                   "(the bounty was refunded: decentrl wallet claim)")
    else:
        click.echo(f"round 0 of {t.num_rounds} (rounds start once every slot is filled)")
    click.echo(f"spec {t.spec_cid}")
    if store is not None and t.status in (Status.OPEN, Status.DRAWING):
        show_spec_check(store, t)
    if t.checkpoint_cid:
        click.echo(f"checkpoint {t.checkpoint_cid} (root 0x{bytes(t.checkpoint_root).hex()})")
    click.echo(f"slots: samplers {t.filled_samplers}/{t.num_samplers}, trainer {int(t.trainer_filled)}/1, "
               f"validators {t.filled_validators}/{t.num_validators}")
    for s in view.slots(task_id):
        click.echo(f"  {s.role.name.lower():<10}{s.slot}  {s.node or '(vacant)'}")
    if ran:
        subs = [s for s in view.submissions(task_id, t.round) if s.node]
        if subs:
            click.echo(f"round {t.round + 1} submissions:")
            for s in subs:
                click.echo(f"  {s.role.name.lower():<10}{s.slot}  {'revealed' if s.revealed else 'committed'}  "
                           f"verdict {s.verdict.name.lower()}")
    show_waiting(obj, view, t, now)


def show_waiting(obj: Context, view, t, now: int) -> None:
    """What the task waits for and until when (workers.chain.waiting); nothing once it ended."""
    from workers.chain.waiting import waiting_for

    waiting = waiting_for(view, t, now, obj.w3.eth.block_number)
    for line in waiting.lines() if waiting else ():
        click.echo(line)


def show_spec_check(store, t) -> None:
    """Whether the nodes can fetch and parse the task's spec (by their own rules): a spec they
    refuse is never claimed, so an open task says why it sits."""
    from workers.spec_fetch import check_spec

    check = check_spec(store, t.spec_cid, bytes(t.spec_digest))
    if not check.usable:
        click.echo(check.message)


def follow_task(obj: Context, task_id: int, interval: float) -> None:
    """Looks at the task every `interval` s until it ends, with a bar over its rounds; a chain node
    that does not answer for a while is waited for. A ClickException unless it completed."""
    from workers.chain.outcome import REFUNDED, describe_end
    from workers.protocol import FINAL_STATUSES, Status

    _, t = _task(obj, task_id)

    def rounds_done(t) -> int:
        if t.status in (Status.COMPLETED, Status.NO_RESULT):
            return t.num_rounds
        return t.round if t.status in (Status.ACTIVE, Status.FAILED) else 0

    def where(t) -> str:
        return f"round {t.round + 1} {t.phase.name.lower()}" if t.status == Status.ACTIVE else t.status.name.lower()

    with click.progressbar(length=t.num_rounds, label=f"task {task_id} rounds", file=sys.stderr,
                           show_pos=True, item_show_func=lambda item: item) as bar:
        shown, note = 0, where(t)
        while True:
            bar.update(rounds_done(t) - shown, note)
            shown = rounds_done(t)
            if t.status in FINAL_STATUSES:
                break
            time.sleep(interval)
            try:
                _, t = _task(obj, task_id)
                note = where(t)
            except (ConnectionError, TimeoutError, OSError) as exc:  # the chain node restarting: look again
                note = f"chain node not answering ({type(exc).__name__}); looking again"
    if t.status != Status.COMPLETED:
        raise click.ClickException(f"task {task_id} {describe_end(t)}; {REFUNDED}")
    rounds = counted(t.num_rounds, "round")
    click.echo(f"task {task_id} completed after {rounds}; its policy: decentrl task result {task_id} -o DIR")


@task.command("result")
@click.argument("task_id", type=TASK_ID)
@click.option("-o", "--output", "out_dir", type=click.Path(file_okay=False), required=True)
@click.option("--ipfs-api", default=lambda: os.environ.get("DECENTRL_IPFS_API"),
              help="IPFS RPC API to fetch from; default: the embedded store (--store-dir).")
@click.pass_obj
def task_result(obj: Context, task_id, out_dir, ipfs_api):
    """Download the task's final checkpoint, verify it against the on-chain checkpointRoot, and
    write DIR/policy.safetensors and DIR/metadata.json."""
    from workers.chain.outcome import REFUNDED, describe_end
    from workers.protocol import FINAL_STATUSES, Status
    from workers.storage import CIDMismatch, ContentNotFound, StorageError

    _, t = _task(obj, task_id)
    if not t.checkpoint_cid and t.status in FINAL_STATUSES:
        raise click.ClickException(f"task {task_id} {describe_end(t)}; {REFUNDED}")
    if not t.checkpoint_cid:
        raise click.ClickException(f"task {task_id} has no checkpoint yet (status {t.status.name.lower()})")
    if t.status != Status.COMPLETED:
        click.echo(f"note: task {task_id} is {t.status.name.lower()}; fetching its latest checkpoint", err=True)
    from workers.roles.trainer import CheckpointMismatch, verify_checkpoint

    store = open_node_store(obj.store_dir, ipfs_api)
    with click.progressbar(length=3, label="checkpoint", file=sys.stderr) as bar:
        try:
            bundle = store.get(t.checkpoint_cid)  # checked against its CID
        except ContentNotFound as exc:
            elsewhere = "" if ipfs_api else (" (the embedded store holds only what went through this --store-dir; "
                                             "the network's nodes publish to their IPFS node: --ipfs-api)")
            raise click.ClickException(f"cannot fetch checkpoint {t.checkpoint_cid}: {exc}{elsewhere}") from None
        except (StorageError, CIDMismatch) as exc:
            raise click.ClickException(f"cannot fetch checkpoint {t.checkpoint_cid}: {exc}") from None
        bar.update(1)
        try:
            result = verify_checkpoint(bundle, t.checkpoint_root)
        except CheckpointMismatch as exc:
            raise click.ClickException(f"checkpoint {t.checkpoint_cid} does not verify: {exc}") from None
        bar.update(1)
        out = Path(out_dir)
        meta = {**result.meta, "cid": t.checkpoint_cid, "checkpoint_root": "0x" + result.root.hex(),
                "task_status": t.status.name.lower(), "spec_cid": t.spec_cid}
        with writing("the policy"):
            out.mkdir(parents=True, exist_ok=True)
            (out / "policy.safetensors").write_bytes(result.policy_bytes)
            (out / "metadata.json").write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")
        bar.update(1)
    click.echo(f"verified checkpoint of round {result.round + 1} against root 0x{result.root.hex()}")
    click.echo(f"wrote {out / 'policy.safetensors'} and {out / 'metadata.json'}")

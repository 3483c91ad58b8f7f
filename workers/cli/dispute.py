"""`decentrl dispute open / prove / status / claim`: disputing a round's verdict (SPECIFICATION.md
13). Rounds are numbered from 1 and slots from 0, as `decentrl task status` shows them.

The nodes act on disputes by themselves (workers/node/handlers/dispute_handlers.py): validators
draw the jurors, re-verify and vote; every node releases its own held pay once the round's window
has passed. These commands are the disputer's side, and a way to collect by hand."""

from __future__ import annotations

import datetime as dt
import os

import click

from workers.cli.common import TASK_ID, Context, fmt_drl, parse_drl, role_of, send
from workers.cli.group import cli
from workers.cli.task import open_node_store

EVIDENCE = ("whole", "episode", "transition", "chunk")
"""--evidence: IDisputeManager.Evidence (workers.protocol.Evidence) by index, the item a disputer
says failed."""
EVIDENCE_ROLE = {"episode": "sampler", "transition": "trainer", "chunk": "trainer"}
OUTCOMES = {"upheld": "the verdict was wrong: it is reversed, the bond comes back with an award",
            "dismissed": "the verdict stands: the bond is lost",
            "void": "no jury could be formed or none voted: the verdict stands, the bond comes back"}
ZERO_ADDRESS = "0x" + "00" * 20


@cli.group()
def dispute():
    """Dispute a round's verdict, prove a sampler's fault, follow a dispute, collect what it paid."""


# -- reading -----------------------------------------------------------------------------------

def _state(obj: Context):
    return obj.deployment.state.functions


def _now(obj: Context) -> tuple[int, int]:
    """(protocol time, the latest block's timestamp): deadlines are protocol time, which runs with
    the chain's clock except while the registry is paused."""
    return (obj.view().protocol_time(),
            obj.deployment.w3.eth.get_block("latest")["timestamp"])


def _when(obj: Context, deadline: int) -> str:
    """'12345 (2026-12-05 23:40:00 UTC, in 300 s)': a protocol-time deadline and its wall time."""
    protocol_now, block_now = _now(obj)
    left = deadline - protocol_now
    wall = dt.datetime.fromtimestamp(block_now + left, dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    return f"{deadline} ({wall}, {'in ' + str(left) + ' s' if left >= 0 else str(-left) + ' s ago'})"


def _dispute(obj: Context, dispute_id: int):
    from workers.protocol import DisputeStatus

    d = _state(obj).disputeOf(dispute_id).call()
    if d.status == DisputeStatus.NONE:
        count = _state(obj).disputeCount().call()
        known = f"disputes 1..{count} exist" if count else "no dispute exists yet"
        raise click.ClickException(f"dispute {dispute_id} not found ({known})")
    return d


def _evidence(d) -> str:
    if EVIDENCE[int(d.evidence)] == "whole":
        return "whole submission"
    return f"{EVIDENCE[int(d.evidence)]} {int(d.item)}"


def _where(d) -> str:
    from workers.protocol import Role, Verdict

    return (f"task {d.taskId} round {d.round + 1} {Role(d.role).name.lower()} slot {d.slot}, verdict "
            f"{Verdict(d.verdict).name.lower()}")


# -- open --------------------------------------------------------------------------------------

@dispute.command("open")
@click.argument("task_id", type=TASK_ID)
@click.argument("round_no", metavar="ROUND", type=click.IntRange(min=1))
@click.option("--role", type=click.Choice(("sampler", "trainer")), required=True,
              help="The disputed submission's role.")
@click.option("--slot", type=click.IntRange(min=0), required=True, help="Its slot (as `task status` shows it).")
@click.option("--bond", default=None, metavar="DRL",
              help="DRL to post (default: the minimum bond, ProtocolConfig.minBond).")
@click.option("--evidence", type=click.Choice(EVIDENCE), default="whole", show_default=True,
              help="What failed: the whole submission, a sampler's episode, a trainer's trace transition or "
                   "pre-update data chunk (name it with --item).")
@click.option("--item", type=click.IntRange(min=0), default=None,
              help="The episode, transition (state N to N+1) or chunk index, with --evidence. In a task with "
                   "snapshots, segment S of episode E is E + S * 65536 (as the validator's rejection names it).")
@click.pass_obj
def dispute_open(obj: Context, task_id, round_no, role, slot, bond, evidence, item):
    """Dispute the verdict on ROLE slot SLOT of ROUND of TASK_ID within the round's dispute window,
    posting a bond (lost if the dispute is dismissed). An accepted or inconclusive verdict is
    disputed as bad work (name the failing item with --evidence and --item, or dispute the whole
    submission); a rejected one as good work (the whole submission). Approves the bond unless the
    DisputeManager may already take it."""
    from workers.chain.view import TaskNotFound
    from workers.protocol import Evidence, Verdict

    if evidence != "whole" and item is None:
        raise click.UsageError(f"--evidence {evidence} needs --item N (which {evidence})")
    if evidence == "whole" and item is not None:
        raise click.UsageError("--item names an episode, transition or chunk: give --evidence with it")
    if evidence != "whole" and EVIDENCE_ROLE[evidence] != role:
        raise click.UsageError(f"--evidence {evidence} is a {EVIDENCE_ROLE[evidence]}'s, not a {role}'s")
    dep, view = obj.deployment, obj.view()
    try:
        task = view.task(task_id)
    except TaskNotFound as exc:
        raise click.ClickException(str(exc)) from None
    round_ = round_no - 1
    slots = task.slot_count(role_of(role))
    if round_ >= task.num_rounds or slot >= slots:
        raise click.ClickException(f"task {task_id} has rounds 1..{task.num_rounds} and {role} slots 0..{slots - 1}")
    sub = _state(obj).submissionOf(task_id, round_, role_of(role), slot).call()
    verdict = Verdict(sub.verdict)
    if verdict == Verdict.NONE:
        raise click.ClickException(f"task {task_id} round {round_no} {role} slot {slot} has no verdict yet: a "
                                   "verdict is disputable once its round is finalized")
    if verdict == Verdict.REJECTED and evidence != "whole":
        raise click.UsageError("a dispute of a rejected verdict says the work is good: it names no failing item "
                               "(leave out --evidence and --item)")
    window_end = _state(obj).windowEndOf(task_id, round_).call()
    if _now(obj)[0] > window_end:
        raise click.ClickException(f"the dispute window of task {task_id} round {round_no} closed at "
                                   f"{_when(obj, window_end)}: its verdicts are final")
    min_bond = dep.config.functions.minBond().call()
    wei = parse_drl(bond, "--bond") if bond is not None else min_bond
    if wei < min_bond:
        raise click.ClickException(f"bond too low: {fmt_drl(wei)}; post at least the minimum bond of "
                                   f"{fmt_drl(min_bond)} (--bond)")
    account = obj.account()
    held = dep.token.functions.balanceOf(account.address).call()
    if held < wei:
        raise click.ClickException(f"insufficient funds: {account.address} holds {fmt_drl(held)}, the bond is "
                                   f"{fmt_drl(wei)}")
    stated = Evidence(EVIDENCE.index(evidence))
    call = dep.disputes.functions.openDispute(task_id, round_, role_of(role), slot, wei, stated, item or 0)
    sender, service = obj.sender(account)
    try:
        allowance = dep.token.functions.allowance(account.address, dep.disputes.address).call()
        if allowance < wei:
            send(sender, dep.token.functions.approve(dep.disputes.address, wei), "approve (the bond)")
        receipt = send(sender, call, "openDispute")
    finally:
        service.stop()
    from web3.logs import DISCARD

    opened = dep.disputes.events.DisputeOpened().process_receipt(receipt, errors=DISCARD)[0].args
    dispute_id = int(opened.disputeId)
    named = evidence if evidence == "whole" else f"{evidence} {item}"
    click.echo(f"dispute {dispute_id} opened: task {task_id} round {round_no} {role} slot {slot}, verdict "
               f"{verdict.name.lower()} disputed, evidence {named}, "
               f"bond {fmt_drl(wei)} (tx {receipt['transactionHash'].to_0x_hex()})")
    click.echo(f"dispute window of the round ends {_when(obj, window_end)}")
    vote_window = dep.config.functions.voteWindow().call()
    click.echo(f"next: the validator nodes draw the jurors from the next block; the jurors re-verify the work and "
               f"vote (hidden, then revealed) within {vote_window} s; follow it with `decentrl dispute status "
               f"{dispute_id}`")
    if role == "sampler":
        click.echo(f"a sampler's episode whose fault the chain can check settles it at once: "
                   f"`decentrl dispute prove {dispute_id}`")
    click.echo("once it is settled, `decentrl dispute claim` withdraws your bond (and award) if it comes back")


# -- prove -------------------------------------------------------------------------------------

def _simulate(obj: Context, call, sender_address: str):
    """None if `call` would succeed, else its decoded revert."""
    from web3.exceptions import ContractLogicError

    from workers.chain.errors import decode_revert, revert_data_of

    try:
        call.call({"from": sender_address})
    except ContractLogicError as exc:
        return decode_revert(revert_data_of(exc))
    return None


@dispute.command("prove")
@click.argument("dispute_id", type=TASK_ID)
@click.option("--item", type=click.IntRange(min=0), default=None,
              help="Prove this episode of the shard (default: the first with a fault the chain can check).")
@click.option("--ipfs-api", default=lambda: os.environ.get("DECENTRL_IPFS_API"),
              help="IPFS RPC API to fetch the shard from; default: the embedded store (--store-dir).")
@click.option("--timeout", type=click.FloatRange(1, 3600), default=60.0, show_default=True,
              help="Seconds to wait for the shard.")
@click.pass_obj
def dispute_prove(obj: Context, dispute_id, item, ipfs_api, timeout):
    """Settle a sampler dispute at once: fetch the disputed shard by its CID (checked against the
    content), find an episode with a fault the chain checks itself (bad encoding, wrong round,
    shard or seeds), and send it with its Merkle proof (proveFault)."""
    from workers.protocol import DisputeStatus, Role
    from workers.roles.fault_proof import NotAShard, provable_faults, shard_items
    from workers.storage import CIDMismatch, StorageError

    dep = obj.deployment
    d = _dispute(obj, dispute_id)
    if Role(d.role) != Role.SAMPLER:
        raise click.ClickException(f"dispute {dispute_id} is of a trainer's work: only a sampler's episode can be "
                                   "proven on-chain; the jury decides this one (decentrl dispute status)")
    if DisputeStatus(d.status) not in (DisputeStatus.DRAWING, DisputeStatus.VOTING):
        raise click.ClickException(f"dispute {dispute_id} is settled ({DisputeStatus(d.status).name.lower()}): "
                                   "nothing left to prove")
    sub = _state(obj).submissionOf(d.taskId, d.round, d.role, d.slot).call()
    if not sub.revealed or not sub.cid:
        raise click.ClickException(f"{_where(d)}: the shard was never revealed, there is nothing to prove against")
    store = open_node_store(obj.store_dir, ipfs_api)
    try:
        blob = store.get(sub.cid, timeout=timeout)
    except CIDMismatch as exc:
        raise click.ClickException(f"the store returned other content for the shard {sub.cid}: {exc}") from None
    except StorageError as exc:
        where = ipfs_api or f"the embedded store {obj.store_dir}"
        raise click.ClickException(f"cannot fetch the shard {sub.cid} from {where}: {exc} (give --ipfs-api or "
                                   "--store-dir where it is stored)") from None
    try:
        items = shard_items(blob, bytes(sub.root))
        faults = provable_faults(items, d.round, d.slot, only=item)
    except NotAShard as exc:
        raise click.ClickException(f"the shard {sub.cid} is no shard of its revealed root ({exc}): no episode can "
                                   "be proven under the root; the jury decides") from None
    except IndexError as exc:
        raise click.ClickException(f"--item {item}: {exc}") from None
    if not faults:
        which = f"episode {item} of this shard has no fault" if item is not None else \
            "no episode of this shard has a fault"
        raise click.ClickException(f"{which} the chain can check; the jury decides")
    if EVIDENCE[int(d.evidence)] == "episode":  # the episode the dispute names first, if it is one of them
        faults.sort(key=lambda f: f.index != int(d.item))
    account = obj.account()
    refused = []
    for found in faults:
        call = dep.disputes.functions.proveFault(dispute_id, found.item, found.proof)
        why = _simulate(obj, call, account.address)
        if why is not None:
            refused.append(f"episode {found.index}: {why.message}")
            continue
        sender, service = obj.sender(account)
        try:
            receipt = send(sender, call, "proveFault")
        finally:
            service.stop()
        after = _dispute(obj, dispute_id)
        outcome = DisputeStatus(after.status).name.lower()
        click.echo(f"episode {found.index} of {_where(d)}: {found.fault.name.lower().replace('_', ' ')} proven "
                   f"(tx {receipt['transactionHash'].to_0x_hex()})")
        click.echo(f"dispute {dispute_id} {outcome}: {OUTCOMES.get(outcome, '')}; "
                   "`decentrl dispute claim` withdraws what it owes you")
        return
    raise click.ClickException("the chain refuses every fault found (" + "; ".join(refused) + "); the jury decides")


# -- status ------------------------------------------------------------------------------------

def _show(obj: Context, dispute_id: int, d) -> None:
    from workers.protocol import DisputeStatus

    status = DisputeStatus(d.status)
    state = _state(obj)
    click.echo(f"dispute {dispute_id}: {status.name.lower()}")
    click.echo(f"  disputed    {_where(d)} (submitter {d.submitter})")
    click.echo(f"  evidence    {_evidence(d)}")
    click.echo(f"  disputer    {d.disputer}, bond {fmt_drl(d.bond)}")
    click.echo(f"  round       dispute window ends {_when(obj, state.windowEndOf(d.taskId, d.round).call())}; "
               f"{state.openDisputesOf(d.taskId, d.round).call()} dispute(s) of the round open")
    if status == DisputeStatus.DRAWING:
        click.echo(f"  jurors      {d.jurorCount} of {d.jurorsWanted} drawn; draw seeded by block {d.seedBlock}")
    else:
        click.echo(f"  jurors      {d.jurorCount} of {d.jurorsWanted} drawn, {d.commits} committed, "
                   f"{d.upholdVotes + d.dismissVotes} revealed (uphold {d.upholdVotes}, dismiss {d.dismissVotes})")
    for seat in range(d.jurorCount):
        j = state.jurorOf(dispute_id, seat).call()
        vote = ("uphold" if j.uphold else "dismiss") if j.voted else \
            ("committed" if int.from_bytes(bytes(j.commitment), "big") else "no vote yet")
        click.echo(f"    seat {seat}  {j.node}  stake locked {fmt_drl(j.lockedStake)}  {vote}")
    if status == DisputeStatus.VOTING:
        click.echo(f"  commit by   {_when(obj, d.voteDeadline)}")
        click.echo(f"  reveal by   {_when(obj, d.revealDeadline)}")
    if status in (DisputeStatus.UPHELD, DisputeStatus.DISMISSED, DisputeStatus.VOID):
        click.echo(f"  outcome     {status.name.lower()}: {OUTCOMES[status.name.lower()]}")
    else:
        click.echo("  outcome     pending")


@dispute.command("status")
@click.argument("dispute_id", type=TASK_ID, required=False)
@click.option("--task", "task_id", type=TASK_ID, default=None, help="Every dispute of this task, one line each.")
@click.pass_obj
def dispute_status(obj: Context, dispute_id, task_id):
    """A dispute's state: what is disputed, the jurors and their votes, the deadlines (protocol time
    and wall time), the bond and the outcome. With --task: the task's disputes."""
    from workers.protocol import DisputeStatus

    if (dispute_id is None) == (task_id is None):
        raise click.UsageError("give a DISPUTE_ID or --task T")
    if dispute_id is not None:
        _show(obj, dispute_id, _dispute(obj, dispute_id))
        return
    dep = obj.deployment
    logs = dep.disputes.events.DisputeOpened().get_logs(from_block=dep.block, argument_filters={"taskId": task_id})
    if not logs:
        click.echo(f"task {task_id}: no dispute")
        return
    for e in logs:
        i = int(e.args.disputeId)
        d = _dispute(obj, i)
        click.echo(f"dispute {i}: {DisputeStatus(d.status).name.lower():<9} {_where(d)}, evidence {_evidence(d)}, "
                   f"bond {fmt_drl(d.bond)}, disputer {d.disputer}")


# -- claim -------------------------------------------------------------------------------------

@dispute.command("claim")
@click.pass_obj
def dispute_claim(obj: Context):
    """Withdraw what the DisputeManager owes this account (returned bonds, awards) and release its
    held round pay whose dispute window has passed (to the RewardVault: `decentrl wallet claim`)."""
    dep = obj.deployment
    account = obj.account()
    address = account.address
    owed = _state(obj).owedOf(address).call()
    held_logs = dep.vault.events.Held().get_logs(from_block=dep.block, argument_filters={"account": address})
    rounds = sorted({(int(e.args.taskId), int(e.args.round)) for e in held_logs})
    vault = dep.vault.functions
    sender, service = obj.sender(account)
    did = False
    try:
        if owed:
            receipt = send(sender, dep.disputes.functions.withdraw(address, owed), "withdraw")
            click.echo(f"withdrew {fmt_drl(owed)} owed by the DisputeManager (bonds returned, awards) "
                       f"(tx {receipt['transactionHash'].to_0x_hex()})")
            did = True
        protocol_now = _now(obj)[0]
        for task_id, round_ in rounds:
            held = vault.heldOf(task_id, round_, address).call()
            if not held:
                continue
            did = True
            end = _state(obj).windowEndOf(task_id, round_).call()
            open_ = _state(obj).openDisputesOf(task_id, round_).call()
            where = f"task {task_id} round {round_ + 1}"
            if protocol_now <= end:
                click.echo(f"{fmt_drl(held)} of {where} held for its dispute window, until {_when(obj, end)}")
            elif open_:
                click.echo(f"{fmt_drl(held)} of {where} held: {open_} dispute(s) of the round still open")
            else:
                receipt = send(sender, dep.disputes.functions.releasePay(task_id, round_, address), "releasePay")
                click.echo(f"released {fmt_drl(held)} of {where} (tx {receipt['transactionHash'].to_0x_hex()})")
    finally:
        service.stop()
    if not did:
        click.echo(f"nothing owed to {address} and no pay held")
    claimable = vault.claimableOf(address).call()
    if claimable:
        click.echo(f"claimable in the RewardVault: {fmt_drl(claimable)}: `decentrl wallet claim` withdraws it")

"""A task's report (`decentrl task report ID -o DIR`): PNG plots (matplotlib, Agg) and a Markdown
page over the same read model as the explorer (workers.explorer.history) and its learning curve
(workers.explorer.curve):

    learning_curve.png  rollout and checkpoint-evaluation return per environment step
    verdicts.png        each round's verdict on each submission (colour), with accepts/rejects
    gas.png             gas used by the task's transactions, per function called
    payouts.png         DRL earned per node (and role)
    report.md           the page: summary, the plots, and the tables behind them
    report.json         the same data as the explorer's API gives it"""

from __future__ import annotations

import json
from pathlib import Path

from workers.amounts import TOKEN, fmt_drl
from workers.explorer.api import jsonable
from workers.explorer.curve import Curve
from workers.explorer.history import TaskHistory
from workers.protocol import Role, Verdict

VERDICT_COLOURS = {Verdict.NONE: "#c9ced6", Verdict.ACCEPTED: "#3a9d5d", Verdict.REJECTED: "#d0453a",
                   Verdict.INCONCLUSIVE: "#e3b341"}


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    return plt


def _save(fig, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path)
    _pyplot().close(fig)
    return path


def plot_curve(h: TaskHistory, curve: Curve, path: Path) -> Path:
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=110)
    pts = curve.points
    rollout = [(p.env_steps, p.rollout_return) for p in pts if p.rollout_return is not None]
    evals = [(p.env_steps, p.eval_return) for p in pts if p.eval_return is not None]
    if rollout:
        ax.plot(*zip(*rollout, strict=True), "s--", label="samplers' rollouts (policy before the round)")
    if evals:
        ax.plot(*zip(*evals, strict=True), "o-", label=f"accepted checkpoint ({curve.eval_episodes} eval episodes)")
    if curve.target_return is not None:
        ax.axhline(curve.target_return, color="grey", linestyle=":", label=f"solved ({curve.target_return:g})")
    ax.set_xlabel("environment steps")
    ax.set_ylabel("mean return")
    ax.set_title(f"task {h.task_id}: {curve.env_id or 'spec unreadable'}, learning curve")
    ax.grid(alpha=0.3)
    values = [v for _, v in rollout + evals] + ([] if curve.target_return is None else [curve.target_return])
    if values:
        if min(values) >= 0:  # returns that cannot go below 0 (CartPole) start at 0; negative ones (Pendulum) show
            ax.set_ylim(bottom=0)
        ax.legend(loc="best", fontsize=8)
    return _save(fig, path)


def _labels(h: TaskHistory) -> list[tuple[Role, int]]:
    return sorted({(s.role, s.slot) for r in h.rounds for s in r.submissions},
                  key=lambda k: (k[0] != Role.SAMPLER, k[0], k[1]))


def plot_verdicts(h: TaskHistory, path: Path) -> Path:
    plt = _pyplot()
    labels = _labels(h)
    fig, ax = plt.subplots(figsize=(max(4.0, 1.1 * len(h.rounds) + 2.5), 0.55 * len(labels) + 1.6), dpi=110)
    for x, r in enumerate(h.rounds):
        for y, (role, slot) in enumerate(labels):
            sub = r.submission(role, slot)
            verdict = sub.verdict if sub else Verdict.NONE
            ax.add_patch(plt.Rectangle((x, y), 0.95, 0.9, color=VERDICT_COLOURS[verdict]))
            text = f"{sub.accepts}/{sub.rejects}" if sub and sub.verdict != Verdict.NONE else "-"
            ax.text(x + 0.475, y + 0.45, text, ha="center", va="center", fontsize=8)
    ax.set_xlim(0, max(len(h.rounds), 1))
    ax.set_ylim(0, max(len(labels), 1))
    ax.set_xticks([x + 0.475 for x in range(len(h.rounds))], [f"round {r.round + 1}" for r in h.rounds])
    ax.set_yticks([y + 0.45 for y in range(len(labels))], [f"{role.name.lower()} {slot}" for role, slot in labels])
    ax.invert_yaxis()
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in VERDICT_COLOURS.values()]
    ax.legend(handles, [v.name.lower() for v in VERDICT_COLOURS], loc="upper center", bbox_to_anchor=(0.5, -0.12),
              ncol=4, fontsize=8, frameon=False)
    ax.set_title(f"task {h.task_id}: verdicts (accepts/rejects)")
    return _save(fig, path)


def _bars(path: Path, labels: list[str], values: list[float], notes: list[str], xlabel: str, title: str,
          colour: str) -> Path:
    """A horizontal bar per label, the first on top, each with its note at the bar's end."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 0.4 * len(labels) + 1.4), dpi=110)
    ax.barh(labels, values, color=colour)
    for y, (value, note) in enumerate(zip(values, notes, strict=True)):
        ax.text(value, y, f" {note}", va="center", fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    ax.margins(x=0.25)
    return _save(fig, path)


def plot_gas(h: TaskHistory, path: Path) -> Path:
    kinds = list(h.gas_by_kind().items())
    total = sum(tx.gas_used for tx in h.gas)
    return _bars(path, [k for k, _ in kinds], [used for _, (_, used) in kinds],
                 [f"{used:,} ({count} tx)" for _, (count, used) in kinds], "gas used",
                 f"task {h.task_id}: gas by function, {total:,} in {len(h.gas)} transactions", "#4a78c2")


def plot_payouts(h: TaskHistory, path: Path) -> Path:
    pays = sorted(h.payouts().items(), key=lambda kv: (kv[0][1], kv[0][0]))
    return _bars(path, [f"{node[:10]}… ({role.name.lower()})" for (node, role), _ in pays],
                 [wei / TOKEN for _, wei in pays], [f"{wei / TOKEN:,.2f}" for _, wei in pays], "DRL earned",
                 f"task {h.task_id}: payouts per node", "#3a9d5d")


def one_line(text) -> str:
    """`text` with its line breaks and other control characters written as escapes (\\n,
    \\x1b): a string from the chain or a store (a spec CID is whatever its requester sent) can
    neither start a new Markdown block nor drive a terminal."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(text))


def markdown(h: TaskHistory, curve: Curve) -> str:
    def who(node: str) -> str:  # a checksummed address (decoded by the ABI): nothing to escape
        return f"`{node}`"

    def cell(text) -> str:  # chain and store strings: no Markdown or HTML can come through
        return "`" + one_line(text).replace("`", "'").replace("|", "\\|") + "`" if text else ""

    lines = [f"# Task {h.task_id} report", "",
             "| | |", "|---|---|",
             f"| status | {h.status.name.lower()} |", *([f"| outcome | {h.end} |"] if h.end else []),
             f"| rounds | {len(h.rounds)} of {h.num_rounds} |",
             f"| bounty | {fmt_drl(h.bounty_wei)} |", f"| requester | `{h.requester}` |",
             f"| spec | {cell(h.spec_cid)} |", f"| final checkpoint | {cell(h.checkpoint_cid)} |",
             f"| slots | {h.num_samplers} samplers, 1 trainer, {h.num_validators} validators |", "",
             "## Learning curve", "", "![learning curve](learning_curve.png)", "",
             "| round | env steps | rollout return | checkpoint eval | checkpoint |", "|---|---|---|---|---|"]
    for p in curve.points:
        fmt = lambda v: "" if v is None else f"{v:.1f}"  # noqa: E731
        lines.append(f"| {p.round} | {p.env_steps} | {fmt(p.rollout_return)} | {fmt(p.eval_return)} | "
                     f"{cell(p.checkpoint_cid)} |")
    lines += [""] + [f"- could not read: {cell(e)}" for e in curve.errors]
    lines += ["", "## Verification verdicts", "", "![verdicts](verdicts.png)", "",
              "| round | submission | node | verdict | accepts | rejects | reward |", "|---|---|---|---|---|---|---|"]
    for r in h.rounds:
        for s in r.submissions:
            lines.append(f"| {r.round + 1} | {s.role.name.lower()} {s.slot} | {who(s.node)} | {s.verdict.name.lower()} "
                         f"| {s.accepts} | {s.rejects} | {fmt_drl(s.reward_wei)} |")
    total = sum(tx.gas_used for tx in h.gas)
    lines += ["", "## Gas", "", "![gas](gas.png)", "",
              f"{total:,} gas in {len(h.gas)} transactions "
              f"({sum(tx.fee_wei for tx in h.gas) / TOKEN:.6f} ETH at the gas prices paid).", "",
              "| function | transactions | gas used |", "|---|---|---|"]
    lines += [f"| {kind} | {count} | {used:,} |" for kind, (count, used) in h.gas_by_kind().items()]
    lines += ["", "## Payouts", "", "![payouts](payouts.png)", "", "| node | role | earned |", "|---|---|---|"]
    lines += [f"| {who(node)} | {role.name.lower()} | {fmt_drl(wei)} |"
              for (node, role), wei in sorted(h.payouts().items(), key=lambda kv: (kv[0][1], kv[0][0]))]
    lines += ["", "| role | paid |", "|---|---|"]
    lines += [f"| {role.name.lower()} | {fmt_drl(wei)} |" for role, wei in h.paid_by_role().items()]
    if h.refund_wei is not None:
        lines += ["", f"Refunded to the requester at settlement: {fmt_drl(h.refund_wei)}."]
    lines += ["", "## Reputation changes", "", "| node | score | outcome | block |", "|---|---|---|---|"]
    lines += [f"| {who(c.node)} | {c.old} → {c.new} | {c.outcome.name.lower()} | {c.block} |" for c in h.reputation]
    return "\n".join(lines) + "\n"


def write_report(h: TaskHistory, curve: Curve, out_dir: Path) -> dict[str, Path]:
    """Writes the plots, report.md and report.json to `out_dir`; returns {name: path}."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = {
        "learning_curve": plot_curve(h, curve, out / "learning_curve.png"),
        "verdicts": plot_verdicts(h, out / "verdicts.png"),
        "gas": plot_gas(h, out / "gas.png"),
        "payouts": plot_payouts(h, out / "payouts.png"),
    }
    (out / "report.md").write_text(markdown(h, curve))
    (out / "report.json").write_text(json.dumps({"task": jsonable(h), "curve": jsonable(curve)}, indent=2) + "\n")
    written.update(markdown=out / "report.md", json=out / "report.json")
    return written

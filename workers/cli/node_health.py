"""The parts of `decentrl node status` that show what the node is doing and why: the health
check's last results (NODE_DIR/health.json), key metrics (NODE_DIR/metrics) and why no work
arrives (workers.node.observe.why_idle)."""

from __future__ import annotations

import time

import click

from workers.cli.common import ROLE_NAMES


def _ago(ts: float) -> str:
    seconds = max(0, int(time.time() - ts))
    when = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(ts))
    return f"{when} ({seconds} s ago)"


def node_roles(view, account: str, running: dict | None) -> list[str]:
    """The roles the node runs (while running), else those it has stake for (all without a
    readable chain, `view` None), else all."""
    from workers.protocol import Role

    if running:
        return [r for r in running.get("roles", []) if r in ROLE_NAMES]
    if view is None:
        return list(ROLE_NAMES)
    staked = [name for name in ROLE_NAMES if view.stake(account, Role[name.upper()]).staked > 0]
    return staked or list(ROLE_NAMES)


def echo_health(node_dir, running: dict | None) -> None:
    from workers.node.observe.health import read_health

    doc = read_health(node_dir)
    if not doc:
        click.echo("health      no check yet" + ("" if running else " (the node checks itself while it runs)"))
        return
    stale = "" if running else "  (node not running: last results)"
    click.echo(f"health      last check {_ago(doc['checked_at'])}, every {doc['interval_s']:g} s{stale}")
    for name, result in doc.get("services", {}).items():
        mark = "ok  " if result.get("ok") else "FAIL"
        click.echo(f"  {name:<10} {mark} {result.get('detail', '')}  [{_ago(result['checked_at'])}]")
    for action in doc.get("actions", []):
        click.echo(f"  action     {action}")
    if doc.get("account_error"):
        click.echo(f"  account    figures unavailable: {doc['account_error']}")
    if doc.get("metrics_port"):
        click.echo(f"  metrics    http://127.0.0.1:{doc['metrics_port']}/metrics")


def _n(value: float) -> str:
    return f"{int(value):,}" if float(value).is_integer() else f"{value:,.2f}"


def echo_metrics(node_dir) -> None:
    from workers.node.observe.metrics import metrics_dir, snapshot

    if not metrics_dir(node_dir).is_dir():
        click.echo("metrics     none recorded (the node has not run here)")
        return
    m = snapshot(node_dir)
    get = lambda key: m.get(key, 0.0)  # noqa: E731
    states = ", ".join(f"{state} {_n(get(f'decentrl_tasks_total{{state={state}}}'))}"
                       for state in ("done", "already-done", "retry", "failed", "gave-up", "deferred",
                                     "deadline-passed")
                       if get(f"decentrl_tasks_total{{state={state}}}"))
    click.echo(f"metrics     tasks: {states or 'none handled'}; running now {_n(get('decentrl_tasks_running'))}")
    count = get("decentrl_dispatch_latency_seconds_count")
    if count:
        click.echo(f"  dispatch   mean {1000 * get('decentrl_dispatch_latency_seconds_sum') / count:.1f} ms "
                   f"over {_n(count)} tasks")
    click.echo(f"  chain      tx sent {_n(get('decentrl_tx_sent_total'))}, gas used "
               f"{_n(get('decentrl_tx_gas_used_total'))}, failures {_n(get('decentrl_tx_failures_total'))}")
    failures = sorted((k.split("=", 1)[1].rstrip("}"), v) for k, v in m.items()
                      if k.startswith("decentrl_tx_failures_total{reason=") and v)
    if failures:
        click.echo("  failures   " + ", ".join(f"{reason} {_n(v)}" for reason, v in failures))
    reorgs = get("decentrl_chain_reorgs_total")
    if reorgs:
        click.echo(f"  reorgs     {_n(reorgs)} chain reorganisations replaced "
                   f"{_n(get('decentrl_chain_reorg_blocks_total'))} blocks whose events the node had taken (their "
                   "events were taken again; deeper than --confirmations: give more)")
    steps, env_s = get("decentrl_env_steps_total"), get("decentrl_env_seconds_total")
    samples, train_s = get("decentrl_train_samples_total"), get("decentrl_train_seconds_total")
    click.echo(f"  work       env steps {_n(steps)}" + (f" ({steps / env_s:,.0f}/s)" if env_s else "") +
               f", training samples {_n(samples)}" + (f" ({samples / train_s:,.0f}/s)" if train_s else ""))
    episodes = get("decentrl_episode_return_count")
    if episodes:
        mean = get("decentrl_episode_return_sum") / episodes
        click.echo(f"  returns    mean {mean:.2f} over {_n(episodes)} episodes")
    click.echo(f"  store      put {_n(get('decentrl_store_bytes_total{op=put}'))} B, get "
               f"{_n(get('decentrl_store_bytes_total{op=get}'))} B, errors {_n(get('decentrl_store_errors_total'))}")


def echo_why_idle(view, account: str, roles, running: dict | None, node_dir, chain_error: str = "") -> None:
    """The reasons no work arrives; `view` None: the chain could not be read (`chain_error`)."""
    from workers.node.observe.health import read_health
    from workers.node.observe.why_idle import offline_reasons, passed_over_reasons, why_no_work

    health = read_health(node_dir)
    if view is None:
        reasons = offline_reasons(chain_error, running, health)
    else:
        reasons = why_no_work(view, account, roles, running, health=health)
    reasons += passed_over_reasons(node_dir)
    if not reasons:
        click.echo(f"work        nothing stands in the way ({', '.join(roles)})")
        return
    click.echo(f"WHY NO WORK ARRIVES ({', '.join(roles)}):")
    for reason in reasons:
        click.echo(f"  [{reason.code}] {reason.text}")


__all__ = ["echo_health", "echo_metrics", "echo_why_idle", "node_roles"]

"""`decentrl policy eval SOURCE`: the mean return of a trained policy on its environment."""

from __future__ import annotations

import json
import os
from pathlib import Path

import click

from workers.cli.common import Context
from workers.cli.group import cli

POLICY_FILE = "policy.safetensors"
METADATA_FILE = "metadata.json"


@cli.group()
def policy():
    """Use a trained policy."""


@policy.command("eval")
@click.argument("source")
@click.option("--env", "env_id", default=None,
              help="gymnasium id to evaluate on, without kwargs or wrappers (default: the task spec's env).")
@click.option("--spec", "spec_path", type=click.Path(dir_okay=False), default=None,
              help="The task's spec JSON (its env, and its target to compare with).")
@click.option("--episodes", type=click.IntRange(1, 10_000), default=100, show_default=True)
@click.option("--seed", type=click.IntRange(0, 2**32 - 1), default=0, show_default=True,
              help="Episode i is reset with seed SEED + i.")
@click.option("--ipfs-api", default=lambda: os.environ.get("DECENTRL_IPFS_API"),
              help="IPFS RPC API to fetch a CID or the result's spec from; default: the embedded store.")
@click.pass_obj
def policy_eval(obj: Context, source, env_id, spec_path, episodes, seed, ipfs_api):
    """Evaluate SOURCE for N episodes with deterministic actions (argmax, or the Gaussian mean) and
    print the mean and standard deviation of the return.

    SOURCE is what `decentrl task result ID -o DIR` wrote (DIR, or DIR/policy.safetensors), a
    checkpoint bundle file, or a checkpoint's CID. The environment is --env, else --spec's, else
    the spec that DIR/metadata.json names (fetched from the store and checked against the
    checkpoint's spec digest)."""
    from workers.cli.task import load_spec
    from workers.framing import Malformed
    from workers.rl.envs import EnvConfig, EnvError, env_space_spec
    from workers.rl.evaluate import evaluate
    from workers.rl.policy import from_bytes

    policy_bytes, meta, where = read_policy(obj, source, ipfs_api)
    spec = load_spec(spec_path) if spec_path else None
    if spec is None and env_id is None:
        spec = result_spec(obj, meta, where, ipfs_api)
    try:
        trained = from_bytes(policy_bytes)
    except Malformed as exc:
        raise click.ClickException(f"{where} is not a decentrl policy: {exc}") from None
    env_id = env_id or spec.env_id
    try:  # the spec's env: its kwargs and wrappers too (an Atari policy sees preprocessed, stacked frames)
        env = spec.env_config() if spec is not None and spec.env_id == env_id else EnvConfig(env_id)
        space = env_space_spec(env)
    except EnvError as exc:
        raise click.ClickException(f"cannot evaluate on {env_id}: {exc}") from None
    if trained.spec != space:
        raise click.ClickException(
            f"{where} was trained for other spaces than {env_id}'s (policy: {trained.spec.to_dict()}; "
            f"{env_id}: {space.to_dict()}): evaluate it on its task's env (--spec, or --env)")
    import torch

    torch.set_num_threads(1)
    result = evaluate(trained, env, episodes=episodes, seed=seed)
    click.echo(f"{env_id}: mean return {result.mean_return:.2f} +- {result.std_return:.2f} over {episodes} "
               f"episodes (seeds {seed}..{seed + episodes - 1}, {result.env_steps:,} env steps)")
    if spec is not None and spec.env_id == env_id:
        verdict = "reached" if result.mean_return >= spec.target_return else "not reached"
        click.echo(f"target {spec.target_return:g} (the spec's evaluation.target_return): {verdict}")


def read_policy(obj: Context, source: str, ipfs_api: str | None) -> tuple[bytes, dict | None, str]:
    """(policy safetensors bytes, the result's metadata or a bundle's meta (None for a bare policy
    file without metadata.json beside it), a name for messages) of SOURCE."""
    from workers.roles.trainer import MAGIC, CheckpointMismatch, unbundle_checkpoint

    path = Path(source)
    if path.is_dir():
        path = path / POLICY_FILE
        if not path.is_file():
            raise click.ClickException(f"{source} has no {POLICY_FILE}: give the folder `decentrl task result` "
                                       f"wrote, a policy file, a checkpoint bundle or a checkpoint's CID")
    if path.is_file():
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise click.ClickException(f"cannot read {path}: {exc.strerror}") from None
        where = str(path)
        meta_path = path.with_name(METADATA_FILE)
        meta = read_metadata(meta_path) if path.name == POLICY_FILE and meta_path.is_file() else None
    elif looks_like_cid(source):
        data, where, meta = fetch(obj, source, ipfs_api, "checkpoint"), f"checkpoint {source}", None
    else:
        raise click.ClickException(f"{source}: no such file or folder, and not a CID")
    if data[:len(MAGIC)] == MAGIC:
        try:
            bundle = unbundle_checkpoint(data)
        except CheckpointMismatch as exc:
            raise click.ClickException(f"{where} is not a valid checkpoint bundle: {exc}") from None
        return bundle.policy_bytes, bundle.meta, where
    return data, meta, where


def read_metadata(path: Path) -> dict:
    try:
        meta = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise click.ClickException(f"cannot read {path}: {exc}") from None
    if not isinstance(meta, dict):
        raise click.ClickException(f"{path} is not the metadata `decentrl task result` writes (a JSON object)")
    return meta


def result_spec(obj: Context, meta: dict | None, where: str, ipfs_api: str | None):
    """The task spec a result's metadata names (spec_cid), checked against its digest (spec)."""
    from workers.spec import SpecError, parse

    if not meta or not isinstance(meta.get("spec_cid"), str) or not isinstance(meta.get("spec"), str):
        raise click.ClickException(
            f"which environment? {where} does not name its task's spec: pass --env ID, or --spec FILE")
    data = fetch(obj, meta["spec_cid"], ipfs_api, "spec")
    try:
        return parse(data, digest=bytes.fromhex(meta["spec"]))
    except (SpecError, ValueError) as exc:
        raise click.ClickException(f"the spec {meta['spec_cid']} of {where}: {exc}") from None


def fetch(obj: Context, cid: str, ipfs_api: str | None, what: str) -> bytes:
    from workers.cli.task import open_node_store
    from workers.storage import CIDMismatch, ContentNotFound, StorageError

    store = open_node_store(obj.store_dir, ipfs_api)
    try:
        return store.get(cid)
    except ContentNotFound as exc:
        elsewhere = "" if ipfs_api else " (the embedded store holds only what went through --store-dir: --ipfs-api)"
        raise click.ClickException(f"cannot fetch {what} {cid}: {exc}{elsewhere}") from None
    except (StorageError, CIDMismatch) as exc:
        raise click.ClickException(f"cannot fetch {what} {cid}: {exc}") from None


def looks_like_cid(text: str) -> bool:
    from workers.cid import decode

    try:
        decode(text)
    except ValueError:
        return False
    return True

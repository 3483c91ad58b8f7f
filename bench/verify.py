"""Sampled verification measured: detection per fault, false rejections, validator compute.

    .venv/bin/python bench/verify.py [--trials 3] [--spec demo|fraud]

Runs at the role level (workers.roles: sample_shard, train_round, verify_sampler / verify_trainer
/ verify_round; no chain — the fraud matrix in tests/workers/fraud shows that a quorum of
rejections slashes on-chain). Each trial is one task seed (the spec's seed + trial): an honest
round 0, then round 1 — 2 samplers, a trainer — in which each fault is played by one node (a
sampler in slot 1, or the trainer) and judged by 3 validators, each with a fresh os.urandom
challenge seed. A fault is *detected* when at least q = ⌈2V/3⌉ validators reject it (the verdict
that slashes); *seen* when at least one does.

Faults are the fraud matrix's content faults (tests/workers/fraud: fraud_faults,
fraud_trainer_faults), whole-shard / whole-trace, which every challenge exposes and which must
always be detected, and their single-episode / single-step variants (the episode or step drawn at
random per trial), printed next to SPECIFICATION.md's odds ("Verification cost and detection"):
one validator sees a cheat touching b of n items with k challenged with p = 1 - C(n-b, k)/C(n, k);
the quorum rejects with P(Binomial(V, p) >= q).

False rejections: every validator's judgement of every honest submission (rounds 0 and 1 of
each seed). verify_cost_ratio: the validators' time in verify_round on the honest round 1 over
the work it verified — both samplers' sample_shard and the trainer's train_round (trace
recording and bundling included) — timed around the role functions with one CPU thread, summed
over trials and averaged over validators; content is fetched from memory, so storage latency is
in neither. Ends with exactly one line

    RESULT faults=<whole-fault trials> detected=<of them, rejected by quorum> false_rejections=<n> verify_cost_ratio=<x>
"""
from __future__ import annotations

import argparse
import dataclasses
import os
import random
import sys
import time
from math import ceil, comb
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
# the fraud matrix's dishonest drop-ins are the faults measured here (and its reduced spec)
sys.path.insert(0, str(ROOT / "tests" / "workers" / "fraud"))

import fraud_faults as sf  # noqa: E402
import fraud_trainer_faults as tf  # noqa: E402

from workers.roles import validator  # noqa: E402
from workers.roles.local_round import LocalRound, run_round  # noqa: E402
from workers.roles.trainer import round_start  # noqa: E402
from workers.spec import DEMO_CARTPOLE, TaskSpec  # noqa: E402
from workers.storage import cid as cids  # noqa: E402

TASK_ID = 7
V = 3
SLOTS = (0, 1)
CHEAT_SLOT = 1


def reduced_spec() -> TaskSpec:
    from fraud_world import SPEC  # the fraud matrix's spec; imported late (it pulls in the localnet)
    return SPEC


SPECS = {"demo": lambda: DEMO_CARTPOLE, "fraud": reduced_spec}
WHOLE_SAMPLER = {"fabricated rewards": sf.fabricated_rewards, "altered observations": sf.altered_observations,
                 "off-policy actions": sf.off_policy_actions, "stale policy": sf.stale_policy,
                 "root its blob does not reach": sf.root_of_nothing}
WHOLE_TRAINER = {"skipped step, every transition": tf.skipped_steps, "altered step, every step": tf.altered_steps,
                 "bundle off its committed root": tf.bundle_off_its_root,
                 "policy off its committed trace": tf.policy_off_its_trace}
ONE_SAMPLER = {"fabricated rewards, 1 episode": sf.fabricated_rewards_in,
               "altered observations, 1 episode": sf.altered_observations_in}
ONE_TRAINER = {"skipped step, 1 step": tf.skipped_step_at, "altered step, 1 step": tf.altered_step_at}


def odds(n: int, b: int, k: int, validators: int = V) -> tuple[float, float]:
    """(one validator sees it, the quorum rejects it) for a cheat in b of n items, k challenged."""
    p = 1 - comb(n - b, min(k, n)) / comb(n, min(k, n))
    q = ceil(2 * validators / 3)
    return p, sum(comb(validators, j) * p ** j * (1 - p) ** (validators - j) for j in range(q, validators + 1))


@dataclasses.dataclass
class Tally:
    trials: int = 0
    detected: int = 0
    seen: int = 0
    theory: list = dataclasses.field(default_factory=list)

    def add(self, rejections: int, theory: tuple[float, float] | None = None) -> None:
        self.trials += 1
        self.detected += rejections >= ceil(2 * V / 3)
        self.seen += rejections > 0
        if theory is not None:
            self.theory.append(theory)


class Trial:
    """One task seed: honest rounds 0 and 1, and the means to judge a dishonest round-1 submission."""

    def __init__(self, spec: TaskSpec, rng: random.Random):
        self.spec, self.rng, self.work_s = spec, rng, 0.0
        self.seeds = [os.urandom(32) for _ in range(V)]
        self.false_rejections, self.judgements, self.verify_s = 0, 0, 0.0
        r0 = self.honest_round(0, None)
        self.prev = r0.checkpoint.bundle
        self.prev_root = r0.checkpoint.root
        self.policy_bytes = r0.checkpoint.policy_bytes
        started = time.perf_counter()
        r1 = self.honest_round(1, self.prev)
        self.work_s = time.perf_counter() - started
        self.round1 = r1
        self.policy = round_start(spec, self.prev)[0]

    def honest_round(self, round_: int, prev) -> LocalRound:
        """The honest round, judged by each of the V validators (their rejections are false ones)."""
        done = run_round(self.spec, TASK_ID, round_, prev, SLOTS)
        for seed in self.seeds:
            started = time.perf_counter()
            verdict = validator.verify_round(self.spec, TASK_ID, round_, prev, done.revealed,
                                             (done.checkpoint.root, done.checkpoint.bundle), seed, done.fetch)
            if round_ == 1:
                self.verify_s += time.perf_counter() - started
            judgements = [*verdict.samplers.values(), verdict.trainer]
            self.judgements += len(judgements)
            self.false_rejections += sum(not j.accepted for j in judgements)
        return done

    def sampler_rejections(self, dishonest) -> tuple[int, int]:
        """(rejections by the V validators, episodes) of slot CHEAT_SLOT's dishonest shard."""
        bad = dishonest(self.spec, TASK_ID, 1, CHEAT_SLOT, self.policy_bytes)
        return sum(not validator.verify_sampler(self.spec, TASK_ID, 1, CHEAT_SLOT, bad.root, bad.blob, self.policy,
                                                seed)[0].accepted for seed in self.seeds), len(bad.episodes)

    def trainer_rejections(self, dishonest) -> int:
        bad = dishonest(self.spec, TASK_ID, 1, self.prev, self.round1.revealed)
        fetch = {cids.compute(b): b for b in bad.stored}.get
        revealed = {slot: (root, blob) for slot, root, blob in self.round1.revealed}
        return sum(not validator.verify_trainer(self.spec, TASK_ID, 1, self.prev, self.prev_root, bad.root,
                                                bad.bundle, revealed, set(SLOTS), fetch, seed).accepted
                   for seed in self.seeds)


def run(spec: TaskSpec, trials: int, rng: random.Random) -> dict:
    tallies = {name: Tally() for name in [*WHOLE_SAMPLER, *WHOLE_TRAINER, *ONE_SAMPLER, *ONE_TRAINER]}
    totals = {"false_rejections": 0, "judgements": 0, "verify_s": 0.0, "work_s": 0.0}
    for t in range(trials):
        trial = Trial(dataclasses.replace(spec, seed=spec.seed + t), rng)
        for key in ("false_rejections", "judgements", "verify_s", "work_s"):
            totals[key] += getattr(trial, key)
        for name, fault in WHOLE_SAMPLER.items():
            tallies[name].add(trial.sampler_rejections(fault)[0])
        for name, fault in WHOLE_TRAINER.items():
            tallies[name].add(trial.trainer_rejections(fault))
        for name, fault in ONE_SAMPLER.items():
            rejections, n = trial.sampler_rejections(fault(rng.randrange))
            tallies[name].add(rejections, odds(n, 1, spec.challenges_per_sampler))
        transitions = len(trial.round1.checkpoint.trace.states) - 1
        for name, fault in ONE_TRAINER.items():
            rejections = trial.trainer_rejections(fault(rng.randrange(trial.round1.checkpoint.trace.steps)))
            tallies[name].add(rejections, odds(transitions, 1, spec.challenges_per_trainer))
    return {"tallies": tallies, **totals}


def report(result: dict, spec_name: str, trials: int) -> str:
    tallies = result["tallies"]
    lines = [f"spec {spec_name}, {trials} trial(s), {V} validators, quorum {ceil(2 * V / 3)}",
             f"{'fault':<36} | detected (rate) | seen   | theory: one sees | any sees | quorum rejects"]
    for name, t in tallies.items():
        mean = lambda values: sum(values) / len(values)  # noqa: E731
        theory = " " * 16 + " | " + " " * 8 + " | " if not t.theory else \
            (f"{mean([p for p, _ in t.theory]):16.3f} | {mean([1 - (1 - p) ** V for p, _ in t.theory]):8.3f} | "
             f"{mean([s for _, s in t.theory]):.3f}")
        rate = f"{t.detected}/{t.trials} ({t.detected / t.trials:.2f})"
        lines.append(f"{name:<36} | {rate:<15} | {f'{t.seen}/{t.trials}':<6} | {theory}")
    whole = [tallies[n] for n in [*WHOLE_SAMPLER, *WHOLE_TRAINER]]
    faults, detected = sum(t.trials for t in whole), sum(t.detected for t in whole)
    ratio = result["verify_s"] / V / result["work_s"]
    lines.append(f"false rejections: {result['false_rejections']} of {result['judgements']} honest judgements "
                 f"({result['false_rejections'] / result['judgements']:.3f})")
    lines.append(f"validator verify time {result['verify_s'] / V / trials:.3f} s a round, work verified "
                 f"{result['work_s'] / trials:.3f} s a round")
    lines.append(f"RESULT faults={faults} detected={detected} false_rejections={result['false_rejections']} "
                 f"verify_cost_ratio={ratio:.4f}")
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=3, help="task seeds (trials per fault); default 3")
    parser.add_argument("--spec", choices=sorted(SPECS), default="demo",
                        help="demo: DEMO_CARTPOLE (the production-like setting); "
                             "fraud: the fraud matrix's reduced spec")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random episode/step picks")
    args = parser.parse_args(argv)
    if args.trials < 1:
        parser.error("--trials must be at least 1")
    import torch
    torch.set_num_threads(1)
    print(report(run(SPECS[args.spec](), args.trials, random.Random(args.seed)), args.spec, args.trials))


if __name__ == "__main__":
    main()

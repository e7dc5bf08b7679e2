"""How `auto` should choose when its race ends undecided: four rules on
simulated races (docs/statistics.md, "auto").

Each trial draws 15 strategies (the best at 1.0, the others 1.0-7x it),
runs auto's race on them (6 rounds, every round each strategy still racing
once in a shuffled order, those decidedly slower than the leader by the
same rounds' ratios leaving, haloex_lab.stats.compare_paired being the
C++ code's twin), and then lets each rule pick among those left. It prints,
per noise model, how often each rule's pick is more than 1.25x the best,
its 99th percentile and its worst.

    .venv/bin/python scripts/auto_rule_sim.py [SEED] [TRIALS]
"""

import math
import random
import statistics as st
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "python"))
from haloex_lab.stats import compare_paired

MODELS = {  # per-sample spread, share of preempted samples, slow rounds, rounds that switch state midway
    "quiet (3%)": (0.03, 0.0, 0.0, 0.0),
    "noisy (14%)": (0.14, 0.0, 0.0, 0.0),
    "preemptions (10% of samples x2-10)": (0.10, 0.1, 0.0, 0.0),
    "3x state jumps between rounds": (0.14, 0.0, 0.3, 0.0),
    "3x state jumps within rounds": (0.14, 0.02, 0.3, 0.3),
}


def race(rng, t, model):
    sigma, p_tail, p_state, p_switch = model
    samples, racing = [[] for _ in t], list(range(len(t)))
    for r in range(6):
        order = rng.sample(racing, len(racing))
        state = 3.0 if rng.random() < p_state else 1.0
        switch = rng.randrange(len(order)) if rng.random() < p_switch else len(order)
        for j, c in enumerate(order):
            s = state if j < switch else (1.0 if state > 1 else 3.0)
            x = t[c] * math.exp(rng.gauss(0, sigma)) * s
            samples[c].append(x * rng.uniform(2, 10) if rng.random() < p_tail else x)
        if r == 5:
            lead = min(racing, key=lambda c: st.median(samples[c]))
            behind = [c for c in racing if compare_paired(samples[c], samples[lead]).verdict == "slower"]
            racing = [c for c in racing if c not in behind]
    return samples, racing


def fair(s, racing):
    def behind(a):
        return any(compare_paired(s[a], s[b]).verdict == "slower" for b in racing if b != a)

    ok = [a for a in racing if not behind(a)]
    return ok or racing


def worst_of(s, pool, stat):
    return lambda a: max([getattr(compare_paired(s[a], s[b]), stat) for b in pool if b != a] or [0])


RULES = {
    "lowest median": lambda s, r: min(r, key=lambda c: st.median(s[c])),
    "worst round's ratio (upper end)": lambda s, r: min(fair(s, r), key=worst_of(s, fair(s, r), "high")),
    "worst median paired ratio": lambda s, r: min(fair(s, r), key=worst_of(s, fair(s, r), "ratio")),
    "lowest upper quartile": lambda s, r: min(fair(s, r), key=lambda c: sorted(s[c])[3 * len(s[c]) // 4]),
}


def main(seed: int, trials: int) -> None:
    rng = random.Random(seed)
    for name, model in MODELS.items():
        picked = {rule: [] for rule in RULES}
        for _ in range(trials):
            gaps = [0.02, 0.05, 0.1, 0.2, 0.4, 0.8, 1.5, 3.0]
            t = [1.0] + [1.0 + 2 * rng.choice(gaps) * rng.random() for _ in range(14)]
            samples, racing = race(rng, t, model)
            for rule, pick in RULES.items():
                picked[rule].append(t[pick(samples, racing)])
        print(f"{name}:")
        for rule, v in picked.items():
            v.sort()
            over = sum(x > 1.25 for x in v) / len(v)
            p99 = v[int(0.99 * len(v))]
            print(f"  {rule:32s} over 1.25x: {over:6.1%}  p99 {p99:5.2f}x  worst {v[-1]:5.2f}x")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1, int(sys.argv[2]) if len(sys.argv) > 2 else 600)

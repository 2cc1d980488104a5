"""Train a small network on a population and score it with the project's scorer.

A population of arm6 variants on the rail (``scenarios/population_rail.toml``: ±20 % lengths and
radii, density ±5 %, random accelerations) is written with ``armid.simulate_population``,
streamed with ``armid.population.Population`` (one worker, one epoch order), and a two-layer
network (NumPy; no deep-learning framework needed) learns every body's mass from the run's joint
torques and coordinates. Held-out arms (every fifth) are scored by ``armid.score`` — the rows
``validation estimate`` writes — beside the population's mean mass as the baseline.

    python python/examples/train_on_population.py [POPULATION_DIR] [ARMS]

(default: ``generated/populations/example_rail``, 400 arms; about 10 s on 2 cores.) The network
reads clean torques here; add ``[[noise]]`` to the scenario to train on measured ones.
"""

import pathlib
import statistics
import sys
import tempfile

import numpy as np

import armid
from armid.population import Population

ROOT = pathlib.Path(__file__).resolve().parents[2]
out = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / "generated/populations/example_rail")
arms = int(sys.argv[2]) if len(sys.argv) > 2 else 400

with tempfile.TemporaryDirectory() as tmp:
    scenario = pathlib.Path(tmp) / "population.toml"
    text = (ROOT / "scenarios/population_rail.toml").read_text()
    scenario.write_text(text.replace("arms = 1000", f"arms = {arms}"))
    written, kept = armid.simulate_population(scenario, out)
print(f"population {out}: {written} arms written, {kept} kept")


def features(arm):
    """Joint torques and coordinates at every fifth sample, sample-major, as one vector."""
    j = arm.joints.sort_by([("sample", "ascending"), ("joint", "ascending")])
    joints = len(set(j.column("joint").to_pylist()))
    pick = lambda c: j.column(c).to_numpy().reshape(-1, joints)[::5].ravel()  # noqa: E731
    return np.concatenate([pick("tau"), pick("q")])


def masses(arm):
    return arm.truth.sort_by("body").column("mass").to_numpy()


pop = Population(out)
train, test = [], []
for arm in pop.iterate(seed=0, epoch=0, columns=["sample", "joint", "q", "tau"]):
    (test if arm.index % 5 == 0 else train).append(arm)
x = np.stack([features(a) for a in train])
y = np.stack([masses(a) for a in train])
x_mean, x_std = x.mean(0), x.std(0) + 1e-12
y_mean, y_std = y.mean(0), y.std(0)
xs, ys = (x - x_mean) / x_std, (y - y_mean) / y_std

rng = np.random.default_rng(0)
sizes = [xs.shape[1], 64, ys.shape[1]]
weights = [rng.normal(0, 1 / np.sqrt(a), (a, b)) for a, b in zip(sizes, sizes[1:])]
biases = [np.zeros(b) for b in sizes[1:]]
params = weights + biases
moments = [(np.zeros_like(p), np.zeros_like(p)) for p in params]


def forward(inputs):
    hidden = np.tanh(inputs @ weights[0] + biases[0])
    return hidden, hidden @ weights[1] + biases[1]


DECAY = 1e-2  # L2 on the weights: a few hundred arms, a few hundred inputs
for step in range(1, 3001):  # full-batch Adam on the mean squared error
    hidden, pred = forward(xs)
    err = 2 * (pred - ys) / len(xs)
    dh = (err @ weights[1].T) * (1 - hidden**2)
    grads = [xs.T @ dh + DECAY * weights[0], hidden.T @ err + DECAY * weights[1], dh.sum(0), err.sum(0)]
    for k, (p, g) in enumerate(zip(params, grads)):
        m, v = moments[k]
        m[:] = 0.9 * m + 0.1 * g
        v[:] = 0.999 * v + 0.001 * g * g
        p -= 1e-3 * (m / (1 - 0.9**step)) / (np.sqrt(v / (1 - 0.999**step)) + 1e-8)
    if step % 1000 == 0:
        print(f"step {step}: training MSE (standardized) {np.mean((pred - ys) ** 2):.4f}")

errors = {"numpy_mlp": [], "population_mean": []}
for arm in test:
    _, pred = forward((features(arm) - x_mean) / x_std)
    guesses = {"numpy_mlp": pred * y_std + y_mean, "population_mean": y_mean}
    for method, m in guesses.items():
        answer = {f"B{b + 1}.m": float(v) for b, v in enumerate(m)}
        rows = armid.score(arm, answer, method=method).to_pylist()
        errors[method] += [abs(r["rel_error"]) for r in rows]
for method, e in errors.items():
    print(f"{method:>16}: median |relative error| of the masses on {len(test)} held-out arms "
          f"{100 * statistics.median(e):.2f} %")

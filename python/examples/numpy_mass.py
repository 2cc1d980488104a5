"""A NumPy least-squares estimator of every body's mass, as a study's own estimator.

Newton's law for body ``b`` of a serial arm, world frame, with the dataset's wrench columns
(``f_*``: the force its parent exerts on it through its inner joint; its child ``b + 1`` pulls
back with ``-f_{b+1}``):

    m_b (acc_b - g) = f_b - f_{b+1}

is, along each world axis ``e_k``, a one-parameter least squares ``m = <x, y> / <x, x>`` with
``x = (acc_b - g)_k`` and ``y = (f_b - f_{b+1})_k`` over the run: the project's ``B<b>.m_e<k>``
(MIM's per-axis mass). An axis the motion and gravity leave unexcited (``x`` ≈ 0) is not
answered. The standard deviation is the least-squares one from the residuals.

Two ways into a sweep (the same function, the same numbers):

* a Python callable: ``armid.sweep("study.toml", estimators={"numpy_mass": estimate})``;
* the subprocess protocol (any language): in the study file

      [[external]]
      name = "numpy_mass"
      command = ["python3", "numpy_mass.py"]

  — the command is started as ``python3 numpy_mass.py MEASUREMENT_DIR ANSWER_CSV`` and needs only
  NumPy and pyarrow (the ``__main__`` block below).
"""

import csv
import json
import os
import sys

import numpy as np


def estimate(measurement):
    """``{"B<b>.m_e<k>": (mass, std)}`` from an ``armid.Measurement`` (or anything with
    ``bodies`` as a pyarrow table and ``description`` as a dict)."""
    bodies = measurement.bodies
    gravity = np.asarray(measurement.description["gravity"])
    n = int(max(bodies.column("body").to_pylist()))
    samples = measurement.description["samples"]
    order = np.lexsort((bodies.column("body").to_numpy(), bodies.column("sample").to_numpy()))

    def group(prefix):
        cols = [bodies.column(f"{prefix}_{a}").to_numpy()[order] for a in "xyz"]
        return np.stack(cols, axis=-1).reshape(samples, n, 3)

    force, acc = group("f"), group("acc")
    answer = {}
    for b in range(n):
        child = force[:, b + 1] if b + 1 < n else 0.0
        y = force[:, b] - child
        x = acc[:, b] - gravity
        for k in range(3):
            xx = float(x[:, k] @ x[:, k])
            if xx < 1e-9 * samples:
                continue
            m = float(x[:, k] @ y[:, k]) / xx
            r = y[:, k] - m * x[:, k]
            std = float(np.sqrt((r @ r) / max(samples - 1, 1) / xx))
            answer[f"B{b + 1}.m_e{k + 1}"] = (m, std)
    return answer


class _Directory:
    """A measurement directory read with pyarrow alone."""

    def __init__(self, path):
        import pyarrow.parquet as pq

        self.bodies = pq.read_table(os.path.join(path, "bodies.parquet"))
        with open(os.path.join(path, "measurement.json"), encoding="utf-8") as f:
            self.description = json.load(f)


if __name__ == "__main__":
    directory, answer_csv = sys.argv[1], sys.argv[2]
    with open(answer_csv, "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["parameter", "estimate", "std"])
        for name, (value, std) in estimate(_Directory(directory)).items():
            out.writerow([name, repr(value), repr(std)])

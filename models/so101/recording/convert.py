"""SAGE's SO-101 logs (`control.csv`, `state_motor.csv`) as the wide tables `armid import` reads.

Run once to make the committed `<motion>.parquet` files (pyarrow):

    python3 convert.py SAGE_LOGS_DIR MOTION [MOTION ...]

SAGE (github.com/isaac-sim2real/sage, `output/real/so101/custom/<motion>/`, Apache-2.0) logs each
loop iteration as a row of `control.csv` (`type, timestamp, positions`: the six commanded
positions) and the row of `state_motor.csv` with the same stamp (`positions, velocities,
torques`: what the servos reported). Written per motion: `t` (s, the stamp in µs over 1e6, from
the motion's first row), `q_<joint>` (the reported positions, rad; the gripper's in 0..1 of its
range) and `qcmd_<joint>` (the commanded ones), joints named as Menagerie's SO-101 names them.
The velocities (quantized to 0.077 rad/s) and the currents (an unsigned magnitude) are left out:
the import forms rates from the positions, and a current without its sign is no torque.
"""

import csv
import gzip
import json
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

JOINTS = ["shoulder_pan", "shoulder_lift", "elbow_flex", "wrist_flex", "wrist_roll", "gripper"]
LOG_ORDER = ["Rotation", "Pitch", "Elbow", "Wrist_Pitch", "Wrist_Roll", "Jaw"]


def rows(path):
    with gzip.open(path, "rt") as f:
        for row in csv.DictReader(f):
            yield float(row["timestamp"]), json.loads(row["positions"])


def convert(logs, motion, out):
    folder = logs / motion
    order = (folder / "joint_list.txt").read_text().split()
    if order != LOG_ORDER:
        raise SystemExit(f"{folder}/joint_list.txt: expected {LOG_ORDER}, got {order}")
    control = list(rows(folder / "control.csv.gz"))
    state = list(rows(folder / "state_motor.csv.gz"))
    if [s for s, _ in control] != [s for s, _ in state]:
        raise SystemExit(f"{folder}: control and state stamps differ")
    t0 = control[0][0]
    columns = {"t": [(s - t0) * 1e-6 for s, _ in control]}
    for k, name in enumerate(JOINTS):
        columns[f"q_{name}"] = [p[k] for _, p in state]
        columns[f"qcmd_{name}"] = [p[k] for _, p in control]
    pq.write_table(pa.table(columns), out / f"{motion}.parquet", compression="zstd")


if __name__ == "__main__":
    logs = Path(sys.argv[1])
    for motion in sys.argv[2:]:
        convert(logs, motion, Path(__file__).parent)

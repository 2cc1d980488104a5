"""Three of the SO-101 motions (`../recording/`) as a LeRobot v3.0 dataset, as LeRobot's recorder
writes one: what `armid identify` and `armid import` read from a LeRobot servo arm.

Run once to make the committed `dataset/` (pyarrow, written independently of the project's
reader):

    python3 make_dataset.py

Each motion's first 20 s is an episode (`episode_index` 0, 1, 2 in the order of `MOTIONS`), one
row per logged sample: `observation.state` (the positions the servos reported) and `action` (the
commanded ones), six float32 each, named as LeRobot's SO-101 names its motors
(`shoulder_pan.pos`, …, `gripper.pos`), in LeRobot's units with `use_degrees = true`: the arm's
joints in LeRobot degrees, `(ticks − mid) · 360/4095`, which is `rad · 180/π · 4096/4095` of the
logs' radians (`(ticks − mid) · 2π/4096`), and the gripper in 0..100 of its range (the logs'
0..1 times 100). `timestamp` is the log's time from the episode's first sample (float32, as
LeRobot stores it; the logs' samples are about 20 ms apart, not exactly, so `fps` 50 is nominal).
`meta/episodes` and `meta/tasks` follow v3.0's layout; no videos, no statistics.
"""

import json
import math
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

MOTIONS = ["single_joint_elbow", "wave_motion", "square_pattern"]
SECONDS = 20.0
JOINTS = ["shoulder_pan", "shoulder_lift", "elbow_flex", "wrist_flex", "wrist_roll", "gripper"]
DEGREES = 180.0 / math.pi * 4096.0 / 4095.0


def lerobot_units(name, values):
    return [v * 100.0 if name == "gripper" else v * DEGREES for v in values]


def main():
    here = Path(__file__).parent
    out = here / "dataset"
    columns = {k: [] for k in ["action", "observation.state", "timestamp", "frame_index",
                               "episode_index", "index", "task_index"]}
    episodes = []
    for e, motion in enumerate(MOTIONS):
        log = pq.read_table(here.parent / "recording" / f"{motion}.parquet").to_pydict()
        rows = [k for k, t in enumerate(log["t"]) if t - log["t"][0] < SECONDS]
        state = [lerobot_units(j, [log[f"q_{j}"][k] for k in rows]) for j in JOINTS]
        action = [lerobot_units(j, [log[f"qcmd_{j}"][k] for k in rows]) for j in JOINTS]
        start = len(columns["index"])
        for i, k in enumerate(rows):
            columns["observation.state"].append([s[i] for s in state])
            columns["action"].append([a[i] for a in action])
            columns["timestamp"].append(log["t"][k] - log["t"][rows[0]])
            columns["frame_index"].append(i)
            columns["episode_index"].append(e)
            columns["index"].append(start + i)
            columns["task_index"].append(e)
        episodes.append({"episode_index": e, "tasks": [motion], "length": len(rows),
                         "data/chunk_index": 0, "data/file_index": 0,
                         "dataset_from_index": start, "dataset_to_index": start + len(rows)})
    vector = pa.list_(pa.float32(), 6)
    schema = pa.schema([("action", vector), ("observation.state", vector),
                        ("timestamp", pa.float32()), ("frame_index", pa.int64()),
                        ("episode_index", pa.int64()), ("index", pa.int64()),
                        ("task_index", pa.int64())])
    (out / "data" / "chunk-000").mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.table(columns, schema=schema), out / "data" / "chunk-000" / "file-000.parquet")
    (out / "meta" / "episodes" / "chunk-000").mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(episodes),
                   out / "meta" / "episodes" / "chunk-000" / "file-000.parquet")
    pq.write_table(pa.table({"task_index": list(range(len(MOTIONS))), "task": MOTIONS}),
                   out / "meta" / "tasks.parquet")
    names = [f"{j}.pos" for j in JOINTS]
    scalar = lambda dtype: {"dtype": dtype, "shape": [1], "names": None}
    info = {
        "codebase_version": "v3.0", "robot_type": "so101_follower",
        "total_episodes": len(MOTIONS), "total_frames": len(columns["index"]),
        "total_tasks": len(MOTIONS), "chunks_size": 1000, "data_files_size_in_mb": 100,
        "video_files_size_in_mb": 500, "fps": 50, "splits": {"train": f"0:{len(MOTIONS)}"},
        "data_path": "data/chunk-{chunk_index:03d}/file-{file_index:03d}.parquet",
        "video_path": None,
        "features": {
            "action": {"dtype": "float32", "shape": [6], "names": names},
            "observation.state": {"dtype": "float32", "shape": [6], "names": names},
            "timestamp": scalar("float32"), "frame_index": scalar("int64"),
            "episode_index": scalar("int64"), "index": scalar("int64"),
            "task_index": scalar("int64"),
        },
    }
    (out / "meta" / "info.json").write_text(json.dumps(info, indent=4) + "\n")


if __name__ == "__main__":
    main()

"""Simulate the MIM paper's rail run, look at it with pyarrow, write it, identify it with MIM (stacked:
the run states no sensor noise, which MIM-GLS needs).

    python python/examples/simulate_and_estimate.py   (from the workspace root)
"""

import armid

run = armid.simulate("scenarios/paper_rail.toml")
print(run, run.joints.column_names)
run.write("generated/runs/paper_rail_py", force=True)
table = armid.estimate(run, only=["mim_stacked"])
for row in table.to_pylist():
    if row["parameter"].startswith("B2.j"):
        print(f"{row['parameter']}: {row['estimate']:.6g} (truth {row['truth']:.6g})")

"""Simulate the MIM paper's rail run, look at it with pyarrow, write it, identify it with MIM-GLS.

    python python/examples/simulate_and_estimate.py   (from the workspace root)
"""

import armid

run = armid.simulate("scenarios/paper_rail.toml")
print(run, run.joints.column_names)
run.write("generated/runs/paper_rail_py", force=True)
table = armid.estimate(run, only=["mim_gls"])
for row in table.filter(table["parameter"].isin(["B2.j11", "B2.j22", "B2.j33"])).to_pylist():
    print(f"{row['parameter']}: {row['estimate']:.6g} (truth {row['truth']:.6g})")

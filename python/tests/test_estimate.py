"""armid.estimate: the registry's estimators, the numbers `validation estimate` writes."""

import csv
import math
import subprocess

import pytest

import armid
from conftest import ROOT, binary

PAPER_RAIL = ROOT / "scenarios" / "paper_rail.toml"
COLUMNS = "run,method,parameter,truth,estimate,std,abs_error,rel_error,identifiable".split(",")


def cli_rows(run_dir, out, only):
    subprocess.run(
        [binary("validation"), "estimate", str(run_dir), "--only", only, "--out", str(out)],
        check=True,
    )
    with open(out, newline="") as f:
        return list(csv.DictReader(f))


def number(text):
    return None if text == "" else float(text)


# The rail run read by a force/torque sensor at every joint (MIM-GLS needs a stated noise).
SENSED = """
[[sensor]]
type = "force_torque"
force = { sigma = 1.0 }
torque = { sigma = 0.1 }
"""


def test_mim_gls_on_a_simulated_run_gives_the_command_lines_numbers(workdir):
    scenario = workdir / "paper_rail_ft.toml"
    scenario.write_text(PAPER_RAIL.read_text() + SENSED)
    run = armid.simulate(scenario)
    table = armid.estimate(run, only=["mim_gls", "mim_stacked"])
    assert table.schema.names == COLUMNS
    assert set(table.column("method").to_pylist()) == {"mim_gls", "mim_stacked"}
    run.write(workdir / "run")
    rows = cli_rows(workdir / "run", workdir / "est.csv", "mim_gls,mim_stacked")
    mine = table.to_pylist()
    assert len(mine) == len(rows) > 0
    for a, b in zip(mine, rows):
        for c in ["run", "method", "parameter"]:
            assert a[c] == b[c]
        assert a["identifiable"] == (b["identifiable"] == "true")
        for c in ["truth", "estimate", "std", "abs_error", "rel_error"]:
            x, y = a[c], number(b[c])
            assert (x is None) == (y is None), (a, b, c)
            if x is not None:
                assert math.isclose(x, y, rel_tol=1e-12, abs_tol=1e-300), (a["parameter"], c, x, y)
    # A run directory gives the same table.
    assert armid.estimate(workdir / "run", only=["mim_gls", "mim_stacked"]).equals(table)


def test_unknown_estimators_are_refused_by_name():
    run = armid.simulate(PAPER_RAIL)
    with pytest.raises(armid.ArmidError, match="no estimator `nope`"):
        armid.estimate(run, only=["nope"])
    assert "mim_gls" in armid.estimators()

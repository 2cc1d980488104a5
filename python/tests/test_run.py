"""armid.simulate and Run: the same tables and files as the command line's."""

import subprocess

import pyarrow.parquet as pq
import pytest

import armid
from conftest import ROOT, binary

PAPER_RAIL = ROOT / "scenarios" / "paper_rail.toml"


def test_simulated_tables_equal_sim_runs_parquet_files(workdir):
    run = armid.simulate(PAPER_RAIL)
    out = workdir / "cli"
    subprocess.run([binary("sim"), "run", str(PAPER_RAIL), "--out", str(out)], check=True)
    for name in ["joints", "bodies", "truth"]:
        mine = getattr(run, name)
        theirs = pq.read_table(out / f"{name}.parquet")
        assert mine.schema.names == theirs.schema.names, name
        assert mine.num_rows == theirs.num_rows > 0, name
        # Bit for bit: the same simulation, the same columns.
        assert mine.equals(theirs.cast(mine.schema)), name
    assert run.id == "paper_rail"
    assert run.manifest["run_id"] == "paper_rail"


def test_a_written_run_is_the_command_lines_bytes(workdir):
    run = armid.simulate(PAPER_RAIL)
    run.write(workdir / "py")
    subprocess.run(
        [binary("sim"), "run", str(PAPER_RAIL), "--out", str(workdir / "cli")], check=True
    )
    for name in ["joints.parquet", "bodies.parquet", "truth.parquet", "SHA256SUMS"]:
        assert (workdir / "py" / name).read_bytes() == (workdir / "cli" / name).read_bytes(), name
    with pytest.raises(armid.ArmidError, match="exists"):
        run.write(workdir / "py")
    run.write(workdir / "py", force=True)


def test_a_bad_scenario_names_its_file_and_field(workdir):
    text = PAPER_RAIL.read_text().replace("end = 2.0", "end = -1.0", 1)
    bad = workdir / "bad.toml"
    bad.write_text(text)
    with pytest.raises(armid.ArmidError) as e:
        armid.simulate(bad)
    message = str(e.value)
    assert "bad.toml" in message and "time.end" in message, message
    assert isinstance(e.value, ValueError)

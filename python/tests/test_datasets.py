"""Scenarios checked, populations written and read back, run directories verified, recordings
imported and your estimates scored — the command line's other verbs from Python."""

import math

import pyarrow.compute as pc
import pytest

import armid
from armid.population import Population
from conftest import ROOT

SCENARIOS = ROOT / "scenarios"


def test_a_scenario_is_checked_without_simulating_and_a_bad_field_is_named(workdir):
    rail = armid.check_scenario(SCENARIOS / "paper_rail.toml")
    assert (rail["name"], rail["samples"], rail["arms"]) == ("paper_rail", 101, None)
    assert armid.check_scenario(SCENARIOS / "population_rail.toml")["arms"] == 1000
    bad = workdir / "bad.toml"
    bad.write_text((SCENARIOS / "paper_rail.toml").read_text().replace("end = 2.0", "end = -1.0"))
    with pytest.raises(armid.ArmidError, match=r"bad\.toml.*time\.end"):
        armid.check_scenario(bad)


def test_a_population_is_written_resumed_and_read_back(workdir):
    scenario = workdir / "six.toml"
    text = (SCENARIOS / "population_rail.toml").read_text().replace("arms = 1000", "arms = 6")
    text = text.replace('"../', f'"{SCENARIOS.parent}/')
    scenario.write_text(text)
    out = workdir / "pop"
    assert armid.simulate_population(scenario, out) == (6, 0)
    assert armid.simulate_population(scenario, out) == (0, 6)
    pop = Population(out)
    assert pop.complete() == list(range(6))
    arm = pop.read(3)
    assert arm.truth.num_rows == 6 and arm.joints.num_rows > 0


def test_a_run_directory_is_read_back_checked(workdir):
    run = armid.simulate(SCENARIOS / "paper_rail.toml")
    run.write(workdir / "run")
    stored = armid.read_run(workdir / "run")
    assert stored.kind == "simulated" and stored.id == "paper_rail"
    assert stored.joints.equals(run.joints) and stored.truth.equals(run.truth)
    with open(workdir / "run" / "truth.parquet", "ab") as f:
        f.write(b"\0")
    with pytest.raises(armid.ArmidError, match="truth.parquet"):
        armid.read_run(workdir / "run")


def test_a_recording_imports_and_your_estimates_are_scored_by_the_projects_scorer(workdir):
    run = armid.simulate(SCENARIOS / "ur10_fourier.toml")
    joints = run.joints
    names = [
        "shoulder_pan_joint", "shoulder_lift_joint", "elbow_joint",
        "wrist_1_joint", "wrist_2_joint", "wrist_3_joint",
    ]
    ids = sorted(set(joints.column("joint").to_pylist()))
    columns = {"t": None}
    for k, name in zip(ids, names):
        one = joints.filter(pc.equal(joints.column("joint"), k))
        columns["t"] = one.column("t").to_pylist()
        for c in ["q", "qd", "qdd", "tau"]:
            columns[f"{c}_{name}"] = one.column(c).to_pylist()
    csv = workdir / "log.csv"
    keys = list(columns)
    with open(csv, "w") as f:
        f.write(",".join(keys) + "\n")
        for i in range(len(columns["t"])):
            f.write(",".join(repr(columns[k][i]) for k in keys) + "\n")
    urdf = ROOT / "models" / "example-robot-data" / "ur10_robot.urdf"
    manifest = armid.import_recording(csv, urdf, workdir / "rec", lowpass="none")
    assert manifest["kind"] == "recorded"
    stored = armid.read_run(workdir / "rec")
    assert stored.kind == "recorded" and stored.truth is None
    # Every estimator that applies to a recording alone (the MIM family skips: no wrenches).
    methods = set(armid.estimate(workdir / "rec").column("method").to_pylist())
    assert "idim_single" in methods and "mim_encoders" not in methods
    # Scoring: the run's truth beside your numbers, as `validation estimate` scores its own.
    truth = {r["parameter"]: r["truth"] for r in armid.estimate(run, only=["idim_single"]).to_pylist()}
    table = armid.score(run, {"base.1": truth["base.1"] * 1.1, "base.2": (truth["base.2"], 0.5)})
    rows = {r["parameter"]: r for r in table.to_pylist()}
    assert rows["base.1"]["method"] == "mine"
    assert math.isclose(rows["base.1"]["rel_error"], 0.1, rel_tol=1e-9)
    assert rows["base.2"]["abs_error"] == 0.0 and rows["base.2"]["std"] == 0.5
    with pytest.raises(armid.ArmidError, match="B1.x"):
        armid.score(run, {"B1.x": 1.0})


def test_a_ros2_bag_imports_from_either_storage_with_one_topic_or_several(workdir):
    """The Panda bag of the Rust tests (`validation/tests/fixtures/ros2/`, written by `rosbags`):
    the sqlite3 and MCAP directories import to the same manifest rows, a topic is named as a
    string or a list, and a bag without joint states is refused with its topics listed."""
    bags = ROOT / "validation" / "tests" / "fixtures" / "ros2"
    urdf = ROOT / "models" / "example-robot-data" / "panda.urdf"
    config = workdir / "panda.toml"
    config.write_text("[lock]\npanda_finger_joint1 = 0.02\n")
    both = [
        armid.import_recording(bags / name, urdf, workdir / name, config=config, lowpass="none")
        for name in ["panda_db3", "panda_mcap"]
    ]
    assert [m["rows"] for m in both] == [240, 240]
    assert both[0]["topics"] == ["/franka/joint_states", "/franka_gripper/joint_states"]
    arm = armid.import_recording(
        bags / "panda_humble.db3", urdf, workdir / "arm", config=config, lowpass="none",
        topic="/franka/joint_states",
    )
    assert (arm["rows"], arm["topics"]) == (250, ["/franka/joint_states"])
    listed = armid.import_recording(
        bags / "panda_db3", urdf, workdir / "listed", config=config, lowpass="none",
        topic=["/franka/joint_states", "/franka_gripper/joint_states"],
    )
    assert listed["rows"] == 240
    with pytest.raises(armid.ArmidError, match=r"/ft_sensor/wrench` \(geometry_msgs/msg/WrenchStamped"):
        armid.import_recording(bags / "no_joint_states.db3", urdf, workdir / "none", config=config)


def test_the_training_example_runs_and_scores_held_out_arms(workdir):
    import subprocess
    import sys

    example = ROOT / "python" / "examples" / "train_on_population.py"
    done = subprocess.run(
        [sys.executable, str(example), str(workdir / "pop"), "60"],
        capture_output=True, text=True, check=True,
    )
    lines = [line for line in done.stdout.splitlines() if "held-out arms" in line]
    assert [line.split(":")[0].strip() for line in lines] == ["numpy_mlp", "population_mean"]
    assert "on 12 held-out arms" in lines[0]


def test_a_report_page_is_written_from_python(workdir):
    run = armid.simulate(SCENARIOS / "paper_rail.toml")
    run.write(workdir / "run")
    page = workdir / "run.html"
    armid.report(workdir / "run", page, only=["mim_stacked"])
    text = page.read_text()
    assert text.startswith("<!DOCTYPE html>") and '"method":"mim_stacked"' in text
    with pytest.raises(armid.ArmidError, match="nope"):
        armid.report(workdir / "run", page, only=["nope"])
    with pytest.raises(armid.ArmidError, match="manifest.json"):
        armid.report(workdir, page)

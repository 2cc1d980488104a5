"""`armid rollout` (Rapier) and MuJoCo roll the same model out on the same log and agree.

Each case simulates a MuJoCo Menagerie arm (`models/menagerie/`) on a random Fourier motion
carrying a payload the model does not state (so the model drifts from the log), rolls the model out
on that log with `armid rollout` (in one case the model has a coupled wrist drive besides: a
fixed tendon with rotor inertia and damping over its last two joints, which Rapier simulates as
`sim::simulation` applies coupled drives and MuJoCo as a tendon), and replays the same windows in MuJoCo (PyPI `mujoco`): from
the window's first recorded `(q, q̇)`, each sample's logged torque held as `qfrc_applied` over
the steps `armid rollout` took (it states each window's step: whole divisions of the sample
interval, at most 1 ms and short enough for the model's stiffest damping).

MuJoCo is set to what the rollout simulates: actuators off (the log's torque drives the joints),
constraints off (Rapier's rollout has no joint limits or contacts; the arms state no friction
loss), the model's armature and damping as stated.

**Tolerances, stated once.** Against MuJoCo's semi-implicit Euler with explicit damping (the
scheme Rapier's multibody step uses, at the same step): the mean horizon error (the figure a
model is judged by) within 1 % and each joint's mean horizon error within 5 % (single windows
whose drift reaches a radian part further: the two integrations of one chaotic motion). Against
MuJoCo's RK4 (fourth order: the converged trajectory, to well below these figures) the mean
horizon error within 2 %: Rapier's integration error is a small part of what the figure
measures. Measured when this test was written: 0.0002–0.2 % and 0.002–2.6 % against Euler,
0.45–0.74 % against RK4.

**Servo arms** (the last test): Menagerie's SO-ARM100 with its own `<position>` actuators, rolled
out by `armid rollout` through its servos under a log's commands (`q_cmd`, held sample to
sample), and by MuJoCo with `ctrl` set to the same commands; the same tolerances. Measured when
written: 8e-7 of the mean and 6.5e-6 per joint against Euler, 0.43–0.51 % against RK4.
"""

import json
import subprocess

import mujoco
import numpy as np
import pyarrow.parquet as pq
import pytest

from conftest import ROOT, binary
from mujoco_windows import replay_windows

MENAGERIE = ROOT / "models" / "menagerie"
ARMS = {
    "panda": MENAGERIE / "franka_emika_panda" / "panda_nohand.nomesh.xml",
    "iiwa14": MENAGERIE / "kuka_iiwa_14" / "iiwa14.nomesh.xml",
    "ur5e": MENAGERIE / "universal_robots_ur5e" / "ur5e.nomesh.xml",
    "gen3": MENAGERIE / "kinova_gen3" / "gen3.nomesh.xml",
}
PAYLOAD = 0.1  # kg on the last link in the log, 5 cm from its origin; not in the model
PERIOD = 0.005  # s: the log's sample interval (200 Hz)


def fourier_scenario(path, model, joints, seed):
    """A scenario moving every joint of `model` on a random 5-harmonic Fourier motion (0.2 Hz,
    coefficients within ±0.3 rad, about the middle of the joint's range), its last link carrying
    [`PAYLOAD`]."""
    rng = np.random.default_rng(seed)
    mj = mujoco.MjModel.from_xml_path(str(model))
    data = mujoco.MjData(mj)
    data.qpos[:] = 0.0
    mujoco.mj_kinematics(mj, data)
    centroid = ", ".join(repr(float(x)) for x in data.xpos[-1] + [0.0, 0.0, 0.05])
    lines = [
        f'name = "rollout_{seed}"',
        'description = "rollout agreement case"',
        f'model = "{model}"',
        "seed = 0",
        f"payload = {{ mass = {PAYLOAD}, centroid = [{centroid}] }}",
        "",
        "[time]",
        "end = 4.0",
        f"step = {PERIOD}",
        f"sample_period = {PERIOD}",
    ]
    for j in range(joints):
        lo, hi = mj.jnt_range[j] if mj.jnt_limited[j] else (-1.0, 1.0)
        a = ", ".join(repr(float(x)) for x in rng.uniform(-0.3, 0.3, 5))
        b = ", ".join(repr(float(x)) for x in rng.uniform(-0.3, 0.3, 5))
        lines += [
            "",
            "[[joint]]",
            f"id = {j + 1}",
            f'motion = {{ type = "fourier", base_frequency = 0.2, offset = {float(lo + hi) / 2!r}, '
            f"a = [{a}], b = [{b}] }}",
        ]
    path.write_text("\n".join(lines) + "\n")


def log_of(run):
    """`(t, q, q̇, τ)` of a run's joints.parquet, samples × joints."""
    table = pq.read_table(run / "joints.parquet").to_pydict()
    nj = max(table["joint"])
    col = lambda c: np.array(table[c]).reshape(-1, nj)  # noqa: E731
    return col("t")[:, 0], col("q"), col("qd"), col("tau")


def mujoco_horizon_errors(model_path, log, fidelity, integrator):
    """Per window (the rollout's), per joint `|q_MuJoCo − q_log|` at the horizon."""
    t, q, qd, tau = log
    model = mujoco.MjModel.from_xml_path(str(model_path))
    model.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_ACTUATION
    spec = mujoco.mjtState.mjSTATE_QFRC_APPLIED
    return windows_horizon_errors(model, (t, q, qd), fidelity, integrator, (tau, spec))


def windows_horizon_errors(model, log, fidelity, integrator, inputs):
    """Per window of `fidelity` (the rollout's), per joint `|q_MuJoCo − q_log|` at the horizon:
    MuJoCo from the window's first recorded `(q, q̇)`, `inputs = (values, spec)` (samples × inputs,
    the `mjtState` component they set) giving each sample's input, held over the steps the rollout
    took, constraints off and damping explicit (as Rapier's)."""
    values, spec = inputs
    model.opt.integrator = integrator
    flags = mujoco.mjtDisableBit
    model.opt.disableflags |= flags.mjDSBL_CONSTRAINT | flags.mjDSBL_EULERDAMP

    def held(s, length, steps, h):
        return np.repeat(values[s : s + length], steps, axis=0), spec

    return replay_windows(model, log, fidelity, held)


def with_coupled_wrist(model, path):
    """`model` with a coupled wrist drive: a fixed tendon over its last two joints (the drive of
    the last joint turns at `q̇_{n−1} + q̇_n`) with a rotor inertia and a viscous coefficient,
    as `armid identify` writes a coupled drive (`drive_<joint>`), written to `path`."""
    mj = mujoco.MjModel.from_xml_path(str(model))
    last, before = mj.joint(mj.njnt - 1).name, mj.joint(mj.njnt - 2).name
    tendon = (
        f'<tendon><fixed name="drive_{last}" armature="0.05" damping="0.5">'
        f'<joint joint="{last}" coef="1"/><joint joint="{before}" coef="1"/></fixed></tendon>'
    )
    text = model.read_text().replace("</mujoco>", tendon + "\n</mujoco>")
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    "arm,seed,coupled",
    [("panda", 1, False), ("iiwa14", 2, False), ("ur5e", 3, False), ("gen3", 4, False),
     ("iiwa14", 5, True)],
)
def test_rapier_and_mujoco_rollouts_of_one_model_agree(workdir, arm, seed, coupled):
    model = ARMS[arm]
    joints = mujoco.MjModel.from_xml_path(str(model)).nv
    scenario = workdir / "scenario.toml"
    fourier_scenario(scenario, model, joints, seed)
    run = workdir / "run"
    subprocess.run([binary("armid"), "run", str(scenario), "--out", str(run)], check=True)
    if coupled:
        # The log is the arm's; the model rolled out has a coupled wrist drive besides.
        model = with_coupled_wrist(model, workdir / "coupled.xml")
    out = workdir / "rollout.json"
    subprocess.run(
        [binary("armid"), "rollout", str(run), "--model", str(model), "--out", str(out)],
        check=True,
    )
    rolled = json.loads(out.read_text())
    assert rolled["coupled"] == ([joints - 1, joints] if coupled else [])
    fidelity = rolled["fidelity"]
    assert fidelity["blown_up"] == 0 and len(fidelity["per_window"]) == 25
    # The payload makes the model drift: the figure measures something.
    assert fidelity["mean_horizon"] > 1e-3, fidelity["mean_horizon"]

    log = log_of(run)
    euler = mujoco_horizon_errors(model, log, fidelity, mujoco.mjtIntegrator.mjINT_EULER)
    rk4 = mujoco_horizon_errors(model, log, fidelity, mujoco.mjtIntegrator.mjINT_RK4)
    mean = fidelity["mean_horizon"]
    assert abs(euler.mean() - mean) <= 0.01 * mean, (arm, euler.mean(), mean)
    per_joint = np.array(fidelity["horizon"])
    assert np.all(np.abs(euler.mean(axis=0) - per_joint) <= 0.05 * per_joint), (arm, per_joint)
    assert abs(rk4.mean() - mean) <= 0.02 * mean, (arm, rk4.mean(), mean)


SERVO_ARM = MENAGERIE / "trs_so_arm100" / "so_arm100.nomesh.xml"
COMMAND_PERIOD = 0.02  # s: a 50 Hz command stream, as a LeRobot policy sends


def servo_log(workdir, model, seed):
    """`armid run` of Menagerie's SO-ARM100 (`model`) with every joint on a position servo softer
    than the model's own (kp 40, kd 3, limit 30: the log is not the model's) following a random
    Fourier reference commanded at 50 Hz (a `held` reference), its last link carrying
    [`PAYLOAD`]: the run directory (with `q_cmd`)."""
    rng = np.random.default_rng(seed)
    mj = mujoco.MjModel.from_xml_path(str(model))
    data = mujoco.MjData(mj)
    mujoco.mj_kinematics(mj, data)
    centroid = ", ".join(repr(float(x)) for x in data.xpos[-1] + [0.0, 0.0, 0.05])
    end = 4.0
    times = np.arange(0.0, end + COMMAND_PERIOD, COMMAND_PERIOD)
    lines = [
        f'name = "servo_rollout_{seed}"',
        f'model = "{model}"',
        "seed = 0",
        f"payload = {{ mass = {PAYLOAD}, centroid = [{centroid}] }}",
        "[time]",
        f"end = {end}",
        "step = 5e-4",
        f"sample_period = {PERIOD}",
    ]
    for j in range(mj.nu):
        lo, hi = mj.jnt_range[j]
        a, b = rng.uniform(-0.6, 0.6, 3), rng.uniform(-0.6, 0.6, 3)
        w = 2 * np.pi * 0.3 * np.arange(1, 4)
        q = (lo + hi) / 2 + sum(
            a[l] / w[l] * np.sin(w[l] * times) - b[l] / w[l] * np.cos(w[l] * times) for l in range(3)
        )
        values = ", ".join(repr(float(x)) for x in q)
        lines += [
            "[[joint]]",
            f"id = {j + 1}",
            f'servo = {{ reference = {{ type = "held", start = 0.0, period = {COMMAND_PERIOD}, '
            f'values = [{values}] }}, control = {{ type = "position_servo", kp = 40.0, kd = 3.0, '
            "torque_limit = 30.0 } }",
        ]
    scenario = workdir / "servo.toml"
    scenario.write_text("\n".join(lines) + "\n")
    run = workdir / "servo_run"
    subprocess.run([binary("armid"), "run", str(scenario), "--out", str(run)], check=True)
    return run


def mujoco_servo_horizon_errors(model_path, run, fidelity, integrator):
    """Per window (the rollout's), per joint `|q_MuJoCo − q_log|` at the horizon, MuJoCo's
    position actuators driven by the log's `q_cmd` (each sample's held over the steps the rollout
    took)."""
    table = pq.read_table(run / "joints.parquet").to_pydict()
    nj = max(table["joint"])
    col = lambda c: np.array(table[c]).reshape(-1, nj)  # noqa: E731
    t, q, qd, q_cmd = col("t")[:, 0], col("q"), col("qd"), col("q_cmd")
    model = mujoco.MjModel.from_xml_path(str(model_path))

    inputs = (q_cmd, mujoco.mjtState.mjSTATE_CTRL)
    return windows_horizon_errors(model, (t, q, qd), fidelity, integrator, inputs)


@pytest.mark.parametrize("seed", [11, 12])
def test_servo_rollouts_of_one_model_agree_in_rapier_and_mujoco(workdir, seed):
    """The servo arm's model, as Menagerie states it (`<position kp="50" dampratio="1"
    forcerange="-35 35">`: `armid rollout` reads the damping ratio as MuJoCo compiles it), rolled
    out through its servos on a log of a softer-servoed, loaded arm: Rapier and MuJoCo agree within
    the tolerances above (1 % of the mean horizon error, 5 % per joint; 2 % against RK4)."""
    model = workdir / "so_arm100.nofriction.xml"
    model.write_text(SERVO_ARM.read_text().replace('frictionloss="0.1"', 'frictionloss="0"'))
    run = servo_log(workdir, model, seed)
    assert "q_cmd" in pq.read_schema(run / "joints.parquet").names
    out = workdir / "servo_rollout.json"
    subprocess.run(
        [binary("armid"), "rollout", str(run), "--model", str(model), "--out", str(out)],
        check=True,
    )
    rolled = json.loads(out.read_text())
    assert rolled["servo_driven"] == [1, 2, 3, 4, 5, 6]
    fidelity = rolled["fidelity"]
    assert fidelity["windows"] == {"horizon": 1.0, "spacing": 0.5}
    assert fidelity["blown_up"] == 0 and len(fidelity["per_window"]) == 7
    assert fidelity["mean_horizon"] > 1e-3, fidelity["mean_horizon"]
    euler = mujoco_servo_horizon_errors(model, run, fidelity, mujoco.mjtIntegrator.mjINT_EULER)
    rk4 = mujoco_servo_horizon_errors(model, run, fidelity, mujoco.mjtIntegrator.mjINT_RK4)
    mean = fidelity["mean_horizon"]
    assert abs(euler.mean() - mean) <= 0.01 * mean, (euler.mean(), mean)
    per_joint = np.array(fidelity["horizon"])
    assert np.all(np.abs(euler.mean(axis=0) - per_joint) <= 0.05 * per_joint), (
        euler.mean(axis=0),
        per_joint,
    )
    assert abs(rk4.mean() - mean) <= 0.02 * mean, (rk4.mean(), mean)

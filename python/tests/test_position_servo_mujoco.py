"""The position servo (`sim::position_servo`) in Rapier and MuJoCo's `<position>` actuator agree.

MuJoCo Menagerie's SO-ARM100 (`models/menagerie/trs_so_arm100/`, six joints on position servos) is
simulated by `armid run` with every joint on a `position_servo` (stiffness, damping on the joint's
rate, torque limit; no delay or dead band, which MuJoCo's actuator cannot state) tracking a Fourier
reference, and by MuJoCo (PyPI `mujoco`) with its position actuators set to the same gains and
force range and their `ctrl` set to the reference at each step's start (the servo's law is
evaluated there in both). Both step semi-implicitly at 0.5 ms with the joint armature the model
states; its friction loss is taken out of the file (MuJoCo's is a constraint, Rapier's a smoothed
Coulomb term: a different model), and MuJoCo's constraints are off (no joint limits or contacts
in Rapier's run). The torque limit is set low enough that the shoulder saturates.

**Tolerance, stated once**: every joint within 5e-4 rad of MuJoCo at every sample, on motions
spanning 0.3–1.8 rad (measured when written: 4e-7 to 5.3e-5 rad, the shoulder's the largest).
"""

import math
import subprocess

import mujoco
import numpy as np
import pyarrow.parquet as pq

from conftest import ROOT, binary

MODEL = ROOT / "models" / "menagerie" / "trs_so_arm100" / "so_arm100.nomesh.xml"
KP, KD, LIMIT = 20.0, 1.5, 0.6
STEP, PERIOD, END, FREQUENCY = 5e-4, 0.01, 2.0, 0.5


def reference(a, b, offset, t):
    """The Fourier reference `q_c(t)` and its rate (`sim::profile::Profile::Fourier`)."""
    w = 2 * math.pi * FREQUENCY
    q, qd = offset, 0.0
    for l, (al, bl) in enumerate(zip(a, b), start=1):
        q += al / (l * w) * math.sin(l * w * t) - bl / (l * w) * math.cos(l * w * t)
        qd += al * math.cos(l * w * t) + bl * math.sin(l * w * t)
    return q, qd


def test_rapier_servo_and_mujoco_position_actuator_agree(workdir):
    model = workdir / "so_arm100.nofriction.xml"
    model.write_text(MODEL.read_text().replace('frictionloss="0.1"', 'frictionloss="0"'))
    mj = mujoco.MjModel.from_xml_path(str(model))
    rng = np.random.default_rng(7)
    coefficients = [(rng.uniform(-1.0, 1.0, 2), rng.uniform(-1.0, 1.0, 2)) for _ in range(mj.nu)]
    offsets = [float(np.mean(mj.jnt_range[j])) if mj.jnt_limited[j] else 0.0 for j in range(mj.nu)]
    lines = [
        'name = "servo_agreement"',
        f'model = "{model}"',
        "seed = 0",
        "[time]",
        f"end = {END}",
        f"step = {STEP}",
        f"sample_period = {PERIOD}",
    ]
    for j, ((a, b), offset) in enumerate(zip(coefficients, offsets)):
        lines += [
            "[[joint]]",
            f"id = {j + 1}",
            f'servo = {{ reference = {{ type = "fourier", base_frequency = {FREQUENCY}, '
            f"offset = {offset!r}, a = [{', '.join(map(repr, map(float, a)))}], "
            f"b = [{', '.join(map(repr, map(float, b)))}] }}, control = {{ type = "
            f'"position_servo", kp = {KP}, kd = {KD}, torque_limit = {LIMIT} }} }}',
        ]
    scenario = workdir / "servo.toml"
    scenario.write_text("\n".join(lines) + "\n")
    run = workdir / "run"
    subprocess.run([binary("armid"), "run", str(scenario), "--out", str(run)], check=True)
    table = pq.read_table(run / "joints.parquet").to_pydict()
    nj = max(table["joint"])
    q_rapier = np.array(table["q"]).reshape(-1, nj)
    # The servo's torque is the motor side's (the current `i`, gain 1): `tau` is what reaches the link,
    # less the armature's share.
    servo_rapier = np.array(table["i"]).reshape(-1, nj)

    flags = mujoco.mjtDisableBit
    mj.opt.disableflags |= flags.mjDSBL_CONSTRAINT | flags.mjDSBL_EULERDAMP
    mj.opt.integrator = mujoco.mjtIntegrator.mjINT_EULER
    mj.opt.timestep = STEP
    mj.actuator_gainprm[:, 0] = KP
    mj.actuator_biasprm[:, :3] = [0.0, -KP, -KD]
    mj.actuator_forcelimited[:] = 1
    mj.actuator_forcerange[:] = [-LIMIT, LIMIT]
    mj.actuator_ctrllimited[:] = 0
    data = mujoco.MjData(mj)
    start = [reference(a, b, o, 0.0) for (a, b), o in zip(coefficients, offsets)]
    data.qpos[:] = [s[0] for s in start]
    data.qvel[:] = [s[1] for s in start]
    per_sample = round(PERIOD / STEP)
    q_mujoco = [data.qpos.copy()]
    saturated = False
    for k in range(1, q_rapier.shape[0]):
        for s in range(per_sample):
            t = ((k - 1) * per_sample + s) * STEP
            data.ctrl[:] = [reference(a, b, o, t)[0] for (a, b), o in zip(coefficients, offsets)]
            mujoco.mj_step(mj, data)
            saturated |= bool(np.any(np.abs(data.actuator_force) >= LIMIT - 1e-9))
        q_mujoco.append(data.qpos.copy())
    q_mujoco = np.array(q_mujoco)
    worst = np.abs(q_mujoco - q_rapier).max(axis=0)
    moved = np.ptp(q_rapier, axis=0)
    assert np.all(worst < 5e-4), f"largest |q_Rapier − q_MuJoCo| per joint {worst} (ranges {moved})"
    assert np.all(moved > 0.1), f"motion ranges {moved}"
    peak = np.abs(servo_rapier).max()
    assert saturated and peak <= LIMIT + 1e-9, f"peak torque {peak}, MuJoCo at its limit: {saturated}"

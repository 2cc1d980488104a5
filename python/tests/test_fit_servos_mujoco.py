"""`armid fit-servos` recovers the position servos of an arm that MuJoCo simulated (sim to sim across
engines, issue 62).

MuJoCo Menagerie's SO-ARM100 (friction loss taken out: Rapier's is a smoothed Coulomb term, MuJoCo's a
constraint) with its six `<position>` actuators set to a known stiffness and damping (`TRUTH`, no
delay: MJCF cannot state one) is driven in MuJoCo (PyPI `mujoco`, Euler at 1 ms, constraints off) by
50 Hz held commands about the middle of each joint's range, and logged at 100 Hz as a servo arm's
logger writes (`t`, `q_<joint>`, `qcmd_<joint>`, no torque). `armid import` reads it, `armid
fit-servos` fits every joint's `kp` and `kd` from a start 50 % stiff and 30 % under-damped, and the
fitted values must come within 1 % of MuJoCo's: the two engines integrate the same equations at the
same step, and the import differentiates the rates the rollouts start from (measured when written:
0.39 % at most, the RMS residual from 3.8e-2 to 1.0e-4 rad). Not within 3 σ: the fit's σ holds
neither the differentiated rates' error nor the engines' (`validation::estimate::simulation_fit`).
"""

import subprocess
import tomllib

import mujoco
import numpy as np

from conftest import ROOT, binary

MODEL = ROOT / "models" / "menagerie" / "trs_so_arm100" / "so_arm100.nomesh.xml"
TRUTH = (12.0, 0.8)  # kp (N·m/rad), kv (N·m·s/rad) of every joint
COMMAND_PERIOD, STEP, SAMPLE, END = 0.02, 1e-3, 0.01, 8.0


def test_fit_servos_recovers_mujoco_servos(workdir):
    kp, kv = TRUTH
    text = MODEL.read_text().replace('frictionloss="0.1"', 'frictionloss="0"')
    text = text.replace('kp="50" dampratio="1" forcerange="-35 35"', f'kp="{kp}" kv="{kv}"')
    model_path = workdir / "so_arm100.servo.xml"
    model_path.write_text(text)
    mj = mujoco.MjModel.from_xml_path(str(model_path))
    mj.opt.timestep = STEP
    mj.opt.integrator = mujoco.mjtIntegrator.mjINT_EULER
    flags = mujoco.mjtDisableBit
    mj.opt.disableflags |= flags.mjDSBL_CONSTRAINT | flags.mjDSBL_EULERDAMP
    rng = np.random.default_rng(5)
    middle = mj.jnt_range.mean(axis=1)
    a, b = rng.uniform(-0.4, 0.4, mj.nu), rng.uniform(-0.2, 0.2, mj.nu)
    w = 2 * np.pi * rng.uniform(0.2, 0.5, mj.nu)

    def command(t):
        return middle + a * np.sin(w * t) + b * (np.cos(2 * w * t) - 1)

    data = mujoco.MjData(mj)
    data.qpos[:] = command(0.0)
    per_sample, per_command = round(SAMPLE / STEP), round(COMMAND_PERIOD / STEP)
    names = [mj.joint(j).name for j in range(mj.njnt)]
    rows = []
    for k in range(round(END / STEP) + 1):
        if k % per_command == 0:
            data.ctrl[:] = command(k * STEP)
        if k % per_sample == 0:
            rows.append([k * STEP, *data.qpos, *data.ctrl])
        mujoco.mj_step(mj, data)
    header = ["t"] + [f"q_{n}" for n in names] + [f"qcmd_{n}" for n in names]
    log = workdir / "servo_log.csv"
    lines = [",".join(header)] + [",".join(repr(float(x)) for x in r) for r in rows]
    log.write_text("\n".join(lines) + "\n")

    run = workdir / "run"
    subprocess.run(
        [binary("armid"), "import", str(log), "--model", str(model_path), "--lowpass", "none",
         "--out", str(run)],
        check=True,
    )
    start = workdir / "start.toml"
    entries = ["min_speed = 0.0"]
    for j in range(1, mj.nu + 1):
        entries += [f"[[drive]]\njoint = {j}\narmature = 0.1"]
        entries += [f"[[servo]]\njoint = {j}\nkp = {1.5 * kp}\nkd = {0.7 * kv}"]
    start.write_text("\n".join(entries) + "\n")
    out = workdir / "fitted.toml"
    printed = subprocess.run(
        [binary("armid"), "fit-servos", str(run), "--drives", str(start), "--terms", "kp,kd",
         "--horizon", "0.5", "--spacing", "1.0", "--no-prior", "--out", str(out)],
        check=True, capture_output=True, text=True,
    ).stdout
    fitted = tomllib.loads(out.read_text())["servo"]
    assert len(fitted) == mj.nu
    worst = max(max(abs(s["kp"] / kp - 1), abs(s["kd"] / kv - 1)) for s in fitted)
    assert worst < 0.01, f"largest relative error {worst:.4f}\n{printed}"

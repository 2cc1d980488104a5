"""MuJoCo replays of `armid rollout`'s windows: shared by the tests that compare the two engines'
rollouts (`test_rollout_mujoco.py`, `test_so101_mujoco.py`)."""

import mujoco
import numpy as np
from mujoco import rollout


def replay_windows(model, log, fidelity, control):
    """Per window of `fidelity` (an `armid rollout` JSON's), per joint `|q_MuJoCo − q_log|` at the
    horizon: MuJoCo (`model` as the caller set it up) from the window's first recorded `(q, q̇)` of
    `log = (t, q, q̇)` (samples × joints), at the step the rollout took, its inputs
    `control(s, length, steps, h)`: `(values, spec)`, one row per step of the window from sample
    `s` (`length` samples of `steps` steps of `h` seconds) and the `mjtState` component they set.
    The steps run in MuJoCo's own `rollout` (C, one call per window)."""
    t, q, qd = log
    period = (t[-1] - t[0]) / (len(t) - 1)
    length = round(fidelity["windows"]["horizon"] / period)
    data = mujoco.MjData(model)
    physics = mujoco.mjtState.mjSTATE_FULLPHYSICS
    start = np.empty(mujoco.mj_stateSize(model, physics))
    errors = []
    for window in fidelity["per_window"]:
        s = round((window["start"] - t[0]) / period)
        steps = round(period / window["step"])
        model.opt.timestep = period / steps
        mujoco.mj_resetData(model, data)
        data.qpos[:] = q[s]
        data.qvel[:] = qd[s]
        mujoco.mj_getState(model, data, start, physics)
        values, spec = control(s, length, steps, model.opt.timestep)
        states, _ = rollout.rollout(model, data, start, values[None], control_spec=spec)
        # A full-physics state is (time, qpos, qvel, …).
        errors.append(np.abs(states[0, -1, 1 : 1 + model.nq] - q[s + length]))
    return np.array(errors)

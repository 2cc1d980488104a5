"""The peer pipeline of `cargo xtask bench --peer`: what a user would write instead of this project to
make the `paper_rail` dataset — MuJoCo (Python bindings), a computed-torque drive at dt = 1 ms, the
same 101 samples, Parquet written with pyarrow. Its model, drive and recording are those of
the project's reference peer (the speed reference it was given), unchanged.

Besides the timings it checks both sides' data with an independent library: the recorded generalized
forces against Pinocchio's RNEA at the recorded (q, qd, qdd), relative to each joint's peak (the
largest over joints), for the peer's dataset and for the project's run directory given with --ours.

Prints `RESULT <key> <value>` lines for xtask; everything else is for people.
Usage: python peer_mujoco.py --runs 20 --ours RUN_DIR
"""
import argparse, json, os, sys, tempfile, time

import mujoco
import numpy as np
import pinocchio as pin
import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "validation", "tests", "fixtures"))
from pinocchio_chain import build  # noqa: E402

L = [1.045, 1.245, 1.21, 0.315, 0.29, 0.3]
M = [1429.5806, 613.1464, 264.8486, 68.9482, 63.4761, 100.0]
J = [(178.6976, 219.4436, 219.4436), (27.5916, 92.9952, 92.9952), (5.2970, 34.9622, 34.9622),
     (1.3790, 1.2596, 1.2596), (1.2695, 1.0796, 1.0796), (4.5, 3.0, 3.0)]
AX = ['0 0 1', '0 1 0', '0 1 0', '1 0 0', '0 1 0', '1 0 0']


def xml(dt):
    def body(i):
        if i == 6:
            return ''
        pos = '0 0 0' if i == 0 else (f'0 0 {L[0]}' if i == 1 else f'{L[i-1]} 0 0')
        inert = (f'<inertial pos="0 0 {L[0]/2}" mass="{M[0]}" diaginertia="{J[0][1]} {J[0][2]} {J[0][0]}"/>' if i == 0 else
                 f'<inertial pos="{L[i]/2} 0 0" mass="{M[i]}" diaginertia="{J[i][0]} {J[i][1]} {J[i][2]}"/>')
        return f'<body name="B{i+1}" pos="{pos}"><joint name="O{i+1}" type="hinge" axis="{AX[i]}"/>{inert}{body(i+1)}</body>'
    acts = ''.join(f'<motor joint="{j}"/>' for j in ['rail'] + [f'O{k}' for k in range(1, 7)])
    return (f'<mujoco><option timestep="{dt}" gravity="0 0 -9.80665" integrator="Euler"/><worldbody>'
            f'<body name="B0"><joint name="rail" type="slide" axis="1 0 0"/><inertial pos="0 0 0" mass="1e-9" diaginertia="1e-9 1e-9 1e-9"/>'
            f'{body(0)}</body></worldbody><actuator>{acts}</actuator></mujoco>')


ALPHA = np.deg2rad(30.0)


def ref(t):
    q = np.zeros(7); qd = np.zeros(7); qdd = np.zeros(7)
    q[0], qd[0], qdd[0] = t * t, 2 * t, 2.0
    for k in (1, 2):
        q[k], qd[k], qdd[k] = 0.5 * ALPHA * t * t, ALPHA * t, ALPHA
    return q, qd, qdd


def one_run(m, d, out, every):
    mujoco.mj_resetData(m, d)
    rows_b, rows_j = [], []
    n = int(round(2.0 / m.opt.timestep))
    for s in range(n + 1):
        q, qd, qdd = ref(d.time)
        d.qacc[:] = qdd + 400 * (q - d.qpos) + 40 * (qd - d.qvel)
        mujoco.mj_inverse(m, d); d.ctrl[:] = d.qfrc_inverse
        if s % every == 0:
            mujoco.mj_forward(m, d); mujoco.mj_rnePostConstraint(m, d)
            for b in range(2, 8):
                rows_b.append((s // every, d.time, b - 1, *d.xipos[b], *d.xquat[b], *d.cacc[b], *d.cfrc_int[b]))
            for j in range(7):
                rows_j.append((s // every, d.time, j, d.qpos[j], d.qvel[j], d.qacc[j], d.ctrl[j]))
        if s < n:
            mujoco.mj_step(m, d)
    cols_b = ['sample', 't', 'body', 'pos_x', 'pos_y', 'pos_z', 'quat_w', 'quat_x', 'quat_y', 'quat_z', 'acc_0', 'acc_1', 'acc_2', 'acc_3', 'acc_4', 'acc_5', 'f_0', 'f_1', 'f_2', 'f_3', 'f_4', 'f_5']
    cols_j = ['sample', 't', 'joint', 'q', 'qd', 'qdd', 'tau']
    os.makedirs(out, exist_ok=True)
    pq.write_table(pa.table(list(map(list, zip(*rows_b))), names=cols_b), f'{out}/bodies.parquet', compression='zstd')
    pq.write_table(pa.table(list(map(list, zip(*rows_j))), names=cols_j), f'{out}/joints.parquet', compression='zstd')


def residual(model, joints, total):
    """Largest |RNEA(q, qd, qdd) − total| over samples and joints, divided by the largest |total|."""
    nj = model.nv
    col = lambda c: np.array(joints.column(c).to_pylist()).reshape(-1, nj)
    q, qd, qdd = col('q'), col('qd'), col('qdd')
    data = model.createData()
    diff = max(np.abs(pin.rnea(model, data, q[k], qd[k], qdd[k]) - total[k]).max() for k in range(len(q)))
    return diff / np.abs(total).max()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--runs', type=int, default=20)
    ap.add_argument('--dt', type=float, default=1e-3)
    ap.add_argument('--ours', required=True, help="the project's paper_rail run directory")
    a = ap.parse_args()
    m = mujoco.MjModel.from_xml_string(xml(a.dt)); d = mujoco.MjData(m)
    n = 20000; t0 = time.perf_counter()
    for _ in range(n):
        mujoco.mj_step(m, d)
    steps = n / (time.perf_counter() - t0)
    print(f'mujoco {mujoco.__version__} plain mj_step: {steps:.0f} steps/s')
    print(f'RESULT mj_step_per_s {steps}')
    with tempfile.TemporaryDirectory() as out:
        every = max(1, int(round(0.02 / a.dt)))
        t0 = time.perf_counter()
        for r in range(a.runs):
            one_run(m, d, f'{out}/run{r}', every)
        rate = a.runs / (time.perf_counter() - t0)
        print(f'peer paper_rail dt={a.dt}: {rate:.2f} runs/s (simulate + record + parquet)')
        print(f'RESULT runs_per_s {rate}')
        # Both datasets against Pinocchio, on the project's model of the arm (the same arm: Table 1).
        manifest = json.load(open(os.path.join(a.ours, 'manifest.json')))
        model = build(manifest['model'])
        peer = pq.read_table(f'{out}/run0/joints.parquet')
        peer_total = np.array(peer.column('tau').to_pylist()).reshape(-1, 7)
        ours = pq.read_table(os.path.join(a.ours, 'joints.parquet'))
        ours_total = (np.array(ours.column('tau').to_pylist()) + np.array(ours.column('tau_friction').to_pylist())).reshape(-1, 7)
        print(f'RESULT peer_tau_vs_pinocchio {residual(model, peer, peer_total)}')
        print(f'RESULT ours_tau_vs_pinocchio {residual(model, ours, ours_total)}')


if __name__ == '__main__':
    main()

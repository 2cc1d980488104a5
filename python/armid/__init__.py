"""The project from Python: simulate a scenario into Arrow tables, write and read run
directories, and run the project's inertial-parameter estimators on a run.

    import armid
    run = armid.simulate("scenarios/paper_rail.toml")
    run.joints            # pyarrow.Table: joints.parquet's columns, no copy
    run.write("generated/runs/paper_rail")
    armid.estimate(run, only=["mim_stacked"])   # pyarrow.Table: `validation estimate`'s CSV columns
    armid.sweep("studies/mine.toml", estimators={"mine": my_estimator})  # yours beside the registry's

Frames, units and signs are the dataset contract's (`book/src/dataset.md`). Errors the project
refuses (a bad scenario field, a run that fails its physics checks, an unknown estimator) raise
:class:`ArmidError` (a ``ValueError``) naming the file and the field.
"""

from __future__ import annotations

import json
import os
from typing import Callable, Iterable, Mapping, Optional, Sequence, Tuple, Union

import pyarrow as pa

from . import _armid
from ._armid import ArmidError

__all__ = [
    "ArmidError",
    "Measurement",
    "Run",
    "StoredRun",
    "check_scenario",
    "estimate",
    "estimators",
    "import_recording",
    "simulate_population",
    "read_measurement",
    "read_run",
    "report",
    "score",
    "simulate",
    "sweep",
]

PathLike = Union[str, "os.PathLike[str]"]


class Run:
    """A run simulated in this process: what ``sim run`` writes, held in memory."""

    def __init__(self, native: "_armid.Run") -> None:
        self._native = native

    @property
    def id(self) -> str:
        """The run id (the scenario's name)."""
        return self._native.id

    @property
    def joints(self) -> pa.Table:
        """One row per (sample, joint): ``joints.parquet``'s columns."""
        return pa.Table.from_batches([self._native.joints])

    @property
    def bodies(self) -> pa.Table:
        """One row per (sample, body): ``bodies.parquet``'s columns."""
        return pa.Table.from_batches([self._native.bodies])

    @property
    def truth(self) -> pa.Table:
        """One row per body, its true inertial parameters: ``truth.parquet``'s columns."""
        return pa.Table.from_batches([self._native.truth])

    @property
    def manifest(self) -> dict:
        """``manifest.json``: how the run was made, its checks, its stated sensors."""
        return json.loads(self._native.manifest_json)

    def write(self, directory: PathLike, force: bool = False) -> None:
        """Writes the run directory as ``sim run --out DIR`` does (complete or absent;
        ``force`` replaces an existing one)."""
        self._native.write(os.fspath(directory), force)

    def __repr__(self) -> str:
        return f"armid.Run({self.id!r}, {self._native.joints.num_rows} joint rows)"


def simulate(scenario: PathLike) -> Run:
    """Simulates the scenario file ``scenario`` as ``sim run`` does. A run that fails its
    physics checks raises :class:`ArmidError` naming the check."""
    return Run(_armid.simulate(os.fspath(scenario)))


def estimate(
    run: Union[Run, PathLike],
    only: Optional[Iterable[str]] = None,
    nim_models: Optional[PathLike] = None,
    prior: Optional[PathLike] = None,
) -> pa.Table:
    """The project's estimators (those named in ``only``, else every one that applies) on a
    simulated :class:`Run` or a run directory, as ``validation estimate RUN`` runs them: one row
    per (method, parameter) with the columns ``run, method, parameter, truth, estimate, std,
    abs_error, rel_error, identifiable``."""
    target = run._native if isinstance(run, Run) else os.fspath(run)
    batch = _armid.estimate(
        target,
        None if only is None else list(only),
        None if nim_models is None else os.fspath(nim_models),
        None if prior is None else os.fspath(prior),
    )
    return pa.Table.from_batches([batch])


def estimators() -> list:
    """The names of the project's estimators."""
    return list(_armid.estimators())


class Measurement:
    """A run as its sensors saw it, and nothing of its truth: what an estimator of yours is
    given (the measurement directory of ``book/src/dataset.md``).

    ``joints`` has one row per (sample, joint): ``sample, t, joint, kind, q, qd, qdd, tau, i``;
    ``bodies`` one row per (sample, body): ``sample, t, body`` and the body groups of
    ``bodies.parquet`` (``pos_*, quat_*, euler_*, vel_*, acc_*, omega_*, omega_dot_*, f_*, n_*,
    o_*``, ``imu_sf_*`` where an IMU is mounted) — each the measured series where the run has
    one, else the ideal sensor's. ``description`` holds ``run_id``, ``gravity``, ``samples``,
    ``geometry`` (kinematics only), ``stated`` (the datasheet of its sensors), ``gains`` and
    ``measured`` (which columns carry noise, on which joints or bodies)."""

    def __init__(self, joints: pa.Table, bodies: pa.Table, description: dict) -> None:
        self.joints = joints
        self.bodies = bodies
        self.description = description

    @property
    def run_id(self) -> str:
        """The run id."""
        return self.description["run_id"]

    @classmethod
    def _from_native(cls, native: "_armid.Measurement") -> "Measurement":
        return cls(
            pa.Table.from_batches([native.joints]),
            pa.Table.from_batches([native.bodies]),
            json.loads(native.description_json),
        )

    def __repr__(self) -> str:
        return f"armid.Measurement({self.run_id!r}, {self.joints.num_rows} joint rows)"


def read_measurement(directory: PathLike) -> Measurement:
    """Reads a measurement directory (what a command of the subprocess protocol is given)."""
    import pyarrow.parquet as pq

    directory = os.fspath(directory)
    with open(os.path.join(directory, "measurement.json"), encoding="utf-8") as f:
        description = json.load(f)
    return Measurement(
        pq.read_table(os.path.join(directory, "joints.parquet")),
        pq.read_table(os.path.join(directory, "bodies.parquet")),
        description,
    )


Answer = Mapping[str, Union[Optional[float], Tuple[Optional[float], Optional[float]]]]
"""An estimator's answer: parameter name (``B1.m``, ``B2.m_e1``, ``B3.j11``, ``base.4``, …) →
its estimate, or an ``(estimate, std)`` pair; ``None`` where the data do not determine it."""


def sweep(
    study: PathLike,
    estimators: Optional[Mapping[str, Callable[[Measurement], Answer]]] = None,
    out: Optional[PathLike] = None,
) -> pa.Table:
    """Runs the noise sweeps of the study file ``study`` as ``validation study`` does, with your
    ``estimators`` (name → callable) beside the registry's: list their names in the study's
    ``estimators``. Each callable is given every re-noised run as a :class:`Measurement` and
    answers an :data:`Answer`; it is scored like the registry's estimators (the same runs, the
    same statistics, the Cramér–Rao bound where the study's sensor has one). With ``out``, the
    study's files are written there (``sweep.json``, ``.csv``, ``.md``, ``.png``). Returns the
    rows of ``sweep.csv``: ``scenario, method, sensor, level, parameter, truth, mean, bias, std,
    rmse, crb, runs``. A callable that raises makes this raise :class:`ArmidError` with its
    message."""
    wrapped = {
        name: (lambda native, f=f: f(Measurement._from_native(native)))
        for name, f in (estimators or {}).items()
    }
    batch = _armid.sweep(
        os.fspath(study), wrapped, None if out is None else os.fspath(out)
    )
    return pa.Table.from_batches([batch])


def check_scenario(scenario: PathLike) -> dict:
    """Reads and checks a scenario file without simulating it (``sim check``): ``name``,
    ``model``, ``samples``, ``steps_per_sample``, ``arms`` (its population's, else ``None``).
    A bad field raises :class:`ArmidError` naming the file and the field."""
    return dict(_armid.check_scenario(os.fspath(scenario)))


def simulate_population(
    scenario: PathLike, out: PathLike, shard: str = "0/1", force: bool = False
) -> Tuple[int, int]:
    """Simulates the arms of the scenario's ``[population]`` into the population directory
    ``out`` as ``sim population`` does (in parallel; arms already complete are kept unless
    ``force``; ``shard`` ``"K/N"`` takes arms ``k`` with ``k mod N = K``). Returns ``(written,
    kept)``. Read it back with :class:`armid.population.Population`."""
    written, kept = _armid.population(os.fspath(scenario), os.fspath(out), shard, force)
    return written, kept


class StoredRun:
    """A run directory read back (simulated or recorded), checked as the estimators' reader
    checks it (files, SHA-256 sums, columns)."""

    def __init__(self, directory: PathLike) -> None:
        import pyarrow.parquet as pq

        self.directory = os.fspath(directory)
        self.kind = _armid.check_run(self.directory)
        table = lambda name: pq.read_table(os.path.join(self.directory, name))  # noqa: E731
        self.joints = table("joints.parquet")
        self.bodies = table("bodies.parquet") if self.kind == "simulated" else None
        self.truth = table("truth.parquet") if self.kind == "simulated" else None
        with open(os.path.join(self.directory, "manifest.json"), encoding="utf-8") as f:
            self.manifest = json.load(f)

    @property
    def id(self) -> str:
        """The run id."""
        return self.manifest["run_id"]

    def __repr__(self) -> str:
        return f"armid.StoredRun({self.directory!r}, {self.kind})"


def read_run(directory: PathLike) -> StoredRun:
    """Reads a run directory back: ``joints``, ``bodies`` and ``truth`` as pyarrow tables (a
    recording has joints only), ``manifest`` as a dict. A corrupted or incomplete directory raises
    :class:`ArmidError` naming the file."""
    return StoredRun(directory)


def import_recording(
    recording: PathLike,
    urdf: PathLike,
    out: PathLike,
    config: Optional[PathLike] = None,
    rate: Optional[float] = None,
    lowpass: str = "auto",
    topic: Union[str, Sequence[str], None] = None,
    run_id: Optional[str] = None,
    force: bool = False,
) -> dict:
    """Imports a robot's recording (CSV, Parquet, or a ROS 2 bag: MCAP, sqlite3 ``.db3`` or the
    bag's directory) as a recorded run directory, as ``validation import`` does; returns its
    manifest. ``topic`` names the bag's JointState topic or topics to read (merged by joint
    name); by default every JointState topic is read."""
    text = _armid.import_recording(
        os.fspath(recording),
        os.fspath(urdf),
        os.fspath(out),
        None if config is None else os.fspath(config),
        rate,
        lowpass,
        [topic] if isinstance(topic, str) else None if topic is None else list(topic),
        run_id,
        force,
    )
    return json.loads(text)


def score(run, answer: Answer, method: str = "mine") -> pa.Table:
    """Scores your estimates (an :data:`Answer`: parameter name → estimate or ``(estimate,
    std)``) against the truth of ``run`` — a :class:`Run`, a run directory or a population's
    :class:`armid.population.Arm` — with the project's scorer: the rows of ``validation
    estimate``'s CSV under ``method``: ``run, method, parameter, truth, estimate, std,
    abs_error, rel_error, identifiable``."""
    from .population import Arm

    if isinstance(run, Arm):
        batch = _armid.score_manifest(json.dumps(run.manifest), answer, method)
    else:
        target = run._native if isinstance(run, Run) else os.fspath(run)
        batch = _armid.score(target, answer, method)
    return pa.Table.from_batches([batch])


def report(
    target: PathLike,
    html: PathLike,
    only: Optional[Iterable[str]] = None,
    nim_models: Optional[PathLike] = None,
) -> None:
    """Writes one self-contained HTML page (``validation report PATH --html OUT``): of a run
    directory — the arm moving in 3D, joint trajectories, torques measured and predicted,
    estimates against the truth (the estimators ``only`` names, else every one that applies) —
    or of a noise study's output directory (error against noise with the Cramér–Rao bound)."""
    _armid.report(
        os.fspath(target),
        os.fspath(html),
        None if only is None else list(only),
        None if nim_models is None else os.fspath(nim_models),
    )

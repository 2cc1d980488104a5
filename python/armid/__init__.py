"""The project from Python: simulate a scenario into Arrow tables, write and read run
directories, and run the project's inertial-parameter estimators on a run.

    import armid
    run = armid.simulate("scenarios/paper_rail.toml")
    run.joints            # pyarrow.Table: joints.parquet's columns, no copy
    run.write("generated/runs/paper_rail")
    armid.estimate(run, only=["mim_stacked"])   # pyarrow.Table: `validation estimate`'s CSV columns

Frames, units and signs are the dataset contract's (`book/src/dataset.md`). Errors the project
refuses (a bad scenario field, a run that fails its physics checks, an unknown estimator) raise
:class:`ArmidError` (a ``ValueError``) naming the file and the field.
"""

from __future__ import annotations

import json
import os
from typing import Iterable, Optional, Union

import pyarrow as pa

from . import _armid
from ._armid import ArmidError

__all__ = ["ArmidError", "Run", "simulate", "estimate", "estimators"]

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

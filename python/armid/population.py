"""Populations for training: a population directory (``sim population`` / ``armid population``
output, ``book/src/populations.md``) streamed arm by arm, deterministically per seed, epoch and
worker, each arm's selected columns beside its truth as the labels.

    from armid.population import Population
    pop = Population("generated/populations/population_panda")
    for arm in pop.iterate(seed=0, epoch=0, columns=["t", "joint", "q", "i_meas"]):
        arm.joints      # pyarrow.Table, the chosen columns of joints.parquet
        arm.truth       # pyarrow.Table: the arm's true inertial parameters (the labels)

The population's arms are stored in shards of consecutive arms (``population.json``'s
``arms_per_shard``), one Parquet file per table and shard with an ``arm`` column; an arm is read
through the row groups' statistics of ``arm`` (pyarrow's filter), not with its whole shard. Only
arms of complete shards are read (a shard is complete once its manifests file exists, the
population's resume rule); arms that failed a validity gate are not in their shard. Within one epoch the arms are shuffled by ``(seed, epoch)`` and dealt to
``workers`` round-robin: every arm reaches exactly one worker once per epoch, and the same
arguments give the same arms in the same order on every machine.
"""

from __future__ import annotations

import json
import os
import pathlib
import random
from dataclasses import dataclass
from typing import Iterator, List, Optional, Sequence, Union

import pyarrow as pa
import pyarrow.parquet as pq

from ._armid import ArmidError

__all__ = ["Arm", "Population"]

PathLike = Union[str, "os.PathLike[str]"]
TABLES = ("joints", "bodies")
LAYOUT_PREFIX = "shards/v1:"


@dataclass(frozen=True)
class Arm:
    """One arm of a population."""

    index: int
    """Its index in the population (the tables' ``arm`` column)."""
    joints: Optional[pa.Table]
    """The chosen columns of its ``joints.parquet`` (one row per sample and joint), if read."""
    bodies: Optional[pa.Table]
    """The chosen columns of its ``bodies.parquet`` (one row per sample and body), if read."""
    truth: pa.Table
    """Its ``truth.parquet``: the true inertial parameters per body (the labels)."""
    manifest: dict
    """Its manifest: the drawn arm's scenario, seed, noise factor (``noise_scale``), checks."""


class Population:
    """A population directory, read arm by arm."""

    def __init__(self, directory: PathLike) -> None:
        self.directory = pathlib.Path(directory)
        path = self.directory / "population.json"
        try:
            self.description = json.loads(path.read_text())
        except FileNotFoundError:
            raise ArmidError(
                f"{path}: not found; expected a population directory (`armid population` output)"
            ) from None
        layout = str(self.description.get("layout", ""))
        if not layout.startswith(LAYOUT_PREFIX):
            raise ArmidError(
                f"{path}: layout {layout!r}: expected a population of shard files "
                f"({LAYOUT_PREFIX}...); one of an earlier version (one directory per arm) is "
                "regenerated with `armid population` / `sim population`")
        self.declared = int(self.description["arms"])
        self.arms_per_shard = int(self.description["arms_per_shard"])

    def _shards(self) -> int:
        return -(-self.declared // self.arms_per_shard)

    def _path(self, table: str, shard: int) -> pathlib.Path:
        return self.directory / table / f"shard={shard:05d}" / "part-0.parquet"

    def complete(self) -> List[int]:
        """The indices of the arms in complete shards (those whose manifests exist), in order."""
        arms: List[int] = []
        for s in range(self._shards()):
            path = self._path("manifests", s)
            if path.is_file():
                arms.extend(pq.read_table(path, columns=["arm"]).column("arm").to_pylist())
        return arms

    def _rows(self, table: str, k: int, columns: Optional[Sequence[str]]) -> pa.Table:
        path = self._path(table, k // self.arms_per_shard)
        return pq.read_table(path, columns=columns, filters=[("arm", "=", k)])

    def order(self, seed: int = 0, epoch: int = 0, worker: int = 0, workers: int = 1) -> List[int]:
        """The arms ``worker`` (of ``workers``) reads in epoch ``epoch``: the complete arms shuffled
        by ``(seed, epoch)``, then every ``workers``-th from position ``worker``."""
        if not (0 <= worker < workers):
            raise ArmidError(f"worker: expected 0 ≤ worker < workers ({workers}), got {worker}")
        arms = self.complete()
        random.Random(f"{seed}:{epoch}").shuffle(arms)
        return arms[worker::workers]

    def read(self, k: int, columns: Optional[Sequence[str]] = None,
             tables: Sequence[str] = ("joints",)) -> Arm:
        """Arm ``k``: the ``columns`` (all where ``None``) of each of ``tables`` (``joints``,
        ``bodies``; each reads the chosen columns it has), its truth and manifest. A column none
        of the tables has raises :class:`ArmidError` naming the files and the column."""
        unknown = [t for t in tables if t not in TABLES]
        if unknown:
            raise ArmidError(f"tables: no table {unknown[0]!r}; expected some of {list(TABLES)}")
        if not (0 <= k < self.declared):
            raise ArmidError(f"arm {k}: the population has arms 0 to {self.declared - 1}")
        shard = k // self.arms_per_shard
        if not self._path("manifests", shard).is_file():
            raise ArmidError(f"{self._path('manifests', shard)}: arm {k}: its shard {shard} is "
                             "not complete (no manifests)")
        paths = {t: self._path(t, shard) for t in tables}
        schemas = {t: pq.read_schema(p).names for t, p in paths.items()}
        for c in columns or []:
            if not any(c in names for names in schemas.values()):
                files = ", ".join(str(p) for p in paths.values())
                raise ArmidError(f"{files}: no column {c!r}; expected one of {schemas}")
        manifests = self._rows("manifests", k, ["manifest"]).column("manifest").to_pylist()
        if not manifests:
            raise ArmidError(f"{self._path('manifests', shard)}: arm {k} is not in its shard (it "
                             "failed a validity gate and was left out)")
        read = {t: None for t in TABLES}
        for t in tables:
            wanted = None if columns is None else [c for c in columns if c in schemas[t]]
            read[t] = self._rows(t, k, wanted)
        truth = self._rows("truth", k, None)
        return Arm(k, read["joints"], read["bodies"], truth, json.loads(manifests[0]))

    def iterate(self, seed: int = 0, epoch: int = 0, worker: int = 0, workers: int = 1,
                columns: Optional[Sequence[str]] = None,
                tables: Sequence[str] = ("joints",)) -> Iterator[Arm]:
        """The arms of :meth:`order`, each :meth:`read`."""
        for k in self.order(seed, epoch, worker, workers):
            yield self.read(k, columns, tables)

    def __len__(self) -> int:
        return len(self.complete())

    def __repr__(self) -> str:
        return f"armid.population.Population({str(self.directory)!r}, {self.declared} arms)"

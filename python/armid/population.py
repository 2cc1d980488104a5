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
population's resume rule); arms that failed a validity gate are not in their shard. For speed at
scale, :meth:`Population.iterate_blocks` deals and reads whole blocks of 32 arms (~30 × faster). Within one epoch the arms are shuffled by ``(seed, epoch)`` and dealt to
``workers`` round-robin: every arm reaches exactly one worker once per epoch, and the same
arguments give the same arms in the same order on every machine.
"""

from __future__ import annotations

import json
import os
import pathlib
import random
from dataclasses import dataclass
from typing import Iterator, List, Optional, Sequence, Tuple, Union

import pyarrow as pa
import pyarrow.compute as pc
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
        if not (0 <= k < self.declared):
            raise ArmidError(f"arm {k}: the population has arms 0 to {self.declared - 1}")
        shard = k // self.arms_per_shard
        if not self._path("manifests", shard).is_file():
            raise ArmidError(f"{self._path('manifests', shard)}: arm {k}: its shard {shard} is "
                             "not complete (no manifests)")
        wanted = self._wanted(shard, columns, tables)
        manifests = self._rows("manifests", k, ["manifest"]).column("manifest").to_pylist()
        if not manifests:
            raise ArmidError(f"{self._path('manifests', shard)}: arm {k} is not in its shard (it "
                             "failed a validity gate and was left out)")
        read = {t: None for t in TABLES}
        for t in tables:
            read[t] = self._rows(t, k, wanted[t])
        truth = self._rows("truth", k, None)
        return Arm(k, read["joints"], read["bodies"], truth, json.loads(manifests[0]))

    def _wanted(self, shard: int, columns: Optional[Sequence[str]],
                tables: Sequence[str]) -> dict:
        """Per table of ``tables``, the ``columns`` it has (all where ``None``); a column none of
        them has raises :class:`ArmidError` naming the files and the column."""
        unknown = [t for t in tables if t not in TABLES]
        if unknown:
            raise ArmidError(f"tables: no table {unknown[0]!r}; expected some of {list(TABLES)}")
        paths = {t: self._path(t, shard) for t in tables}
        schemas = {t: pq.read_schema(p).names for t, p in paths.items()}
        for c in columns or []:
            if not any(c in names for names in schemas.values()):
                files = ", ".join(str(p) for p in paths.values())
                raise ArmidError(f"{files}: no column {c!r}; expected one of {schemas}")
        return {t: None if columns is None else [c for c in columns if c in schemas[t]]
                for t in tables}

    def blocks(self) -> List[Tuple[int, int]]:
        """The blocks of arms stored together, ``(shard, row group)`` of every complete shard:
        the unit :meth:`iterate_blocks` reads (32 arms, fewer at a shard's end)."""
        out: List[Tuple[int, int]] = []
        for s in range(self._shards()):
            path = self._path("manifests", s)
            if path.is_file():
                out.extend((s, g) for g in range(pq.ParquetFile(path).num_row_groups))
        return out

    def iterate_blocks(self, seed: int = 0, epoch: int = 0, worker: int = 0, workers: int = 1,
                       columns: Optional[Sequence[str]] = None,
                       tables: Sequence[str] = ("joints",)) -> Iterator[Arm]:
        """Every complete arm once per epoch over the ``workers``, as :meth:`iterate`, but
        shuffled by block for speed at scale: the :meth:`blocks` shuffled by ``(seed, epoch)``
        and dealt round-robin, each block read once and its arms given in an order shuffled by
        ``(seed, epoch, block)``. :meth:`iterate` decodes a whole block for every arm it reads;
        this decodes it once."""
        if not (0 <= worker < workers):
            raise ArmidError(f"worker: expected 0 ≤ worker < workers ({workers}), got {worker}")
        blocks = self.blocks()
        random.Random(f"{seed}:{epoch}").shuffle(blocks)
        for shard, group in blocks[worker::workers]:
            wanted = self._wanted(shard, columns, tables)
            arms = self._block(shard, group, wanted)
            random.Random(f"{seed}:{epoch}:{shard}:{group}").shuffle(arms)
            yield from arms

    def _block(self, shard: int, group: int, wanted: dict) -> List[Arm]:
        """The arms of row group ``group`` of shard ``shard``, ``wanted`` columns per table."""
        def split(table: str, columns: Optional[List[str]]) -> dict:
            read = None if columns is None else list(dict.fromkeys([*columns, "arm"]))
            t = pq.ParquetFile(self._path(table, shard)).read_row_group(group, columns=read)
            # The arms of a row group are contiguous and ascending.
            counts = pc.value_counts(t.column("arm"))
            if columns is not None and "arm" not in columns:
                t = t.drop_columns(["arm"])
            out, start = {}, 0
            for arm, n in zip(counts.field("values").to_pylist(), counts.field("counts").to_pylist()):
                out[arm] = t.slice(start, n)
                start += n
            return out

        manifests = split("manifests", ["manifest"])
        truth = split("truth", None)
        read = {t: split(t, wanted[t]) for t in wanted}
        return [Arm(k,
                    read["joints"][k] if "joints" in read else None,
                    read["bodies"][k] if "bodies" in read else None,
                    truth[k], json.loads(manifests[k].column("manifest")[0].as_py()))
                for k in sorted(manifests)]

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

"""A PyTorch ``IterableDataset`` over a population (``pip install ./python[torch]``): each worker
of a ``DataLoader`` reads its share of the arms, by default block by block
(:meth:`armid.population.Population.iterate_blocks`: blocks of 32 arms shuffled and dealt, ~30 ×
faster than arm by arm), with ``by_block=False`` arm by arm
(:meth:`armid.population.Population.order`), so every arm is read once per epoch whatever the
number of workers.

    from armid.torch import PopulationDataset
    data = PopulationDataset("generated/populations/population_panda", columns=["q", "i_meas"])
    loader = torch.utils.data.DataLoader(data, batch_size=None, num_workers=2)
    for features, labels in loader: ...

Each item is ``(features, labels)``: ``features`` a float64 tensor of the chosen joint columns
(samples × joints × columns), ``labels`` the arm's truth table's numeric columns (bodies ×
columns). Call :meth:`PopulationDataset.set_epoch` before each epoch for a new order.
"""

from __future__ import annotations

import numpy as np
import pyarrow.types as types
import torch
from torch.utils.data import IterableDataset, get_worker_info

from .population import Population

__all__ = ["PopulationDataset"]


class PopulationDataset(IterableDataset):
    """The arms of a population as ``(features, labels)`` tensors."""

    def __init__(self, directory, columns, seed: int = 0, by_block: bool = True) -> None:
        super().__init__()
        self.population = Population(directory)
        self.columns = list(columns)
        self.seed = seed
        self.by_block = by_block
        self.epoch = 0

    def set_epoch(self, epoch: int) -> None:
        """The epoch whose order the next iteration follows."""
        self.epoch = epoch

    def __iter__(self):
        info = get_worker_info()
        worker, workers = (0, 1) if info is None else (info.id, info.num_workers)
        iterate = self.population.iterate_blocks if self.by_block else self.population.iterate
        for arm in iterate(self.seed, self.epoch, worker, workers, columns=["joint", *self.columns]):
            joints = arm.joints.column("joint").to_numpy()
            n = len(np.unique(joints))
            values = np.stack([arm.joints.column(c).to_numpy() for c in self.columns], axis=-1)
            features = torch.from_numpy(values.reshape(-1, n, len(self.columns)))
            numeric = [c for c, t in zip(arm.truth.column_names, arm.truth.schema.types)
                       if types.is_floating(t)]
            labels = np.stack([arm.truth.column(c).to_numpy() for c in numeric], axis=-1)
            yield features, torch.from_numpy(labels)


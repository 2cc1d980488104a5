"""armid.population: a 1000-arm population streamed by two worker processes, each arm once per
epoch, deterministically; the PyTorch dataset where torch is installed."""

import multiprocessing
import subprocess

import pytest

import armid
from armid.population import Population
from conftest import ROOT, binary

ARMS = 1000


@pytest.fixture(scope="module")
def population(tmp_path_factory):
    """population_rail at 1000 arms in shards of 300, each run cut to 0.2 s (11 samples)."""
    d = tmp_path_factory.mktemp("population")
    text = (ROOT / "scenarios" / "population_rail.toml").read_text()
    text = text.replace("end = 2.0", "end = 0.2", 1)
    lines = text.splitlines()
    # Four shards of 300 arms, the last of 100.
    lines = [f"arms = {ARMS}\narms_per_shard = 300" if line.startswith("arms = ") else line
             for line in lines]
    scenario = d / "population_rail.toml"
    scenario.write_text("\n".join(lines) + "\n")
    out = d / "arms"
    subprocess.run([binary("sim"), "population", str(scenario), "--out", str(out), "--quiet"],
                   check=True)
    return out


def worker_share(args):
    directory, seed, epoch, worker = args
    pop = Population(directory)
    seen = []
    for arm in pop.iterate(seed, epoch, worker, 2, columns=["t", "joint", "q", "tau"]):
        assert arm.joints.column_names == ["t", "joint", "q", "tau"]
        assert arm.truth.num_rows > 0
        seen.append(arm.index)
    return seen


def test_two_workers_stream_every_arm_once_per_epoch(population):
    pop = Population(population)
    assert len(pop) == ARMS
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        a, b = pool.map(worker_share, [(str(population), 7, 0, w) for w in (0, 1)])
    # The workers read their shares of `order` (one epoch read through; `iterate` yields the
    # arms of `order`, so another epoch's shares are checked on `order` alone).
    assert (a, b) == (pop.order(7, 0, 0, 2), pop.order(7, 0, 1, 2))
    for epoch in (0, 1):
        a, b = pop.order(7, epoch, 0, 2), pop.order(7, epoch, 1, 2)
        assert not set(a) & set(b)
        assert sorted(a + b) == list(range(ARMS))
        assert abs(len(a) - len(b)) <= 1
    # Deterministic per (seed, epoch, worker); another epoch, another order.
    assert pop.order(7, 0, 0, 2) == pop.order(7, 0, 0, 2)
    assert pop.order(7, 0, 0, 2) != pop.order(7, 1, 0, 2)


def blocks_share(args):
    directory, seed, epoch, worker = args
    return [(arm.index, arm.joints.num_rows, arm.manifest["run_id"])
            for arm in Population(directory).iterate_blocks(seed, epoch, worker, 2,
                                                            columns=["q", "tau"])]


def test_blocks_stream_every_arm_once_per_epoch_as_read_alone(population):
    pop = Population(population)
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        a, b = pool.map(blocks_share, [(str(population), 7, 0, w) for w in (0, 1)])
    seen = [k for k, _, _ in a + b]
    assert sorted(seen) == list(range(ARMS))
    # Blocks are dealt evenly: 34 blocks (row groups of 32 arms in shards of 300), 17 each.
    block = lambda k: (k // 300, k % 300 // 32)  # noqa: E731
    assert len(pop.blocks()) == 34
    assert len({block(k) for k, _, _ in a}) == len({block(k) for k, _, _ in b}) == 17
    assert all(rows == 11 * 7 and run.endswith(f"arm={k:05d}") for k, rows, run in a + b)
    # Deterministic per (seed, epoch, worker); another epoch, another order.
    again = [arm.index for arm in pop.iterate_blocks(7, 0, 0, 2, columns=["q"])]
    assert again == [k for k, _, _ in a]
    assert again != [arm.index for arm in pop.iterate_blocks(7, 1, 0, 2, columns=["q"])]
    # An arm of a block is the arm read alone (row-group statistics), column for column.
    for arm in list(pop.iterate_blocks(3, 0, 1, 2, columns=["q", "tau"],
                                       tables=["joints", "bodies"]))[:40]:
        alone = pop.read(arm.index, columns=["q", "tau"], tables=["joints", "bodies"])
        assert arm.joints.equals(alone.joints) and arm.bodies.equals(alone.bodies)
        assert arm.truth.equals(alone.truth) and arm.manifest == alone.manifest


def test_a_missing_column_is_refused_naming_file_and_column(population):
    pop = Population(population)
    with pytest.raises(armid.ArmidError, match="no column 'nope'") as e:
        pop.read(0, columns=["q", "nope"])
    assert "joints" in str(e.value) and "part-0.parquet" in str(e.value)
    with pytest.raises(armid.ArmidError, match="population.json"):
        Population(population / "joints")
    arm = pop.read(3, columns=["q"], tables=["joints", "bodies"])
    assert arm.joints.column_names == ["q"] and arm.bodies.num_columns == 0
    assert arm.manifest["run_id"].endswith("arm=00003")


def test_the_torch_dataset_gives_each_arm_once_with_two_workers(population):
    torch = pytest.importorskip("torch")
    from armid.torch import PopulationDataset

    data = PopulationDataset(population, columns=["q", "tau"])
    loader = torch.utils.data.DataLoader(data, batch_size=None, num_workers=2)
    count = 0
    for features, labels in loader:
        assert features.ndim == 3 and features.shape[-1] == 2
        assert labels.ndim == 2
        count += 1
    assert count == ARMS


STUB = {
    "torch/__init__.py": "from . import utils\nfrom_numpy = lambda a: a\n",
    "torch/utils/__init__.py": "from . import data\n",
    "torch/utils/data.py": (
        "class IterableDataset:\n    pass\n\nWORKER = None\n\n"
        "def get_worker_info():\n    return WORKER\n"
    ),
}


def test_the_torch_datasets_worker_shares_without_torch(population, tmp_path, monkeypatch):
    """Where torch is absent, the wrapper's own logic under a stand-in `torch` (from_numpy the
    identity, get_worker_info settable): each worker reads its share (the two add up to every
    arm, evenly; Population.order's own test shows they are disjoint), and each item is (samples × joints × columns, bodies × numeric truth columns)."""
    import importlib
    import sys
    from types import SimpleNamespace

    try:
        import torch  # noqa: F401

        pytest.skip("torch is installed: the real DataLoader test runs instead")
    except ImportError:
        pass
    for path, text in STUB.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in [m for m in sys.modules if m == "torch" or m.startswith(("torch.", "armid.torch"))]:
        monkeypatch.delitem(sys.modules, name)
    data_module = importlib.import_module("torch.utils.data")
    wrapper = importlib.import_module("armid.torch")
    data = wrapper.PopulationDataset(population, columns=["q", "tau"])
    truth_columns = None
    shares = []
    for worker in range(2):
        data_module.WORKER = SimpleNamespace(id=worker, num_workers=2)
        items = list(data)
        shares.append(len(items))
        for features, labels in items[:5]:
            assert features.ndim == 3 and features.shape[1:] == (7, 2)
            assert labels.ndim == 2 and labels.shape[0] == 6
            truth_columns = labels.shape[1]
    # Dealt by blocks of up to 32 arms (17 of the 34 blocks each): about half each.
    assert sum(shares) == ARMS and min(shares) >= 400
    assert truth_columns > 5
    data_module.WORKER = None
    monkeypatch.delitem(sys.modules, "armid.torch")

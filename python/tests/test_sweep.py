"""Your own estimator in a sweep: a Python callable and a command of the subprocess protocol
(the same NumPy least squares, python/examples/numpy_mass.py) scored beside MIM-GLS on the same
re-noised runs, with the Cramér–Rao column."""

import importlib.util
import sys

import pytest

import armid
from conftest import ROOT

EXAMPLE = ROOT / "python" / "examples" / "numpy_mass.py"
LEVELS = [1e-3, 3e-3, 1e-2, 3e-2, 1e-1]


def numpy_mass():
    spec = importlib.util.spec_from_file_location("numpy_mass", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.estimate


def study(workdir, estimators, external=""):
    path = workdir / "study.toml"
    path.write_text(
        f'name = "mine"\nscenarios = ["{ROOT / "scenarios" / "paper_rail.toml"}"]\nseeds = 3\n'
        f"estimators = {estimators!r}\n".replace("'", '"')
        + f"\n[[sweep]]\nsensor = \"force_torque\"\nlevels = {LEVELS!r}\n"
        + external
    )
    return path


def by_key(table, method):
    return {
        (r["level"], r["parameter"]): r
        for r in table.to_pylist()
        if r["method"] == method
    }


def test_a_callable_and_a_command_are_scored_beside_the_registry_with_the_bound(workdir):
    external = (
        f'\n[[external]]\nname = "numpy_cmd"\ncommand = ["{sys.executable}", "{EXAMPLE}"]\n'
    )
    path = study(workdir, ["mim_gls", "numpy_mass", "numpy_cmd"], external)
    table = armid.sweep(path, estimators={"numpy_mass": numpy_mass()}, out=workdir / "out")
    assert table.schema.names == (
        "scenario,method,sensor,level,parameter,truth,mean,bias,std,rmse,crb,runs".split(",")
    )
    mine, command, gls = (by_key(table, m) for m in ["numpy_mass", "numpy_cmd", "mim_gls"])
    # Every body's mass along some axis, at every level.
    assert {p for _, p in mine} >= {f"B{b}.m_e1" for b in range(1, 7)}
    # The callable and the command saw the same measurement and answered the same numbers.
    assert mine.keys() == command.keys()
    for key, row in mine.items():
        for c in ["mean", "std", "rmse", "crb"]:
            assert row[c] == command[key][c], (key, c)
    # Rows carry the bound as the registry's do; an ordinary least squares of a linear model
    # under the sensors' white noise sits near it: neither below (the noise was there) nor far
    # above.
    for (level, parameter), row in mine.items():
        assert row["runs"] == 3
        assert row["crb"] is not None and row["crb"] > 0, (level, parameter)
        assert row["crb"] == gls[(level, parameter)]["crb"]
        assert 0.2 * row["crb"] < row["rmse"] < 10 * row["crb"], (level, parameter, row)
    # The study's files hold the callable's rows beside the registry's.
    assert "numpy_mass" in (workdir / "out" / "sweep.csv").read_text()
    assert (workdir / "out" / "sweep.md").is_file()


def test_a_callable_that_raises_or_answers_nonsense_is_named(workdir):
    path = study(workdir, ["mine"])

    def broken(measurement):
        raise RuntimeError("no convergence")

    with pytest.raises(armid.ArmidError, match="mine.*no convergence"):
        armid.sweep(path, estimators={"mine": broken})
    with pytest.raises(armid.ArmidError, match="row 1.*B9.x"):
        armid.sweep(path, estimators={"mine": lambda m: {"B9.x": 1.0}})


def test_a_callable_may_not_take_a_registry_name(workdir):
    path = study(workdir, ["mim_gls"])
    with pytest.raises(armid.ArmidError, match="mim_gls"):
        armid.sweep(path, estimators={"mim_gls": numpy_mass()})


def test_the_measurement_holds_the_sensed_columns_and_no_truth(workdir):
    seen = []

    def look(measurement):
        seen.append(measurement)
        return {}

    armid.sweep(study(workdir, ["look"]), estimators={"look": look})
    m = seen[0]
    assert m.run_id == "paper_rail"
    assert m.description["measured"]["f"] == [1, 2, 3, 4, 5, 6]
    names = set(m.bodies.schema.names) | set(m.joints.schema.names)
    assert not any(n.endswith("_meas") or n in {"mass", "j11", "tau_friction"} for n in names)
    assert "truth" not in m.description and "model" not in m.description
    for body in m.description["geometry"]["links"]:
        assert body["body"]["mass"] == 0.0

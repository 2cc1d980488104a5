"""Shared paths: the workspace root and the project's command-line binaries (built by
``cargo build --release``; CI builds them before the Python tests)."""

import os
import pathlib
import shutil

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def binary(name: str) -> str:
    """The release binary ``name`` of the workspace (``ARMID_TARGET_DIR`` overrides the target
    directory)."""
    target = pathlib.Path(os.environ.get("ARMID_TARGET_DIR", ROOT / "target"))
    path = target / "release" / name
    if not path.is_file():
        pytest.fail(f"{path} not built: run `cargo build --release` first")
    return str(path)


@pytest.fixture
def workdir(tmp_path):
    yield tmp_path
    shutil.rmtree(tmp_path, ignore_errors=True)

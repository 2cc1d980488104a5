"""`validation report … --html`: the page of a run and of a sweep loaded in headless Chromium
(Debian's `chromium`; skipped where it is not installed — CI installs it): no script or console
error, everything drawn, and a screenshot in which the arm is seen."""

import re
import shutil
import subprocess

import pytest

from conftest import ROOT, binary
from pixels import coloured, read_png

CHROMIUM = next(
    (p for p in map(shutil.which, ["chromium", "chromium-browser", "google-chrome"]) if p), None
)
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="headless Chromium not installed (apt-get install chromium)"
)
# Flags for a closed network and a root user (see the machine notes: without the
# background-networking ones Chromium keeps trying to reach Google's hosts).
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--virtual-time-budget=3000",
]


def browse(page, workdir, *how):
    profile = workdir / f"profile-{len(list(workdir.glob('profile-*')))}"
    done = subprocess.run(
        [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *how, page.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def body_marks(page, workdir):
    dom = browse(page, workdir, "--dump-dom")
    tag = re.search(r"<body([^>]*)>", dom).group(1)
    return dict(re.findall(r'data-([a-z-]+)="([^"]*)"', tag))


def report(target, page):
    subprocess.run([binary("validation"), "report", str(target), "--html", str(page)], check=True)


def test_a_runs_page_loads_without_error_and_shows_the_arm(workdir):
    run = workdir / "paper_rail"
    scenario = ROOT / "scenarios" / "paper_rail.toml"
    subprocess.run([binary("sim"), "run", str(scenario), "--out", str(run)], check=True)
    page = workdir / "paper_rail.html"
    report(run, page)
    text = page.read_text()
    assert "http://" not in text and "https://" not in text, "the page must need no network"
    marks = body_marks(page, workdir)
    assert marks["status"] == "ready", marks
    assert marks["errors"] == "0", marks
    assert int(marks["arm-pixels"]) > 2000, marks
    shot = workdir / "paper_rail.png"
    browse(page, workdir, f"--screenshot={shot}", "--window-size=1280,1000")
    width, height, rows = read_png(shot)
    assert (width, height) == (1280, 1000)
    # The 3D view is the page's first figure (820 × 520 CSS pixels under the title): the
    # links are drawn there in colour.
    assert coloured(rows, (24, 110, 840, 620)) > 2000


def test_a_sweeps_page_loads_without_error(workdir):
    study = workdir / "study.toml"
    study.write_text(
        f'name = "page"\nscenarios = ["{ROOT / "scenarios" / "paper_rail.toml"}"]\nseeds = 3\n'
        'estimators = ["mim_stacked", "mim_gls"]\n\n[[sweep]]\nsensor = "force_torque"\n'
        "levels = [1e-3, 3e-3, 1e-2, 3e-2, 1e-1]\n"
    )
    out = workdir / "out"
    subprocess.run([binary("validation"), "study", str(study), "--out", str(out)], check=True)
    page = workdir / "sweep.html"
    report(out, page)
    marks = body_marks(page, workdir)
    assert marks["status"] == "ready" and marks["errors"] == "0", marks


def test_a_servo_identifications_page_loads_without_error(workdir):
    out = workdir / "so101_lerobot"
    subprocess.run(
        [binary("armid"), "identify", str(ROOT / "models/so101/lerobot/dataset"),
         "--model", str(ROOT / "models/menagerie/robotstudio_so101/so101.nomesh.xml"),
         "--config", str(ROOT / "models/so101/lerobot/so101_lerobot.toml"),
         "--terms", "kp", "--iterations", "0", "--out", str(out)],
        check=True,
    )
    marks = body_marks(out / "report.html", workdir)
    assert marks["status"] == "ready" and marks["errors"] == "0", marks
    dom = browse(out / "report.html", workdir, "--dump-dom")
    assert "dataset_episode_2" in dom and "O5.kp" in dom

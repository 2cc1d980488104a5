//! Faults (issue 13): `sim run` and `sim population` killed with `SIGKILL` at any moment leave
//! no half-written output (a run directory is complete or absent; a population shard is
//! complete or has no manifests), the next run removes the killed writer's temporaries, and a resumed
//! population is byte-identical to an uninterrupted one.

use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use crate::files;
use files::tree;

fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("sim-faults-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn shipped(name: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    std::fs::read_to_string(root.join(format!("scenarios/{name}.toml"))).unwrap()
}

fn sim(args: &[&Path]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_sim"));
    c.args(args).arg("--quiet").env("RAYON_NUM_THREADS", "1");
    c
}

/// Kills the child with SIGKILL; whether it had already ended by itself.
fn kill(mut child: Child) -> bool {
    let ended = child.try_wait().unwrap().is_some();
    let _ = child.kill();
    child.wait().unwrap();
    ended
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn a_killed_sim_run_leaves_a_complete_run_or_none_and_the_next_run_cleans_up() {
    let dir = temp("run");
    let file = dir.join("multisine.toml");
    std::fs::write(
        &file,
        shipped("paper_multisine")
            .replace("step = 5e-4", "step = 2e-3")
            .replace("sample_period = 0.01", "sample_period = 0.02"),
    )
    .unwrap();
    let (reference, out) = (dir.join("reference"), dir.join("out"));
    let run = |out: &Path| {
        let mut c = sim(&[Path::new("run"), &file, Path::new("--out"), out]);
        c.arg("--force");
        c
    };
    let t0 = Instant::now();
    assert!(run(&reference).status().unwrap().success());
    let whole = t0.elapsed();
    let expected = tree(&reference);
    assert!(expected.contains_key("SHA256SUMS"));
    // Killed at fractions of an uninterrupted run's time: while simulating, while writing
    // the files, while renaming.
    let mut completed = 0;
    for fraction in [0.3, 0.8, 0.93, 0.97, 1.0, 1.04] {
        let child = run(&out).spawn().unwrap();
        std::thread::sleep(whole.mul_f64(fraction));
        let ended = kill(child);
        if out.exists() {
            // Complete, and the same run.
            assert_eq!(tree(&out), expected, "killed at {fraction}: a partial run");
            completed += 1;
            std::fs::remove_dir_all(&out).unwrap();
        } else {
            assert!(!ended, "ended by itself without writing its output");
        }
        // Only hidden temporaries may be left beside it.
        for n in names(&dir) {
            assert!(
                ["multisine.toml", "reference"].contains(&n.as_str())
                    || n.starts_with(".out.partial-"),
                "killed at {fraction}: {n} left"
            );
        }
    }
    // The next run into the same place removes them.
    assert!(run(&out).status().unwrap().success());
    assert_eq!(tree(&out), expected);
    assert_eq!(names(&dir), ["multisine.toml", "out", "reference"]);
    eprintln!("{completed} of 6 killed runs had completed");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_killed_population_resumes_to_the_same_bytes() {
    let dir = temp("population");
    let file = dir.join("population.toml");
    std::fs::write(
        &file,
        shipped("population_rail")
            .replace("arms = 1000", "arms = 40\narms_per_shard = 2")
            .replace("end = 2.0", "end = 0.4"),
    )
    .unwrap();
    let (whole, out) = (dir.join("whole"), dir.join("out"));
    let population = |out: &Path| sim(&[Path::new("population"), &file, Path::new("--out"), out]);
    assert!(population(&whole).status().unwrap().success());
    let expected = tree(&whole);

    // Killed once a few shards (of 2 arms) are complete.
    let child = population(&out).spawn().unwrap();
    let manifests = out.join("manifests");
    let deadline = Instant::now() + Duration::from_secs(60);
    while std::fs::read_dir(&manifests).map_or(0, |d| d.count()) < 4 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(2));
    }
    assert!(
        !kill(child),
        "the population finished before it could be killed"
    );
    // Every shard with manifests is whole; the population is not.
    let layout = sim::population::Layout {
        arms: 40,
        arms_per_shard: 2,
    };
    let shards = std::fs::read_dir(&manifests).unwrap().count();
    assert!((4..20).contains(&shards), "{shards}");
    // A shard whose manifests folder exists may have been cut short (the writer was killed in
    // it): the complete ones are those with every file and checksum.
    let mut complete = 0;
    for s in 0..20 {
        if sim::dataset::population::shard_complete(&out, layout, s) {
            complete += 2;
            let rel = sim::dataset::population::shard_relative_files(s);
            let names: Vec<&str> = rel.iter().map(String::as_str).collect();
            let list = sim::dataset::population::shard_checksums(&out, s);
            sim::dataset::checksum::verify(&list, &out, &names).unwrap();
        }
    }
    // At most one shard per writer thread was in progress.
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    assert!(
        complete >= 2 * shards.saturating_sub(threads),
        "{complete} of {shards}"
    );
    let v = sim::dataset::verify::verify(&out).unwrap();
    assert!(
        !v.is_whole() && !v.missing.is_empty() && v.invalid.is_empty(),
        "{v:?}"
    );

    // Resumed: the complete arms are kept, the rest written, the killed writer's temporaries
    // removed; byte for byte the uninterrupted population.
    let o = population(&out).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains(&format!("kept {complete} complete arms")),
        "{text}"
    );
    assert!(tree(&out) == expected, "the resumed population differs");
    assert!(sim::dataset::verify::verify(&out).unwrap().is_whole());
    let partial = out.join(".partial");
    assert!(
        !partial.exists() || names(&partial).is_empty(),
        "{:?}",
        names(&partial)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

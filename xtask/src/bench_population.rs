//! `cargo xtask bench-population [--arms N]`: a large `population_rail` generated into shard
//! files on all cores (arms/s, files, bytes), verified, and read back one arm at a time by the
//! project's reader, by polars, DuckDB and pyarrow (`xtask/peer/read_population.py` in the
//! peer's virtual environment), with a scan of the whole joints table. A benchmark, not a test.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use sim::population::Shard;
use sim::scenario::Scenario;

/// Generates, verifies and reads a population of `arms` arms in `out` (removed afterwards
/// unless `keep`).
pub fn bench(
    root: &Path,
    arms: usize,
    out: &Path,
    keep: bool,
) -> Result<(), Box<dyn std::error::Error>> {
    let file = root.join("scenarios/population_rail.toml");
    let scenario = Scenario::from_path(&file)?.edited(|f| {
        if let Some(p) = f.population.as_mut() {
            p.arms = arms;
        }
    })?;
    if out.exists() {
        std::fs::remove_dir_all(out)?;
    }
    let threads = rayon::current_num_threads();
    let t0 = Instant::now();
    let g = sim::batch::generate(&scenario, out, Shard::ALL, false, None)?;
    let generated = t0.elapsed().as_secs_f64();
    let (files, bytes) = size(out)?;
    println!(
        "population_rail, {arms} arms on {threads} threads: {:.1} s ({:.0} arms/s), {} written; \
         {files} files, {:.2} GB",
        generated,
        g.written as f64 / generated,
        g.written,
        bytes as f64 / 1e9
    );
    let t0 = Instant::now();
    let v = sim::dataset::verify::verify(out)?;
    println!(
        "sim population verify: {:.1} s, {} of {} arms valid, whole: {}",
        t0.elapsed().as_secs_f64(),
        v.valid,
        v.arms,
        v.is_whole()
    );
    let arm = arms * 42 / 100 + 42 % arms.max(1);
    let t0 = Instant::now();
    let reader = sim::reading::PopulationReader::open(out)?;
    let run = reader.read(arm)?;
    let first = t0.elapsed().as_secs_f64();
    let t0 = Instant::now();
    let again = reader.read(arm)?;
    println!(
        "sim::reading::PopulationReader, arm {arm}: {:.1} ms (its shard's checksums \
         checked first), {:.1} ms again; {} samples",
        first * 1e3,
        t0.elapsed().as_secs_f64() * 1e3,
        run.measurements.samples().min(again.measurements.samples())
    );
    match readers_python(root) {
        Some(python) => {
            let status = Command::new(python)
                .arg(root.join("xtask/peer/read_population.py"))
                .arg(out)
                .arg(arm.to_string())
                .status()?;
            if !status.success() {
                return Err("xtask/peer/read_population.py failed".into());
            }
        }
        None => println!("polars/DuckDB: skipped (no Python with them could be set up)"),
    }
    if !keep {
        std::fs::remove_dir_all(out)?;
    }
    Ok(())
}

/// The peer's Python with polars and DuckDB (installed, pinned, if missing).
fn readers_python(root: &Path) -> Option<std::path::PathBuf> {
    let python = crate::bench::peer_python(root)?;
    let ready = || {
        Command::new(&python)
            .args(["-c", "import polars, duckdb"])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if !ready() {
        let pip = python.with_file_name("pip");
        let _ = Command::new(pip)
            .args(["install", "--quiet", "polars==2.1.0", "duckdb==2.0.1"])
            .status();
    }
    ready().then_some(python)
}

/// Files and bytes under `dir`.
fn size(dir: &Path) -> std::io::Result<(usize, u64)> {
    let (mut files, mut bytes) = (0, 0);
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        if entry.file_type()?.is_dir() {
            let (f, b) = size(&entry.path())?;
            files += f;
            bytes += b;
        } else {
            files += 1;
            bytes += entry.metadata()?.len();
        }
    }
    Ok((files, bytes))
}

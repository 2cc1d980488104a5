//! The same runs written by the published and the patched Rapier build, compared column by
//! column (part of `cargo xtask bench-rapier-patch`, see [`crate::rapier_patch`]).

use std::error::Error;
use std::path::{Path, PathBuf};
use std::process::Command;

use sim::dataset::reader::ParquetColumns;

use crate::rapier_patch::PatchedBuild;

/// `cargo xtask write-run SCENARIO OUT` (hidden): simulates and writes one run directory, as
/// `sim run` does; used to write the same run from both builds.
pub fn write_run(scenario: &Path, out: &Path) -> Result<(), Box<dyn Error>> {
    let scenario = sim::scenario::Scenario::from_path(scenario)?;
    let run = sim::simulate(&scenario, None);
    sim::dataset::write_run(out, &run.recording, &run.manifest, true)?;
    Ok(())
}

/// The largest difference between two builds' runs over one table's Float64 columns.
struct Worst {
    /// Largest |published − patched| over every column and row.
    absolute: (f64, String),
    /// Largest of that relative to the column's largest |value|.
    relative: (f64, String),
}

/// Writes each of `runs` (scenario paths relative to `root`), and panda_excitation without joint
/// friction, with both builds and prints the largest differences of q and q̇ and, per table, the
/// largest absolute and relative difference over every column and the column it is in.
pub fn compare(root: &Path, build: &PatchedBuild, runs: &[&str]) -> Result<(), Box<dyn Error>> {
    let tmp = std::env::temp_dir().join(format!("armid-rapier-runs-{}", std::process::id()));
    std::fs::create_dir_all(&tmp)?;
    let frictionless = without_joint_friction(&root.join(FRICTIONLESS), &tmp)?;
    let scenarios: Vec<_> = runs
        .iter()
        .map(|r| root.join(r))
        .chain([frictionless])
        .collect();
    let result = scenarios.iter().try_for_each(|scenario| {
        let stem = scenario
            .file_stem()
            .ok_or("scenario path has no name")?
            .to_string_lossy()
            .into_owned();
        let (a, b) = (
            tmp.join("published").join(&stem),
            tmp.join("patched").join(&stem),
        );
        write_with(&std::env::current_exe()?, scenario, &a)?;
        write_with(&build.xtask(), scenario, &b)?;
        let (pa, pb) = (
            ParquetColumns::read(&a.join("joints.parquet"))?,
            ParquetColumns::read(&b.join("joints.parquet"))?,
        );
        for column in ["q", "qd"] {
            let (diff, relative) = difference(column, &pa.f64(column)?, &pb.f64(column)?)?;
            println!(
                "{stem} {column}: published vs patched, largest difference {diff:.1e} (relative {relative:.1e})"
            );
        }
        for table in ["joints.parquet", "bodies.parquet"] {
            let worst = worst(
                &ParquetColumns::read(&a.join(table))?,
                &ParquetColumns::read(&b.join(table))?,
            )?;
            println!(
                "{stem} {table}, every column: largest difference {:.1e} ({}), relative {:.1e} ({})",
                worst.absolute.0, worst.absolute.1, worst.relative.0, worst.relative.1
            );
        }
        Ok::<(), Box<dyn Error>>(())
    });
    let _ = std::fs::remove_dir_all(&tmp);
    result
}

/// The scenario also compared without its joints' friction (see [`without_joint_friction`]).
const FRICTIONLESS: &str = "scenarios/panda_excitation.toml";

/// A copy of `scenario` in `dir` without any joint's `friction`, its model path made absolute and
/// its horizon cut to 10 s. panda_excitation's Coulomb friction (smoothing 0.01 rad/s at
/// dt = 5e-4 s) is stiff enough for the distal joints to chatter at velocity reversals, which
/// amplifies differences of rounding between builds to ~1e-2 rad/s in q̇; without it the two
/// builds' runs agree to rounding.
fn without_joint_friction(scenario: &Path, dir: &Path) -> Result<PathBuf, Box<dyn Error>> {
    let text = std::fs::read_to_string(scenario)?;
    let mut file: toml::Table = toml::from_str(&text)?;
    let base = scenario.parent().ok_or("scenario path has no folder")?;
    if let Some(toml::Value::String(model)) = file.get_mut("model") {
        *model = base.join(&*model).to_string_lossy().into_owned();
    }
    if let Some(toml::Value::Table(time)) = file.get_mut("time") {
        time.insert("end".into(), toml::Value::Float(10.0));
    }
    if let Some(toml::Value::Array(joints)) = file.get_mut("joint") {
        for joint in joints.iter_mut().filter_map(toml::Value::as_table_mut) {
            joint.remove("friction");
        }
    }
    let stem = scenario
        .file_stem()
        .ok_or("scenario path has no name")?
        .to_string_lossy();
    let out = dir.join(format!("{stem}_without_friction.toml"));
    std::fs::write(&out, toml::to_string(&file)?)?;
    Ok(out)
}

fn write_with(xtask: &Path, scenario: &Path, out: &Path) -> Result<(), Box<dyn Error>> {
    let what = format!("{} write-run {}", xtask.display(), scenario.display());
    let mut write = Command::new(xtask);
    write.arg("write-run").arg(scenario).arg(out);
    crate::rapier_patch::stdout_of(&mut write, &what).map(drop)
}

/// The worst difference over the Float64 columns both tables have; an error if the tables'
/// column sets or lengths differ.
fn worst(a: &ParquetColumns, b: &ParquetColumns) -> Result<Worst, Box<dyn Error>> {
    let mut names: Vec<&str> = a.names().collect();
    names.sort_unstable();
    if names.len() != b.names().count() || names.iter().any(|n| !b.has(n)) {
        return Err("the two builds wrote different columns".into());
    }
    let mut worst = Worst {
        absolute: (0.0, String::new()),
        relative: (0.0, String::new()),
    };
    for name in names {
        let (Ok(x), Ok(y)) = (a.f64(name), b.f64(name)) else {
            continue; // not a Float64 column
        };
        let (diff, relative) = difference(name, &x, &y)?;
        if diff > worst.absolute.0 {
            worst.absolute = (diff, name.to_string());
        }
        if relative > worst.relative.0 {
            worst.relative = (relative, name.to_string());
        }
    }
    Ok(worst)
}

/// The largest |x − y| of a column, and that relative to the column's largest |x|.
fn difference(name: &str, x: &[f64], y: &[f64]) -> Result<(f64, f64), Box<dyn Error>> {
    if x.len() != y.len() {
        return Err(format!("column {name}: {} rows against {}", x.len(), y.len()).into());
    }
    let scale = x.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
    let diff = x
        .iter()
        .zip(y)
        .map(|(p, q)| match (p.is_nan(), q.is_nan()) {
            (true, true) => 0.0,
            (false, false) => (p - q).abs(),
            _ => f64::INFINITY, // a value on one side only
        })
        .fold(0.0_f64, f64::max);
    Ok((diff, if scale > 0.0 { diff / scale } else { diff }))
}

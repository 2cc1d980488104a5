//! Identifiability that holds for every motion (issue 61): clean runs drawn at random — robots
//! (the UR10, the Kinova Jaco 2 and the Franka Panda as their URDFs describe them, and random
//! 2–7-joint arms of `scenarios/population_random.toml`), every joint on a Fourier motion of
//! random offset, base frequency, harmonics and amplitude, random duration (0.5–10 s) and sample
//! rate (100 Hz–1 kHz), no noise, no friction — and every registry estimator that applies, on the
//! run as a single run and as an excitation run. Of each:
//! - every value it calls identifiable is the truth to 1e-8 of the largest truth it estimates
//!   (its scale; those whose error on exact data is their discretization's, [`DISCRETIZED`],
//!   to three of the standard deviations they state, as the filters in `identifiability.rs`);
//! - every base parameter it calls not identifiable is undetermined or ill-conditioned by an
//!   SVD computed here: the run's base regressor ([`validation::regressor`], from the recorded
//!   `q, q̇, q̈`), with a Coulomb and a viscous column per joint for an estimator that estimates
//!   friction beside it, columns scaled to unit norm, `U Σ Vᵀ` (nalgebra's, checked to rebuild
//!   the matrix to 1e-10). Parameter `k`'s condition is
//!   `σ_max ‖(V Σ⁻¹)_k‖` (how much a relative error of the data can move it, in units of its
//!   column), a singular value below rounding (`ε σ_max`) taken as `ε σ_max`. A
//!   parameter the data determine with a condition below [`WELL_CONDITIONED`] must be
//!   reported: 100 times inside the estimators' own limit (`validation::lsq::CONDITION_LIMIT`,
//!   1e5), so that the two computations' rounding cannot decide the check.
//!
//! A failing draw prints its scenario file. [`FAST_DRAWS`] draws run in CI (short runs); the long
//! part, `ARMID_DRAWS=N cargo test --release -p validation --test suite identifiable_draws --
//! --ignored`, runs N draws (default [`LONG_DRAWS`]) of any length, numbered from 1000 (or from
//! `ARMID_FIRST_DRAW`: one failing draw is rerun alone with `ARMID_FIRST_DRAW=k ARMID_DRAWS=1`). The slow UR10 motion of issue
//! 61 (base frequencies 0.36–0.54 Hz, amplitudes 0.1–0.4 rad about the zero pose, 4 s at 100 Hz
//! and at 1 kHz) is a fixed case of both.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::{Path, PathBuf};

use nalgebra::DMatrix;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use validation::estimate::engine::{Loaded, run_all};
use validation::estimate::score::Row;
use validation::estimate::{Estimator, Options, Role, registry};
use validation::regressor::BaseParameters;

/// Draws in CI.
const FAST_DRAWS: u64 = 6;
/// Draws of the long part, unless `ARMID_DRAWS` says otherwise.
const LONG_DRAWS: u64 = 60;
/// A parameter whose condition (module docs) is below this must be reported.
const WELL_CONDITIONED: f64 = 1e3;
/// Estimators whose error on exact data is their discretization's, to be within three of the
/// standard deviations they state (or the exact rule's 1e-8 of the scale, where that is more):
/// the two Kalman filters integrate the identified dynamics from sample to sample, and
/// `mim_encoders` differentiates the measured angles (five-point differences, exact to `O(h⁴)`).
/// Each states a deviation that covers its discretization's bias, estimated from a second run on
/// every other sample (`validation::estimate::discretization`). Their values are checked on runs
/// sampled at [`FINE_RATE`] or faster, as real arms log: below it (100–200 Hz, `T ω` up to 0.15)
/// the bias no longer falls as the step's order says, and the estimate of it can fall short (the
/// filters, on 5 of 60 long draws at 100–200 Hz in issue 61's note).
const DISCRETIZED: [&str; 3] = ["ekf", "ukf", "mim_encoders"];

/// The least sample rate (Hz) at which [`DISCRETIZED`] estimators' values are checked.
const FINE_RATE: f64 = 500.0;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A robot to draw motions for: its URDF (absolute) and name.
struct Robot {
    name: String,
    urdf: PathBuf,
}

/// The robot of draw `k`: the three makers' arms in turn, then a random arm.
fn robot(k: u64, dir: &Path) -> Robot {
    let maker = |name: &str, file: &str| Robot {
        name: name.into(),
        urdf: root().join(file),
    };
    match k % 4 {
        0 => maker("ur10", "models/example-robot-data/ur10_robot.urdf"),
        1 => maker("jaco2", "models/example-robot-data/kinova.urdf"),
        2 => maker("panda", "models/panda.urdf"),
        _ => {
            let population = sim::scenario::Scenario::from_path(
                &root().join("scenarios/population_random.toml"),
            )
            .unwrap();
            let arm = population.population_arm(k as usize).unwrap();
            let urdf = dir.join(format!("random{k}.urdf"));
            std::fs::write(&urdf, sim::urdf::export::to_string(&arm.chain).unwrap()).unwrap();
            Robot {
                name: format!("random arm {k}"),
                urdf,
            }
        }
    }
}

/// One joint's motion: offset (rad), base frequency (Hz), and the amplitude (rad) and phase of
/// each harmonic.
struct Motion {
    offset: f64,
    frequency: f64,
    harmonics: Vec<(f64, f64)>,
}

impl Motion {
    /// The scenario's `motion = { … }` (`sim::profile::Profile::Fourier`: `a_l/(lω) sin −
    /// b_l/(lω) cos`, so harmonic `l` of amplitude `α`, phase `φ` is `a = lωα cos φ`,
    /// `b = −lωα sin φ`).
    fn toml(&self) -> String {
        let w = 2.0 * std::f64::consts::PI * self.frequency;
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for (l, (amp, phase)) in self.harmonics.iter().enumerate() {
            let lw = (l + 1) as f64 * w;
            a.push(format!("{:?}", lw * amp * phase.cos()));
            b.push(format!("{:?}", -lw * amp * phase.sin()));
        }
        format!(
            "{{ type = \"fourier\", base_frequency = {:?}, offset = {:?}, a = [{}], b = [{}] }}",
            self.frequency,
            self.offset,
            a.join(", "),
            b.join(", ")
        )
    }
}

/// A random motion within `limits` (the joint's range, if it has one).
fn motion(rng: &mut ChaCha8Rng, limits: Option<(f64, f64)>) -> Motion {
    let amplitude = rng.random_range(0.05..0.4);
    let count = rng.random_range(1..=3);
    let weights: Vec<f64> = (0..count).map(|_| rng.random_range(0.2..1.0)).collect();
    let total: f64 = weights.iter().sum();
    let harmonics = (weights.iter())
        .map(|w| {
            (
                amplitude * w / total,
                rng.random_range(0.0..std::f64::consts::TAU),
            )
        })
        .collect();
    let offset = match limits {
        Some((lower, upper)) => {
            let free = ((upper - lower) / 2.0 - amplitude - 0.05).max(0.0);
            (lower + upper) / 2.0 + 0.8 * free * rng.random_range(-1.0..1.0)
        }
        None => rng.random_range(-1.0..1.0),
    };
    Motion {
        offset,
        frequency: rng.random_range(0.1..0.8),
        harmonics,
    }
}

/// A scenario file: `robot` on `motions`, `end` seconds sampled at `rate` Hz.
fn scenario(name: &str, robot: &Robot, motions: &[Motion], end: f64, rate: f64) -> String {
    let mut s = format!(
        "name = \"{name}\"\ndescription = \"{}: a drawn clean Fourier run\"\nmodel = \"{}\"\n\
         seed = 0\n\n[time]\nend = {end:?}\nstep = {:?}\nsample_period = {:?}\n",
        robot.name,
        robot.urdf.display(),
        1.0 / rate,
        1.0 / rate
    );
    for (k, m) in motions.iter().enumerate() {
        write!(s, "\n[[joint]]\nid = {}\nmotion = {}\n", k + 1, m.toml()).unwrap();
    }
    s
}

/// Draw `k`: its scenario file's text. Half the draws give every joint one base frequency
/// and last a whole number (2–5) of its periods, as an excitation is designed (the whole-arm
/// identifiers need two periods or more); the others give each joint its own. Long draws run
/// 0.5–10 s, short ones 0.5–2 s.
fn draw(k: u64, long: bool, dir: &Path) -> (String, String) {
    let mut rng = ChaCha8Rng::seed_from_u64(k);
    let robot = robot(k, dir);
    let chain = sim::urdf::read(&robot.urdf).unwrap();
    let mut motions: Vec<Motion> = (chain.links.iter())
        .map(|l| motion(&mut rng, l.joint.limits.map(|r| (r.lower, r.upper))))
        .collect();
    let longest: f64 = if long { 10.0 } else { 2.0 };
    let mut end = rng.random_range(0.5..longest);
    if rng.random_bool(0.5) {
        // Whole periods of one base frequency of at most 2 Hz.
        let periods = rng
            .random_range(2..=5)
            .min((2.0 * end).floor().max(2.0) as i32) as f64;
        end = end.max(periods / 2.0);
        for m in &mut motions {
            m.frequency = periods / end;
        }
    }
    let rate: f64 = [100.0, 200.0, 250.0, 500.0, 1000.0][rng.random_range(0..5)];
    let end = (end * rate).round() / rate;
    let name = format!("draw{k}");
    let text = scenario(&name, &robot, &motions, end, rate);
    (name, text)
}

/// Issue 61's slow UR10 motion, 4 s at `rate` Hz about the zero pose: each joint one harmonic
/// of base frequency 0.36–0.54 Hz and Fourier coefficient 0.1–0.4 (an angle amplitude of
/// 0.03–0.18 rad), drawn from seed 1. On 11 of 30 such draws at 100 Hz, `idim_single` called
/// 24–26 of its 36 base parameters identifiable before the fix, each off the truth by more
/// than 1e-8 of the scale on exact data.
fn slow_ur10(rate: f64) -> (String, String) {
    let robot = Robot {
        name: "ur10".into(),
        urdf: root().join("models/example-robot-data/ur10_robot.urdf"),
    };
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let motions: Vec<Motion> = (0..6)
        .map(|_| {
            let frequency = rng.random_range(0.36..0.54);
            let a: f64 = rng.random_range(0.1..0.4);
            let amplitude = a / (2.0 * std::f64::consts::PI * frequency);
            Motion {
                offset: 0.0,
                frequency,
                harmonics: vec![(amplitude, rng.random_range(0.0..std::f64::consts::TAU))],
            }
        })
        .collect();
    let name = format!("slow_ur10_{rate}");
    (name.clone(), scenario(&name, &robot, &motions, 4.0, rate))
}

/// The run of a scenario text, simulated, written and read back.
fn clean_run(name: &str, text: &str, dir: &Path) -> Loaded {
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, text).unwrap();
    let scenario = sim::scenario::Scenario::from_path(&path).unwrap();
    let out = dir.join(name);
    let run = sim::reading::write_and_read(&sim::simulate(&scenario, None), &out).unwrap();
    std::fs::remove_dir_all(&out).unwrap();
    Loaded::from(run)
}

/// Per base parameter, its condition in the run's column-scaled base regressor (with a Coulomb
/// and a viscous column per joint where `friction`): module docs.
fn conditions(run: &Loaded, friction: bool) -> Vec<f64> {
    let data = &run.measurements;
    let chain = &data.geometry;
    let base = BaseParameters::of_chain(chain);
    let nj = data.joints.len();
    let states: Vec<[Vec<f64>; 3]> = (0..data.samples())
        .map(|k| {
            let column = |f: fn(&sim::reading::JointSeries) -> &Vec<f64>| {
                data.joints.iter().map(|j| f(j)[k]).collect::<Vec<f64>>()
            };
            [column(|j| &j.q), column(|j| &j.qd), column(|j| &j.qdd)]
        })
        .collect();
    let yb = base.regressor(&validation::regressor::stacked(chain, &states));
    let extra = if friction { 2 * nj } else { 0 };
    let mut w = DMatrix::zeros(yb.nrows(), yb.ncols() + extra);
    w.columns_mut(0, yb.ncols()).copy_from(&yb);
    if friction {
        for (k, state) in states.iter().enumerate() {
            for j in 0..nj {
                w[(k * nj + j, yb.ncols() + 2 * j)] = state[1][j].signum();
                w[(k * nj + j, yb.ncols() + 2 * j + 1)] = state[1][j];
            }
        }
    }
    let floor = 1e4 * f64::EPSILON * w.norm();
    for mut c in w.column_iter_mut() {
        let n = c.norm();
        if n > floor {
            c /= n;
        } else {
            c.fill(0.0);
        }
    }
    let svd = w.clone().svd(true, true);
    let (u, v_t) = (svd.u.unwrap(), svd.v_t.unwrap());
    // nalgebra's SVD can return a factorization that is not the matrix's where singular values
    // repeat (issue 61's note; why `validation::lsq::svd` is Jacobi's): this independent check is
    // only one if its own factorization holds.
    let rebuilt = &u * DMatrix::from_diagonal(&svd.singular_values) * &v_t;
    let off = (rebuilt - &w).amax();
    assert!(off < 1e-10, "the test's own SVD is {off:e} off its matrix");
    let largest = svd.singular_values.max();
    (0..base.len())
        .map(|p| {
            let sum: f64 = (svd.singular_values.iter().enumerate())
                .map(|(i, s)| (v_t[(i, p)] / s.max(f64::EPSILON * largest)).powi(2))
                .sum();
            largest * sum.sqrt()
        })
        .collect()
}

/// Every failure of the rules (module docs) among one experiment's `rows`.
fn check(rows: &[Row], run: &Loaded, failures: &mut Vec<String>) {
    let t = &run.measurements.t;
    let rate = ((t.len() - 1) as f64 / (t[t.len() - 1] - t[0])).round();
    let mut scale: BTreeMap<&str, f64> = BTreeMap::new();
    for r in rows {
        if let Some(t) = r.truth {
            let s = scale.entry(&r.method).or_default();
            *s = s.max(t.abs());
        }
    }
    let mut condition: BTreeMap<bool, Vec<f64>> = BTreeMap::new();
    for r in rows {
        let what = || {
            format!(
                "{} {}: {:?} against the truth {:?} (std {:?}, scale {:e})",
                r.method,
                r.parameter,
                r.estimate,
                r.truth,
                r.std,
                scale[r.method.as_str()]
            )
        };
        let Some(t) = r.truth else { continue };
        match r.estimate {
            Some(_) if DISCRETIZED.contains(&r.method.as_str()) && rate < FINE_RATE => {}
            Some(e) if DISCRETIZED.contains(&r.method.as_str()) => {
                let exact = 1e-8 * scale[r.method.as_str()];
                if !r.std.is_some_and(|s| (e - t).abs() <= (3.0 * s).max(exact)) {
                    failures.push(format!("{}: error beyond 3 posterior std", what()));
                }
            }
            Some(e) => {
                if (e - t).abs() > 1e-8 * scale[r.method.as_str()] {
                    failures.push(format!("{}: not exact", what()));
                }
            }
            None => {
                let Some(k) = r.parameter.strip_prefix("base.") else {
                    continue;
                };
                let k: usize = k.parse().unwrap();
                let friction = rows.iter().any(|o| {
                    o.method == r.method
                        && (o.parameter.contains("coulomb") || o.parameter.contains("viscous"))
                });
                let c = condition
                    .entry(friction)
                    .or_insert_with(|| conditions(run, friction))[k - 1];
                if c < WELL_CONDITIONED {
                    failures.push(format!(
                        "{}: called not identifiable, but its condition is {c:.3e}",
                        what()
                    ));
                }
            }
        }
    }
}

/// Runs every estimator that applies on each case (name, scenario text); panics with the
/// failing cases' scenarios.
fn run_cases(tag: &str, cases: Vec<(String, String)>) {
    let dir = std::env::temp_dir().join(format!("validation-draws-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let estimators = registry(&Options::default());
    let estimators: Vec<&dyn Estimator> = estimators.iter().map(|e| e.as_ref()).collect();
    let mut report = Vec::new();
    for (name, text) in &cases {
        let run = clean_run(name, text, &dir);
        let mut failures = Vec::new();
        for role in [Role::Single, Role::Excitation] {
            let outcome = run_all(&estimators, &[(role, &run)]);
            let mut counts: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
            for r in outcome.rows.iter().filter(|r| r.truth.is_some()) {
                let c = counts.entry(&r.method).or_default();
                if r.estimate.is_some() {
                    c.0 += 1
                } else {
                    c.1 += 1
                }
            }
            eprintln!("{name} {role:?}: {counts:?} failed {:?}", outcome.failed);
            let mut local = Vec::new();
            check(&outcome.rows, &run, &mut local);
            failures.extend(local.into_iter().map(|f| format!("  as {role:?}: {f}")));
        }
        eprintln!(
            "{name}: {} failures\n{}",
            failures.len(),
            failures.join("\n")
        );
        if !failures.is_empty() {
            report.push(format!(
                "{name}:\n{}\nscenario:\n{text}",
                failures.join("\n")
            ));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(report.is_empty(), "{}", report.join("\n\n"));
}

#[test]
fn identifiable_values_are_exact_and_the_rest_ill_conditioned_on_drawn_motions() {
    let dir = std::env::temp_dir().join(format!("validation-fast-urdf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut cases = vec![slow_ur10(100.0)];
    cases.extend((0..FAST_DRAWS).map(|k| draw(k, false, &dir)));
    run_cases("fast", cases);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
#[ignore = "long: ARMID_DRAWS=N cargo test --release -p validation --test suite identifiable_draws -- --ignored"]
fn identifiability_holds_on_many_drawn_motions() {
    let dir = std::env::temp_dir().join(format!("validation-long-urdf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let draws = std::env::var("ARMID_DRAWS").map_or(LONG_DRAWS, |n| n.parse().unwrap());
    let first = std::env::var("ARMID_FIRST_DRAW").map_or(1000, |n| n.parse().unwrap());
    let mut cases = vec![slow_ur10(100.0), slow_ur10(1000.0)];
    cases.extend((first..first + draws).map(|k| draw(k, true, &dir)));
    run_cases("long", cases);
    std::fs::remove_dir_all(&dir).unwrap();
}

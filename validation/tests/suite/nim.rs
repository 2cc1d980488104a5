//! NIM: inputs come from measurements only; a saved model reloads with its standardization and
//! schema; the paper's protocol runs on `paper_rail` (at a coarser step).

use std::path::Path;

use sim::reading::write_and_read;
use sim::scenario::Scenario;
use validation::estimate::nim::features::rows;
use validation::estimate::nim::mlp::BurnMlp;
use validation::estimate::nim::population::{pool, recipe};
use validation::estimate::nim::protocol::{TestInputs, paper};
use validation::estimate::nim::{Inputs, Nim, TrainConfig};

fn paper_rail(name: &str) -> sim::reading::Run {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/paper_rail.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    let s = Scenario::from_toml(&text, "paper_rail (test)").unwrap();
    let dir = std::env::temp_dir().join(format!("nim-test-{}-{name}", std::process::id()));
    let run = write_and_read(&sim::simulate(&s, None), &dir).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    run
}

#[test]
fn nim_inputs_never_come_from_the_truth() {
    let mut run = paper_rail("truth");
    let samples: Vec<usize> = (0..100).collect();
    let kinds = Inputs::ALL;
    let before: Vec<Vec<f32>> = kinds
        .iter()
        .map(|&i| rows(&run.measurements, 3, i, &samples))
        .collect();
    // Change every truth the run holds: the inputs cannot change.
    for b in &mut run.truth.bodies {
        b.mass *= 2.0;
        b.j = [1.0; 3];
    }
    for l in &mut run.manifest.model.links {
        l.body.mass = -1.0;
    }
    for (inputs, before) in kinds.iter().zip(&before) {
        assert_eq!(before, &rows(&run.measurements, 3, *inputs, &samples));
        assert_eq!(before.len(), samples.len() * inputs.len());
        for name in inputs.names() {
            assert!(
                !["mass", "m", "j11", "j22", "j33", "length", "radius"].contains(&name.as_str()),
                "{name}"
            );
        }
    }
}

/// The 15 centroidal inputs are the two sides of each body's Newton–Euler equations: with the
/// truth (read here only to check), `force = m · specific force` and
/// `moment = J ω̇ + ω × J ω` at every sample of every body.
#[test]
fn centroidal_inputs_satisfy_newton_euler_with_the_truth() {
    let run = paper_rail("centroidal");
    let samples: Vec<usize> = (0..=100).collect();
    for b in 1..=6 {
        let t = &run.truth.bodies[b - 1];
        let x = rows(&run.measurements, b, Inputs::Centroidal, &samples);
        let j = nalgebra::Matrix3::from_diagonal(&nalgebra::Vector3::from(t.j));
        let (mut worst_f, mut worst_m) = (0.0f64, 0.0f64);
        for r in x.chunks(15) {
            let v = |i: usize| nalgebra::Vector3::new(r[i], r[i + 1], r[i + 2]).cast::<f64>();
            let (f, m, s, w, wd) = (v(0), v(3), v(6), v(9), v(12));
            worst_f = worst_f.max((f - t.mass * s).norm() / (t.mass * s.norm()));
            let euler = j * wd + w.cross(&(j * w));
            worst_m = worst_m.max((m - euler).norm() / (t.j[0] + t.j[1] + t.j[2]));
        }
        // f32 inputs and the run's integration residual (dt 1e-4) bound the closure.
        assert!(worst_f < 1e-5, "B{b} force closure {worst_f:e}");
        assert!(
            worst_m < 1e-4,
            "B{b} moment closure {worst_m:e} (per kg·m²)"
        );
    }
}

#[test]
fn paper_protocol_runs_and_a_saved_nim_reloads_identically() {
    let run = paper_rail("protocol");
    let config = TrainConfig::default();
    let results = paper::<BurnMlp>(&run, Inputs::Paper, TestInputs::Recorded, &config);
    assert_eq!(results.len(), 6);
    for r in &results {
        let t = &run.truth.bodies[r.body - 1];
        let rel = ((r.estimate[0] - t.mass) / t.mass).abs();
        assert!(rel < 0.1, "B{}: {:?} vs {}", r.body, r.estimate, t.mass);
        assert!(r.train.final_mse < 1e-5 || r.train.steps == config.max_steps);
    }
    // A generalizing NIM (mean and variance outputs) trained on one body, saved and loaded:
    // same predictions and variances, same schema.
    let samples: Vec<usize> = (0..80).collect();
    let x = rows(&run.measurements, 2, Inputs::Centroidal, &samples);
    let y: Vec<f32> = samples
        .iter()
        .flat_map(|k| [1.0 + *k as f32, 1.0, 2.0, 2.5])
        .collect();
    let (nim, report) = Nim::<BurnMlp>::train(Inputs::Centroidal, &x, &y, &recipe(50));
    assert!(report.final_mse < report.first_mse, "{report:?}");
    assert!(nim.predict(&x).iter().all(|p| p.variance.is_some()));
    let path = std::env::temp_dir().join(format!("nim-model-{}.safetensors", std::process::id()));
    nim.save(&path).unwrap();
    nim.save(&path).unwrap(); // saving again replaces the file
    let loaded = Nim::<BurnMlp>::load(&path).unwrap();
    assert_eq!(loaded.schema, Inputs::Centroidal);
    assert!(loaded.variance);
    assert_eq!(loaded.inputs, nim.inputs);
    assert_eq!(nim.predict(&x), loaded.predict(&x));
    // The nalgebra forward pass on the same file: the same predictions to 1e-6.
    let dense = Nim::<validation::estimate::nim::dense::Dense>::load(&path).unwrap();
    let widths = [Inputs::Centroidal.len(), 128, 128, 128, 128, 128, 8];
    assert_eq!(dense.network.widths(), widths);
    let (mut worst, mut peak) = (0.0f64, 0.0f64);
    for (a, b) in nim.predict(&x).iter().zip(dense.predict(&x)) {
        let (va, vb) = (a.variance.unwrap(), b.variance.unwrap());
        for i in 0..4 {
            worst = worst.max((a.value[i] - b.value[i]).abs() / a.value[i].abs().max(1e-3));
            worst = worst.max((va[i] - vb[i]).abs() / va[i]);
            peak = peak.max(a.value[i].abs());
        }
    }
    assert!(
        worst <= 1e-6 && peak > 1.0,
        "burn and nalgebra differ by {worst:e}"
    );
    std::fs::remove_file(&path).unwrap();
}

/// A run's estimate pools every sample but, for the schemas that divide by the motion's scale,
/// those at rest (where their inputs would be `0/0`); a body at rest throughout keeps them all.
#[test]
fn samples_at_rest_are_not_pooled_by_the_normalized_schemas() {
    use nalgebra::Vector3;
    let mut run = paper_rail("rest");
    let n = run.measurements.samples();
    let body = &mut run.measurements.bodies[2];
    for k in [0, 7] {
        body.omega[k] = Vector3::zeros();
        body.omega_dot[k] = Vector3::zeros();
    }
    // Moving at 1e-4 of the run's largest `|ω̇| + |ω|²`: at rest too.
    let largest = (0..n)
        .map(|k| body.omega_dot[k].norm() + body.omega[k].norm_squared())
        .fold(0.0, f64::max);
    body.omega[9] = Vector3::zeros();
    body.omega_dot[9] = Vector3::new(0.0, 1e-4 * largest, 0.0);
    let data = &run.measurements;
    for schema in Inputs::ALL {
        let pooled = schema.pooled_samples(data, 3);
        if schema.is_normalized() {
            let expected: Vec<usize> = (0..n).filter(|k| ![0, 7, 9].contains(k)).collect();
            assert_eq!(pooled, expected, "{}", schema.id());
        } else {
            assert_eq!(pooled, (0..n).collect::<Vec<_>>(), "{}", schema.id());
        }
    }
    let still = &mut run.measurements.bodies[2];
    still.omega.iter_mut().for_each(|w| *w = Vector3::zeros());
    still
        .omega_dot
        .iter_mut()
        .for_each(|w| *w = Vector3::zeros());
    assert_eq!(
        Inputs::PerAxisLog
            .pooled_samples(&run.measurements, 3)
            .len(),
        n
    );
}

/// Whether `v = (m, J11, J22, J33)` is a physically valid body: finite, positive mass and
/// moments, triangle inequalities.
fn valid(v: &[f64; 4]) -> bool {
    let [m, a, b, c] = *v;
    v.iter().all(|x| x.is_finite())
        && m > 0.0
        && a > 0.0
        && b > 0.0
        && c > 0.0
        && a <= b + c
        && b <= a + c
        && c <= a + b
}

#[test]
fn nim_outputs_are_physically_valid_whatever_the_inputs() {
    let run = paper_rail("valid");
    // The centroidal inputs, and the per-axis logarithms, whose mass is relative to an input.
    for schema in [Inputs::Centroidal, Inputs::PerAxisLog] {
        valid_whatever_the_inputs(&run, schema);
    }
}

fn valid_whatever_the_inputs(run: &sim::reading::Run, schema: Inputs) {
    let samples: Vec<usize> = (0..80).collect();
    let x = rows(&run.measurements, 3, schema, &samples);
    let t = &run.truth.bodies[2];
    let y: Vec<f32> = samples
        .iter()
        .flat_map(|k| {
            let s = 1.0 + 0.01 * *k as f64;
            [t.mass * s, t.j[0] * s, t.j[1] * s, t.j[2] * s].map(|v| v as f32)
        })
        .collect();
    let (nim, _) = Nim::<BurnMlp>::train(schema, &x, &y, &recipe(50));
    let n = schema.len();
    // Adversarial rows: zeros, each input alone at ±1e30, everything at ±f32::MAX, the
    // training rows scaled by 1e6 and with flipped signs, alternating extremes.
    let mut adversarial: Vec<Vec<f32>> = vec![vec![0.0; n], vec![f32::MAX; n], vec![-f32::MAX; n]];
    for c in 0..n {
        for v in [1e30f32, -1e30] {
            let mut r = vec![0.0; n];
            r[c] = v;
            adversarial.push(r);
        }
    }
    for r in x.chunks(n).take(10) {
        adversarial.push(r.iter().map(|v| v * 1e6).collect());
        adversarial.push(r.iter().map(|v| -v).collect());
    }
    adversarial.push(
        (0..n)
            .map(|c| if c % 2 == 0 { 1e20 } else { -1e20 })
            .collect(),
    );
    let rows_flat: Vec<f32> = adversarial.concat();
    let path = std::env::temp_dir().join(format!("nim-valid-{}.safetensors", std::process::id()));
    nim.save(&path).unwrap();
    let dense = Nim::<validation::estimate::nim::dense::Dense>::load(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    for predictions in [nim.predict(&rows_flat), dense.predict(&rows_flat)] {
        assert_eq!(predictions.len(), adversarial.len());
        for (p, r) in predictions.iter().zip(&adversarial) {
            assert!(valid(&p.value), "{:?} for {r:?}", p.value);
            let var = p.variance.unwrap();
            assert!(var.iter().all(|v| v.is_finite() && *v > 0.0), "{var:?}");
        }
        assert!(valid(&pool(&predictions)));
    }
}

#[test]
fn an_ensemble_reloads_identically_and_its_calibrated_sigma_covers_the_calibration_arms() {
    use sim::population::Shard;
    use validation::estimate::nim::dense::Dense;
    use validation::estimate::nim::ensemble::{Ensemble, TWO_SIGMA_COVERAGE};
    use validation::estimate::nim::population::identifiable;
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/population_motions.toml");
    let edit = |f: &mut sim::scenario::ScenarioFile| {
        f.time.end = 0.4;
        f.population.as_mut().unwrap().arms = 16;
    };
    let s = Scenario::from_path(&path).unwrap().edited(edit).unwrap();
    let out = std::env::temp_dir().join(format!("nim-ensemble-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    sim::batch::generate(&s, &out.join("arms"), Shard::ALL, false, None).unwrap();
    let runs: Vec<_> = (0..16)
        .map(|k| sim::reading::read_population_arm(&out.join("arms"), k).unwrap())
        .collect();
    let refs: Vec<_> = runs.iter().collect();
    // Trained on one thread and on two (networks side by side): the same networks.
    let train = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            Ensemble::<BurnMlp>::train(&refs[..8], Inputs::Normalized, &recipe(100), &[0, 1])
        })
    };
    let (one, _) = train(1);
    let (mut ensemble, reports) = train(2);
    assert_eq!(
        (ensemble.members.len(), reports.len(), reports[0].len()),
        (2, 2, 6)
    );
    for b in 1..=6 {
        let m = &refs[8].measurements;
        assert_eq!(one.estimate(m, b), ensemble.estimate(m, b), "body {b}");
    }
    ensemble.calibrate(&refs[8..]);
    let c = ensemble.calibration;
    assert!(c.scale.iter().all(|k| k.is_finite() && *k > 0.0), "{c:?}");
    // 8 arms: 48 mass values, 40 of B2..B6's J22: enough for the 95.45 % rank.
    assert_eq!(c.samples, [48, 48, 40, 40]);
    let mut inside = [0usize; 4];
    for run in &refs[8..] {
        for b in 1..=6 {
            let e = ensemble.estimate(&run.measurements, b);
            let t = &run.truth.bodies[b - 1];
            let truth = [t.mass, t.j[0], t.j[1], t.j[2]];
            assert!(valid(&e.value), "{e:?}");
            for o in (0..4).filter(|&o| identifiable(b, o)) {
                inside[o] += usize::from((e.value[o] - truth[o]).abs() <= 2.0 * e.sigma[o]);
            }
        }
    }
    // On the arms it was fitted on, the calibrated ±2σ covers at least the conformal rank (the
    // value at that rank sits on the bound, so rounding may leave it out).
    for o in 0..4 {
        let n = c.samples[o] as f64;
        assert!(
            inside[o] as f64 >= ((n + 1.0) * TWO_SIGMA_COVERAGE).ceil() - 1.0,
            "{o}: {inside:?}"
        );
    }
    let dir = out.join("models");
    ensemble.save(&dir).unwrap();
    ensemble.save(&dir).unwrap(); // replaces a complete ensemble
    let loaded = Ensemble::<Dense>::load(&dir).unwrap();
    assert_eq!(loaded.calibration, c);
    for b in 1..=6 {
        let m = &refs[9].measurements;
        let (a, l) = (ensemble.estimate(m, b), loaded.estimate(m, b));
        for o in 0..4 {
            assert!(
                (a.value[o] - l.value[o]).abs() <= 1e-6 * a.value[o],
                "{a:?} vs {l:?}"
            );
            assert!(
                (a.sigma[o] - l.sigma[o]).abs() <= 1e-5 * a.sigma[o],
                "{a:?} vs {l:?}"
            );
        }
    }
    // A member whose network of a body reads other inputs is refused by name: the members'
    // predictions are pooled sample by sample.
    let (other, _) = Ensemble::<BurnMlp>::train(&refs[..8], Inputs::Centroidal, &recipe(10), &[0]);
    other.save(&out.join("other")).unwrap();
    let swapped = validation::estimate::nim::ensemble::member_file(&dir, 1, 2);
    std::fs::copy(
        validation::estimate::nim::ensemble::member_file(&out.join("other"), 0, 2),
        &swapped,
    )
    .unwrap();
    let e = Ensemble::<Dense>::load(&dir)
        .err()
        .expect("mixed schemas load")
        .to_string();
    assert!(
        e.contains(&swapped.display().to_string())
            && e.contains("input schema `centroidal`, expected `normalized`"),
        "{e}"
    );
    std::fs::remove_dir_all(&out).unwrap();
}

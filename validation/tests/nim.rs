//! NIM: inputs come from measurements only; a saved model reloads with its standardization and
//! schema; the paper's protocol runs on `paper_rail` (at a coarser step).

use std::path::Path;

use sim::scenario::Scenario;
use validation::dataset::write_and_read;
use validation::nim::features::rows;
use validation::nim::mlp::BurnMlp;
use validation::nim::protocol::{TestInputs, paper};
use validation::nim::{Inputs, Nim, TrainConfig};

fn paper_rail(name: &str) -> validation::dataset::Run {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/paper_rail.toml");
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("step = 2e-5", "step = 1e-4");
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
    let before = rows(&run.measurements, 3, Inputs::WithChild, &samples);
    // Change every truth the run holds: the inputs cannot change.
    for b in &mut run.truth.bodies {
        b.mass *= 2.0;
        b.j = [1.0; 3];
    }
    for l in &mut run.manifest.model.links {
        l.body.mass = -1.0;
    }
    assert_eq!(
        before,
        rows(&run.measurements, 3, Inputs::WithChild, &samples)
    );
    for name in Inputs::WithChild.names() {
        assert!(
            !["mass", "m", "j11", "j22", "j33", "length", "radius"].contains(&name.as_str()),
            "{name}"
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
    // A NIM trained on one body, saved and loaded: same predictions, same schema.
    let samples: Vec<usize> = (0..80).collect();
    let x = rows(&run.measurements, 2, Inputs::WithChild, &samples);
    let y: Vec<f32> = samples
        .iter()
        .flat_map(|k| [*k as f32, 1.0, 2.0, 3.0])
        .collect();
    let (nim, report) = Nim::<BurnMlp>::train(
        Inputs::WithChild,
        &x,
        &y,
        &TrainConfig {
            max_steps: 50,
            ..config
        },
    );
    assert!(report.final_mse < report.first_mse, "{report:?}");
    let path = std::env::temp_dir().join(format!("nim-model-{}.safetensors", std::process::id()));
    nim.save(&path).unwrap();
    let loaded = Nim::<BurnMlp>::load(&path).unwrap();
    assert_eq!(loaded.schema, Inputs::WithChild);
    assert_eq!(loaded.inputs, nim.inputs);
    assert_eq!(nim.predict(&x), loaded.predict(&x));
    std::fs::remove_file(&path).unwrap();
}

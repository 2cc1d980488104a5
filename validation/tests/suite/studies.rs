//! Study files of every kind (`studies/*.toml`, `validation::study::plan`): every committed file
//! reads, the reproduction files state what the studies computed before they were files, and a
//! bad file is refused naming the file and the field.

use std::path::{Path, PathBuf};

use validation::study::industrial::Case;
use validation::study::plan::Plan;
use validation::study::teaching::NoiseLevel;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn plan(name: &str) -> Plan {
    let names = validation::estimate::registry_names();
    Plan::from_path(&root().join(format!("studies/{name}.toml")), &names).unwrap()
}

/// The noise levels of `studies/teaching.toml`.
pub fn teaching_levels() -> Vec<NoiseLevel> {
    match plan("teaching") {
        Plan::Teaching(p) => p.config.levels,
        other => panic!("studies/teaching.toml is {other:?}"),
    }
}

/// The cases of `studies/industrial.toml`.
pub fn industrial_cases() -> Vec<Case> {
    match plan("industrial") {
        Plan::Industrial(p) => p.cases,
        other => panic!("studies/industrial.toml is {other:?}"),
    }
}

#[test]
fn every_committed_study_file_reads_as_its_kind() {
    for entry in std::fs::read_dir(root().join("studies")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_str().unwrap().to_string();
        let kind = match plan(&name) {
            Plan::Sweep(_) => "sweep",
            Plan::Multisine(_) => "multisine",
            Plan::Teaching(_) => "teaching",
            Plan::Industrial(_) => "industrial",
            Plan::NimPopulation(_) => "nim_population",
            Plan::NimMotion(_) => "nim_motion",
        };
        let expected = match name.as_str() {
            "multisine" | "teaching" | "industrial" => name.as_str(),
            "nim" => "nim_population",
            "nim_motions" => "nim_motion",
            _ => "sweep",
        };
        assert_eq!(kind, expected, "{}", path.display());
    }
}

#[test]
fn the_reproduction_files_state_the_published_settings() {
    let levels = teaching_levels();
    let pi = std::f64::consts::PI;
    let bits20 = std::f64::consts::TAU / 1_048_576.0;
    assert_eq!(levels.len(), 2);
    assert_eq!(
        (
            levels[0].name.as_str(),
            levels[0].resolution,
            levels[0].sigma_q,
            levels[0].sigma_tau
        ),
        ("low", bits20, 1e-3 * pi / 180.0, 0.05)
    );
    assert_eq!(
        (levels[1].sigma_q, levels[1].sigma_tau),
        (1e-2 * pi / 180.0, 0.1)
    );
    let cases = industrial_cases();
    assert_eq!(cases.len(), 2);
    assert_eq!((cases[0].level.resolution, cases[0].periods), (0.0, None));
    assert_eq!(
        (cases[1].level.resolution, cases[1].periods),
        (bits20, Some(2))
    );
    let Plan::Multisine(m) = plan("multisine") else {
        panic!("studies/multisine.toml")
    };
    assert_eq!(m.torque_scales, [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0]);
    assert_eq!(
        (m.config.seeds, m.config.sweep_seeds, m.config.periods),
        (100, 30, 2)
    );
}

/// A committed study file's text with its scenario paths made absolute (to be written
/// elsewhere).
fn absolute(name: &str) -> String {
    std::fs::read_to_string(root().join(format!("studies/{name}.toml")))
        .unwrap()
        .replace("../scenarios/", &format!("{}/scenarios/", root().display()))
}

/// Writes each `(text, field)` as `<tag><k>.toml` and checks that reading it fails naming the
/// file and the field.
fn assert_refused(tag: &str, cases: &[(String, &str)]) {
    let dir = std::env::temp_dir().join(format!("validation-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (k, (text, field)) in cases.iter().enumerate() {
        let path = dir.join(format!("{tag}{k}.toml"));
        std::fs::write(&path, text).unwrap();
        let err = Plan::from_path(&path, &[]).unwrap_err().to_string();
        assert!(err.contains(&format!("{tag}{k}.toml")), "{err}");
        assert!(err.contains(field), "case {k}: {err}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_bad_study_file_is_refused_naming_the_file_and_field() {
    let (teaching, multisine) = (absolute("teaching"), absolute("multisine"));
    let cases = [
        (teaching.replace("filter = 50", "filter = 500"), "`filter`"),
        (
            teaching.replace("encoder_bits = 20", "encoder_bits = 99"),
            "`level[0].encoder_bits`",
        ),
        (
            teaching.replace("sigma_tau = 0.1", "sigma_tau = -0.1"),
            "`level[1]`",
        ),
        (
            teaching.replace("teaching_validation", "teaching_nowhere"),
            "`validation`",
        ),
        (teaching.replace("seeds = 16", "seeds = 0"), "`seeds`"),
        (
            teaching.replace("kind = \"teaching\"", "kind = \"teach\""),
            "`kind`",
        ),
        (
            teaching.replace("harmonics = 200", "harmonics = 200\ncolour = 1"),
            "colour",
        ),
        (
            multisine.replace("torque_scales = [0.1, 1.0]", "torque_scales = [0.3]"),
            "`noise_sweep.torque_scales`",
        ),
        (
            multisine.replace("levels = [1e-4", "levels = [-1e-4"),
            "`noise_sweep.levels`",
        ),
    ];
    assert_refused("bad", &cases);
}

#[test]
fn a_bad_nim_study_file_is_refused_naming_the_file_and_field() {
    let (nim, motions) = (absolute("nim"), absolute("nim_motions"));
    let cases = [
        (
            nim.replace("curve = [25, 50]", "curve = [25, 500]"),
            "`curve`",
        ),
        (
            nim.replace("ood_density_scale = 1.2", "ood_density_scale = 0.8"),
            "`ood_density_scale`",
        ),
        (nim.replace("train = 100", "train = 0"), "`train`"),
        (
            motions.replace("ft_noise = []", "ft_noise = [1e-2, 1e-2]"),
            "`ft_noise`",
        ),
        (
            motions.replace("\"point_to_point\"", "\"ballet\""),
            "`holdout`",
        ),
        (motions.replace("\"per-axis-log\"", "\"raw\""), "`inputs`"),
        (
            motions.replace("learning_rate = 3e-3", "learning_rate = -1.0"),
            "`learning_rate`",
        ),
        (motions.replace("arm6_fourier", "arm7"), "`named[1]`"),
    ];
    assert_refused("nim", &cases);
}

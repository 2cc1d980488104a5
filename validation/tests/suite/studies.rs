//! Study files of every kind (`studies/*.toml`, `validation::kind`): every committed file
//! reads, the reproduction files state what the studies computed before they were files, and a
//! bad file is refused naming the file and the field.

use std::path::{Path, PathBuf};

use validation::kind::Plan;
use validation::kind::tiers::{Tier, Tiers};
use validation::study::industrial::Case;
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
fn every_committed_study_file_reads_as_its_kind_and_reproduce_lists_the_tiers() {
    let mut kinds = std::collections::BTreeMap::new();
    for entry in std::fs::read_dir(root().join("studies")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_str().unwrap().to_string();
        if name == "reproduce" {
            continue;
        }
        kinds.insert(name.clone(), plan(&name).kind());
    }
    for (name, kind) in [
        ("mim", "mim"),
        ("multisine", "multisine"),
        ("teaching", "teaching"),
        ("industrial", "industrial"),
        ("nim", "nim_population"),
        ("nim_motions", "nim_motion"),
        ("mim_noise", "sweep"),
        ("mim_noise_nim", "nim_beside"),
        ("joint_level", "joint_level"),
        ("paper_sensing", "paper_sensing"),
        ("real_tx40", "recorded"),
        ("so101_servos", "servo_fit"),
        ("realism", "sweep"),
    ] {
        assert_eq!(kinds.get(name).copied(), Some(kind), "studies/{name}.toml");
    }
    // Every kind has a committed file.
    for kind in Plan::KINDS {
        assert!(
            kinds.values().any(|k| k == kind),
            "no study file of kind {kind}"
        );
    }
    let names = validation::estimate::registry_names();
    let tiers = Tiers::from_path(&root().join("studies/reproduce.toml"), &names).unwrap();
    let default: Vec<&str> = (tiers.selected(false, None).unwrap().iter())
        .map(|s| s.plan.name())
        .collect();
    assert_eq!(
        default,
        ["mim", "multisine", "teaching", "mim_noise", "realism_ft"]
    );
    let full = tiers.selected(true, None).unwrap();
    let mim_noise = full.iter().find(|s| s.plan.name() == "mim_noise").unwrap();
    assert_eq!(
        (mim_noise.tier, mim_noise.plan.kind()),
        (Tier::Full, "nim_beside")
    );
    assert_eq!(full.len(), tiers.names().len());
    let only = tiers.selected(false, Some("mim_noise")).unwrap();
    assert_eq!(only[0].plan.kind(), "nim_beside");
    let err = tiers.selected(false, Some("nope")).unwrap_err().to_string();
    assert!(
        err.contains("--only nope") && err.contains("realism_gear"),
        "{err}"
    );
    let chapters: Vec<&str> = tiers.chapters().iter().map(|s| s.plan.name()).collect();
    assert_eq!(chapters.len(), 11, "{chapters:?}");
}

#[test]
fn a_chapter_is_the_report_of_its_result_and_a_bad_result_is_refused_naming_its_file() {
    let teaching = plan("teaching");
    let err = teaching
        .markdown("{\"rows\": 3}", Path::new("generated/report/teaching.json"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("generated/report/teaching.json"), "{err}");
    let banner = validation::kind::banner("teaching");
    assert!(
        banner.contains("generated/report/teaching.json") && banner.contains("--only teaching")
    );
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
        let names = validation::estimate::registry_names();
        let err = Plan::from_path(&path, &names).unwrap_err().to_string();
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

#[test]
fn a_study_file_runs_end_to_end_into_its_result_report_and_chapter() {
    let out = std::env::temp_dir().join(format!("validation-kind-{}", std::process::id()));
    let book = out.join("book");
    std::fs::create_dir_all(&book).unwrap();
    let mim = plan("mim");
    let summary = mim
        .run(&validation::kind::Context::new(&out, &root()))
        .unwrap();
    assert!(summary.contains("MIM largest relative error"), "{summary}");
    for file in [
        "report/mim.json",
        "report/mim.md",
        "report/mim.csv",
        "runs/paper_rail/manifest.json",
    ] {
        assert!(out.join(file).exists(), "{file}");
    }
    let chapter = validation::kind::render_chapter(&mim, &out.join("report"), &book).unwrap();
    let text = std::fs::read_to_string(chapter).unwrap();
    let report = std::fs::read_to_string(out.join("report/mim.md")).unwrap();
    assert_eq!(text, validation::kind::banner("mim") + &report);
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn a_population_is_cached_by_what_made_it() {
    use validation::kind::Context;
    use validation::study::cache;
    let out = std::env::temp_dir().join(format!("validation-cache-{}", std::process::id()));
    let ctx = Context::new(&out, &root());
    let scenario =
        sim::scenario::Scenario::from_path(&root().join("scenarios/population_random.toml"))
            .unwrap();
    let (first, dir) = cache::population(&ctx.populations(), &scenario, 2).unwrap();
    let (again, same) = cache::population(&ctx.populations(), &scenario, 2).unwrap();
    assert_eq!(dir, same);
    assert_eq!(first.len(), 2);
    assert_eq!(first[1].manifest.model, again[1].manifest.model);
    let other = scenario.edited(|f| f.seed += 1).unwrap();
    let (_, moved) = cache::population(&ctx.populations(), &other, 1).unwrap();
    assert_ne!(moved, dir, "a changed scenario is another population");
    // Models: trained once, reused by the same parts, trained again for others.
    let mut trained = 0;
    let mut train = |d: &Path| {
        trained += 1;
        std::fs::create_dir_all(d).unwrap();
        Ok::<_, validation::Error>(vec![format!("trained in {}", d.display())])
    };
    let (a, da) = cache::trained(&ctx.models(), "m", &["x"], &mut train).unwrap();
    let (b, db) = cache::trained(&ctx.models(), "m", &["x"], &mut train).unwrap();
    let (_, dc) = cache::trained(&ctx.models(), "m", &["y"], &mut train).unwrap();
    assert_eq!((a, da.clone()), (b, db));
    assert_ne!(da, dc);
    assert_eq!(trained, 2);
    let latest = std::fs::read_link(out.join("models/m")).unwrap();
    assert_eq!(latest, PathBuf::from(dc.file_name().unwrap()));
    std::fs::remove_dir_all(&out).unwrap();
}

/// [`absolute`] for the kinds that name models and other study files too.
fn absolute_all(name: &str) -> String {
    let root = root().display().to_string();
    let mut text = std::fs::read_to_string(root.clone() + &format!("/studies/{name}.toml"))
        .unwrap()
        .replace("\"../", &format!("\"{root}/"));
    for key in ["noise_study", "study", "nim_study"] {
        text = text.replace(
            &format!("\n{key} = \""),
            &format!("\n{key} = \"{root}/studies/"),
        );
    }
    text
}

#[test]
fn a_bad_file_of_the_other_kinds_is_refused_naming_the_file_and_field() {
    let mim = absolute_all("mim");
    let joint = absolute_all("joint_level");
    let sensing = absolute_all("paper_sensing");
    let beside = absolute_all("mim_noise_nim");
    let real = absolute_all("real_tx40");
    // Each committed file reads from elsewhere once its paths are absolute.
    for text in [&mim, &joint, &sensing, &beside, &real] {
        let path = std::env::temp_dir().join(format!("validation-ok-{}.toml", std::process::id()));
        std::fs::write(&path, text).unwrap();
        Plan::from_path(&path, &validation::estimate::registry_names()).unwrap();
        std::fs::remove_file(&path).unwrap();
    }
    let cases = [
        (mim.replace("mim_cyl2", "mim_cyl9"), "`appendix`"),
        (
            joint.replace("training = 1000", "training = 1200"),
            "`training`",
        ),
        (
            joint.replace("training = 500", "training = 0"),
            "`random.training`",
        ),
        (joint.replace("end = 20.0", "end = -1.0"), "`other_family`"),
        (
            sensing.replace(
                "held_out_family = \"fourier\"",
                "held_out_family = \"ballet\"",
            ),
            "`held_out_family`",
        ),
        (
            sensing.replace("ft_level = 5e-3", "ft_level = 0.0"),
            "`ft_level`",
        ),
        (
            beside.replace("label = \"ft\"", "label = \"clean\""),
            "`models[1]`",
        ),
        (beside.replace("\"centroidal\"", "\"raw\""), "`inputs`"),
        (real.replace("holdout = 0.3", "holdout = 1.5"), "`holdout`"),
        (
            real.replace("tx40_mdh_modified.urdf", "tx41.urdf"),
            "`urdf`",
        ),
        (
            mim.replace("kind = \"mim\"", "kind = \"mimic\""),
            "nim_beside",
        ),
    ];
    assert_refused("kinds", &cases);
}

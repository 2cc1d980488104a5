//! Populations: shards are disjoint and together equal the unsharded population, file for
//! file; generation resumes; every arm's truth is its drawn chain.

use std::path::{Path, PathBuf};

use sim::population::Shard;
use sim::scenario::Scenario;

use crate::files;
use files::tree;

fn tiny_population() -> Scenario {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/population_rail.toml");
    let edit = |f: &mut sim::scenario::ScenarioFile| {
        f.time.end = 0.1;
        let p = f.population.as_mut().unwrap();
        p.arms = 5;
        p.arms_per_shard = Some(2);
    };
    Scenario::from_path(&path).unwrap().edited(edit).unwrap()
}

fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("sim-pop-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// Arm `k`'s manifest from its shard's manifests file (`arms_per_shard` arms per shard).
pub fn arm_manifest(out: &Path, k: usize, arms_per_shard: usize) -> sim::dataset::Manifest {
    let path = &sim::dataset::population::shard_files(out, k / arms_per_shard)[3];
    let rows = sim::dataset::reader::ParquetColumns::read_arm(path, k as u32).unwrap();
    let texts = rows.utf8("manifest").unwrap();
    assert_eq!(texts.len(), 1, "arm {k}: one manifest");
    serde_json::from_str(&texts[0]).unwrap()
}

#[test]
fn shards_are_disjoint_and_together_equal_the_whole_population() {
    let s = tiny_population();
    let (whole, sharded, half) = (temp("whole"), temp("sharded"), temp("half"));
    let g = sim::batch::generate(&s, &whole, Shard::ALL, false, None).unwrap();
    assert_eq!((g.written, g.kept), (5, 0));
    for k in 0..2 {
        let shard: Shard = format!("{k}/2").parse().unwrap();
        sim::batch::generate(&s, &sharded, shard, false, None).unwrap();
    }
    let (a, b) = (tree(&whole), tree(&sharded));
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    assert!(a == b, "shards differ from the whole population");
    assert_eq!(
        a.len(),
        1 + 3 * 5,
        "population.json + 4 files and a checksum list per shard of 2 arms"
    );

    // One share alone holds exactly its shards: 1/2 is shard 1, arms 2 and 3.
    let g = sim::batch::generate(&s, &half, "1/2".parse().unwrap(), false, None).unwrap();
    assert_eq!(g.written, 2);
    let manifests: Vec<String> = tree(&half)
        .keys()
        .filter(|k| k.starts_with("manifests"))
        .cloned()
        .collect();
    assert_eq!(manifests, ["manifests/shard=00001/part-0.parquet"]);
    let arms = sim::dataset::reader::arm_rows(&half.join(&manifests[0])).unwrap();
    assert_eq!(arms, [(2, 1), (3, 1)]);
    // Resuming keeps complete arms; --force rewrites them identically.
    let g = sim::batch::generate(&s, &half, "1/2".parse().unwrap(), false, None).unwrap();
    assert_eq!((g.written, g.kept), (0, 2));
    let before = tree(&half);
    sim::batch::generate(&s, &half, "1/2".parse().unwrap(), true, None).unwrap();
    assert!(before == tree(&half));

    // Each arm's truth is the chain drawn for it, and arms differ.
    let m = arm_manifest(&whole, 3, 2);
    assert_eq!(m.model, s.population_arm(3).unwrap().chain);
    assert_ne!(m.model, s.population_arm(2).unwrap().chain);
    // At the file's own length (2 s) an arm is as consistent as the paper's run at this step.
    let full = Scenario::from_path(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/population_rail.toml"),
    )
    .unwrap();
    let run = sim::simulate(&full.population_arm(3).unwrap(), None);
    assert!(
        run.manifest.checks.rnea_max_rel_residual < 1e-4,
        "{:?}",
        run.manifest.checks
    );
    // A directory holding a population of the earlier per-arm layout is not written into.
    let old = temp("old-layout");
    std::fs::create_dir_all(&old).unwrap();
    std::fs::write(
        old.join("population.json"),
        r#"{"arms": 5, "layout": "bodies|joints|truth/arm=NNNNN/part-0.parquet"}"#,
    )
    .unwrap();
    let e = sim::batch::generate(&s, &old, Shard::ALL, false, None)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("population.json") && e.contains("remove it or write the population elsewhere"),
        "{e}"
    );
    assert_eq!(tree(&old).len(), 1, "nothing written");
    std::fs::remove_dir_all(&old).unwrap();

    // Resumed with one more arm, the last shard (arm 4 alone) is written again for arms 4
    // and 5; the others are kept.
    let more = s
        .edited(|f| f.population.as_mut().unwrap().arms = 6)
        .unwrap();
    let g = sim::batch::generate(&more, &whole, Shard::ALL, false, None).unwrap();
    assert_eq!((g.written, g.kept), (2, 4));
    let v = sim::dataset::verify::verify(&whole).unwrap();
    assert!(v.is_whole() && v.valid == 6, "{v:?}");
    for d in [whole, sharded, half] {
        std::fs::remove_dir_all(d).unwrap();
    }
}

#[test]
fn bad_population_sections_name_the_field() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/population_rail.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    for (from, to, field) in [
        ("arms = 1000", "arms = 0", "population.arms"),
        (
            "low = 1480.0, high = 2000.0",
            "low = 2000.0, high = 1480.0",
            "population.density.high",
        ),
        (
            "id = 6\ndensity",
            "id = 9\ndensity",
            "population.body[0].id",
        ),
    ] {
        let bad = text.replace(from, to);
        assert_ne!(bad, text, "{from}");
        let e = Scenario::from_toml(&bad, "pop.toml")
            .unwrap_err()
            .to_string();
        assert!(e.contains(field) && e.contains("pop.toml"), "{e}");
    }
    // A population too large to write is refused when the file is read (it used to hang in
    // `sim population`, listing a trillion arms): too many arms, or too many bytes of them.
    for (arms, end, what) in [
        ("1000000000000", "2.0", "1 to 10000000 arms"),
        ("1000000", "2000.0", "TiB of recordings"),
    ] {
        let big = (text.replace("arms = 1000", &format!("arms = {arms}")))
            .replace("end = 2.0", &format!("end = {end}"));
        let e = Scenario::from_toml(&big, "pop.toml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("population.arms") && e.contains(what), "{e}");
    }
    let not_arm6 = text.replace("model = \"arm6\"", "model = \"link2\"");
    let e = Scenario::from_toml(&not_arm6, "pop.toml")
        .unwrap_err()
        .to_string();
    assert!(e.contains("population"), "{e}");
}

/// Two shards run as separate processes (by the Slurm job-array script) at the same time into
/// one directory:
/// `sim population verify` finds the population whole and byte-identical to an in-process
/// generation; a missing manifest, a corrupted table and a stray file are each reported, with
/// a non-zero exit.
#[test]
fn shards_run_as_processes_assemble_a_whole_population_that_verify_checks() {
    let dir = temp("processes");
    std::fs::create_dir_all(&dir).unwrap();
    let scenario = dir.join("population.toml");
    std::fs::write(&scenario, &tiny_population().source).unwrap();
    let out = dir.join("out");
    // Each shard as the Slurm job-array script runs it, as its own process.
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/slurm-population.sh");
    let shard = |k: usize| {
        std::process::Command::new("bash")
            .arg(&script)
            .arg(&scenario)
            .arg(&out)
            .env("SIM", env!("CARGO_BIN_EXE_sim"))
            .env("SLURM_ARRAY_TASK_ID", k.to_string())
            .env("SLURM_ARRAY_TASK_COUNT", "2")
            .spawn()
            .unwrap()
    };
    let (mut a, mut b) = (shard(0), shard(1));
    assert!(a.wait().unwrap().success() && b.wait().unwrap().success());
    let verify = || {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_sim"))
            .args(["population", "verify"])
            .arg(&out)
            .output()
            .unwrap();
        (
            o.status.success(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
        )
    };
    let (ok, text) = verify();
    assert!(ok && text.contains("5 of 5 arms valid"), "{text}");

    let whole = dir.join("whole");
    let s = Scenario::from_path(&scenario).unwrap();
    sim::batch::generate(&s, &whole, Shard::ALL, false, None).unwrap();
    let (x, y) = (tree(&out), tree(&whole));
    assert_eq!(x.keys().collect::<Vec<_>>(), y.keys().collect::<Vec<_>>());
    assert!(x == y, "processes' shards differ from the whole population");

    // Arm 3 lives in shard 1 (arms 2 and 3).
    let [_, joints, _, manifests] = sim::dataset::population::shard_files(&out, 1);
    std::fs::remove_file(&manifests).unwrap();
    let (ok, text) = verify();
    assert!(
        !ok && text.contains("missing: arm 2") && text.contains("missing: arm 3"),
        "{text}"
    );
    sim::batch::generate(&s, &out, Shard::ALL, false, None).unwrap();
    let bytes = std::fs::read(&joints).unwrap();
    std::fs::write(&joints, &bytes[..bytes.len() / 2]).unwrap();
    let (ok, text) = verify();
    assert!(
        !ok && text.contains("invalid: arm 3: `") && text.contains("joints/shard=00001"),
        "{text}"
    );
    assert!(text.contains("SHA-256 differs"), "{text}");
    std::fs::write(&joints, &bytes).unwrap();
    std::fs::write(out.join("joints/shard=00000/part-1.parquet"), &bytes).unwrap();
    let (ok, text) = verify();
    assert!(
        !ok && text.contains("unexpected:") && text.contains("part-1.parquet"),
        "{text}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `scenarios/urdf_tilted3.toml` (a URDF model) with a `[population]` section appended.
fn urdf_population(section: &str) -> Result<Scenario, sim::scenario::ScenarioError> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios");
    let text = std::fs::read_to_string(dir.join("urdf_tilted3.toml"))
        .unwrap()
        .replace("end = 2.0", "end = 0.2");
    let text = text.replace(
        "[[joint]]\nid = 1",
        &format!("{section}\n[[joint]]\nid = 1"),
    );
    Scenario::from_toml_in(&text, "urdf_tilted3 (population test)", &dir)
}

#[test]
fn a_population_of_a_urdf_arm_scales_every_link_and_records_consistent_data() {
    let s = urdf_population(
        "[population]\narms = 3\nseed = 5\nexcitation = \"scenario\"\n\
         length = { type = \"uniform\", low = 0.8, high = 1.2 }\n\
         mass = { type = \"uniform\", low = 0.5, high = 1.5 }\n\n\
         [[population.body]]\nid = 2\nmass = { type = \"constant\", value = 2.0 }\n",
    )
    .unwrap();
    let out = temp("urdf");
    let g = sim::batch::generate(&s, &out, Shard::ALL, false, None).unwrap();
    assert_eq!(g.written, 3);
    let model = &s.chain;
    for k in 0..3 {
        let m = arm_manifest(&out, k, sim::population::DEFAULT_ARMS_PER_SHARD);
        assert_eq!(m.model, s.population_arm(k).unwrap().chain);
        assert!(m.checks.rnea_max_rel_residual < 1e-12, "{:?}", m.checks);
        // Body 2 is exactly twice as heavy; every other mass within the law; each link's
        // moments scaled by μ s² with its size factor s read from its centroid offset.
        for (i, (a, b)) in m.model.links.iter().zip(&model.links).enumerate() {
            let mu = a.body.mass / b.body.mass;
            if i == 1 {
                assert_eq!(mu, 2.0);
            } else {
                assert!((0.5..1.5).contains(&mu), "link {i}: {mu}");
            }
            let offset = |l: &sim::model::Link| (l.body.centroid() - l.joint.anchor()).norm();
            let s2 = (offset(a) / offset(b)).powi(2);
            for (ja, jb) in a.body.inertia.iter().zip(&b.body.inertia) {
                assert!((ja / jb - mu * s2).abs() < 1e-9, "link {i}");
            }
            assert_eq!(a.joint.axis, b.joint.axis);
        }
        // The arm's drives are the scenario's.
        assert_eq!(
            s.population_arm(k).unwrap().drives[0].drive,
            s.drives[0].drive
        );
    }
    assert_ne!(
        s.population_arm(0).unwrap().chain,
        s.population_arm(1).unwrap().chain
    );
    std::fs::remove_dir_all(out).unwrap();
    // Cylinder laws do not apply to a URDF model: the field is named.
    let e = urdf_population("[population]\narms = 2\nexcitation = \"scenario\"\nradius = { type = \"constant\", value = 1.0 }\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("population.radius") && e.contains("cylinder"),
        "{e}"
    );
    let e = urdf_population("[population]\narms = 2\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("population.excitation"), "{e}");
}

#[test]
fn a_population_is_the_same_bytes_whatever_the_thread_count() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/population_rail.toml");
    let edit = |f: &mut sim::scenario::ScenarioFile| {
        f.time.end = 0.1;
        let p = f.population.as_mut().unwrap();
        // Two shards, the second shorter; row groups of 32 arms, the last ones shorter.
        p.arms = 70;
        p.arms_per_shard = Some(40);
    };
    let scenario = Scenario::from_path(&path).unwrap().edited(edit).unwrap();
    let dir = temp("threads");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("pop.toml");
    std::fs::write(&file, &scenario.source).unwrap();
    let run = |threads: &str| {
        let out = dir.join(format!("out-{threads}"));
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_sim"))
            .args([
                "population",
                file.to_str().unwrap(),
                "--quiet",
                "--out",
                out.to_str().unwrap(),
            ])
            .env("RAYON_NUM_THREADS", threads)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        tree(&out)
    };
    let (one, two) = (run("1"), run("2"));
    assert_eq!(one.len(), 1 + 2 * 5);
    assert!(
        one == two,
        "RAYON_NUM_THREADS=1 and 2 wrote different files"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `scenarios/population_panda.toml`: every link of the Panda scaled within the file's laws, and
/// each joint's drawn Fourier motion about the centre of its range, within 0.9 of its half-range.
#[test]
fn a_panda_family_moves_every_joint_within_its_range() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/population_panda.toml");
    let s = Scenario::from_path(&path).unwrap();
    for k in 0..50 {
        let arm = s.population_arm(k).unwrap();
        for (link, (drive, panda)) in arm
            .chain
            .links
            .iter()
            .zip(arm.drives.iter().zip(&s.chain.links))
        {
            let mu = link.body.mass / panda.body.mass;
            assert!((0.75..=1.25).contains(&mu), "arm {k}: mass factor {mu}");
            let range = panda.joint.limits.unwrap();
            let (centre, half) = (
                0.5 * (range.lower + range.upper),
                0.5 * (range.upper - range.lower),
            );
            let sim::drive::Drive::Motion(p) = &drive.drive else {
                panic!("a drawn motion")
            };
            let worst = (0..=500)
                .map(|i| (p.eval(10.0 * i as f64 / 500.0).q - centre).abs())
                .fold(0.0, f64::max);
            assert!(worst <= 0.9 * half + 1e-12, "arm {k}: {worst} of {half}");
        }
    }
}

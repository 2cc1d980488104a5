//! The per-sample work of a run (issue 30): it allocates nothing once the run has started,
//! and the inverse-dynamics residuals it sums up as it records are those of the recorded
//! columns, to the bit.

use std::path::Path;

use sim::scenario::Scenario;
use sim::simulation::Simulation;

/// Allocations made by `f` on this thread (`allocation-counter` is the suite's global
/// allocator: the system's, counting per thread, so parallel tests do not enter the count).
fn allocations(f: impl FnOnce()) -> u64 {
    allocation_counter::measure(f).count_total
}

fn shipped(name: &str, end: f64) -> Scenario {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../scenarios/{name}.toml"));
    Scenario::from_path(&path)
        .unwrap()
        .edited(|f| f.time.end = end)
        .unwrap()
}

/// What `sim::simulation::run` allocates beyond the same steps taken by
/// `Simulation::advance` alone (Rapier's own allocations per step cancel out).
fn beyond_the_steps(s: &Scenario) -> u64 {
    let steps = (s.samples - 1) * s.steps_per_sample + 1;
    let mut recorded = 0;
    let run = allocations(|| recorded = sim::simulation::run(s, None).recording.samples());
    assert_eq!(
        recorded, s.samples,
        "{}: the run stopped early",
        s.file.name
    );
    let stepping = allocations(|| {
        let mut sim = Simulation::new(s);
        for _ in 0..steps {
            sim.advance();
        }
    });
    run.checked_sub(stepping)
        .unwrap_or_else(|| panic!("{}: the run allocates less than its steps", s.file.name))
}

/// `link2` with an elastic, geared joint 1 and a torque-driven joint 2 with LuGre and
/// load-proportional friction, over `end` seconds.
fn drive_train(end: f64) -> Scenario {
    let text = format!(
        r#"name = "drive_train"
model = "link2"
[time]
end = {end:e}
step = 1e-3
sample_period = 0.01
[[joint]]
id = 1
torque = {{ type = "multisine", base_frequency = 1.0, harmonics = [1, 3], amplitudes = [20.0, 5.0] }}
rotor = {{ inertia = 2e-4, gear_ratio = 100.0 }}
spring = {{ stiffness = 1e4, damping = 0.5, backlash = 1e-3 }}
[[joint]]
id = 2
torque = {{ type = "multisine", base_frequency = 0.5, harmonics = [1], amplitudes = [5.0] }}
friction = {{ type = "lugre", coulomb = 0.5, static_friction = 0.8, stribeck_velocity = 0.1, bristle_stiffness = 1e4, bristle_damping = 50.0, viscous = 0.1 }}
load_friction = {{ coefficient = 0.02, smoothing = 0.05 }}
"#
    );
    Scenario::from_toml(&text, "drive train").unwrap()
}

/// Twice the samples, the same allocations besides the steps: prescribed joints (`paper_rail`,
/// the readings by RNEA alone), torque-driven and servo joints with friction
/// (`urdf_tilted3_torque`, the hybrid dynamics' Cholesky solve), and an elastic joint with a
/// rotor beside LuGre and load-proportional friction.
#[test]
fn recording_a_sample_allocates_nothing() {
    let cases = [
        (
            "paper_rail",
            shipped("paper_rail", 1.0),
            shipped("paper_rail", 2.0),
        ),
        (
            "urdf_tilted3_torque",
            shipped("urdf_tilted3_torque", 0.2),
            shipped("urdf_tilted3_torque", 0.4),
        ),
        ("drive_train", drive_train(0.5), drive_train(1.0)),
    ];
    for (name, short, long) in cases {
        let (short, long) = (beyond_the_steps(&short), beyond_the_steps(&long));
        assert_eq!(
            short, long,
            "{name}: allocations besides the steps, T vs 2T"
        );
    }
}

/// The residuals a run sums up while it records are `checks::recording_residuals` of its
/// recording (the RNEA of the recorded columns), to the bit: prescribed, torque-driven, servo
/// and free joints, friction and rotors.
#[test]
fn in_run_residuals_are_those_of_the_recorded_columns() {
    for (name, end) in [
        ("paper_rail", 2.0),
        ("urdf_tilted3_torque", 0.5),
        ("teaching_excitation", 0.5),
        ("arm6_sensors", 1.0),
    ] {
        let s = shipped(name, end);
        let run = sim::simulation::run(&s, None);
        let again = sim::checks::recording_residuals(&s.chain, &run.recording);
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(run.residuals.samples(), run.recording.samples(), "{name}");
        assert_eq!(
            bits(&run.residuals.absolute),
            bits(&again.absolute),
            "{name}"
        );
        assert_eq!(bits(&run.residuals.scale), bits(&again.scale), "{name}");
    }
}

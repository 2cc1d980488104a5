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
    let run = allocations(|| drop(sim::simulation::run(s, None)));
    let stepping = allocations(|| {
        let mut sim = Simulation::new(s);
        for _ in 0..steps {
            sim.advance();
        }
    });
    run.checked_sub(stepping)
        .unwrap_or_else(|| panic!("{}: the run allocates less than its steps", s.file.name))
}

/// Twice the samples, the same allocations besides the steps: prescribed joints (`paper_rail`,
/// the readings by RNEA alone) and torque-driven and servo joints with friction
/// (`urdf_tilted3_torque`, the hybrid dynamics' Cholesky solve).
#[test]
fn recording_a_sample_allocates_nothing() {
    for (name, end) in [("paper_rail", 1.0), ("urdf_tilted3_torque", 0.2)] {
        let short = beyond_the_steps(&shipped(name, end));
        let long = beyond_the_steps(&shipped(name, 2.0 * end));
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

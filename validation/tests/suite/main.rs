//! The `validation` crate's integration tests, one test binary (one link, one process; each
//! file a module named for what it checks). Fixtures built by independent libraries are in
//! `tests/fixtures/`; the file helpers are shared with `sim`'s tests (`sim/tests/common/`).

#[path = "../../../sim/tests/common/files.rs"]
mod files;
#[path = "../../../sim/tests/common/mutate.rs"]
mod mutate;

mod bags;
mod cyl2;
mod docs;
mod effects;
mod estimate;
mod extending;
mod external;
mod fuzz;
mod html_report;
mod identifiability;
mod identifiable_draws;
mod identify;
mod import;
mod industrial;
mod lerobot;
mod motion_families;
mod multisine;
mod nim;
mod output_error;
mod paper_rail;
mod paper_sensing;
mod pinocchio;
mod population;
mod servo_logs;
mod simulation_fit;
mod studies;
mod sweep;
mod teaching;

//! The `sim` crate's integration tests, one test binary (one link, one process; each file a
//! module named for what it checks). Helpers shared with the `validation` crate's tests are in
//! `tests/common/`.

#[path = "../common/files.rs"]
mod files;
#[path = "../common/mutate.rs"]
mod mutate;

mod book;
mod cli;
mod cogging;
mod elastic;
mod faults;
mod friction_load;
mod fuzz;
mod inertia_from_geoms;
mod layers;
mod lugre;
mod mjcf;
mod payload;
mod population;
mod position_servo;
mod public_robots;
mod random_arms;
mod replay;
mod rollout;
mod sample_work;
mod self_contained;
mod sensor_chain;
mod servo_rollout;
mod simulation;
mod trajectory;
mod truth;
mod urdf;
mod validity;

//! Reads a run directory (the dataset contract, `book/src/dataset.md`) into measurement series and ground truth.
//!
//! [`Measurements`] holds only what a sensor could give (kinematics, joint wrenches, joint
//! coordinates and forces); [`Truth`] holds the inertial parameters. Estimators receive only the
//! former, and only as the sensors saw it: [`Run::measurements`] holds the measured (`_meas`)
//! copy of every column that has one in place of the clean column ([`Measurements::sensed`]);
//! the clean columns are in [`Run::clean`], for physics checks. The truth is read by the scorer.

pub mod measurement_dir;
mod memory;
pub mod population;
pub mod recorded;
mod run_dir;
mod sensed;
mod series;
mod tables;

pub use memory::from_simulated;
pub use population::{PopulationReader, population_arms, read_population_arm};
pub use run_dir::{read_run, write_and_read};
pub use series::{BodySeries, BodyTruth, JointSeries, Measurements, Run, Stated, Truth};
pub use sim::dataset::DatasetError as ReadError;
pub use sim::recording::JointColumn;

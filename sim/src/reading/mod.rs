//! Run directories read for estimation: a simulated run ([`read_run`]), a recorded one
//! ([`recorded::read_recorded`]) or a population's arm ([`PopulationReader`]) becomes a [`Run`]
//! of measurement series, ground truth and the experiment's design; an estimator outside the
//! project gets the measurement directory ([`measurement_dir`]).
//!
//! [`Measurements`] holds only what a sensor could give (kinematics, joint wrenches, joint
//! coordinates and forces); [`Truth`] holds the inertial parameters. Estimators receive only the
//! former, and only as the sensors saw it: [`Run::measurements`] holds the measured (`_meas`)
//! copy of every column that has one in place of the clean column ([`Measurements::sensed`]);
//! the clean columns are in [`Run::clean`], for physics checks. The truth is read by the scorer.
//! A run simulated in memory becomes the same [`Run`] without files ([`from_simulated`]).
//!
//! The files are [`crate::dataset`]'s, read through its readers alone. This module sits above
//! the scenario because reading a run means reading its design (each joint's reference, control
//! law and torque signal, the stated sensors) from the scenario its manifest holds, while the
//! format sits below the scenario, which plays recorded runs back: one module holding both
//! would import itself through the scenario.

pub mod measurement_dir;
mod memory;
mod population;
mod read;
pub mod recorded;
mod sensed;
mod series;
mod tables;

pub use memory::from_simulated;
pub use population::{PopulationReader, population_arms, read_population_arm};
pub use read::{read_run, write_and_read};
pub use series::{BodySeries, BodyTruth, JointSeries, Measurements, Run, Stated, Truth};

pub(crate) use read::{assemble, refuse_invalid};

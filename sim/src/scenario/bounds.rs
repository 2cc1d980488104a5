//! How much a scenario may ask for: integrator steps, the recording's size in memory, the
//! population's arms and bytes. Refused when the file is read, before anything runs.

use super::ScenarioFile;
pub use super::time::MAX_STEPS;
use crate::model::Chain;

/// Largest recording a scenario may ask for (bytes, estimated before simulating by
/// [`super::Scenario::estimated_recording_bytes`]): a run is held in memory until it is written, and
/// its Arrow tables take about as much again while it is.
pub const MAX_RECORDING_BYTES: u64 = 8 << 30;

/// The recording's size in memory (bytes) of `samples` samples of `chain` under `file`: every
/// sample's body and joint records and the noisy copies the `[[noise]]` and `[[sensor]]` sections
/// add (counted as three columns per section and table row, an upper bound).
pub fn recording_bytes(samples: usize, chain: &Chain, file: &ScenarioFile) -> f64 {
    let bodies = chain.len() as f64;
    let joints = chain.joint_ids().len() as f64;
    let records = bodies * std::mem::size_of::<crate::recording::BodyRecord>() as f64
        + joints * std::mem::size_of::<crate::recording::JointRecord>() as f64;
    let copies = (file.noise.len() + file.sensor.len()) as f64;
    let noisy = copies * 3.0 * bodies.max(joints) * 8.0;
    (samples as f64 + 1.0) * (records + noisy + 8.0)
}

/// `Err((field, expected))` for a recording larger than [`MAX_RECORDING_BYTES`].
pub(super) fn check_size(
    samples: usize,
    chain: &Chain,
    file: &ScenarioFile,
) -> Result<(), (&'static str, String)> {
    let bytes = recording_bytes(samples, chain, file);
    if bytes > MAX_RECORDING_BYTES as f64 {
        return Err((
            "time.end",
            format!(
                "expected a recording of at most {} GiB, this one would hold about {:.1} GiB \
                 ({samples} samples; shorten time.end, lengthen time.sample_period or split the run)",
                MAX_RECORDING_BYTES >> 30,
                bytes / (1u64 << 30) as f64,
            ),
        ));
    }
    Ok(())
}

/// Most arms a population may ask for: partitions, progress and the list of arms to write are
/// held per arm.
pub const MAX_ARMS: usize = 10_000_000;

/// Largest population a scenario may ask for (bytes of its arms' recordings before compression,
/// [`recording_bytes`] per arm): about 16 TiB, far beyond what a disk holds in Parquet.
pub const MAX_POPULATION_BYTES: f64 = 16.0 * (1u64 << 40) as f64;

/// `Err((field, expected))` for a population of more than [`MAX_ARMS`] arms or of more than
/// [`MAX_POPULATION_BYTES`] of recordings: refused when the file is read, before anything runs.
pub(super) fn check_population(
    arms: usize,
    samples: usize,
    chain: &Chain,
    file: &ScenarioFile,
) -> Result<(), (&'static str, String)> {
    if arms > MAX_ARMS {
        return Err((
            "population.arms",
            format!("expected 1 to {MAX_ARMS} arms, got {arms}"),
        ));
    }
    if file
        .population
        .as_ref()
        .is_some_and(|p| p.arms_per_shard == Some(0))
    {
        return Err((
            "population.arms_per_shard",
            "expected at least 1 arm per shard, got 0".into(),
        ));
    }
    let bytes = arms as f64 * recording_bytes(samples, chain, file);
    if bytes > MAX_POPULATION_BYTES {
        return Err((
            "population.arms",
            format!(
                "expected a population of at most {} TiB of recordings, this one would hold about \
                 {:.1} TiB ({arms} arms of {samples} samples; fewer arms or shorter runs)",
                (MAX_POPULATION_BYTES / (1u64 << 40) as f64) as u64,
                bytes / (1u64 << 40) as f64,
            ),
        ));
    }
    Ok(())
}

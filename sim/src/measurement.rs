//! The measured copies (`<column>_meas`) of a clean recording: what the run's sensors
//! ([`crate::sensor`]) and per-column noise laws ([`crate::noise`]) make of it.
//!
//! Measurement never feeds back into the simulation: [`measure`] takes a finished recording and
//! can be called again with other sensors, levels or seeds (a Monte-Carlo study re-noises one
//! clean run). Each source draws from its own ChaCha8 stream ([`crate::noise::stream_seed`] of the
//! seed, a stream name and the joint or body id): the joint laws use the column name (as before
//! sensors existed, so such datasets are unchanged), body laws `body/<group>`, the sensors
//! `ft/f`, `ft/n`, `imu/gyro`, `imu/accel`, `encoder`, and the clock `clock`.
//!
//! Per column, in this order: the clock's time shift (if a `clock` sensor exists), the physical
//! sensors, then the `[[noise]]` laws of the entries naming the column, in file order.

use nalgebra::{UnitQuaternion, Vector3};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, StandardNormal};

use crate::noise::{self, ColumnNoise, Noise, stream_seed};
use crate::recording::{BodyGroup, JointColumn, Recording};
use crate::sensor::Sensor;

/// The measured columns of a run, ready for the dataset writer.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Measured {
    /// `(name, values)` of `joints.parquet`, values in joint-row order.
    pub joints: Vec<(String, Vec<f64>)>,
    /// `(name, values)` of `bodies.parquet`, values in body-row order.
    pub bodies: Vec<(String, Vec<f64>)>,
}

/// Everything that turns clean columns into measured ones.
#[derive(Clone, Copy, Debug)]
pub struct MeasurementModel<'a> {
    /// Per-column laws (`[[noise]]`).
    pub noise: &'a [ColumnNoise],
    /// Physical sensors (`[[sensor]]`).
    pub sensors: &'a [Sensor],
    /// Seed of every stream.
    pub seed: u64,
    /// The recording's sample period (s): the rate of the sensor chain's filters.
    pub period: f64,
    /// Gravity's acceleration in the world frame (m/s²), which an accelerometer does not sense
    /// ([`crate::model::Chain::gravity`]).
    pub gravity: [f64; 3],
}

impl MeasurementModel<'_> {
    /// Whether it measures anything at all (else a run has no `_meas` column).
    pub fn is_empty(&self) -> bool {
        self.noise.is_empty() && self.sensors.is_empty()
    }
}

/// Scales every white noise of a run's readings by `factor` (a population arm's drawn noise
/// level, `[population] noise_scale`): the standard deviations of `gaussian` laws and the
/// half-widths of `uniform` ones in `[[noise]]`, the `sigma` of every `[[sensor]]` channel
/// (force/torque, IMU, encoder). Biases, scale errors, quantization, clock jitter and the analog
/// chain are the instruments', not their noise level, and stay.
pub fn scale_white_noise(noise: &mut [ColumnNoise], sensors: &mut [Sensor], factor: f64) {
    for law in noise.iter_mut().flat_map(|n| n.model.iter_mut()) {
        match law {
            Noise::Gaussian { sigma } => *sigma *= factor,
            Noise::Uniform { amplitude } => *amplitude *= factor,
            _ => {}
        }
    }
    for sensor in sensors {
        let scale = |e: &mut crate::sensor::AxisErrors| e.sigma = e.sigma.scaled([factor; 3]);
        match sensor {
            Sensor::ForceTorque { force, torque, .. } => {
                scale(force);
                scale(torque);
            }
            Sensor::Imu { gyro, accel, .. } => {
                scale(gyro);
                scale(accel);
            }
            Sensor::Encoder { sigma, .. } => *sigma *= factor,
            Sensor::Clock { .. } => {}
        }
    }
}

/// The measured copies of `rec` under `model`.
pub fn measure(rec: &Recording, model: &MeasurementModel) -> Measured {
    let clock = Clock::draw(rec, model);
    Measured {
        joints: joint_columns(rec, model)
            .into_iter()
            .map(|c| {
                (
                    format!("{c}_meas"),
                    measure_joint_column(rec, model, &clock, c),
                )
            })
            .collect(),
        bodies: body_groups(rec, model)
            .into_iter()
            .flat_map(|g| {
                let values = measure_body_group(rec, model, &clock, g);
                g.columns()
                    .into_iter()
                    .zip(values)
                    .map(|(c, v)| (format!("{c}_meas"), v))
            })
            .collect(),
    }
}

/// The joint columns with a measured copy, in order of first mention (encoders add `q`).
fn joint_columns(rec: &Recording, model: &MeasurementModel) -> Vec<JointColumn> {
    let mut out: Vec<JointColumn> = Vec::new();
    for column in model
        .noise
        .iter()
        .filter_map(|s| JointColumn::from_name(&s.column))
    {
        if !out.contains(&column) {
            out.push(column);
        }
    }
    let encoded = model
        .sensors
        .iter()
        .any(|s| rec.joint_ids.iter().any(|&id| s.covers_joint(id)));
    if encoded && !out.contains(&JointColumn::Q) {
        out.push(JointColumn::Q);
    }
    out
}

/// The body groups with measured copies, in order of first mention (sensors add theirs).
fn body_groups(rec: &Recording, model: &MeasurementModel) -> Vec<BodyGroup> {
    let mut mentioned: Vec<BodyGroup> = model
        .noise
        .iter()
        .filter_map(|s| BodyGroup::from_name(&s.column))
        .collect();
    for sensor in model.sensors {
        let covers = (1..=rec.n_bodies as u8).any(|b| sensor.covers_body(b));
        match sensor {
            Sensor::ForceTorque { .. } if covers => mentioned.extend([BodyGroup::F, BodyGroup::N]),
            Sensor::Imu { .. } if covers => {
                mentioned.extend([BodyGroup::Omega, BodyGroup::ImuSf, BodyGroup::Acc]);
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    for g in mentioned {
        if !out.contains(&g) {
            out.push(g);
        }
    }
    out
}

fn stream(seed: u64, name: &str, id: u8) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(stream_seed(seed, name, id))
}

/// The sample-time shifts `δ_k` of a `clock` sensor (none: every column at its `t_k`).
struct Clock {
    /// `(t_k + δ_k − t_c) / h` and the centre sample `c` of the interpolating quadratic.
    nodes: Option<Vec<(usize, f64)>>,
}

impl Clock {
    fn draw(rec: &Recording, model: &MeasurementModel) -> Clock {
        let n = rec.samples();
        let nodes = model.sensors.iter().find_map(|s| match *s {
            Sensor::Clock { offset, jitter } if n >= 3 => {
                let h = rec.t[1] - rec.t[0];
                let mut rng = stream(model.seed, "clock", 0);
                Some(
                    (0..n)
                        .map(|k| {
                            let w: f64 = StandardNormal.sample(&mut rng);
                            let c = k.clamp(1, n - 2);
                            (c, (rec.t[k] + offset + jitter * w - rec.t[c]) / h)
                        })
                        .collect(),
                )
            }
            _ => None,
        });
        Clock { nodes }
    }

    /// The series as the clock samples it: the quadratic through `c−1, c, c+1` at `u`.
    fn sample(&self, x: &[f64]) -> Vec<f64> {
        match &self.nodes {
            None => x.to_vec(),
            Some(nodes) => nodes
                .iter()
                .map(|&(c, u)| {
                    let (a, b, d) = (x[c - 1], x[c], x[c + 1]);
                    b + u * (d - a) / 2.0 + u * u / 2.0 * (d - 2.0 * b + a)
                })
                .collect(),
        }
    }

    fn sample_vectors(&self, x: &[Vector3<f64>]) -> Vec<Vector3<f64>> {
        if self.nodes.is_none() {
            return x.to_vec();
        }
        let axes: [Vec<f64>; 3] =
            std::array::from_fn(|i| self.sample(&x.iter().map(|v| v[i]).collect::<Vec<_>>()));
        (0..x.len())
            .map(|k| Vector3::new(axes[0][k], axes[1][k], axes[2][k]))
            .collect()
    }
}

/// The measured copy of one joint's series `x` of `column` (joint `id`, already sampled by the
/// run's clock if it has one): the joint's encoders (for `q`), then the `[[noise]]` laws naming
/// the column and joint, in file order, each source on its own stream. This is what
/// [`measure`] does per joint; a study that re-noises a run it holds only as columns (not as a
/// [`Recording`]) calls it to get the same draws.
pub fn measure_joint(x: &[f64], column: JointColumn, id: u8, model: &MeasurementModel) -> Vec<f64> {
    let mut x = x.to_vec();
    if column == JointColumn::Q {
        for s in model.sensors.iter().filter(|s| s.covers_joint(id)) {
            if let Sensor::Encoder {
                resolution, sigma, ..
            } = *s
            {
                let law = [Noise::Gaussian { sigma }, Noise::Quantize { resolution }];
                x = noise::noisy(&x, &law, model.seed, "encoder", id, model.period);
            }
        }
    }
    let laws: Vec<Noise> = model
        .noise
        .iter()
        .filter(|s| {
            s.column == column.name() && s.joints.as_ref().is_none_or(|js| js.contains(&id))
        })
        .flat_map(|s| s.model.iter().cloned())
        .collect();
    noise::noisy(&x, &laws, model.seed, column.name(), id, model.period)
}

fn measure_joint_column(
    rec: &Recording,
    model: &MeasurementModel,
    clock: &Clock,
    column: JointColumn,
) -> Vec<f64> {
    let nj = rec.joint_ids.len();
    let per_joint: Vec<Vec<f64>> = rec
        .joint_ids
        .iter()
        .enumerate()
        .map(|(k, &id)| {
            measure_joint(
                &clock.sample(&rec.joint_series(column, k)),
                column,
                id,
                model,
            )
        })
        .collect();
    (0..rec.samples() * nj)
        .map(|r| per_joint[r % nj][r / nj])
        .collect()
}

/// Body `b`'s orientation at every sample (the frame of its sensors).
fn orientations(rec: &Recording, b: usize) -> Vec<UnitQuaternion<f64>> {
    (0..rec.samples()).map(|k| rec.body(k, b).quat).collect()
}

fn specific_force(
    rec: &Recording,
    (clock, gravity): (&Clock, [f64; 3]),
    b: usize,
    mount: [f64; 3],
) -> Vec<Vector3<f64>> {
    let (d, g) = (Vector3::from(mount), Vector3::from(gravity));
    let acc = clock.sample_vectors(&rec.body_series(BodyGroup::Acc, b));
    let w = clock.sample_vectors(&rec.body_series(BodyGroup::Omega, b));
    let wd = clock.sample_vectors(&rec.body_series(BodyGroup::OmegaDot, b));
    (0..rec.samples())
        .map(|k| {
            let r = rec.body(k, b).quat;
            r.inverse() * (acc[k] - g) + lever(&w[k], &wd[k], &d)
        })
        .collect()
}

/// `ω̇ × d + ω × (ω × d)`: the acceleration of a body-fixed point `d` relative to the centroid,
/// body frame.
fn lever(w: &Vector3<f64>, wd: &Vector3<f64>, d: &Vector3<f64>) -> Vector3<f64> {
    wd.cross(d) + w.cross(&w.cross(d))
}

fn measure_body_group(
    rec: &Recording,
    model: &MeasurementModel,
    clock: &Clock,
    group: BodyGroup,
) -> [Vec<f64>; 3] {
    let n = rec.n_bodies;
    let per_body: Vec<Vec<Vector3<f64>>> = (1..=n)
        .map(|b| {
            let clean = match group {
                // Without an IMU on the body: the specific force at its centroid, clean.
                BodyGroup::ImuSf => specific_force(rec, (clock, model.gravity), b, [0.0; 3]),
                _ => clock.sample_vectors(&rec.body_series(group, b)),
            };
            let x = read_sensors(rec, model, clock, group, b, clean);
            apply_laws(model, group, b as u8, x)
        })
        .collect();
    std::array::from_fn(|i| {
        (0..rec.samples() * n)
            .map(|r| per_body[r % n][r / n][i])
            .collect()
    })
}

/// The readings of the physical sensors of body `b` on `group`, or the clean series where it
/// has none.
fn read_sensors(
    rec: &Recording,
    model: &MeasurementModel,
    clock: &Clock,
    group: BodyGroup,
    b: usize,
    clean: Vec<Vector3<f64>>,
) -> Vec<Vector3<f64>> {
    let mut x = clean;
    let id = b as u8;
    for sensor in model.sensors.iter().filter(|s| s.covers_body(id)) {
        match (sensor, group) {
            (
                Sensor::ForceTorque {
                    force,
                    torque,
                    cross_talk,
                    chain,
                    ..
                },
                BodyGroup::F | BodyGroup::N,
            ) => {
                let (errors, name, other) = match group {
                    BodyGroup::F => (force, "ft/f", BodyGroup::N),
                    _ => (torque, "ft/n", BodyGroup::F),
                };
                let r = orientations(rec, b);
                // Both channels in the sensor's frame, through its analog chain.
                let local = |x: &[Vector3<f64>]| {
                    let x = x.iter().zip(&r).map(|(v, r)| r.inverse() * v).collect();
                    chain
                        .iter()
                        .fold(x, |x, law| vector_series(law, x, model.period))
                };
                let own = local(&x);
                // The other channel's clean series, for the cross-talk.
                let other = cross_talk.as_deref().map(|c| {
                    let other = local(&clock.sample_vectors(&rec.body_series(other, b)));
                    (c, other)
                });
                let mut rng = stream(model.seed, name, id);
                for (k, (v, r)) in x.iter_mut().zip(&r).enumerate() {
                    let mut local = own[k];
                    if let Some((c, other)) = &other {
                        local = mixed(c, group == BodyGroup::F, local, other[k]);
                    }
                    *v = r * errors.read(local, || StandardNormal.sample(&mut rng));
                }
            }
            (Sensor::Imu { gyro, .. }, BodyGroup::Omega) => {
                let mut rng = stream(model.seed, "imu/gyro", id);
                for v in x.iter_mut() {
                    *v = gyro.read(*v, || StandardNormal.sample(&mut rng));
                }
            }
            (Sensor::Imu { mount, accel, .. }, BodyGroup::ImuSf) => {
                x = accelerometer(rec, model, clock, b, *mount, accel);
            }
            (Sensor::Imu { mount, accel, .. }, BodyGroup::Acc) => {
                let d = Vector3::from(*mount);
                let w = clock.sample_vectors(&rec.body_series(BodyGroup::Omega, b));
                let wd = clock.sample_vectors(&rec.body_series(BodyGroup::OmegaDot, b));
                let readings = accelerometer(rec, model, clock, b, *mount, accel);
                let r = orientations(rec, b);
                for (k, read) in readings.iter().enumerate() {
                    x[k] = r[k] * (read - lever(&w[k], &wd[k], &d)) + Vector3::from(model.gravity);
                }
            }
            _ => {}
        }
    }
    x
}

/// A force/torque channel's sensor-frame value after the cross-talk `C`: `own + C_oo own +
/// C_ox other`, the blocks of `C` for the force rows (`force`) or the moment rows.
fn mixed(c: &[[f64; 6]; 6], force: bool, own: Vector3<f64>, other: Vector3<f64>) -> Vector3<f64> {
    let (rows, own_cols, other_cols) = if force { (0, 0, 3) } else { (3, 3, 0) };
    Vector3::from_fn(|i, _| {
        let row = &c[rows + i];
        own[i]
            + (0..3)
                .map(|j| row[own_cols + j] * own[j] + row[other_cols + j] * other[j])
                .sum::<f64>()
    })
}

/// The readings of the accelerometer of an IMU on body `b`, mounted at `mount`: its specific
/// force, body frame, with its errors (one stream: `imu_sf` and `acc` are the same reading).
fn accelerometer(
    rec: &Recording,
    model: &MeasurementModel,
    clock: &Clock,
    b: usize,
    mount: [f64; 3],
    accel: &crate::sensor::AxisErrors,
) -> Vec<Vector3<f64>> {
    let mut rng = stream(model.seed, "imu/accel", b as u8);
    specific_force(rec, (clock, model.gravity), b, mount)
        .into_iter()
        .map(|sf| accel.read(sf, || StandardNormal.sample(&mut rng)))
        .collect()
}

/// The `[[noise]]` laws of the entries naming `group` and body `b`, per component.
fn apply_laws(
    model: &MeasurementModel,
    group: BodyGroup,
    b: u8,
    mut x: Vec<Vector3<f64>>,
) -> Vec<Vector3<f64>> {
    let laws: Vec<Noise> = model
        .noise
        .iter()
        .filter(|s| s.column == group.name() && s.bodies.as_ref().is_none_or(|bs| bs.contains(&b)))
        .flat_map(|s| s.model.iter().cloned())
        .collect();
    if laws.is_empty() {
        return x;
    }
    let mut rng = stream(model.seed, &format!("body/{}", group.name()), b);
    let per_sample = |laws: &[Noise], mut x: Vec<Vector3<f64>>| {
        for v in &mut x {
            for i in 0..3 {
                v[i] = noise::apply(laws, v[i], &mut rng);
            }
        }
        x
    };
    let whole = |law: &Noise, x: Vec<Vector3<f64>>| vector_series(law, x, model.period);
    noise::series(&laws, std::mem::take(&mut x), per_sample, whole)
}

/// The series law `law` on each component's series of `x`, sampled every `period` seconds.
fn vector_series(law: &Noise, x: Vec<Vector3<f64>>, period: f64) -> Vec<Vector3<f64>> {
    let axes: [Vec<f64>; 3] = std::array::from_fn(|i| {
        law.apply_series(&x.iter().map(|v| v[i]).collect::<Vec<_>>(), period)
    });
    (0..x.len())
        .map(|k| Vector3::new(axes[0][k], axes[1][k], axes[2][k]))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::JointKind;
    use crate::recording::{BodyRecord, JointRecord};
    use crate::sensor::{AxisErrors, Triple};

    /// A synthetic record of one body tumbling (a known rotation per sample) under a constant
    /// world force, and one joint with `q = t²`.
    fn recording(samples: usize) -> Recording {
        let h = 0.01;
        let t: Vec<f64> = (0..samples).map(|k| k as f64 * h).collect();
        let bodies = t
            .iter()
            .map(|&s| BodyRecord {
                pos: Vector3::zeros(),
                quat: UnitQuaternion::from_euler_angles(3.0 * s, 1.7 * s, -2.3 * s),
                euler: Vector3::zeros(),
                euler_d: Vector3::zeros(),
                euler_dd: Vector3::zeros(),
                vel: Vector3::zeros(),
                acc: Vector3::new(1.0, -2.0, 0.5 * s),
                omega: Vector3::new(0.3, -0.2 * s, 0.1),
                omega_dot: Vector3::new(0.0, -0.2, 0.0),
                force: Vector3::new(10.0, -4.0, 30.0),
                moment: Vector3::new(1.0, 2.0, -0.5),
                joint_point: Vector3::zeros(),
            })
            .collect();
        let joints = t
            .iter()
            .map(|&s| JointRecord {
                q: s * s,
                ..Default::default()
            })
            .collect();
        Recording {
            run_id: "synthetic".into(),
            t,
            n_bodies: 1,
            joint_ids: vec![1],
            joint_kinds: vec![JointKind::Revolute],
            bodies,
            joints,
            measured: vec![],
            measured_bodies: vec![],
            friction_state: false,
            elastic: false,
            commanded: false,
        }
    }

    fn column<'a>(m: &'a [(String, Vec<f64>)], name: &str) -> &'a [f64] {
        &m.iter().find(|(n, _)| n == name).expect(name).1
    }

    fn group(m: &Measured, g: BodyGroup) -> Vec<Vector3<f64>> {
        let [x, y, z] = g
            .columns()
            .map(|c| column(&m.bodies, &format!("{c}_meas")).to_vec());
        (0..x.len())
            .map(|k| Vector3::new(x[k], y[k], z[k]))
            .collect()
    }

    /// Mean and sample standard deviation per axis.
    fn stats(e: &[Vector3<f64>]) -> (Vector3<f64>, Vector3<f64>) {
        let n = e.len() as f64;
        let mean = e.iter().sum::<Vector3<f64>>() / n;
        let var = e
            .iter()
            .map(|v| (v - mean).component_mul(&(v - mean)))
            .sum::<Vector3<f64>>()
            / (n - 1.0);
        (mean, var.map(f64::sqrt))
    }

    fn assert_close(a: Vector3<f64>, b: [f64; 3], tol: f64, what: &str) {
        assert!(
            (a - Vector3::from(b)).amax() < tol,
            "{what}: {a:?} vs {b:?} (tolerance {tol})"
        );
    }

    const N: usize = 40_000;

    #[test]
    fn force_torque_errors_have_the_stated_statistics_in_the_sensor_frame() {
        let rec = recording(N);
        let (sigma, bias, scale) = ([0.5, 1.0, 2.0], [0.1, -0.2, 0.3], [0.01, -0.02, 0.0]);
        let sensors = [Sensor::ForceTorque {
            bodies: None,
            force: AxisErrors {
                sigma: Triple::PerAxis(sigma),
                bias: Triple::PerAxis(bias),
                scale: Triple::PerAxis(scale),
            },
            torque: AxisErrors::white([0.05; 3]),
            cross_talk: None,
            chain: Vec::new(),
        }];
        let m = measure(
            &rec,
            &MeasurementModel {
                noise: &[],
                sensors: &sensors,
                seed: 4,
                period: 0.01,
                gravity: crate::model::STANDARD_GRAVITY,
            },
        );
        let f = group(&m, BodyGroup::F);
        // The error in the sensor's (body) frame, after removing the scale-factor error.
        let e: Vec<Vector3<f64>> = (0..N)
            .map(|k| {
                let r = rec.bodies[k].quat;
                let clean = r.inverse() * rec.bodies[k].force;
                r.inverse() * f[k] - clean.component_mul(&Vector3::from(scale).add_scalar(1.0))
            })
            .collect();
        let (mean, sd) = stats(&e);
        // 4 standard errors of the mean and of the standard deviation.
        assert_close(mean, bias, 4.0 * 2.0 / (N as f64).sqrt(), "bias");
        assert_close(sd, sigma, 4.0 * 2.0 / (2.0 * N as f64).sqrt(), "sigma");
        // In the world frame the same noise is mixed across axes: the sensor frame matters.
        let world: Vec<Vector3<f64>> = (0..N).map(|k| f[k] - rec.bodies[k].force).collect();
        let (_, sd_world) = stats(&world);
        assert!(
            (sd_world - Vector3::from(sigma)).amax() > 0.2,
            "{sd_world:?}"
        );
        let n = group(&m, BodyGroup::N);
        let en: Vec<Vector3<f64>> = (0..N)
            .map(|k| rec.bodies[k].quat.inverse() * (n[k] - rec.bodies[k].moment))
            .collect();
        assert_close(
            stats(&en).1,
            [0.05; 3],
            4.0 * 0.05 / (2.0 * N as f64).sqrt(),
            "torque",
        );
    }

    #[test]
    fn imu_reads_gyro_and_specific_force_at_its_mount_in_the_body_frame() {
        let rec = recording(N);
        let mount = [0.1, -0.05, 0.2];
        let sensors = [Sensor::Imu {
            bodies: Some(vec![1]),
            mount,
            gyro: AxisErrors::white([1e-3, 2e-3, 3e-3]),
            accel: AxisErrors {
                sigma: Triple::Same(0.02),
                bias: Triple::PerAxis([0.05, 0.0, -0.05]),
                ..Default::default()
            },
        }];
        let m = measure(
            &rec,
            &MeasurementModel {
                noise: &[],
                sensors: &sensors,
                seed: 9,
                period: 0.01,
                gravity: crate::model::STANDARD_GRAVITY,
            },
        );
        let (gyro, sf, acc) = (
            group(&m, BodyGroup::Omega),
            group(&m, BodyGroup::ImuSf),
            group(&m, BodyGroup::Acc),
        );
        let d = Vector3::from(mount);
        let g = Vector3::new(0.0, 0.0, -crate::GRAVITY);
        let (mut eg, mut ea) = (vec![], vec![]);
        for k in 0..N {
            let b = &rec.bodies[k];
            eg.push(gyro[k] - b.omega);
            // Independent statement of the specific force at the mount (body frame).
            let p_acc =
                b.acc + b.quat * (b.omega_dot.cross(&d) + b.omega.cross(&b.omega.cross(&d)));
            ea.push(sf[k] - b.quat.inverse() * (p_acc - g));
            // The centroid acceleration recovered from the reading carries the same error.
            let gap = (b.quat.inverse() * (acc[k] - b.acc) - ea[k]).norm();
            assert!(
                gap < 1e-13 * (1.0 + b.acc.norm() + crate::GRAVITY),
                "{k}: {gap}"
            );
        }
        let (mg, sg) = stats(&eg);
        assert_close(mg, [0.0; 3], 4.0 * 3e-3 / (N as f64).sqrt(), "gyro mean");
        assert_close(
            sg,
            [1e-3, 2e-3, 3e-3],
            4.0 * 3e-3 / (2.0 * N as f64).sqrt(),
            "gyro sigma",
        );
        let (ma, sa) = stats(&ea);
        assert_close(
            ma,
            [0.05, 0.0, -0.05],
            4.0 * 0.02 / (N as f64).sqrt(),
            "accel bias",
        );
        assert_close(
            sa,
            [0.02; 3],
            4.0 * 0.02 / (2.0 * N as f64).sqrt(),
            "accel sigma",
        );
    }

    #[test]
    fn encoder_quantizes_and_clock_samples_late() {
        let rec = recording(1000);
        let res = 1e-3;
        let encoder = [Sensor::Encoder {
            joints: None,
            resolution: res,
            sigma: 0.0,
        }];
        let m = measure(
            &rec,
            &MeasurementModel {
                noise: &[],
                sensors: &encoder,
                seed: 1,
                period: 0.01,
                gravity: crate::model::STANDARD_GRAVITY,
            },
        );
        let q = column(&m.joints, "q_meas");
        for (k, v) in q.iter().enumerate() {
            assert!((v / res - (v / res).round()).abs() < 1e-9);
            assert!((v - rec.joints[k].q).abs() <= res / 2.0 * (1.0 + 1e-9));
        }
        // q = t² sampled at t + δ is (t + δ)² exactly (the quadratic interpolation is exact).
        let delta = 2e-3;
        let clock = [Sensor::Clock {
            offset: delta,
            jitter: 0.0,
        }];
        let laws = [ColumnNoise {
            column: "q".into(),
            joints: None,
            bodies: None,
            model: vec![],
        }];
        let m = measure(
            &rec,
            &MeasurementModel {
                noise: &laws,
                sensors: &clock,
                seed: 1,
                period: 0.01,
                gravity: crate::model::STANDARD_GRAVITY,
            },
        );
        for (k, v) in column(&m.joints, "q_meas").iter().enumerate() {
            assert!((v - (rec.t[k] + delta).powi(2)).abs() < 1e-12, "{k}: {v}");
        }
    }

    #[test]
    fn body_laws_apply_per_component_and_reproduce_per_seed() {
        let rec = recording(2000);
        let laws = [ColumnNoise {
            column: "f".into(),
            joints: None,
            bodies: Some(vec![1]),
            model: vec![Noise::Gaussian { sigma: 0.3 }],
        }];
        let model = |seed| MeasurementModel {
            noise: &laws,
            sensors: &[],
            seed,
            period: 0.01,
            gravity: crate::model::STANDARD_GRAVITY,
        };
        let (a, b, c) = (
            measure(&rec, &model(5)),
            measure(&rec, &model(5)),
            measure(&rec, &model(6)),
        );
        assert_eq!(a, b);
        assert_ne!(a, c);
        let names: Vec<&str> = a.bodies.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["f_x_meas", "f_y_meas", "f_z_meas"]);
        let e: Vec<Vector3<f64>> = group(&a, BodyGroup::F)
            .iter()
            .zip(&rec.bodies)
            .map(|(m, b)| m - b.force)
            .collect();
        assert_close(stats(&e).1, [0.3; 3], 0.03, "sigma");
    }
}

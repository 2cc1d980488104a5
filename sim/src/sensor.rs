//! Physical sensors of this field (`[[sensor]]` in a scenario): what a real instrument measures,
//! in its own frame, with its own errors. [`crate::measurement`] turns their readings into the
//! `<column>_meas` columns of the dataset, next to the generic per-column laws of
//! [`crate::noise`].
//!
//! Every 3-axis channel has the error model of [`AxisErrors`]: in the sensor's frame,
//! `reading = (1 + s) ∘ x + b + w`, `w ~ N(0, diag(σ²))` white (independent per sample and axis),
//! with per-axis scale-factor error `s`, bias `b` and standard deviation `σ`, all in the
//! channel's units.
//!
//! ```toml
//! [[sensor]]                 # 6-axis force/torque sensor at each O_i (frame: the child body's)
//! type = "force_torque"
//! bodies = [2, 3]            # optional: default every body
//! force = { sigma = 0.05, bias = [0.0, 0.0, 0.1], scale = 0.001 }   # N
//! torque = { sigma = 0.005 }                                        # N·m, about O_i
//! cross_talk = [[0.0, 0.01, 0, 0, 0, 0], …]   # optional 6×6 calibration error C (rows: fx…nz)
//! chain = [{ type = "anti_aliasing", order = 2, cutoff = 30.0 }, { type = "delay", samples = 1 }]
//!
//! [[sensor]]                 # link IMU: gyroscope and accelerometer, body frame
//! type = "imu"
//! mount = [0.05, 0.0, 0.0]   # m: the accelerometer's point, from the centroid, body frame
//! gyro = { sigma = 1e-3 }    # rad/s
//! accel = { sigma = 1e-2, bias = 0.02 }   # m/s²
//!
//! [[sensor]]                 # joint encoders: q + N(0, σ²), rounded to the resolution
//! type = "encoder"
//! joints = [1, 2]
//! resolution = 1.5e-5        # rad (m for the rail)
//! sigma = 0.0
//!
//! [[sensor]]                 # the sampling clock: every measured column taken at t_k + δ_k
//! type = "clock"
//! offset = 1e-4              # s, constant
//! jitter = 1e-5              # s, standard deviation of the white jitter
//! ```

use serde::{Deserialize, Serialize};

use crate::noise::Noise;
use crate::param::{ParamError, finite, non_negative, positive};

/// A number for all three axes, or one per axis.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Triple {
    /// The same value on every axis.
    Same(f64),
    /// One value per axis (sensor frame axes 1, 2, 3).
    PerAxis([f64; 3]),
}

impl Default for Triple {
    fn default() -> Self {
        Triple::Same(0.0)
    }
}

impl Triple {
    /// The value on each axis.
    pub fn axes(self) -> [f64; 3] {
        match self {
            Triple::Same(v) => [v; 3],
            Triple::PerAxis(v) => v,
        }
    }

    /// Every axis multiplied by `k`.
    pub fn scaled(self, k: [f64; 3]) -> Triple {
        let a = self.axes();
        Triple::PerAxis([a[0] * k[0], a[1] * k[1], a[2] * k[2]])
    }
}

/// The errors of one 3-axis channel, in its sensor's frame (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AxisErrors {
    /// Standard deviation of the white noise per axis (channel units).
    #[serde(default)]
    pub sigma: Triple,
    /// Constant bias per axis (channel units).
    #[serde(default)]
    pub bias: Triple,
    /// Scale-factor error per axis (dimensionless: 0.01 reads 1 % high).
    #[serde(default)]
    pub scale: Triple,
}

impl AxisErrors {
    /// White noise of standard deviation `sigma` per axis, no bias or scale error.
    pub fn white(sigma: [f64; 3]) -> Self {
        AxisErrors {
            sigma: Triple::PerAxis(sigma),
            ..Default::default()
        }
    }

    /// Checks the fields; `Err` names the offending one.
    pub fn validate(&self) -> Result<(), ParamError> {
        for (i, s) in self.sigma.axes().into_iter().enumerate() {
            non_negative(&format!("sigma[{i}]"), s)?;
        }
        for (i, b) in self.bias.axes().into_iter().enumerate() {
            finite(&format!("bias[{i}]"), b)?;
        }
        for (i, s) in self.scale.axes().into_iter().enumerate() {
            if !(s.is_finite() && s > -1.0) {
                return Err((
                    format!("scale[{i}]"),
                    format!("expected a finite number above -1, got {s}"),
                ));
            }
        }
        Ok(())
    }

    /// The reading of a true value `x` (sensor frame), the white noise drawn by `normal`.
    pub fn read(
        &self,
        x: nalgebra::Vector3<f64>,
        mut normal: impl FnMut() -> f64,
    ) -> nalgebra::Vector3<f64> {
        let (s, b, sigma) = (self.scale.axes(), self.bias.axes(), self.sigma.axes());
        nalgebra::Vector3::from_fn(|i, _| {
            let w = normal();
            (1.0 + s[i]) * x[i] + b[i] + sigma[i] * w
        })
    }
}

/// One physical sensor (`[[sensor]]`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Sensor {
    /// A 6-axis force/torque sensor in joint `O_i` of each listed body, measuring the parent's
    /// force on the body and its moment about `O_i` in the body's frame (the child's), then
    /// rotated into the world frame of the `f`, `n` columns: `f_meas = A⁽⁰ⁱ⁾ read(A⁽ⁱ⁰⁾ f)`.
    /// With a calibration error `C` (`cross_talk`, 6×6, rows and columns `f_x, f_y, f_z, n_x,
    /// n_y, n_z` in the sensor frame), each channel reads the wrench mixed first,
    /// `(f', n') = (I + C)(f, n)`: its force–force and moment–moment blocks are dimensionless,
    /// the force-from-moment block in 1/m, the moment-from-force block in m (a strain-gauge
    /// sensor's calibration matrix off by `C`).
    ForceTorque {
        /// Bodies whose inner joint carries a sensor (default: all).
        #[serde(default)]
        bodies: Option<Vec<u8>>,
        /// Force channel (N).
        #[serde(default)]
        force: AxisErrors,
        /// Torque channel (N·m).
        #[serde(default)]
        torque: AxisErrors,
        /// Calibration error `C` (6×6, row-major); default none.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cross_talk: Option<Box<[[f64; 6]; 6]>>,
        /// The analog chain ahead of the converter: series laws of [`crate::noise::Noise`]
        /// (`anti_aliasing`, `delay`) applied in order to each of the six channels in the
        /// sensor's frame, before the per-sample errors; default none. (Being linear and the
        /// same on every channel, it commutes with the cross-talk.)
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        chain: Vec<Noise>,
    },
    /// A link IMU on each listed body: a gyroscope reading `ω` (body frame, written to
    /// `omega_*_meas`) and an accelerometer reading the specific force `r̈_p − g` at the mounting
    /// point `p = r + A⁽⁰ⁱ⁾ d` (body frame, written to `imu_sf_*_meas`). `acc_*_meas` is the
    /// centroid acceleration a user recovers from that reading with the known mount:
    /// `r̈ = A⁽⁰ⁱ⁾(sf − ω̇ × d − ω × (ω × d)) + g`, the lever-arm term taken from the clean
    /// `ω, ω̇` (so its error is the accelerometer's, rotated into the world frame).
    Imu {
        /// Bodies with an IMU (default: all).
        #[serde(default)]
        bodies: Option<Vec<u8>>,
        /// Accelerometer position `d` from the centroid, body frame (m).
        #[serde(default)]
        mount: [f64; 3],
        /// Gyroscope channel (rad/s).
        #[serde(default)]
        gyro: AxisErrors,
        /// Accelerometer channel (m/s²).
        #[serde(default)]
        accel: AxisErrors,
    },
    /// Joint encoders: `q_meas = round((q + w) / resolution) · resolution`, `w ~ N(0, σ²)`.
    Encoder {
        /// Joints with an encoder (default: all).
        #[serde(default)]
        joints: Option<Vec<u8>>,
        /// Resolution (rad, or m for a prismatic joint).
        resolution: f64,
        /// Standard deviation of the electrical noise before quantization (same units).
        #[serde(default)]
        sigma: f64,
    },
    /// The sampling clock: every measured column is taken at `t_k + δ_k`,
    /// `δ_k = offset + jitter · N(0, 1)`, while labelled `t_k` (values interpolated from the
    /// clean record by the quadratic through samples `k−1, k, k+1`: exact to `O(δ³)`).
    Clock {
        /// Constant sample-time offset (s).
        #[serde(default)]
        offset: f64,
        /// Standard deviation of the white sample-time jitter (s).
        #[serde(default)]
        jitter: f64,
    },
}

impl Sensor {
    /// Checks the parameters; `Err` names the offending field (relative to the entry).
    pub fn validate(&self, sample_period: f64) -> Result<(), ParamError> {
        let nested =
            |name: &str, e: &AxisErrors| e.validate().map_err(|(f, m)| (format!("{name}.{f}"), m));
        match self {
            Sensor::ForceTorque {
                force,
                torque,
                cross_talk,
                chain,
                ..
            } => {
                nested("force", force)?;
                nested("torque", torque)?;
                for (r, row) in cross_talk.iter().flat_map(|c| c.iter()).enumerate() {
                    for (c, v) in row.iter().enumerate() {
                        finite(&format!("cross_talk[{r}][{c}]"), *v)?;
                    }
                }
                for (i, law) in chain.iter().enumerate() {
                    let at = |(f, e): ParamError| (format!("chain[{i}].{f}"), e);
                    if !law.is_series() {
                        return Err((
                            format!("chain[{i}]"),
                            "expected a series law (`anti_aliasing` or `delay`): the per-sample \
                             errors are the channels' `force` and `torque` entries"
                                .into(),
                        ));
                    }
                    law.validate().map_err(at)?;
                    law.check_rate(sample_period).map_err(at)?;
                }
                Ok(())
            }
            Sensor::Imu {
                mount, gyro, accel, ..
            } => {
                for (i, m) in mount.iter().enumerate() {
                    finite(&format!("mount[{i}]"), *m)?;
                }
                nested("gyro", gyro)?;
                nested("accel", accel)
            }
            Sensor::Encoder {
                resolution, sigma, ..
            } => {
                positive("resolution", *resolution, "resolution")?;
                non_negative("sigma", *sigma)
            }
            Sensor::Clock { offset, jitter } => {
                finite("offset", *offset)?;
                non_negative("jitter", *jitter)?;
                if offset.abs() + 4.0 * jitter > sample_period {
                    return Err((
                        "offset".into(),
                        format!(
                            "expected |offset| + 4·jitter within one sample period ({sample_period} s), got {offset} and {jitter}"
                        ),
                    ));
                }
                Ok(())
            }
        }
    }

    /// The bodies (1-based) it covers among `1..=n`.
    pub fn covers_body(&self, body: u8) -> bool {
        match self {
            Sensor::ForceTorque { bodies, .. } | Sensor::Imu { bodies, .. } => {
                bodies.as_ref().is_none_or(|b| b.contains(&body))
            }
            _ => false,
        }
    }

    /// Whether it covers the joint with dataset id `joint`.
    pub fn covers_joint(&self, joint: u8) -> bool {
        match self {
            Sensor::Encoder { joints, .. } => joints.as_ref().is_none_or(|j| j.contains(&joint)),
            _ => false,
        }
    }
}

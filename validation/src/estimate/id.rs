//! The registry's estimators by identifier ([`EstimatorId`]): what studies, reports and study
//! files name, typed, so that a misspelt estimator is a compile error in the code and an error
//! naming the known ones in a study file. Its name ([`EstimatorId::name`]) is the `method`
//! column of every output and what `--only` and `armid estimators` take.

use std::fmt;
use std::str::FromStr;

macro_rules! estimator_ids {
    ($($(#[$doc:meta])* $variant:ident => $name:literal,)*) => {
        /// A registry estimator ([`crate::estimate::registry`], in its order).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum EstimatorId {
            $($(#[$doc])* $variant,)*
        }

        impl EstimatorId {
            /// Every identifier, in the registry's order.
            pub const ALL: &'static [EstimatorId] = &[$(EstimatorId::$variant,)*];

            /// Its name: the `method` column of every output.
            pub const fn name(self) -> &'static str {
                match self {
                    $(EstimatorId::$variant => $name,)*
                }
            }
        }
    };
}

estimator_ids! {
    /// MIM at one instant (the MIM paper's Table 2).
    MimSingle => "mim_single",
    /// MIM stacked over every sample, body by body.
    MimStacked => "mim_stacked",
    /// MIM as one whole-arm system.
    MimArm => "mim_arm",
    /// Whole-arm MIM, generalized least squares under the stated wrench noise.
    MimGls => "mim_gls",
    /// MIM on the ten standard parameters of every body.
    MimStandard => "mim_standard",
    /// MIM from encoders and joint force/torque sensors.
    MimEncoders => "mim_encoders",
    /// The multisine paper's per-joint frequency-domain fit, as published.
    FrequencyPaper => "frequency_paper",
    /// The corrected linearized frequency-domain fit.
    FrequencyLinearized => "frequency_linearized",
    /// Inverse dynamics in the time domain with the recorded derivatives.
    TimeDomain => "time_domain",
    /// Inverse dynamics in the time domain on a Fourier series of the measured angles.
    TimeDomainFourier => "time_domain_fourier",
    /// The teaching paper's friction and gravity from forward/backward sweeps.
    FrictionSweep => "friction_sweep",
    /// IDIM, ordinary least squares.
    IdimOls => "idim_ols",
    /// IDIM, weighted least squares.
    IdimWls => "idim_wls",
    /// IDIM, total least squares.
    IdimTls => "idim_tls",
    /// IDIM, iteratively reweighted (robust) least squares.
    IdimIrls => "idim_irls",
    /// IDIM with instrumental variables.
    IdimIv => "idim_iv",
    /// Direct and inverse dynamic identification.
    Didim => "didim",
    /// Closed-loop output error.
    Cloe => "cloe",
    /// Extended Kalman filter.
    Ekf => "ekf",
    /// Unscented Kalman filter.
    Ukf => "ukf",
    /// The teaching paper's two steps: sweeps, then inertia.
    TwoStep => "two_step",
    /// The teaching paper's adaptive update law.
    Adaptive => "adaptive",
    /// IDIM with a prior model.
    IdimPrior => "idim_prior",
    /// IDIM on standard parameters, physically consistent.
    IdimConsistent => "idim_consistent",
    /// IDIM on one run: the whole arm's base parameters, no friction model.
    IdimSingle => "idim_single",
    /// The MIM paper's neural identifier with saved models.
    Nim => "nim",
    /// NIM from encoders and joint force/torque sensors.
    NimEncoders => "nim_encoders",
}

impl EstimatorId {
    /// The identifier named `name`, if it is one.
    pub fn from_name(name: &str) -> Option<EstimatorId> {
        EstimatorId::ALL.iter().copied().find(|e| e.name() == name)
    }
}

impl fmt::Display for EstimatorId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for EstimatorId {
    type Err = crate::Error;

    fn from_str(name: &str) -> crate::Result<Self> {
        EstimatorId::from_name(name).ok_or_else(|| crate::Error::UnknownEstimator {
            name: name.into(),
            known: EstimatorId::ALL.iter().map(|e| e.name().into()).collect(),
        })
    }
}

impl PartialEq<EstimatorId> for str {
    fn eq(&self, id: &EstimatorId) -> bool {
        self == id.name()
    }
}

impl PartialEq<EstimatorId> for &str {
    fn eq(&self, id: &EstimatorId) -> bool {
        *self == id.name()
    }
}

impl PartialEq<EstimatorId> for String {
    fn eq(&self, id: &EstimatorId) -> bool {
        self == id.name()
    }
}

impl From<EstimatorId> for String {
    fn from(id: EstimatorId) -> String {
        id.name().into()
    }
}

impl serde::Serialize for EstimatorId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> serde::Deserialize<'de> for EstimatorId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_registry_estimator_has_its_identifier_in_order() {
        let names = crate::estimate::registry_names();
        let ids: Vec<&str> = EstimatorId::ALL.iter().map(|e| e.name()).collect();
        assert_eq!(names, ids);
        for id in EstimatorId::ALL {
            assert_eq!(id.name().parse::<EstimatorId>().unwrap(), *id);
        }
        let err = "mim_singel".parse::<EstimatorId>().unwrap_err().to_string();
        assert!(
            err.contains("mim_singel") && err.contains("mim_single"),
            "{err}"
        );
    }
}

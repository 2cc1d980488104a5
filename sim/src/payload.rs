//! A payload carried by the last link (`payload = { mass, centroid, inertia }` of a scenario):
//! a tool or a grasped object, rigidly attached, so the last body of the simulated arm is the
//! link and the payload as one rigid body. Frames as [`crate::model::Body`]'s: the payload's
//! centroid (m) and its central inertia tensor (kg·m²) in the world frame at the zero
//! configuration. The combined body follows from the additivity of mass, first and second
//! moments: `m = m₁ + m₂`, `c = (m₁ c₁ + m₂ c₂) / m` and, about `c`,
//! `I = Σₖ (Iₖ + mₖ (|dₖ|² 𝟙 − dₖ dₖᵀ))` with `dₖ = cₖ − c` (Steiner), then the principal
//! moments and axes of `I` ([`crate::physical::principal`]).
//!
//! The run's model (its manifest and truth) is the arm carrying the payload: it is what was
//! simulated. An estimator told the arm without it (a study's `payload` effect) meets an
//! unmodelled payload.

use nalgebra::{Matrix3, Vector3};
use serde::{Deserialize, Serialize};

use crate::dynamics::StandardParameters;
use crate::model::Body;
use crate::param::{ParamError, finite, positive};

/// A rigid payload on the last link.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Payload {
    /// Mass (kg).
    pub mass: f64,
    /// Centroid, world frame at the zero configuration (m).
    pub centroid: [f64; 3],
    /// Central inertia `[I_xx, I_yy, I_zz, I_xy, I_xz, I_yz]` about the world axes at the zero
    /// configuration (kg·m²; products as the tensor's entries, `I_xy = −∫ x y dm`), default
    /// zero (a point mass).
    #[serde(default)]
    pub inertia: [f64; 6],
}

impl Payload {
    /// Checks the parameters; `Err` names the offending field and what was expected (a
    /// positive mass, a finite centroid, a central inertia of a real body: the triangle
    /// inequalities of its principal moments).
    pub fn validate(&self) -> Result<(), ParamError> {
        positive("mass", self.mass, "payload mass in kg")?;
        for (k, v) in self.centroid.iter().enumerate() {
            finite(&format!("centroid[{k}]"), *v)?;
        }
        for (k, v) in self.inertia.iter().enumerate() {
            finite(&format!("inertia[{k}]"), *v)?;
        }
        let parameters =
            StandardParameters::from_central(self.mass, &Vector3::zeros(), &self.tensor());
        if crate::physical::check(&parameters).is_err() {
            return Err((
                "inertia".into(),
                format!(
                    "expected the central inertia of a real body (principal moments obeying the \
                     triangle inequalities), got {:?}",
                    self.inertia
                ),
            ));
        }
        Ok(())
    }

    /// The central inertia tensor (world axes).
    fn tensor(&self) -> Matrix3<f64> {
        let [xx, yy, zz, xy, xz, yz] = self.inertia;
        Matrix3::new(xx, xy, xz, xy, yy, yz, xz, yz, zz)
    }

    /// `body` carrying the payload: one rigid body (module docs); its shape kept.
    pub fn carried_by(&self, body: &Body) -> Body {
        let frame = Matrix3::from_columns(&body.frame.map(Vector3::from));
        let own = frame * Matrix3::from_diagonal(&Vector3::from(body.inertia)) * frame.transpose();
        let (c1, c2) = (Vector3::from(body.centroid), Vector3::from(self.centroid));
        let mass = body.mass + self.mass;
        let c = (body.mass * c1 + self.mass * c2) / mass;
        let steiner = |m: f64, d: Vector3<f64>| {
            m * (Matrix3::identity() * d.norm_squared() - d * d.transpose())
        };
        let inertia = own + steiner(body.mass, c1 - c) + self.tensor() + steiner(self.mass, c2 - c);
        let (moments, axes) = crate::physical::principal(&inertia);
        Body {
            mass,
            inertia: moments,
            centroid: c.into(),
            frame: axes,
            shape: body.shape.clone(),
        }
    }
}

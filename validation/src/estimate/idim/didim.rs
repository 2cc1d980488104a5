//! DIDIM: the direct and inverse dynamic identification model (Gautier, Janot and Vandanjon,
//! "A new closed-loop output error method for parameter identification of robot dynamics",
//! IEEE TCST 21(2), 2013).
//!
//! An output-error method: the parameters minimize `‖τ − τ_s(x)‖²`, `τ_s` the actuator torques
//! of the identified model simulated in the loop of the run's design
//! ([`super::closed_loop`]). Its Gauss–Newton step takes `∂τ_s/∂x ≈ W_s`, the simulated run's
//! regressor (exact in a loop whose simulated motion does not depend on `x`, nearly so in a
//! stiff one), and since `τ_s(x_k) = W_s x_k` the step is the least-squares solution of
//! `W_s x = τ`: IDIM on noise-free simulated states, from the OLS estimate until the parameters
//! settle. Neither `q̇` nor `q̈` is differentiated from measured angles, so their noise does not
//! bias it.

use super::Identifier;
use super::closed_loop::{self, Iteration};
use super::{Estimates, Prepared};
use crate::estimate::EstimateError;
use crate::estimate::NotApplicable;
use crate::lsq::least_squares;
use sim::reading::Measurements;

/// The DIDIM identifier.
#[derive(Clone, Debug, Default)]
pub struct Didim {
    /// How the simulation is iterated.
    pub iteration: Iteration,
}

impl Didim {
    /// Identifies the arm from the experiment.
    pub fn identify(&self, experiment: &Prepared) -> Result<Estimates, EstimateError> {
        closed_loop::identify(experiment, self.iteration, self.name(), |system, w_s| {
            least_squares(w_s, &system.b)
        })
    }
}

impl super::Identifier for Didim {
    fn name(&self) -> &'static str {
        crate::estimate::EstimatorId::Didim.name()
    }

    fn needs(&self) -> &'static str {
        "an excitation run with joint angles and torques; simulates the identified arm in the run's control loop"
    }

    fn requires(&self, excitation: &Measurements) -> Result<(), NotApplicable> {
        super::closed_loop::ClosedLoop::of_run(excitation).map(|_| ())
    }
    fn identify(&self, experiment: &super::Prepared) -> Result<super::Estimates, EstimateError> {
        Didim::identify(self, experiment)
    }
}

//! Levenberg–Marquardt over rollout windows (module docs of [`super`]).

use std::sync::atomic::{AtomicUsize, Ordering};

use nalgebra::{DMatrix, DVector};
use rayon::prelude::*;

use sim::rollout::{BLOWN_UP, Logged, Model, RolloutError, Windows, roll_out, window_steps};

use super::prior::{Prior, Rows};
use super::{SimulationFit, Term};

/// How a fit runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Options {
    /// The windows of every log.
    pub windows: Windows,
    /// Most Levenberg–Marquardt iterations.
    pub iterations: usize,
    /// Stop once an accepted step lowers the cost by less than this fraction of it.
    pub tolerance: f64,
    /// The prior on the terms, centred on their start (`None`: the logs alone).
    pub prior: Option<Prior>,
    /// Print each iteration's figures on standard error.
    pub verbose: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            windows: Windows::SERVO,
            iterations: 40,
            tolerance: 1e-10,
            prior: None,
            verbose: false,
        }
    }
}

/// Why a fit could not run.
#[derive(Debug, thiserror::Error)]
pub enum FitError {
    /// A term names what the model does not have.
    #[error("term {term}: the model has no {what}")]
    Term {
        /// The term's name.
        term: String,
        /// What is missing.
        what: String,
    },
    /// No window fits in any log.
    #[error("no rollout window of {horizon} s fits in the logs")]
    NoWindow {
        /// The window length (s).
        horizon: f64,
    },
    /// A rollout could not be set up.
    #[error(transparent)]
    Rollout(#[from] RolloutError),
}

/// One window: which log, its first sample, its samples after the first.
#[derive(Clone, Copy, Debug)]
struct Window {
    log: usize,
    start: usize,
    length: usize,
}

/// The problem: the model, its terms, the logs and their windows.
struct Problem<'a> {
    model: Model,
    terms: &'a [Term],
    logs: &'a [Logged],
    windows: Vec<Window>,
    /// The integrator steps per sample of every rollout until the next [`Problem::set_steps`].
    steps: AtomicUsize,
    /// The prior's rows, after the windows' residuals.
    prior: Option<Rows>,
    /// The windows' residual rows (every window's samples after the first × joints).
    data_rows: usize,
}

impl Problem<'_> {
    /// Fixes the rollouts' steps per sample to the step rule's finest over the windows for the
    /// model at `x` (`sim::rollout::window_steps`): at each iteration's start, so that a
    /// trial step that stiffens a term beyond what the step resolves blows up and is refused
    /// rather than fitted.
    fn set_steps(&self, x: &[f64]) {
        let model = Model {
            steps_per_sample: None,
            ..self.model_at(x)
        };
        let steps = (self.windows.iter())
            .map(|w| window_steps(&model, &self.logs[w.log], w.start))
            .max()
            .unwrap_or(1);
        self.steps.store(steps, Ordering::Relaxed);
    }

    /// The model at the fit's coordinates `x` (log values of positive terms).
    fn model_at(&self, x: &[f64]) -> Model {
        let mut m = self.model.clone();
        m.steps_per_sample = Some(self.steps.load(Ordering::Relaxed));
        for (t, &xi) in self.terms.iter().zip(x) {
            t.set(&mut m, if t.positive() { xi.exp() } else { xi });
        }
        m
    }

    /// Window `w`'s residuals `q_sim − q_rec` (every sample after the first, every joint) at `x`;
    /// a window that stops or passes [`BLOWN_UP`] gives `BLOWN_UP` for what it did not reach.
    fn residuals(&self, model: &Model, w: Window) -> Result<Vec<f64>, RolloutError> {
        let log = &self.logs[w.log];
        let nj = log.q.len();
        let rolled = match roll_out(model, log, w.start, w.length) {
            // Terms a trial step took out of their domain (an overflowing stiffness): the
            // step fails, as one whose window blows up.
            Err(RolloutError::Scenario(_)) => return Ok(vec![BLOWN_UP; w.length * nj]),
            other => other?,
        };
        let mut r = Vec::with_capacity(w.length * nj);
        for k in 1..=w.length {
            for (j, q) in log.q.iter().enumerate() {
                let e = rolled.q.get(k).map_or(f64::NAN, |s| s[j] - q[w.start + k]);
                r.push(if e.is_finite() && e.abs() <= BLOWN_UP {
                    e
                } else {
                    BLOWN_UP
                });
            }
        }
        debug_assert_eq!(r.len(), w.length * nj);
        Ok(r)
    }

    /// Every window's residuals at each of `points`, in parallel: `[point][stacked residuals]`.
    fn evaluate(&self, points: &[Vec<f64>]) -> Result<Vec<Vec<f64>>, RolloutError> {
        let models: Vec<Model> = points.iter().map(|x| self.model_at(x)).collect();
        let jobs: Vec<(usize, Window)> = (0..points.len())
            .flat_map(|p| self.windows.iter().map(move |w| (p, *w)))
            .collect();
        let done = jobs
            .par_iter()
            .map(|(p, w)| self.residuals(&models[*p], *w))
            .collect::<Result<Vec<_>, _>>()?;
        let per = self.windows.len();
        Ok((0..points.len())
            .map(|p| {
                let mut r = done[p * per..(p + 1) * per].concat();
                if let Some(prior) = &self.prior {
                    prior.append(&points[p], &mut r);
                }
                r
            })
            .collect())
    }
}

fn cost(r: &[f64]) -> f64 {
    0.5 * r.iter().map(|e| e * e).sum::<f64>()
}

/// Fits `terms` of `model` to `logs` (module docs of [`super`]).
pub fn fit(
    model: &Model,
    terms: &[Term],
    logs: &[Logged],
    options: Options,
) -> Result<SimulationFit, FitError> {
    let mut x0 = Vec::with_capacity(terms.len());
    for t in terms {
        let v = t.value(model).ok_or_else(|| FitError::Term {
            term: t.name(),
            what: format!("joint {} with a position servo", t.joint),
        })?;
        if !v.is_finite() {
            return Err(FitError::Term {
                term: t.name(),
                what: format!("finite start value (it is {v})"),
            });
        }
        x0.push(if t.positive() { v.max(1e-9).ln() } else { v });
    }
    let mut windows = Vec::new();
    for (l, log) in logs.iter().enumerate() {
        let (starts, length) = options.windows.starts(&log.t, log.t[0]);
        windows.extend(starts.into_iter().map(|start| Window {
            log: l,
            start,
            length,
        }));
    }
    if windows.is_empty() {
        return Err(FitError::NoWindow {
            horizon: options.windows.horizon,
        });
    }
    let data_rows = (windows.iter())
        .map(|w| w.length * logs[w.log].q.len())
        .sum();
    let mut problem = Problem {
        model: model.clone(),
        terms,
        logs,
        steps: AtomicUsize::new(1),
        prior: None,
        data_rows,
        windows,
    };
    problem.set_steps(&x0);
    if let Some(prior) = options.prior {
        let r = problem.evaluate(std::slice::from_ref(&x0))?.remove(0);
        let rms = (2.0 * cost(&r) / data_rows.max(1) as f64).sqrt();
        let per_window = data_rows as f64 / problem.windows.len() as f64;
        problem.prior = Some(Rows::new(prior, terms, &x0, per_window, rms));
    }
    let solved = levenberg_marquardt(&problem, x0, options)?;
    let steps = problem.steps.load(Ordering::Relaxed);
    Ok(summary(&problem, solved, steps))
}

/// The optimum: coordinates, residuals and Jacobian there, the starting cost, iterations.
struct Solved {
    x: Vec<f64>,
    r: Vec<f64>,
    jacobian: DMatrix<f64>,
    cost_start: f64,
    iterations: usize,
}

/// Forward-difference increments of the coordinates: 1e-4 of a log value (1e-4 relative in the
/// term), 2 ms of a delay.
fn increments(problem: &Problem) -> Vec<f64> {
    (problem.terms.iter())
        .map(|t| if t.positive() { 1e-4 } else { 2e-3 })
        .collect()
}

fn jacobian(problem: &Problem, x: &[f64], r: &[f64]) -> Result<DMatrix<f64>, RolloutError> {
    let h = increments(problem);
    let points: Vec<Vec<f64>> = (0..x.len())
        .map(|i| {
            let mut p = x.to_vec();
            p[i] += h[i];
            p
        })
        .collect();
    let shifted = problem.evaluate(&points)?;
    Ok(DMatrix::from_fn(r.len(), x.len(), |row, i| {
        (shifted[i][row] - r[row]) / h[i]
    }))
}

fn levenberg_marquardt(
    problem: &Problem,
    mut x: Vec<f64>,
    options: Options,
) -> Result<Solved, RolloutError> {
    let mut r = problem.evaluate(std::slice::from_ref(&x))?.remove(0);
    let cost_start = cost(&r);
    let mut lambda = 1e-3;
    let mut j = jacobian(problem, &x, &r)?;
    let mut iterations = 0;
    while iterations < options.iterations {
        iterations += 1;
        if iterations > 1 {
            // The cost at the new step, and its slope there.
            let before = problem.steps.load(Ordering::Relaxed);
            problem.set_steps(&x);
            if problem.steps.load(Ordering::Relaxed) != before {
                r = problem.evaluate(std::slice::from_ref(&x))?.remove(0);
                j = jacobian(problem, &x, &r)?;
            }
        }
        let jtj = j.transpose() * &j;
        let g = j.transpose() * DVector::from_column_slice(&r);
        let mut accepted = false;
        for _ in 0..10 {
            let mut a = jtj.clone();
            for i in 0..a.nrows() {
                a[(i, i)] += lambda * jtj[(i, i)].max(1e-12);
            }
            let Some(step) = a.cholesky().map(|c| c.solve(&(-&g))) else {
                lambda *= 4.0;
                continue;
            };
            // At most a factor e² on a positive term, 50 ms on a delay, in one step.
            let bound = |t: &Term| if t.positive() { 2.0 } else { 0.05 };
            let trial: Vec<f64> = (x.iter().zip(step.iter()).zip(problem.terms))
                .map(|((a, b), t)| a + b.clamp(-bound(t), bound(t)))
                .collect();
            let rt = problem.evaluate(std::slice::from_ref(&trial))?.remove(0);
            if cost(&rt) < cost(&r) {
                let gain = (cost(&r) - cost(&rt)) / cost(&r).max(f64::MIN_POSITIVE);
                (x, r) = (trial, rt);
                if options.verbose {
                    report(problem, iterations, &r, lambda);
                }
                lambda = (lambda / 3.0).max(1e-12);
                accepted = true;
                if gain < options.tolerance {
                    j = jacobian(problem, &x, &r)?;
                    return Ok(Solved {
                        x,
                        r,
                        jacobian: j,
                        cost_start,
                        iterations,
                    });
                }
                break;
            }
            lambda *= 4.0;
        }
        if !accepted {
            break;
        }
        j = jacobian(problem, &x, &r)?;
    }
    Ok(Solved {
        x,
        r,
        jacobian: j,
        cost_start,
        iterations,
    })
}

/// An accepted iteration's figures, on standard error.
fn report(problem: &Problem, iteration: usize, r: &[f64], lambda: f64) {
    let n = problem.data_rows;
    eprintln!(
        "iteration {iteration}: RMS residual {:.4e} rad, prior cost {:.3e}, {} steps per sample, λ {lambda:.1e}",
        (2.0 * cost(&r[..n]) / n.max(1) as f64).sqrt(),
        cost(&r[n..]),
        problem.steps.load(Ordering::Relaxed),
    );
}

/// The covariance of the fit's coordinates, windows as clusters (module docs of [`super`]):
/// `B M B · G/(G − 1)` with `B = (JᵀJ)⁻¹`, `M = Σ_w (J_wᵀ r_w)(J_wᵀ r_w)ᵀ` over the `G`
/// windows' rows (`J` with the prior's rows, which `B` holds and `M` does not: the penalized
/// estimator's sandwich). NaN where `JᵀJ` is singular.
fn covariance(problem: &Problem, s: &Solved) -> DMatrix<f64> {
    let p = s.x.len();
    let jtj = s.jacobian.transpose() * &s.jacobian;
    let Some(bread) = jtj.try_inverse() else {
        return DMatrix::from_element(p, p, f64::NAN);
    };
    let mut meat = DMatrix::zeros(p, p);
    let mut row = 0;
    for w in &problem.windows {
        let rows = w.length * problem.logs[w.log].q.len();
        let jw = s.jacobian.rows(row, rows);
        let score = jw.transpose() * DVector::from_column_slice(&s.r[row..row + rows]);
        meat += &score * score.transpose();
        row += rows;
    }
    let g = problem.windows.len() as f64;
    &bread * meat * &bread * (g / (g - 1.0).max(1.0))
}

/// The fit's values, σ and figures.
fn summary(problem: &Problem, s: Solved, steps: usize) -> SimulationFit {
    let (n, p) = (problem.data_rows, s.x.len());
    let data = &s.r[..n];
    let covariance = covariance(problem, &s);
    let values: Vec<f64> = (problem.terms.iter().zip(&s.x))
        .map(|(t, &x)| if t.positive() { x.exp() } else { x.max(0.0) })
        .collect();
    let std = (0..p)
        .map(|i| {
            let sx = covariance[(i, i)].sqrt();
            if problem.terms[i].positive() {
                values[i] * sx
            } else {
                sx
            }
        })
        .collect();
    SimulationFit {
        terms: problem.terms.to_vec(),
        values,
        std,
        cost_start: s.cost_start,
        cost: cost(data),
        rms_start: (2.0 * s.cost_start / n.max(1) as f64).sqrt(),
        rms: (2.0 * cost(data) / n.max(1) as f64).sqrt(),
        iterations: s.iterations,
        windows: problem.windows.len(),
        steps_per_sample: steps,
    }
}

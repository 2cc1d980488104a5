//! The estimators a study may name: the registry's (with the study's NIM models), the study
//! file's external commands (`[[external]]`) and the caller's own (e.g. the Python package's
//! callables), all behind the one [`Estimator`] trait.

use super::file::Study;
use crate::estimate::{Estimator, Options, registry};

/// Every estimator a study can run, by name.
pub struct Available<'a> {
    registered: Vec<Box<dyn Estimator>>,
    study: &'a Study,
    extra: &'a [&'a dyn Estimator],
}

impl<'a> Available<'a> {
    /// The registry (with `study`'s NIM models), `study`'s externals and `extra`.
    pub fn new(study: &'a Study, extra: &'a [&'a dyn Estimator]) -> Self {
        let registered = registry(&Options {
            nim_models: study.nim_models.clone(),
            ..Default::default()
        });
        Available {
            registered,
            study,
            extra,
        }
    }

    /// Those named in `names`, in the order registry, externals, extra.
    pub fn named(&self, names: &[String]) -> Vec<&dyn Estimator> {
        let registered = self.registered.iter().map(|e| e.as_ref());
        let externals = self.study.externals.iter().map(|e| e as &dyn Estimator);
        let extra = self.extra.iter().copied();
        registered
            .chain(externals)
            .chain(extra)
            .filter(|e| names.iter().any(|n| n == e.name()))
            .collect()
    }
}

//! Typed edits of a checked scenario: a study or a test that needs a variant of a file (another
//! torque scale, a shorter run, another population size) changes fields of its [`ScenarioFile`]
//! instead of the file's text, and the variant is checked again as a whole.

use super::{ModelSource, Scenario, ScenarioError, ScenarioFile};

impl Scenario {
    /// The scenario with its file changed by `edit`, checked again from the start (every field,
    /// the model, the limits), as if the edited file had been read: a variant that is not a valid
    /// scenario is refused with the field named. The variant's [`Scenario::source`] (the text a
    /// manifest records, and that `sim run` reads back to the same run) is the edited file
    /// written as TOML; its [`Scenario::path`] names the original file in messages. A URDF
    /// `model` path is still taken relative to the original file's directory.
    ///
    /// ```
    /// # let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    /// let rail = sim::scenario::Scenario::from_path(&root.join("scenarios/paper_rail.toml"))?;
    /// let short = rail.edited(|f| f.time.end = 0.5)?;
    /// assert_eq!(short.samples, 26); // 0.5 s sampled every 0.02 s
    /// assert!(rail.edited(|f| f.time.step = -1.0).is_err());
    /// # Ok::<(), sim::scenario::ScenarioError>(())
    /// ```
    pub fn edited(&self, edit: impl FnOnce(&mut ScenarioFile)) -> Result<Scenario, ScenarioError> {
        let mut file = self.file.clone();
        edit(&mut file);
        let origin = self.path.as_ref().map_or_else(
            || format!("{} (edited)", file.name),
            |p| p.display().to_string(),
        );
        let source = Self::text_of(&file, &origin)?;
        let model = match &self.model_dir {
            Some(dir) => ModelSource::Dir(dir),
            None => ModelSource::Given(&self.chain),
        };
        let mut scenario = Self::build(file, source, &origin, model)?;
        scenario.path.clone_from(&self.path);
        scenario.model_dir.clone_from(&self.model_dir);
        Ok(scenario)
    }
}

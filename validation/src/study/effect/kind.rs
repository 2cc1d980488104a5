//! [`EffectKind`]: the typed handle of one registered effect, written as its name.

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::LazyLock;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::SweptEffect;
use super::registry::EFFECTS;
use sim::reading::Measurements;

/// One effect of [`EFFECTS`]: compared, ordered and hashed by its place in the registry, written
/// (serde, CSV, reports) as its [`SweptEffect::name`].
#[derive(Clone, Copy)]
pub struct EffectKind(usize);

impl EffectKind {
    /// The effect named `name` in files, if registered.
    pub fn named(name: &str) -> Option<EffectKind> {
        EFFECTS
            .iter()
            .position(|e| e.name() == name)
            .map(EffectKind)
    }

    /// Every registered effect, in the registry's order.
    pub fn all() -> impl Iterator<Item = EffectKind> {
        (0..EFFECTS.len()).map(EffectKind)
    }

    /// Its implementation.
    pub fn effect(self) -> &'static dyn SweptEffect {
        EFFECTS[self.0]
    }

    /// Its name in files.
    pub fn name(self) -> &'static str {
        self.effect().name()
    }

    /// Its level's quantity and unit, as a report states it.
    pub fn unit(self) -> &'static str {
        self.effect().unit()
    }

    /// Whether it changes what the estimators are told rather than the arm or its sensors.
    pub(crate) fn is_mismatch(self) -> bool {
        self.effect().is_mismatch()
    }

    /// Changes what the estimators are told of a measured run at `level` (the mismatch
    /// effects; the others are in the arm or its sensors and leave it as measured).
    pub fn tell(self, m: &mut Measurements, level: f64) {
        self.effect().tell(m, level);
    }
}

impl PartialEq for EffectKind {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}

impl Eq for EffectKind {}

impl Hash for EffectKind {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.hash(state);
    }
}

impl PartialOrd for EffectKind {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for EffectKind {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.cmp(&other.0)
    }
}

impl fmt::Debug for EffectKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl fmt::Display for EffectKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for EffectKind {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

/// The registered names, for serde's "expected one of" message.
static NAMES: LazyLock<Vec<&'static str>> =
    LazyLock::new(|| EFFECTS.iter().map(|e| e.name()).collect());

impl<'de> Deserialize<'de> for EffectKind {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        EffectKind::named(&name)
            .ok_or_else(|| serde::de::Error::unknown_variant(&name, NAMES.as_slice()))
    }
}

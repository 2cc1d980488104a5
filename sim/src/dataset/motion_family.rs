//! The motion family an arm of a population drew, as its manifest records it.

use serde::{Deserialize, Serialize};

/// The name of a motion family (what an arm's manifest records).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FamilyId {
    /// `Motion::Paper` (`crate::scenario::population::motion`).
    Paper,
    /// `Motion::Fourier`.
    Fourier,
    /// `Motion::PointToPoint`.
    PointToPoint,
}

impl FamilyId {
    /// Every family.
    pub const ALL: [FamilyId; 3] = [FamilyId::Paper, FamilyId::Fourier, FamilyId::PointToPoint];

    /// The name in scenario files and manifests.
    pub fn id(self) -> &'static str {
        match self {
            FamilyId::Paper => "paper",
            FamilyId::Fourier => "fourier",
            FamilyId::PointToPoint => "point_to_point",
        }
    }
}

impl std::fmt::Display for FamilyId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id())
    }
}

impl std::str::FromStr for FamilyId {
    type Err = crate::param::Unparsed;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        FamilyId::ALL
            .into_iter()
            .find(|f| f.id() == s)
            .ok_or_else(|| {
                let ids: Vec<&str> = FamilyId::ALL.iter().map(|f| f.id()).collect();
                crate::param::Unparsed::new(format!("a motion family ({})", ids.join(", ")), s)
            })
    }
}

//! How a population's arms are cut into shards, the unit of its files
//! ([`crate::dataset::population`]), of resuming and of `--shard K/N`.

use std::ops::Range;

/// Arms per shard when the population section does not say (`arms_per_shard`): a
/// 100 000-arm population is 100 shards, 501 files.
pub const DEFAULT_ARMS_PER_SHARD: usize = 1000;

/// How a population's arms are cut into shards: shard `s` holds arms
/// `s·arms_per_shard .. min((s+1)·arms_per_shard, arms)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Arms of the population.
    pub arms: usize,
    /// Arms per shard (≥ 1).
    pub arms_per_shard: usize,
}

impl Layout {
    /// Number of shards.
    pub fn shards(&self) -> usize {
        self.arms.div_ceil(self.arms_per_shard)
    }

    /// The shard holding arm `arm`.
    pub fn shard_of(&self, arm: usize) -> usize {
        arm / self.arms_per_shard
    }

    /// The arms of shard `shard`.
    pub(crate) fn arms_of(&self, shard: usize) -> Range<usize> {
        let start = shard * self.arms_per_shard;
        start.min(self.arms)..(start + self.arms_per_shard).min(self.arms)
    }
}

//! Streams for groups of independent systems. The update of one system needs nothing of
//! another's, so the systems are split into groups whose sweeps go to streams of their own:
//!
//! - a group's colour passes follow each other on its stream while another stream's launches
//!   fill the device during its launch gaps and last partial waves;
//! - where a group's spins and couplings fit in L2 with the other streams' groups, the engine
//!   runs all sweeps between two measurements group by group, so that they stay in L2 from one
//!   colour pass to the next instead of streaming from DRAM.
//!
//! The streams are *blocking* streams: work on the device's default (legacy) stream waits for
//! all work before it on them, and their later work waits for it. Observables, copies, clears
//! and frees on the default stream are thus ordered with the updates without any event.
#![allow(
    unsafe_code,
    reason = "creating and destroying a stream of a chosen kind are FFI calls cudarc does not wrap"
)]

use std::ops::Range;
use std::sync::Arc;

use cudarc::driver::result::stream::{self, StreamKind};
use cudarc::driver::{CudaContext, CudaStream};

use super::driver::driver_error;
use crate::error::Result;

/// Streams the groups are spread over (3D EA at L = 64 with 1024 samples on the H100, one group
/// per stream: 2017 flips/ns with one stream, 2069 with two, 2071 with three, 2064 with four).
const STREAMS: u32 = 2;

/// The share of L2 the groups running at once may fill (3D EA at L = 64, two streams, groups of
/// four word systems: 32 MiB of the H100's 50 MiB, 2248 flips/ns; groups of eight: 64 MiB,
/// 2052).
const L2_SHARE: (u64, u64) = (2, 3);

/// The fewest words of one colour a launch of a group updates: shorter launches take less
/// time on the device than their enqueueing on the CPU (3D EA at L = 64, groups of two word
/// systems, 2^18 words: 1934 flips/ns against 2248 with four).
const MIN_LAUNCH_WORDS: u64 = 1 << 19;

/// What the grouping of systems depends on.
#[derive(Debug, Clone, Copy)]
pub struct SystemSizes {
    pub systems: u32,
    /// Bytes of spins and couplings one system's update reads.
    pub system_bytes: u64,
    /// Words of one colour of one system.
    pub colour_words: u64,
    /// The device's L2 cache.
    pub l2_bytes: u64,
}

impl SystemSizes {
    /// Number of groups for `streams` streams: the fewest, a multiple of the streams, whose
    /// groups fit in L2 together and whose launches stay long enough; one group per stream where
    /// no such grouping exists.
    fn groups(&self, streams: u32) -> u32 {
        let streams = u64::from(streams);
        let systems = u64::from(self.systems);
        let share = self.l2_bytes * L2_SHARE.0 / L2_SHARE.1;
        let fitting = share / (streams * self.system_bytes.max(1));
        let long_enough = MIN_LAUNCH_WORDS.div_ceil(self.colour_words.max(1));
        let per_stream = systems.div_ceil(streams);
        let size = if long_enough <= fitting && fitting < per_stream {
            fitting
        } else {
            per_stream
        };
        let groups = systems.div_ceil(size).next_multiple_of(streams);
        groups.min(systems).max(1) as u32
    }
}

/// A stream this crate created, destroyed with it: blocking (ordered with the default stream)
/// or non-blocking (ordered by events alone).
struct OwnedStream(Arc<CudaStream>);

impl OwnedStream {
    /// A stream of `kind`, at the device's greatest priority where `urgent` says so.
    fn new(ctx: &Arc<CudaContext>, kind: StreamKind, urgent: Option<Urgent>) -> Result<Self> {
        let failed = driver_error("creating a CUDA stream");
        ctx.bind_to_thread().map_err(&failed)?;
        let raw = match urgent {
            None => stream::create(kind),
            Some(Urgent) => stream::get_priority_range()
                .and_then(|(_, greatest)| stream::create_with_priority(kind, greatest)),
        }
        .map_err(&failed)?;
        // SAFETY: `raw` was just created in `ctx` and lives until `drop` destroys it; the
        // wrapper never leaves this struct but as a borrow of it. Wrapping it as borrowed keeps
        // cudarc out of its multi-stream mode (no event tracking on every buffer).
        Ok(OwnedStream(unsafe { ctx.wrap_borrowed_stream(raw) }))
    }

    fn blocking(ctx: &Arc<CudaContext>) -> Result<Self> {
        Self::new(ctx, StreamKind::Default, None)
    }
}

impl Drop for OwnedStream {
    fn drop(&mut self) {
        // SAFETY: the stream was created by `OwnedStream::new` and is destroyed once (cudarc
        // does not destroy borrowed streams); work still queued on it completes first.
        let destroyed = unsafe { stream::destroy(self.0.cu_stream()) };
        self.0.context().record_err(destroyed);
    }
}

/// A non-blocking stream for the downloads of a plan's finished measurements: its copies do not
/// wait for the work queued on the default and blocking streams after them, so they run beside
/// the plan's next batch.
pub struct ReadStream(OwnedStream);

impl ReadStream {
    pub fn new(ctx: &Arc<CudaContext>) -> Result<Self> {
        Ok(ReadStream(OwnedStream::new(
            ctx,
            StreamKind::NonBlocking,
            None,
        )?))
    }

    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.0.0
    }
}

/// The systems `0..systems` in groups of consecutive systems (see [`SystemSizes::groups`]),
/// spread round-robin over up to [`STREAMS`] streams.
pub struct SystemStreams {
    streams: Vec<OwnedStream>,
    sizes: SystemSizes,
    groups: Vec<Range<u32>>,
}

/// Groups of one round, each with its stream.
pub type Round<'a> = Vec<(&'a CudaStream, Range<u32>)>;

impl SystemStreams {
    pub fn new(ctx: &Arc<CudaContext>, sizes: SystemSizes) -> Result<Self> {
        let streams = STREAMS.min(sizes.systems).max(1);
        let groups = group_ranges(sizes.systems, sizes.groups(streams));
        let streams = (0..streams)
            .map(|_| OwnedStream::blocking(ctx))
            .collect::<Result<_>>()?;
        Ok(SystemStreams {
            streams,
            sizes,
            groups,
        })
    }

    /// Number of groups.
    pub fn group_count(&self) -> usize {
        self.groups.len()
    }

    /// The groups in rounds of one group per stream: each group's stream and systems.
    pub fn rounds(&self) -> Vec<Round<'_>> {
        self.rounds_of(&self.groups)
    }

    /// [`Self::rounds`] of `units` units of `systems_per_unit` systems each (the pairs of a
    /// paired update), grouped as systems are; none for no units.
    pub fn unit_rounds(&self, units: u32, systems_per_unit: u32) -> Vec<Round<'_>> {
        if units == 0 {
            return Vec::new();
        }
        let per_unit = u64::from(systems_per_unit);
        let sizes = SystemSizes {
            systems: units,
            system_bytes: self.sizes.system_bytes * per_unit,
            colour_words: self.sizes.colour_words * per_unit,
            ..self.sizes
        };
        let streams = (self.streams.len() as u32).min(units).max(1);
        self.rounds_of(&group_ranges(units, sizes.groups(streams)))
    }

    /// Every stream, the first group's first.
    pub fn streams(&self) -> impl Iterator<Item = &CudaStream> + Clone {
        self.streams.iter().map(|stream| &*stream.0)
    }

    /// Make every stream's later work wait for the work queued so far on all of them: after
    /// launches that group the systems differently from [`Self::rounds`].
    pub fn join(&self) -> Result<()> {
        for (i, stream) in self.streams.iter().enumerate() {
            for (j, other) in self.streams.iter().enumerate() {
                if i != j {
                    stream
                        .0
                        .join(&other.0)
                        .map_err(driver_error("ordering the update streams"))?;
                }
            }
        }
        Ok(())
    }

    fn rounds_of(&self, groups: &[Range<u32>]) -> Vec<Round<'_>> {
        groups
            .chunks(self.streams.len())
            .map(|round| {
                round
                    .iter()
                    .zip(&self.streams)
                    .map(|(range, stream)| (&*stream.0, range.clone()))
                    .collect()
            })
            .collect()
    }
}

/// A stream whose blocks the device schedules before those of other streams.
struct Urgent;

/// The two streams of a slab's sweep ([`crate::engine::slabs::SlabSweep`]): the edge planes'
/// update with their exchange on one, the bulk on the other, so that the bulk runs while the
/// edges travel. The edge stream has the greatest priority: its few blocks (and NCCL's) start
/// as soon as they may instead of queueing behind the bulk's, so the exchange ends early in
/// the bulk's update rather than after it.
pub struct SlabStreams {
    edges: OwnedStream,
    bulk: OwnedStream,
}

impl SlabStreams {
    pub fn new(ctx: &Arc<CudaContext>) -> Result<Self> {
        Ok(SlabStreams {
            edges: OwnedStream::new(ctx, StreamKind::Default, Some(Urgent))?,
            bulk: OwnedStream::blocking(ctx)?,
        })
    }

    pub fn edges(&self) -> &Arc<CudaStream> {
        &self.edges.0
    }

    pub fn bulk(&self) -> &Arc<CudaStream> {
        &self.bulk.0
    }
}

/// `systems` systems in `count` ranges of consecutive systems whose sizes differ by one at most.
fn group_ranges(systems: u32, count: u32) -> Vec<Range<u32>> {
    let count = u64::from(count.max(1));
    let at = |k: u64| (u64::from(systems) * k / count) as u32;
    (0..count).map(|k| at(k)..at(k + 1)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1 << 20;

    /// 3D EA word systems of side `l` (spins and three coupling words per site) on an H100.
    fn spin_glass(l: u64, systems: u32) -> SystemSizes {
        SystemSizes {
            systems,
            system_bytes: 16 * l * l * l,
            colour_words: l * l * l / 2,
            l2_bytes: 50 * MIB,
        }
    }

    #[test]
    fn groups_fit_in_l2_with_long_launches() {
        assert_eq!(
            spin_glass(64, 32).groups(2),
            8,
            "four 4 MiB word systems a group"
        );
        assert_eq!(spin_glass(64, 8).groups(2), 2);
        let small_l2 = SystemSizes {
            l2_bytes: 6 * MIB,
            ..spin_glass(64, 32)
        };
        assert_eq!(small_l2.groups(2), 2, "no group fits: one a stream");
        assert_eq!(
            spin_glass(128, 32).groups(2),
            2,
            "a 32 MiB word system fits with nothing"
        );
        let short_launches = SystemSizes {
            l2_bytes: 8 * MIB,
            ..spin_glass(16, 1024)
        };
        assert_eq!(
            short_launches.groups(2),
            2,
            "groups fitting in L2 launch too few words"
        );
    }

    #[test]
    fn fewer_systems_than_streams_make_one_group_each() {
        assert_eq!(spin_glass(64, 1).groups(1), 1);
        assert_eq!(spin_glass(64, 3).groups(2), 2);
    }

    #[test]
    fn group_ranges_cover_every_system_once() {
        for (systems, count) in [(32, 8), (33, 8), (5, 2), (1, 1), (7, 7)] {
            let ranges = group_ranges(systems, count);
            assert_eq!(ranges.len(), count as usize);
            assert_eq!(ranges.first().unwrap().start, 0);
            assert_eq!(ranges.last().unwrap().end, systems);
            assert!(ranges.windows(2).all(|w| w[0].end == w[1].start));
            let sizes: Vec<u32> = ranges.iter().map(|r| r.len() as u32).collect();
            assert!(
                sizes.iter().max().unwrap() - sizes.iter().min().unwrap() <= 1,
                "{sizes:?}"
            );
        }
    }
}

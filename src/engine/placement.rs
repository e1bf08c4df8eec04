//! Where this process runs in a job of several MPI ranks. The MPI layer (`mpi/`, above
//! the engines) records it once at start-up; the backends read it to take a node's GPUs in turn
//! where the config names no adapter. A process that runs alone has none.

use std::sync::OnceLock;

/// This process's place in a job of several ranks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placement {
    pub rank: u32,
    pub size: u32,
    /// The rank among those on the same node: the GPU it takes where the config names none.
    pub local_rank: u32,
}

static PLACEMENT: OnceLock<Placement> = OnceLock::new();

/// This process's place in a job of several ranks; `None` when it runs alone.
pub fn placement() -> Option<Placement> {
    PLACEMENT.get().copied()
}

/// Record this process's place, once per process (MPI starts once).
pub fn settle(placement: Placement) {
    PLACEMENT
        .set(placement)
        .expect("MPI starts once per process");
}

/// This process's rank among the ranks on its node, 0 when it runs alone: where the config
/// names no adapter, rank `k` of a node takes its `k`-th GPU (modulo their number).
pub fn local_rank() -> usize {
    placement().map_or(0, |p| p.local_rank as usize)
}

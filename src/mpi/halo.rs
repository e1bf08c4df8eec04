//! A slab's halos between MPI ranks ([`MpiHalo`]): the host-staged exchange of boundary planes
//! with the ranks holding the neighbouring slabs, and the ring of ranks through which an engine
//! may set up a device-to-device path instead (`engine/cuda/halos.rs`).

use ::mpi::Tag;
use ::mpi::collective::SystemOperation;
use ::mpi::point_to_point::send_receive_into_with_tags;
use ::mpi::topology::{Communicator, SimpleCommunicator};
use ::mpi::traits::*;

use crate::engine::placement::Placement;
use crate::engine::{Halo, ProcessRing};
use crate::error::Result;

/// A slab's halos over MPI: the slab below is rank `k - 1`, the one above rank `k + 1`,
/// periodic over the ranks (as the planes are over the lattice).
pub(super) struct MpiHalo {
    pub(super) placement: Placement,
}

/// The tags of a slab's planes on their way down (its first plane) and up (its last).
const DOWN: Tag = 1;
const UP: Tag = 2;

impl Halo for MpiHalo {
    fn exchange(
        &mut self,
        _colour: u32,
        lower: Vec<u32>,
        upper: Vec<u32>,
    ) -> Result<[Vec<u32>; 2]> {
        let world = SimpleCommunicator::world();
        let Placement { rank, size, .. } = self.placement;
        let below = world.process_at_rank(((rank + size - 1) % size) as i32);
        let above = world.process_at_rank(((rank + 1) % size) as i32);
        // Each slab's planes are as long as its neighbours' (the same systems and plane).
        let mut from_above = vec![0u32; lower.len()];
        let mut from_below = vec![0u32; upper.len()];
        send_receive_into_with_tags(&lower[..], &below, DOWN, &mut from_above[..], &above, DOWN);
        send_receive_into_with_tags(&upper[..], &above, UP, &mut from_below[..], &below, UP);
        Ok([from_below, from_above])
    }

    fn ring(&mut self) -> Option<&mut dyn ProcessRing> {
        Some(self)
    }
}

/// The ranks of the job are the ring of slabs, in rank order.
impl ProcessRing for MpiHalo {
    fn position(&self) -> (u32, u32) {
        (self.placement.rank, self.placement.size)
    }

    fn all(&mut self, ok: bool) -> Result<bool> {
        let mut everywhere = 0u8;
        SimpleCommunicator::world().all_reduce_into(
            &u8::from(ok),
            &mut everywhere,
            SystemOperation::min(),
        );
        Ok(everywhere == 1)
    }

    fn broadcast(&mut self, token: &mut [u8]) -> Result<()> {
        SimpleCommunicator::world()
            .process_at_rank(0)
            .broadcast_into(token);
        Ok(())
    }
}

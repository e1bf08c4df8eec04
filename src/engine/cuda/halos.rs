//! A slab's halos device to device, where the slabs are the ranks of one job (one GPU each):
//! NCCL moves each boundary plane from this device's spin words straight into the neighbour's
//! halo (over NVLink where the GPUs have it), queued on the slab's edge stream right after the
//! edges' update. The host neither waits for the planes nor copies them, so it keeps queueing
//! sweeps while the device exchanges, and the exchange of one colour runs beside that colour's
//! bulk ([`crate::engine::slabs::SlabSweep`]).
//!
//! Why NCCL and not CUDA IPC handles with peer copies: a peer copy into a neighbour's halo must
//! wait until the neighbour's previous edges have read it, which takes events shared across
//! processes and a protocol of our own; NCCL's send and receive are ordered on each side's
//! stream and pair up in call order, which is the protocol. The device machine's OpenMPI has
//! no CUDA support, so MPI itself cannot take device pointers ([docs/design/mpi.md]).
//!
//! The path is chosen once, when the slab engines open: every rank must find NCCL (loaded at
//! run time) and rank 0 must make the communicator's id; `SPINFLIP_HALOS=host` keeps the
//! host-staged exchange (to compare the two). The ranks vote, so all take the same path, and
//! the engine logs the one taken.
#![allow(
    unsafe_code,
    reason = "NCCL's point-to-point calls take raw device pointers into the spin words, which \
              cudarc's safe communicator cannot give for a send and a receive in one buffer"
)]

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DevicePtrMut};
use cudarc::nccl::{result as nccl, sys};

use super::driver::driver_error;
use crate::engine::ProcessRing;
use crate::engine::multispin::MultispinLayout;
use crate::engine::placement::local_rank;
use crate::engine::slabs::plane_ranges;
use crate::error::{Error, Result};

/// The environment variable that chooses the halo path: `host` keeps the host-staged exchange;
/// unset or `device`, NCCL where every rank has it.
pub const HALO_PATH_VARIABLE: &str = "SPINFLIP_HALOS";

/// An NCCL communicator over the job's ranks, which are the ring of slabs.
pub struct NcclHalos {
    comm: sys::ncclComm_t,
    rank: u32,
    ranks: u32,
}

impl NcclHalos {
    /// The device path for the halos of a slab on `ctx`, agreed with the other ranks of `ring`
    /// (every rank calls this while it opens its engine), or `None` for the host-staged path.
    pub fn connect(ctx: &Arc<CudaContext>, ring: &mut dyn ProcessRing) -> Result<Option<Self>> {
        let (rank, ranks) = ring.position();
        let mut token = [0u8; 128];
        let asked = device_path_asked();
        let here = match (&asked, device_path_here(ctx)) {
            (Ok(true), Ok(())) if rank == 0 => unique_id().map(|id| token = id),
            (Ok(true), other) => other,
            (Ok(false), _) => Err(format!("{HALO_PATH_VARIABLE}=host")),
            (Err(_), _) => Err(format!("{HALO_PATH_VARIABLE} unreadable")),
        };
        // Every rank votes before a bad variable fails its engine, so that none waits.
        if !ring.all(here.is_ok())? {
            asked?;
            let reason = here.err().unwrap_or_else(|| "another rank cannot".into());
            log::info!("slab halos: host-staged through MPI ({reason})");
            return Ok(None);
        }
        ring.broadcast(&mut token)?;
        ctx.bind_to_thread()
            .map_err(driver_error("binding the device for NCCL"))?;
        let id = sys::ncclUniqueId {
            internal: token.map(|byte| byte as std::ffi::c_char),
        };
        let mut comm = std::mem::MaybeUninit::uninit();
        // SAFETY: `comm` is written by NCCL before it is read; every rank of the ring calls this
        // with the same id (rank 0's, broadcast) and its own rank, so the call returns once all
        // have joined.
        let comm = unsafe {
            nccl::comm_init_rank(comm.as_mut_ptr(), ranks as i32, id, rank as i32)
                .map_err(nccl_error("joining the NCCL communicator of the slabs"))?;
            comm.assume_init()
        };
        let version = nccl::get_nccl_version().unwrap_or(0);
        log::info!(
            "slab halos: device to device through NCCL {}.{}.{} (rank {rank} of {ranks})",
            version / 10000,
            version / 100 % 100,
            version % 100
        );
        Ok(Some(NcclHalos { comm, rank, ranks }))
    }

    /// Queue on `stream` the exchange of `colour` (after that colour's update of the edge
    /// planes, queued before on the same stream): this slab's first plane of every word system
    /// to the slab below, its last to the slab above, and theirs into its upper and lower
    /// halos. Sends and receives to one peer pair up in call order, and with two ranks the
    /// neighbour below is the one above, so every rank queues them in the same order: first
    /// plane down, last plane up, upper halo, lower halo.
    pub fn exchange(
        &self,
        stream: &CudaStream,
        layout: &MultispinLayout,
        spins: &mut CudaSlice<u32>,
        colour: u32,
    ) -> Result<()> {
        let below = ((self.rank + self.ranks - 1) % self.ranks) as i32;
        let above = ((self.rank + 1) % self.ranks) as i32;
        let planes = layout.own_planes();
        let (base, _record) = spins.device_ptr_mut(stream);
        let raw_stream = stream.cu_stream() as sys::cudaStream_t;
        let failed = nccl_error("queueing the halo exchange");
        nccl::group_start().map_err(&failed)?;
        let queued = (|| {
            for (plane, peer, send) in [
                (0, below, true),
                (planes - 1, above, true),
                (planes, above, false),
                (planes + 1, below, false),
            ] {
                for range in plane_ranges(layout, colour, plane) {
                    let pointer = (base + 4 * range.start as u64) as *mut std::ffi::c_void;
                    let (count, u32s) = (range.len(), sys::ncclDataType_t::ncclUint32);
                    // SAFETY: `pointer .. + count` words lie in `spins` (a range of its stored
                    // planes, `MultispinLayout::plane_words`); the sends read own planes and
                    // the receives write halo planes, which no kernel on another stream reads
                    // or writes until the edge stream's next update, ordered after this group.
                    unsafe {
                        match send {
                            true => nccl::send(pointer, count, u32s, peer, self.comm, raw_stream),
                            false => nccl::recv(pointer, count, u32s, peer, self.comm, raw_stream),
                        }
                    }
                    .map_err(&failed)?;
                }
            }
            Ok(())
        })();
        let ended = nccl::group_end().map_err(&failed);
        queued.and(ended.map(|_| ()))
    }
}

impl Drop for NcclHalos {
    fn drop(&mut self) {
        // SAFETY: the communicator was made by `connect` and is released once; abort, unlike
        // destroy, does not wait for peers that may have stopped.
        if let Err(error) = unsafe { nccl::comm_abort(self.comm) } {
            log::warn!("releasing the NCCL communicator of the slabs: {error:?}");
        }
    }
}

/// Whether [`HALO_PATH_VARIABLE`] lets the halos take the device path: unset or `device`, yes;
/// `host`, no; anything else is refused, naming the values it takes.
fn device_path_asked() -> Result<bool> {
    halo_path(std::env::var(HALO_PATH_VARIABLE))
}

/// [`device_path_asked`] of the variable's value.
fn halo_path(value: std::result::Result<String, std::env::VarError>) -> Result<bool> {
    match value {
        Err(std::env::VarError::NotPresent) => Ok(true),
        Ok(path) if path == "device" => Ok(true),
        Ok(path) if path == "host" => Ok(false),
        Ok(path) => Err(Error::Usage(format!(
            "{HALO_PATH_VARIABLE}={path}: the halo path is `device` (the default: NCCL where \
             every rank has it) or `host`"
        ))),
        Err(error) => Err(Error::Usage(format!("{HALO_PATH_VARIABLE}: {error}"))),
    }
}

/// Whether this rank can take the device path: a GPU of its own (NCCL refuses two ranks on one
/// device; the `k`-th rank of a node owns its `k`-th GPU unless the config names one or the
/// node has fewer), and NCCL found.
fn device_path_here(ctx: &CudaContext) -> std::result::Result<(), String> {
    if ctx.ordinal() != local_rank() {
        return Err("ranks share a GPU".into());
    }
    // SAFETY: loads the library (or fails) and looks up no symbol.
    match unsafe { sys::is_culib_present() } {
        true => Ok(()),
        false => Err("no NCCL library (libnccl.so.2) found".into()),
    }
}

/// A fresh NCCL communicator id, as the bytes rank 0 broadcasts.
fn unique_id() -> std::result::Result<[u8; 128], String> {
    let id = nccl::get_uniqueid().map_err(|error| format!("ncclGetUniqueId: {error:?}"))?;
    Ok(id.internal.map(|c| c as u8))
}

fn nccl_error(what: &'static str) -> impl Fn(nccl::NcclError) -> Error {
    move |error| Error::Cuda(format!("{what}: NCCL {error:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::env::VarError;

    #[test]
    fn the_halo_path_variable_takes_device_or_host_and_refuses_the_rest() {
        assert!(halo_path(Err(VarError::NotPresent)).unwrap());
        assert!(halo_path(Ok("device".into())).unwrap());
        assert!(!halo_path(Ok("host".into())).unwrap());
        let refused = halo_path(Ok("hots".into())).unwrap_err().to_string();
        assert!(
            refused.contains("SPINFLIP_HALOS=hots") && refused.contains("`host`"),
            "{refused}"
        );
    }
}

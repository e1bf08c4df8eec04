//! A slab of the multispin CUDA engine ([`crate::engine::slabs`]): its halo exchange, and its
//! sweeps with the exchange hidden behind the bulk's update.

use std::ops::Range;
use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream};

use super::MultispinCudaEngine;
use crate::engine::Plan;
use crate::engine::cuda::driver::driver_error;
use crate::engine::cuda::launch::Launches;
use crate::engine::slabs::{
    PlaneStore, SlabPass, SlabStep, SlabSweep, exchange_colour, slab_steps,
};
use crate::error::Result;

/// The device's spin words as the halo exchange reads and writes them.
struct DeviceWords<'a> {
    /// The stream the copies go on, after the updates they read or before those that read them.
    stream: &'a Arc<CudaStream>,
    spins: &'a mut CudaSlice<u32>,
}

impl PlaneStore for DeviceWords<'_> {
    fn read(&mut self, ranges: &[Range<usize>]) -> Result<Vec<u32>> {
        let mut words = Vec::new();
        for range in ranges {
            let part = self
                .stream
                .clone_dtoh(&self.spins.slice(range.clone()))
                .map_err(driver_error("downloading the boundary planes"))?;
            words.extend(part);
        }
        self.stream
            .synchronize()
            .map_err(driver_error("downloading the boundary planes"))?;
        Ok(words)
    }

    fn write(&mut self, start: usize, words: &[u32]) -> Result<()> {
        self.stream
            .memcpy_htod(words, &mut self.spins.slice_mut(start..start + words.len()))
            .map_err(driver_error("uploading the halo planes"))
    }
}

impl MultispinCudaEngine {
    /// A slab's halo exchange of `colour` (nothing for whole lattices), queued on `stream`
    /// after the update it follows: device to device where the engine has [`NcclHalos`] (the
    /// host goes on at once), else downloaded, traded through the [`Halo`] and uploaded (the
    /// host waits for the download).
    ///
    /// [`Halo`]: crate::engine::Halo
    fn trade(&mut self, stream: &Arc<CudaStream>, colour: u32) -> Result<()> {
        let Some(halo) = self.host.halo.as_deref_mut() else {
            return Ok(());
        };
        if let Some(nccl) = &self.nccl_halos {
            return nccl.exchange(stream, &self.host.layout, &mut self.spins, colour);
        }
        let mut store = DeviceWords {
            stream,
            spins: &mut self.spins,
        };
        exchange_colour(&self.host.layout, halo, &mut store, colour)
    }

    /// A slab's pass ([`SlabPass`]) and, where it completes the pass, its exchange hidden
    /// ([`SlabSweep`]): the edge planes' update and their exchange on one stream, the bulk on
    /// another, which runs meanwhile. The next colour's bulk waits on the device for these
    /// edges (it reads them) but not for their exchange; the next colour's edges wait for this
    /// bulk and the exchange (they read both). So the host queues colour after colour, and the
    /// device does not idle between them.
    fn sweep_slab(&mut self, pass: &SlabPass) -> Result<()> {
        let parts = SlabSweep::new(&self.host.layout, pass);
        let streams = self.slab_streams.take().expect("a slab has its streams");
        let ordered = driver_error("ordering a slab's edges and bulk");
        let systems = 0..self.host.layout.word_systems();
        let kernel = self.sweep_kernel(pass.colour());
        let queued = (|| {
            for edge in &parts.edges {
                self.launch_sweep(streams.edges(), systems.clone(), edge, kernel)?;
            }
            if let Some(bulk) = &parts.bulk {
                self.launch_sweep(streams.bulk(), systems, bulk, kernel)?;
            }
            streams.bulk().join(streams.edges()).map_err(&ordered)?;
            Ok(())
        })();
        let traded = queued.and_then(|()| match pass.exchange {
            true => self.trade(streams.edges(), pass.colour()),
            false => Ok(()),
        });
        let joined = traded.and_then(|()| streams.edges().join(streams.bulk()).map_err(&ordered));
        self.slab_streams = Some(streams);
        joined
    }

    /// Make a slab's halos of both colours current (after new spins).
    pub(super) fn exchange_halos(&mut self) -> Result<()> {
        if self.host.halo.is_none() {
            return Ok(());
        }
        // The default stream orders the exchange after the lattices' upload or hot start.
        let stream = self.device.stream.clone();
        (0..2).try_for_each(|colour| self.trade(&stream, colour))?;
        self.device.synchronize("exchanging the halo planes")
    }

    /// A slab's plan a step at a time ([`slab_steps`]): each pass with its exchange.
    pub(super) fn run_slab(&mut self, plan: &Plan) -> Result<()> {
        for step in slab_steps(&self.host.layout, plan) {
            match step {
                SlabStep::Pass(pass) => self.sweep_slab(&pass)?,
                SlabStep::Dispatch(dispatch) => self.launch_batch(&[dispatch])?,
            }
        }
        self.device.synchronize("running a slab's plan")
    }
}

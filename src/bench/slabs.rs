//! `spinflip bench --slabs`: the same sweeps on a lattice split into slabs.

use std::time::Instant;

use crate::config::Config;
use crate::engine::Betas;
use crate::engine::open::open_slab_engine;
use crate::engine::slabs::LocalHalos;
use crate::error::{Error, Result};
use crate::metropolis::Schedule;
use crate::model::ising::IsingSystems;

/// Seconds of `sweeps` plain sweeps of the lattices of `systems` split into `slabs` slabs of
/// even planes (threads of this process trading halos, [`LocalHalos`]), after one sweep that
/// compiles and warms up: the longest of the slabs' times from a common start.
pub(super) fn timed_slabs(
    config: &Config,
    systems: &IsingSystems,
    slabs: u32,
    sweeps: u64,
) -> Result<f64> {
    let size = systems.lattice.size;
    if slabs == 0 || 2 * slabs > size {
        return Err(Error::Usage(format!(
            "--slabs {slabs}: a slab needs two planes of the {size} planes at least"
        )));
    }
    let first = |k: u32| (u64::from(size / 2) * u64::from(k) / u64::from(slabs)) as u32 * 2;
    let start = std::sync::Barrier::new(slabs as usize);
    let plain = Schedule {
        thermalize: 0,
        measure: u64::from(u32::MAX),
        every: u64::from(u32::MAX),
        swap_every: None,
        clusters: None,
    };
    let times: Vec<Result<f64>> = std::thread::scope(|scope| {
        let handles: Vec<_> = LocalHalos::ring(slabs as usize)
            .into_iter()
            .zip(0..slabs)
            .map(|(halo, k)| {
                let slab = systems.plane_slab(first(k), first(k + 1) - first(k));
                let (start, plain) = (&start, &plain);
                scope.spawn(move || -> Result<f64> {
                    let ready =
                        open_slab_engine(config, slab, Betas::Fixed, halo).and_then(|mut e| {
                            e.hot_start()?;
                            e.execute(&plain.plan(0, 1))?;
                            Ok(e)
                        });
                    // Every slab passes the start once, ready or not; one that failed drops its
                    // halo, and its neighbours' exchanges then fail instead of waiting.
                    start.wait();
                    let mut engine = ready?;
                    let started = Instant::now();
                    engine.execute(&plain.plan(1, 1 + sweeps))?;
                    Ok(started.elapsed().as_secs_f64())
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a slab's thread panicked"))
            .collect()
    });
    times
        .into_iter()
        .try_fold(0.0f64, |longest, time| Ok(longest.max(time?)))
}

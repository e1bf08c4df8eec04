//! The run loop: plan a chunk of sweeps, let the engine replay it, record the exact integer
//! observations, checkpoint, repeat; then summarise and write the series, the final lattices and
//! the summary. The loop draws no figures: it hands back what they are drawn from ([`Finished`]).

use rayon::prelude::*;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::Schedule;
use super::outputs::write_outputs;
use super::resume::{resume_state, save_checkpoint};
use super::series::RunSeries;
use super::state::RunState;
use super::summary::{Summary, summarize};
use crate::engine::placement::placement;
use crate::engine::tempering::Chains;
use crate::engine::{Measurements, SpinBits, clusters_of, tempering_of, tempering_state_of};

use crate::error::{Error, Result};
use crate::io::progress::{Progress, flips_per_ns};
use crate::io::run_dir::{Ended, RunStart};
use crate::model::couplings::Instance;
use crate::model::ising::IsingSystems;
use crate::model::ising::ising_systems;
use crate::mpi::open_engine;
use crate::stats::{PlanePhases, SampleSeries};
use crate::tempering::{finish_tempering, retune_ladder, tempering_warnings, tuning_stops};

/// Chunks per run at least, so progress is reported as the run goes.
const MIN_CHUNKS: u64 = 100;

/// A finished run: its summary, and what its figures are drawn from (the loop draws none; the
/// entry above it does, where the config asks for plots).
pub struct Finished {
    pub summary: Summary,
    /// Every series of the run, `[temperature][sample]`, the thermalisation's measurements
    /// first.
    pub series: Vec<Vec<SampleSeries>>,
    /// The final lattices (system-major, temperature-major: `final_state.npy`'s order).
    pub spins: SpinBits,
    schedule: Schedule,
}

impl Finished {
    /// The sweep after which measurement `m` of [`Finished::series`] was taken, as in the
    /// time-series files.
    pub fn sweep_of(&self, m: usize) -> u64 {
        self.schedule.sweep_of_measurement(m as u64) + 1
    }
}

/// Run the sweeps of `run`'s config (`instance` its couplings where it gives them), writing
/// everything into `options.out`, or continue the run of its checkpoint there
/// (`options.resume`). A signal or the wall time stops it at the next plan boundary with a
/// checkpoint ([`crate::stop`]).
pub fn run_sweeps(run: &RunStart, instance: Option<Arc<Instance>>) -> Result<Ended<Box<Finished>>> {
    let (config, options) = (run.config, run.options);
    let mut systems = IsingSystems {
        instance,
        ..ising_systems(config)
    };
    let schedule = Schedule::from(config);
    let (mut state, resumed) = if options.resume {
        let (state, spins) = resume_state(run, &systems, &schedule)?;
        (state, Some(spins))
    } else {
        (RunState::default(), None)
    };
    if schedule.swap_every.is_some() {
        // A resumed run continues on its (possibly tuned) ladder.
        if state.betas.is_empty() {
            state.betas = systems.betas.clone();
        }
        systems.betas = state.betas.clone();
        if state.tempering.is_empty() {
            state.tempering = Chains::of(&systems).initial_state();
        }
    }
    if schedule.clusters.is_some() && placement().is_some() {
        return Err(Error::Usage(
            "algorithm: Clusters is not split over MPI ranks: run it as one process (without \
             mpirun)"
                .into(),
        ));
    }
    let mut engine = open_engine(config, systems.clone())?;
    run.write_config()?;
    // A fresh run's lattices are computed on the engine's device: they never exist on the host
    // before the first checkpoint.
    match resumed {
        Some(spins) => engine.set_spins(&spins.into())?,
        None => engine.hot_start()?,
    }
    if schedule.swap_every.is_some() {
        tempering_of(engine.as_mut())?.set_tempering(&state.tempering)?;
    }
    let mut update_parts = false;
    if let Some(clusters) = schedule.clusters {
        let clusters_engine = clusters_of(engine.as_mut())?;
        clusters_engine.set_clusters(clusters.update)?;
        update_parts = clusters_engine.update_parts();
    }
    let tuning_stops = match config.algorithm.tunes() {
        true => tuning_stops(schedule.thermalize),
        false => Vec::new(),
    };
    let info = engine.info();
    let total = Some(schedule.total());
    run.announce(&info, &schedule.describe(), state.sweeps_done, total);
    // A step of cluster updates counts each update as a sweep (N site updates per system).
    let per_step = schedule
        .clusters
        .map_or(1, |c| u64::from(c.clusters + c.metropolis));
    let flips_per_sweep = systems.lattice.spins() * u64::from(systems.systems()) * per_step;
    let progress = Progress::new(
        options.progress,
        options.on_progress.clone(),
        (schedule.thermalize, Some(schedule.total())),
        state.sweeps_done,
        flips_per_sweep,
    );
    let chunk = chunk_sweeps(&schedule, &systems, engine.max_plan_slots());
    let mut engine_time = Duration::ZERO;
    let first_sweep = state.sweeps_done;
    let mut stops = run.stops();
    // Positions count units: pieces of a sweep where the engine cuts sweeps, else sweeps; of a
    // step with cluster updates, planes of its updates and passes of its sweeps.
    let sweep_parts = engine.sweep_parts();
    let cut = schedule.cut(systems.lattice.size, sweep_parts, update_parts);
    while state.sweeps_done < schedule.total() {
        let from_sweep = state.sweeps_done;
        let next_stop = tuning_stops.iter().copied().find(|&stop| stop > from_sweep);
        let end = plan_end(from_sweep, chunk, config.checkpoint_every)
            .min(schedule.total())
            .min(next_stop.unwrap_or(u64::MAX));
        let from = cut.position(from_sweep, state.sweep_units);
        let to = cut.plan_end(&stops, from, cut.position(end, 0));
        let plan = cut.plan(&schedule, from, to);
        let started = Instant::now();
        let measurements = engine.execute(&plan)?;
        engine_time += started.elapsed();
        record(&systems, &measurements, &mut state);
        (state.sweeps_done, state.sweep_units) = (to / cut.units(), to % cut.units());
        let to_sweep = state.sweeps_done;
        // Progress counts whole sweeps: a plan of pieces that ends none has nothing to tell.
        if to_sweep > from_sweep {
            progress.update(to_sweep);
        }
        if next_stop == Some(to_sweep) && state.sweep_units == 0 {
            let stage_start = tuning_stops.iter().copied().rfind(|&stop| stop < to_sweep);
            let stage = (stage_start.unwrap_or(0), to_sweep);
            let every = schedule.swap_every.expect("tuning needs tempering");
            let tempering = &mut state.tempering;
            engine = retune_ladder(config, engine, &mut systems, tempering, every, stage)?;
            state.betas = systems.betas.clone();
        }
        stops.plan_took(to - from, started.elapsed());
        if to_sweep == schedule.total() {
            break;
        }
        let ended = run.checkpoint_between_plans((from_sweep, to_sweep), &mut stops, || {
            state.tempering = tempering_state_of(engine.as_mut())?;
            let spins = engine.spins()?.into_bits()?;
            save_checkpoint(&run.checkpoint, run.fingerprint, (&state, &cut), spins).map(drop)
        })?;
        if let Some(ended) = ended {
            progress.finish();
            return Ok(ended);
        }
    }
    progress.finish();
    // One download of the final lattices serves the last checkpoint and the final state.
    state.tempering = tempering_state_of(engine.as_mut())?;
    let checkpoint = save_checkpoint(
        &run.checkpoint,
        run.fingerprint,
        (&state, &cut),
        engine.spins()?.into_bits()?,
    )?;
    let series = RunSeries::new(&systems, &schedule, &state);
    let flips = (schedule.total() - first_sweep) * flips_per_sweep;
    let mut summary = summarize(
        config,
        run.engine_choice,
        &systems,
        &schedule,
        &series,
        &info,
        flips_per_ns(flips, engine_time),
    );
    summary.origin.provenance = Some(run.provenance(&info));
    if let Some(every) = schedule.swap_every {
        // The acceptances count from the ladder's last tuning.
        let counted = (tuning_stops.last().copied().unwrap_or(0), schedule.total());
        let sweep_of = |m: u64| schedule.sweep_of_measurement(m) + 1;
        let history = &state.temperature_history;
        let diagnostics = finish_tempering(
            &options.out,
            &systems,
            (&state.tempering, history),
            every,
            counted,
            sweep_of,
        )?;
        summary.warnings.extend(tempering_warnings(
            &diagnostics,
            summary.run.temperature_scale,
        ));
        summary.tempering = Some(diagnostics);
    }
    write_outputs(
        &options.out,
        &systems,
        &schedule,
        &series,
        &checkpoint.spins,
        &summary,
        config.final_state,
    )?;
    Ok(Ended::Completed(Box::new(Finished {
        summary,
        series: series.all,
        spins: checkpoint.spins,
        schedule,
    })))
}

/// Sweeps per chunk: a bounded number of measurements (and of bytes of them), and a small
/// fraction of the run so progress shows.
fn chunk_sweeps(schedule: &Schedule, systems: &IsingSystems, max_slots: u64) -> u64 {
    let chunk = schedule.total().div_ceil(MIN_CHUNKS).max(1);
    chunk.min(schedule.most_sweeps_per_plan(systems, max_slots))
}

/// The end of the plan from sweep `from` at the latest: the next multiple of `chunk`, or of
/// `checkpoint_every` where that comes first, so that checkpoints fall on the sweeps the config
/// names however the plans before were cut.
fn plan_end(from: u64, chunk: u64, checkpoint_every: u64) -> u64 {
    let after = |every: u64| (every > 0).then(|| (from / every + 1) * every);
    [after(chunk), after(checkpoint_every)]
        .into_iter()
        .flatten()
        .min()
        .expect("a chunk holds a sweep at least")
}

/// Append a plan's measurements (slot-major) as bond sums, magnetisations and overlaps.
fn record(systems: &IsingSystems, measurements: &Measurements, state: &mut RunState) {
    let n = systems.lattice.spins();
    let bonds = systems.links() as i64;
    for o in &measurements.observations {
        state.magnetisations.push(2 * o.up as i64 - n as i64);
        state.bond_sums.push(2 * o.satisfied as i64 - bonds);
    }
    // Overlaps in parallel, in order: every measurement holds one per overlap pair.
    let phases = PlanePhases::new(systems.lattice.size);
    let overlaps: Vec<(i64, f64)> = measurements
        .overlap_planes
        .par_chunks_exact(systems.lattice.size as usize)
        .map(|planes| phases.overlap_from_planes(planes, n))
        .collect();
    state.overlaps.extend(overlaps.iter().map(|o| o.0));
    state.overlaps_kmin.extend(overlaps.iter().map(|o| o.1));
    let links = measurements.link_overlaps.iter();
    state.link_overlaps.extend(links.map(|&b| b as i64));
    state
        .temperature_history
        .extend_from_slice(&measurements.labels);
    record_cluster_sizes(systems, measurements, state);
}

/// Append the cluster sizes of a plan's measurements, the statistic of the measured step under
/// way where the plan began inside it (`state.step_sizes`) added into its first slot; where the
/// plan ends after updates of a measured step, before its measurement, their statistic (the
/// slot past the plan's, [`crate::engine::Plan::size_slots`]) is the step's so far.
fn record_cluster_sizes(systems: &IsingSystems, measurements: &Measurements, state: &mut RunState) {
    let count = systems.systems() as usize;
    let mut sizes = measurements.cluster_sizes.clone();
    let under_way = std::mem::take(&mut state.step_sizes);
    if !under_way.is_empty() {
        let slots = measurements.observations.len() / count;
        sizes.resize(sizes.len().max(slots.max(1) * count), 0);
        sizes.iter_mut().zip(under_way).for_each(|(s, v)| *s += v);
    }
    state.step_sizes = sizes.split_off(sizes.len().min(measurements.observations.len()));
    state.cluster_sizes.extend(sizes);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Observation;
    use crate::model::Lattice;
    use crate::stats::overlap;

    /// A 65536^2 lattice (2^32 sites, 2^33 bonds) with every spin up: the recorded integers and
    /// the energy do not wrap.
    #[test]
    fn record_holds_counts_past_u32() {
        let lattice = Lattice::new(2, 65536);
        let systems = IsingSystems::ferromagnet(lattice, 0.5, vec![0.4], 1, 1);
        let measurements = Measurements {
            observations: vec![Observation {
                up: 1 << 32,
                satisfied: 1 << 33,
            }],
            ..Measurements::default()
        };
        let mut state = RunState::default();
        record(&systems, &measurements, &mut state);
        assert_eq!(state.magnetisations, vec![1 << 32]);
        assert_eq!(state.bond_sums, vec![1 << 33]);
        let energy = systems.energy(state.bond_sums[0], state.magnetisations[0]);
        assert_eq!(energy, -(2.0f64.powi(33)) - 0.5 * 2.0f64.powi(32));
        assert_eq!(overlap(1 << 31, lattice.sites()), 0.0);
    }

    #[test]
    fn chunks_of_a_large_lattice_fit_the_measurement_budget() {
        let lattice = Lattice::new(2, 65536);
        let systems = IsingSystems::spin_glass(lattice, 0.0, vec![0.4], 1, 2, 1);
        let schedule = Schedule::from(&crate::config::Sweeps {
            thermalize: 10,
            measure: 1000,
            every: 1,
        });
        assert!(chunk_sweeps(&schedule, &systems, u64::MAX) >= 1);
    }
}

//! The checks of population annealing: its options, analyses and schedule, and whether the
//! population fits in memory.

use crate::config::{
    AnnealingOptions, AnnealingSchedule, Backend, Config, ConfigError, Disorder, EngineKind,
    Proposal, invalid,
};
use crate::engine::memory::{Footprint, Place, Uses, available_memory, largest_fitting};
use crate::engine::vector::VectorSweeps;
use crate::model::ising::ising_systems;
use crate::model::vector::vector_systems;

/// The smallest population.
const MIN_POPULATION: u32 = 2;

/// Population annealing's own options: no temperatures or sweeps of its own, a population, theta,
/// runs, the analyses and the schedule. `Config::validate` then checks the engine's systems
/// as [`AnnealingOptions::engine_config`] describes them, and the memory they need
/// ([`validate_population_memory`]).
pub(crate) fn validate_annealing(
    config: &Config,
    options: &AnnealingOptions,
) -> Result<(), ConfigError> {
    if !config.temperatures.is_default() || !config.sweeps.is_default() {
        return invalid(
            "algorithm: Annealing takes its temperatures from its schedule and its sweeps from \
             theta: leave out temperatures and sweeps"
                .into(),
        );
    }
    if config.replicas < MIN_POPULATION {
        return invalid(format!(
            "replicas: population annealing resamples a population of replicas: at least \
             {MIN_POPULATION} are needed, got {}",
            config.replicas
        ));
    }
    if options.theta == 0 {
        return invalid(
            "algorithm: Annealing needs theta >= 1 (Metropolis sweeps per temperature step), got 0"
                .into(),
        );
    }
    if options.runs == 0 {
        return invalid("algorithm: Annealing needs runs >= 1, got 0".into());
    }
    if config.is_vector() {
        validate_annealed_states(config, options)?;
    }
    validate_annealing_analysis(config, options)?;
    validate_annealing_schedule(&options.schedule, options.theta)
}

/// The vector engine anneals discrete states and clock angles, whose `ln Z` at beta 0 counts
/// their states, with a proposal that needs no tuning at each beta; the overlaps are the Ising
/// spins' (from their bits).
fn validate_annealed_states(
    config: &Config,
    options: &AnnealingOptions,
) -> Result<(), ConfigError> {
    let model = &config.model;
    if config.engine != EngineKind::Auto {
        return invalid(format!(
            "engine: {:?}: population annealing of {} runs on the vector engine as discrete \
             states; leave engine out",
            config.engine,
            model.name(),
        ));
    }
    if config.discrete_states().is_none() && model.clock_states().is_none() {
        return invalid(format!(
            "algorithm: Annealing runs Ising spins, discrete states (Potts, BlumeCapel, diluted \
             Ising) and the clock model; {} spins take every direction",
            model.name()
        ));
    }
    if let Proposal::Cone { .. } = config.updates.proposal {
        return invalid(
            "updates: proposal: Cone tunes its width at each temperature, which an anneal's \
             changing beta leaves no time for: use Uniform or HeatBath"
                .into(),
        );
    }
    if options.overlaps {
        return invalid(format!(
            "algorithm: Annealing overlaps: true measures the overlap of Ising spins; leave it \
             out for {}",
            model.name()
        ));
    }
    Ok(())
}

/// The optional analyses: the overlap needs a spin glass and runs in pairs, the reweighting
/// integer energies and at least one point.
fn validate_annealing_analysis(
    config: &Config,
    options: &AnnealingOptions,
) -> Result<(), ConfigError> {
    if options.overlaps && config.model.disorder() == Disorder::Ferromagnet {
        return invalid(
            "algorithm: Annealing overlaps: true measures the spin-glass overlap q, which needs \
             model: EdwardsAnderson (the ferromagnet has no replica pairs)"
                .into(),
        );
    }
    let (dims, size) = (config.model.dims(), config.model.size());
    let bonds = u64::from(dims) * u64::from(size).pow(dims);
    if bonds > u64::from(u32::MAX) {
        return invalid(format!(
            "algorithm: Annealing resamples by the satisfied-bond count, kept in 32 bits: a \
             lattice of {bonds} bonds is too large (at most {})",
            u32::MAX
        ));
    }
    if options.overlaps && options.runs % 2 == 1 {
        return invalid(format!(
            "algorithm: Annealing overlaps: true pairs run k with run k + runs/2 (two independent \
             populations of one sample): runs must be even, got {}",
            options.runs
        ));
    }
    match options.reweighting {
        Some(0) => invalid(
            "algorithm: Annealing reweighting: Some(points) needs points >= 1, got 0".into(),
        ),
        Some(_) if config.model.field() != 0.0 && bond_sum_energies(config) => invalid(format!(
            "algorithm: Annealing reweighting needs integer energies, field 0 (the histograms are \
             of the bond sum), got field {}",
            config.model.field()
        )),
        _ => Ok(()),
    }
}

/// Whether the energies the reweighting counts are bond sums, whole numbers at zero field only:
/// of Ising spins and clock angles (discrete states' energies are whole numbers of their
/// tables' unit in any field).
fn bond_sum_energies(config: &Config) -> bool {
    config.discrete_states().is_none()
}

fn validate_annealing_schedule(
    schedule: &AnnealingSchedule,
    theta: u32,
) -> Result<(), ConfigError> {
    let positive = |name: &str, beta: f64| match beta.is_finite() && beta > 0.0 {
        true => Ok(()),
        false => invalid(format!(
            "algorithm: Annealing schedule: {name} must be finite and > 0, got {beta}"
        )),
    };
    let steps = match schedule {
        AnnealingSchedule::Betas(betas) => {
            if betas.is_empty() {
                return invalid("algorithm: Annealing schedule: Betas needs at least one".into());
            }
            for (i, &beta) in betas.iter().enumerate() {
                positive(&format!("beta #{}", i + 1), beta)?;
            }
            if let Some(i) = betas.windows(2).position(|w| w[1] <= w[0]) {
                return invalid(format!(
                    "algorithm: Annealing schedule: the betas must increase (the population is \
                     cooled from beta = 0): beta #{} = {} is not above #{} = {}",
                    i + 2,
                    betas[i + 1],
                    i + 1,
                    betas[i]
                ));
            }
            betas.len() as u64
        }
        AnnealingSchedule::Linear { beta_max, count } => {
            positive("beta_max", *beta_max)?;
            if *count == 0 {
                return invalid("algorithm: Annealing schedule: Linear needs count >= 1".into());
            }
            u64::from(*count)
        }
        AnnealingSchedule::Adaptive { overlap, beta_max } => {
            positive("beta_max", *beta_max)?;
            if !(*overlap > 0.0 && *overlap < 1.0) {
                return invalid(format!(
                    "algorithm: Annealing schedule: the target overlap of Adaptive must lie in \
                     (0, 1), got {overlap}"
                ));
            }
            // Checked again as the run goes: the steps are not known in advance.
            1
        }
    };
    // The sweep number is a 32-bit word of the Philox counter: more sweeps would reuse randoms.
    if steps * u64::from(theta) > u64::from(u32::MAX) {
        return invalid(format!(
            "algorithm: Annealing: {steps} steps x theta {theta} exceeds {} sweeps, the range \
             of the random-number counter",
            u32::MAX
        ));
    }
    Ok(())
}

/// The population's lattices must fit in memory: refuse a population that does not, naming
/// the largest that does. On the CPU, where the population is what to change; every engine
/// checks its lattices against its own device too, when it opens ([`crate::engine::memory`]).
pub(crate) fn validate_population_memory(
    config: &Config,
    options: &AnnealingOptions,
) -> Result<(), ConfigError> {
    let Some(limit) = population_memory_limit(config.backend) else {
        return Ok(());
    };
    let bytes = |replicas: u32| -> Option<u64> {
        let trial = Config {
            replicas,
            ..config.clone()
        };
        options
            .engine_config(&trial)
            .ok()
            .map(|view| population_bytes(&view))
    };
    let fits = |replicas: u64| bytes(replicas as u32).is_some_and(|need| need <= limit);
    if fits(u64::from(config.replicas)) {
        return Ok(());
    }
    let largest = match largest_fitting(u64::from(MIN_POPULATION), u64::from(config.replicas), fits)
    {
        Some(n) => format!("the largest population that fits is replicas: {n}"),
        None => "none does: use a smaller lattice".to_string(),
    };
    invalid(format!(
        "replicas: a population of {} replicas of this lattice needs about {} MiB of host \
         memory, more than the {} MiB available; {largest}",
        config.replicas,
        bytes(config.replicas).unwrap_or(u64::MAX) >> 20,
        limit >> 20
    ))
}

/// Bytes a population annealing run holds at once on the CPU: the engine's, with its copies.
fn population_bytes(view: &Config) -> u64 {
    let engine = view
        .choose_engine()
        .map_or(EngineKind::Simple, |(engine, _)| engine);
    if view.is_vector() {
        let systems = vector_systems(view, None, None);
        let updates = VectorSweeps::of(&view.updates, &view.algorithm);
        let footprint = Footprint::vector(&systems, updates, systems.lattice);
        // The copies' snapshot of every lattice.
        return footprint.need(Place::Cpu).host + 4 * systems.spin_words() as u64;
    }
    let uses = Uses {
        copies: true,
        ..Uses::default()
    };
    Footprint::ising(engine, ising_systems(view), uses)
        .need(Place::Cpu)
        .host
}

/// The memory a population may fill on `backend`: the CPU's available memory (`None` where it
/// cannot be read). The device engines check their device when they open.
fn population_memory_limit(backend: Backend) -> Option<u64> {
    match backend {
        Backend::Cpu => available_memory(),
        Backend::Auto | Backend::Wgpu | Backend::Cuda => None,
    }
}

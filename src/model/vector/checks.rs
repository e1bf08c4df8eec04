//! The checks of a vector-spin config: what the fixed-point arithmetic holds, and what the
//! vector loop runs (Metropolis at fixed temperatures, on its own engine).

use super::fixed::{CouplingScale, MAX_GAUSSIAN_COUPLING};
use super::states::MAX_SITE_ENERGY;
use super::tiles::{MAX_TILE_BYTES, Tiles};
use crate::config::{
    Algorithm, Config, ConfigError, Disorder, EngineKind, MAX_CLOCK_STATES, MAX_POTTS_STATES,
    MetropolisOrder, Model, Proposal, StateStorage, VectorUpdates, invalid,
};
use crate::model::Lattice;

/// Over-relaxation sweeps per Metropolis sweep at most: more is never useful, and the bound
/// keeps the work of one sweep finite.
const MAX_OVERRELAXATION: u32 = 1000;

/// Metropolis hits per site of the double checkerboard at most: far past any use (Weigel 2012
/// finds a few best), and the hit keeps to the random counter's draw field.
const MAX_HITS: u32 = 1000;

/// Sites of a Gaussian glass at most: its measured bond sums add terms up to `8 * 2^32` in
/// magnitude per site (`|J| <= 8`), which 2^28 sites keep within an `i64`.
const MAX_GAUSSIAN_SITES: u64 = 1 << 28;

/// The parts of a vector-spin config the Ising checks do not cover: a field the local fields'
/// fixed-point components hold, the engine and algorithm the vector loop runs, and its updates
/// (every backend has the vector kernels).
pub(crate) fn validate_vector(config: &Config) -> Result<(), ConfigError> {
    let model = &config.model;
    match config.discrete_states() {
        Some(q) => validate_states(config, q)?,
        None => validate_field(model)?,
    }
    if config.engine != EngineKind::Auto && model.is_shaped_ising() && !model.is_vector() {
        return invalid(format!(
            "engine: {:?}: {} runs on the multispin engine (engine: Multispin(..)) or, with \
             engine left out, on two discrete states where no multispin layout fits",
            config.engine,
            model.name()
        ));
    }
    if config.engine != EngineKind::Auto {
        return invalid(format!(
            "engine: {:?} runs Ising spins; leave engine out for {} (vector spins have one engine)",
            config.engine,
            model.name()
        ));
    }
    if !matches!(
        config.algorithm,
        Algorithm::Metropolis | Algorithm::Tempering { .. } | Algorithm::Clusters { .. }
    ) {
        return invalid(format!(
            "algorithm: {} runs Metropolis sweeps, at fixed temperatures or with parallel \
             tempering, and the cluster updates of the Potts and diluted Ising ferromagnets",
            model.name()
        ));
    }
    let sites = u64::from(model.size()).pow(model.dims());
    if sites >= 1 << 31 {
        return invalid(format!(
            "size: {}^{} sites exceed 2^31, the range of a vector lattice's site index",
            model.size(),
            model.dims()
        ));
    }
    if model.disorder() == Disorder::Gaussian && sites > MAX_GAUSSIAN_SITES {
        return invalid(format!(
            "size: {}^{} sites exceed 2^28, the most whose Gaussian bond sums (|J| <= \
             {MAX_GAUSSIAN_COUPLING} per bond) fit the measured 64-bit sums",
            model.size(),
            model.dims()
        ));
    }
    validate_updates(&config.updates)?;
    validate_storage(config)?;
    match model.clock_states() {
        Some(q) => validate_clock(q, &config.updates)?,
        None if config.discrete_states().is_some() => {}
        None if config.updates.proposal == Proposal::HeatBath => {
            return invalid(format!(
                "updates: proposal: HeatBath draws among a clock model's states; {} has spins \
                 of every direction (use Uniform or Cone)",
                model.name()
            ));
        }
        None => {}
    }
    validate_lattice(config)?;
    validate_tiles(
        &config.updates.metropolis,
        Lattice::of(model),
        model.components(),
    )
}

/// A lattice other than the square and cubic ones: swept on the plain checkerboard (or its
/// three colours).
fn validate_lattice(config: &Config) -> Result<(), ConfigError> {
    let model = &config.model;
    let lattice = model.lattice();
    if lattice.is_hypercubic() {
        return Ok(());
    }
    if config.updates.metropolis != MetropolisOrder::Checkerboard {
        return invalid(format!(
            "updates: the double checkerboard's tiles are the square and cubic lattices'; the \
             {lattice:?} lattice is swept on its plain colours (leave metropolis out)"
        ));
    }
    Ok(())
}

/// A field the local fields' fixed-point components hold: `z max|J| + |field|` below the range
/// of the local field (8 in spin units, 64 in the coarser units of the Gaussian glass, whose
/// `|J|` is clamped to [`MAX_GAUSSIAN_COUPLING`]).
fn validate_field(model: &Model) -> Result<(), ConfigError> {
    let z = f64::from(Lattice::of(model).coordination());
    let scale = CouplingScale::of(model.disorder());
    let max_coupling = scale.max_coupling();
    let (range, bonds) = (scale.max_local_field(), z * max_coupling);
    if model.field().abs() + bonds >= range {
        return invalid(format!(
            "field: a vector spin's local field (z = {z} neighbours times max |J| = \
             {max_coupling}, plus |field|) must stay below {range}, the range of its fixed-point \
             components, so |field| < {}, got {}",
            range - bonds,
            model.field()
        ));
    }
    Ok(())
}

/// A cone's target acceptance strictly between 0 and 1, and a bounded over-relaxation.
fn validate_updates(updates: &VectorUpdates) -> Result<(), ConfigError> {
    if let Proposal::Cone { acceptance } = updates.proposal
        && !(acceptance > 0.0 && acceptance < 1.0)
    {
        return invalid(format!(
            "updates: Cone(acceptance) must lie strictly between 0 and 1, got {acceptance}"
        ));
    }
    if updates.overrelaxation > MAX_OVERRELAXATION {
        return invalid(format!(
            "updates: overrelaxation is at most {MAX_OVERRELAXATION} sweeps per Metropolis sweep, \
             got {}",
            updates.overrelaxation
        ));
    }
    Ok(())
}

/// Bit planes (`storage: BitPlanes`) only where their update is the model's
/// (`engine::planes::check_planes` says the same of the systems): the Potts ferromagnet or the
/// Blume-Capel model at zero field, undiluted, on the periodic square or cubic lattice of a size
/// that is a multiple of 64, swept by Metropolis (no heat bath, cluster updates or replica moves,
/// whose kernels read the states a word a site).
fn validate_storage(config: &Config) -> Result<(), ConfigError> {
    if config.updates.storage == StateStorage::Words {
        return Ok(());
    }
    let model = &config.model;
    let refuse = |why: String| invalid(format!("updates: storage: BitPlanes: {why}"));
    match *model {
        Model::Potts { q, .. } if q > 256 => {
            return refuse(format!("at most 256 states (8 planes), got q = {q}"));
        }
        Model::Potts { .. } | Model::BlumeCapel { .. } => {}
        _ => {
            return refuse(format!(
                "{} has no Potts or Blume-Capel states",
                model.name()
            ));
        }
    }
    if model.disorder() != Disorder::Ferromagnet || model.is_antiferromagnet() {
        return refuse("the couplings must be the ferromagnet's".into());
    }
    if model.field() != 0.0 || model.dilution() > 0.0 {
        return refuse("the field must be zero and the lattice undiluted".into());
    }
    if !model.lattice().is_hypercubic() || !model.boundaries().is_periodic() {
        return refuse("the lattice must be the periodic square or cubic one".into());
    }
    if !model.size().is_multiple_of(64) {
        return refuse(format!(
            "the size must be a multiple of 64 (a row of one colour fills whole words), got {}",
            model.size()
        ));
    }
    if config.updates.proposal != Proposal::Uniform {
        return refuse("the sites propose by Metropolis (proposal: Uniform)".into());
    }
    if config.algorithm.clusters().is_some() || !config.algorithm.replica_moves().is_none() {
        return refuse("cluster updates and replica moves read the states a word a site".into());
    }
    Ok(())
}

/// A clock model's states from 2 to [`MAX_CLOCK_STATES`], and only the updates that keep its
/// spins on its angles: uniform proposals over the states or their heat bath (a cone's
/// proposals leave them), and no over-relaxation (the reflection about the local field leaves
/// them too).
fn validate_clock(q: u32, updates: &VectorUpdates) -> Result<(), ConfigError> {
    if !(2..=MAX_CLOCK_STATES).contains(&q) {
        return invalid(format!(
            "model: Clock(q) takes 2 to {MAX_CLOCK_STATES} states, got {q}"
        ));
    }
    if let Proposal::Cone { .. } = updates.proposal {
        return invalid(format!(
            "updates: a {q}-state clock model proposes one of its {q} angles uniformly, or \
             draws one from the heat bath (proposal: HeatBath); a cone's proposals leave the \
             clock's angles"
        ));
    }
    if updates.overrelaxation > 0 {
        return invalid(format!(
            "updates: overrelaxation reflects a spin about its local field, off the {q} angles \
             of a clock model; leave it out"
        ));
    }
    Ok(())
}

/// The largest `|D| + |h|` of a discrete model: [`MAX_SITE_ENERGY`], less with Gaussian
/// couplings, whose `2 z |J|` of a site's bonds would otherwise take an update's energy change
/// past the tables' `2^7` (`2 z 8 + 2 (|D| + |h|) < 128`).
fn site_energy_bound(model: &Model) -> f64 {
    let z = f64::from(Lattice::of(model).coordination());
    let bonds = z * CouplingScale::of(model.disorder()).max_coupling();
    MAX_SITE_ENERGY.min((127.0 - 2.0 * bonds) / 2.0).floor()
}

/// A discrete model (Potts, Blume-Capel) of `q` states: `q` within the counts of the
/// measurements, site energies whose changes the tables take, and the updates among its states
/// only: Metropolis over the other states or the heat bath, on the plain checkerboard.
fn validate_states(config: &Config, q: u32) -> Result<(), ConfigError> {
    let model = &config.model;
    let name = model.name();
    if !(2..=MAX_POTTS_STATES).contains(&q) {
        return invalid(format!(
            "model: Potts(q) takes 2 to {MAX_POTTS_STATES} states, got {q}"
        ));
    }
    let crystal_field = match *model {
        Model::BlumeCapel { crystal_field, .. } => crystal_field,
        _ => 0.0,
    };
    let site = crystal_field.abs() + model.field().abs();
    let most = site_energy_bound(model);
    if site.is_nan() || site > most {
        return invalid(format!(
            "field: {name} takes |crystal_field| + |field| up to {most}, which keeps an \
             update's energy change within the 32-bit acceptance tables, got {site}"
        ));
    }
    let updates = &config.updates;
    if let Proposal::Cone { .. } = updates.proposal {
        return invalid(format!(
            "updates: {name} proposes one of its other states uniformly (proposal: Uniform) or \
             draws one from the heat bath (proposal: HeatBath); a cone is for vector spins"
        ));
    }
    if updates.overrelaxation > 0 || updates.metropolis != MetropolisOrder::Checkerboard {
        return invalid(format!(
            "updates: {name} is updated on the plain checkerboard, without overrelaxation or \
             tiles; leave them out"
        ));
    }
    Ok(())
}

/// Tiles that cover the lattice in an even number per side (so that tiles of one colour never
/// touch), fit the portable workgroup memory with their halo, and a bounded number of hits.
fn validate_tiles(
    metropolis: &MetropolisOrder,
    lattice: Lattice,
    components: u32,
) -> Result<(), ConfigError> {
    let MetropolisOrder::DoubleCheckerboard { tile, hits } = *metropolis else {
        return Ok(());
    };
    let size = lattice.size;
    if tile < 2 || !tile.is_multiple_of(2) {
        return invalid(format!(
            "updates: DoubleCheckerboard(tile) must be even and at least 2 (a tile holds both \
             checkerboard colours), got {tile}"
        ));
    }
    if !size.is_multiple_of(tile) || !(size / tile).is_multiple_of(2) {
        return invalid(format!(
            "updates: DoubleCheckerboard(tile) must divide the size {size} into an even number \
             of tiles per side (tiles of one colour must not touch), got {tile}"
        ));
    }
    let tiles = Tiles {
        lattice,
        size: tile,
    };
    let bytes = tiles.bytes(components);
    if bytes > MAX_TILE_BYTES {
        return invalid(format!(
            "updates: DoubleCheckerboard(tile) {tile} takes {bytes} bytes of workgroup memory \
             with its halo ((tile + 2)^{} sites of {components} components), over the \
             {MAX_TILE_BYTES} every adapter has; take a smaller tile",
            lattice.dims
        ));
    }
    if !(1..=MAX_HITS).contains(&hits) {
        return invalid(format!(
            "updates: DoubleCheckerboard(hits) must be between 1 and {MAX_HITS}, got {hits}"
        ));
    }
    Ok(())
}

/// The Ising models take no vector updates.
pub(crate) fn validate_no_vector_updates(config: &Config) -> Result<(), ConfigError> {
    match config.updates.is_default() {
        true => Ok(()),
        false => invalid(format!(
            "updates: {} has Ising spins; `updates` belongs to the vector models (XY, Heisenberg)",
            config.model.name()
        )),
    }
}

#[cfg(test)]
mod tests {
    use crate::config::Config;
    use crate::config::testing::{assert_refused, parse_error, sample_with};

    const ISING: &str = "model: Ising(dims: 2, size: 32, field: 0.0),";

    #[test]
    fn a_heisenberg_config_parses_validates_and_reads_back() {
        let text = sample_with(
            ISING,
            "model: Heisenberg(dims: 3, size: 8, disorder: Bimodal), samples: 2, \
             couplings: File(\"couplings.npy\"), \
             updates: (proposal: Cone(acceptance: 0.4), overrelaxation: 3, \
             metropolis: DoubleCheckerboard(tile: 4, hits: 3)),",
        );
        let config = Config::from_ron_str(&text).unwrap();
        config.validate().unwrap();
        assert_eq!(config.model.components(), 3);
        assert_eq!(
            Config::from_ron_str(&config.to_ron_string()).unwrap(),
            config
        );
    }

    #[test]
    fn bit_planes_take_the_potts_and_blume_capel_models_at_zero_field() {
        let planes = |model: &str| {
            sample_with(
                ISING,
                &format!("model: {model}, updates: (storage: BitPlanes),"),
            )
        };
        for model in [
            "Potts(q: 7, dims: 3, size: 64)",
            "BlumeCapel(dims: 2, size: 128, crystal_field: 1.5)",
        ] {
            Config::from_ron_str(&planes(model))
                .unwrap()
                .validate()
                .unwrap();
        }
        let refused = [
            (
                "BlumeCapel(dims: 2, size: 64, crystal_field: 0.0, field: 0.1)",
                "field must be zero",
            ),
            (
                "Ising(dims: 2, size: 64, dilution: 0.1)",
                "no Potts or Blume-Capel states",
            ),
            (
                "BlumeCapel(dims: 2, size: 96, crystal_field: 0.0)",
                "got 96",
            ),
            ("Potts(q: 3, dims: 2, size: 64, dilution: 0.1)", "undiluted"),
        ];
        for (model, why) in refused {
            let text = planes(model);
            let error = Config::from_ron_str(&text).unwrap().validate().unwrap_err();
            let message = error.to_string();
            assert!(
                message.contains("storage: BitPlanes") && message.contains(why),
                "{message}"
            );
        }
    }

    #[test]
    fn what_vector_spins_cannot_take_is_refused_by_name() {
        assert_refused(&[
            (
                ISING,
                "model: XY(dims: 3, size: 8, field: 2.0),",
                &["|field| < 2", "got 2"],
            ),
            (
                ISING,
                "model: Heisenberg(dims: 3, size: 8, field: -16.0, disorder: Gaussian), \
                 samples: 2,",
                &[
                    "field",
                    "max |J| = 8",
                    "below 64",
                    "|field| < 16",
                    "got -16",
                ],
            ),
            (
                ISING,
                "model: XY(dims: 2, size: 16386, disorder: Gaussian), samples: 2,",
                &["size: 16386^2", "2^28", "Gaussian"],
            ),
            (
                ISING,
                "model: XY(dims: 2, size: 8), engine: Simple,",
                &["engine: Simple", "XY 2D"],
            ),
            (
                ISING,
                "model: XY(dims: 2, size: 8), updates: (proposal: Cone(acceptance: 1.0)),",
                &["strictly between 0 and 1", "got 1"],
            ),
            (
                ISING,
                "model: Clock(q: 1, dims: 2, size: 8),",
                &["Clock(q)", "2 to 65536", "got 1"],
            ),
            (
                ISING,
                "model: Clock(q: 6, dims: 2, size: 8), updates: (proposal: Cone(acceptance: 0.5)),",
                &["6-state clock", "uniformly", "HeatBath", "cone"],
            ),
            (
                ISING,
                "model: XY(dims: 2, size: 8), updates: (proposal: HeatBath),",
                &["HeatBath", "clock model", "XY 2D"],
            ),
            (
                ISING,
                "model: Clock(q: 6, dims: 2, size: 8), updates: (overrelaxation: 1),",
                &["overrelaxation", "6 angles"],
            ),
            (
                ISING,
                "model: Clock(q: 6, dims: 2, size: 8), engine: Simple,",
                &["engine: Simple", "6-state clock 2D"],
            ),
            (
                ISING,
                "model: XY(dims: 2, size: 32), \
                 updates: (metropolis: DoubleCheckerboard(tile: 5, hits: 1)),",
                &["DoubleCheckerboard(tile)", "even", "got 5"],
            ),
            (
                ISING,
                "model: XY(dims: 2, size: 24), \
                 updates: (metropolis: DoubleCheckerboard(tile: 16, hits: 1)),",
                &["DoubleCheckerboard(tile)", "size 24", "got 16"],
            ),
            (
                ISING,
                "model: Heisenberg(dims: 2, size: 24), \
                 updates: (metropolis: DoubleCheckerboard(tile: 8, hits: 1)),",
                &["DoubleCheckerboard(tile)", "even number of tiles", "got 8"],
            ),
            (
                ISING,
                "model: Heisenberg(dims: 3, size: 32), \
                 updates: (metropolis: DoubleCheckerboard(tile: 16, hits: 2)),",
                &[
                    "DoubleCheckerboard(tile) 16",
                    "workgroup memory",
                    "smaller tile",
                ],
            ),
            (
                ISING,
                "model: Heisenberg(dims: 2, size: 32), \
                 updates: (metropolis: DoubleCheckerboard(tile: 16, hits: 0)),",
                &["DoubleCheckerboard(hits)", "got 0"],
            ),
            (
                "model: Ising(dims: 2, size: 32, field: 0.0),\n    temperatures: Betas([0.40, 0.44]),\n    replicas: 4,",
                "model: XY(dims: 2, size: 4, disorder: Bimodal), samples: 2,\n    temperatures: Betas([0.40, 0.44]),\n    replicas: 3,",
                &["r + replicas/2", "even number of replicas", "got 3"],
            ),
            (
                ISING,
                "model: Ising(dims: 2, size: 8), updates: (overrelaxation: 2),",
                &["updates", "vector models"],
            ),
            (
                ISING,
                "model: Potts(q: 33, dims: 2, size: 8),",
                &["Potts(q)", "2 to 32", "got 33"],
            ),
            (
                ISING,
                "model: BlumeCapel(dims: 2, size: 8, crystal_field: 30.0, field: -3.0),",
                &["Blume-Capel 2D", "up to 32", "got 33"],
            ),
            (
                ISING,
                "model: Potts(q: 3, dims: 3, size: 8, field: 16.0, disorder: Gaussian), samples: 2,",
                &["3-state Potts Gaussian spin glass 3D", "up to 15", "got 16"],
            ),
            (
                ISING,
                "model: Potts(q: 3, dims: 2, size: 8), updates: (proposal: Cone(acceptance: 0.5)),",
                &["3-state Potts 2D", "HeatBath", "cone"],
            ),
            (
                ISING,
                "model: BlumeCapel(dims: 2, size: 8, crystal_field: 1.0), updates: (overrelaxation: 1),",
                &["plain checkerboard", "overrelaxation"],
            ),
            (
                ISING,
                "model: Potts(q: 4, dims: 2, size: 32), \
                 updates: (metropolis: DoubleCheckerboard(tile: 8, hits: 1)),",
                &["plain checkerboard", "tiles"],
            ),
            (
                ISING,
                "model: BlumeCapel(dims: 2, size: 8, crystal_field: 1.0), \
                 algorithm: Clusters(update: Wolff),",
                &["Fortuin-Kasteleyn", "Blume-Capel 2D"],
            ),
        ]);
    }

    #[test]
    fn a_gaussian_glass_takes_a_field_within_its_coarser_local_field() {
        let text = sample_with(
            ISING,
            "model: Heisenberg(dims: 3, size: 8, field: 15.5, disorder: Gaussian), samples: 2,",
        );
        let config = Config::from_ron_str(&text).unwrap();
        config.validate().unwrap();
        assert_eq!(config.model.name(), "Heisenberg Gaussian spin glass 3D");
        let example = include_str!("../../../assets/examples/heisenberg_gaussian_glass.ron");
        Config::from_ron_str(example).unwrap().validate().unwrap();
    }

    /// The Ising ferromagnet has no disorder to choose; the Gaussian Edwards-Anderson glass runs
    /// as two discrete states.
    #[test]
    fn a_gaussian_ising_glass_runs_as_discrete_states() {
        let text = sample_with(ISING, "model: Ising(dims: 3, size: 8, disorder: Gaussian),");
        let (_, _, msg) = parse_error(&text);
        assert!(msg.contains("disorder"), "{msg}");
        let text = sample_with(
            ISING,
            "model: EdwardsAnderson(dims: 3, size: 8, disorder: Gaussian), samples: 2,",
        );
        let glass = Config::from_ron_str(&text).unwrap();
        glass.validate().unwrap();
        assert!(glass.model.is_vector());
        assert_eq!(glass.model.discrete_states(), Some(2));
    }

    #[test]
    fn every_backend_runs_vector_spins() {
        for backend in ["Cpu", "Wgpu", "Cuda"] {
            let text = sample_with(ISING, "model: XY(dims: 2, size: 32),")
                .replace("backend: Auto", &format!("backend: {backend}"));
            Config::from_ron_str(&text).unwrap().validate().unwrap();
        }
    }
}

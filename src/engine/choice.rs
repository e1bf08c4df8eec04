//! The engine a config runs: the one it names, or for `engine: Auto` the fastest that fits;
//! and what each engine can take (the lattice it indexes, the systems its lanes pack, the
//! workgroup sizes of the GPU kernels).

use crate::config::{
    Config, ConfigError, Disorder, EngineKind, Lanes, LatticeKind, Layout, MAX_MULTISPIN_SITES,
    MAX_MULTISPIN_WORDS, MAX_SIMPLE_SITES, Model, invalid,
};

/// Workgroup sizes the GPU engines accept: powers of two in this range.
const WORKGROUP_SIZES: std::ops::RangeInclusive<u32> = 32..=1024;

impl Config {
    /// This config with `engine: Auto` replaced by the engine it chooses, and how the engine
    /// was chosen (logged). The run writes the resolved config, so its checkpoint fingerprint
    /// and a `--resume` from either config name the same engine, and a config that names its
    /// engine serialises as before.
    pub fn resolve_engine(&self) -> Result<(Config, String), ConfigError> {
        let (engine, choice) = match self.algorithm.annealing() {
            Some(options) => options.engine_config(self)?.choose_engine()?,
            None => self.choose_engine()?,
        };
        if self.engine == EngineKind::Auto {
            log::info!("{choice}");
        }
        let resolved = Config {
            engine,
            ..self.clone()
        };
        Ok((resolved, choice))
    }

    /// The engine this config runs and why: the one it names, or for `Auto` the simple engine
    /// for cluster updates (the only one that has them), else the first of
    /// [`auto_candidates`] that fits the model, the lattice and the system counts. Where none
    /// fits, the ferromagnet falls back to the simple engine (whose limit [`validate_engine`]
    /// then reports); the spin glass, which needs the multispin engine, gets an error that says
    /// what each layout would need.
    pub(crate) fn choose_engine(&self) -> Result<(EngineKind, String), ConfigError> {
        if self.engine != EngineKind::Auto {
            return Ok((self.engine, "engine named in the config".to_string()));
        }
        if self.algorithm.clusters().is_some() {
            return Ok((
                EngineKind::Simple,
                auto_chose(
                    &EngineKind::Simple,
                    "algorithm: Clusters: cluster updates run on the simple engine",
                ),
            ));
        }
        let fits = |engine: &EngineKind| validate_engine(self, engine).is_ok();
        match auto_candidates(self)
            .into_iter()
            .find(|(engine, _)| fits(engine))
        {
            Some((engine, why)) => Ok((engine, auto_chose(&engine, why))),
            None if self.model.disorder() == Disorder::Ferromagnet => Ok((
                EngineKind::Simple,
                auto_chose(
                    &EngineKind::Simple,
                    "nothing fits; the simple engine is the fallback for the ferromagnet",
                ),
            )),
            None => Err(ConfigError::Invalid(no_multispin_layout_fits(self))),
        }
    }
}

impl Config {
    /// An Ising model twisted by an antiperiodic axis, with an open axis, on the honeycomb,
    /// triangular or kagome lattice, or the bipartite antiferromagnet at zero field, under
    /// `engine: Auto`, which [`Config::is_vector`] sends to two discrete states, resolved
    /// instead to the multispin layout `Auto` picks ([`auto_candidates`]) where one fits: the
    /// reversed bonds run as the layout's coupling bits, the open edges as lanes whose bonds
    /// across them the updates and measurements leave out, the brick wall as words whose sites
    /// skip one y bond, the triangular lattice's diagonal bonds as words of the same colour
    /// (the kagome lattice's with its holes left alone), the antiferromagnet's staggered
    /// magnetisation counted by colour, many times faster. With how it was chosen; `None`
    /// where no layout fits, the model runs as states for another reason (dilution, replica
    /// moves, the bipartite antiferromagnet in a field) or the run is of cluster updates, which
    /// no multispin engine makes.
    pub fn states_on_multispin(&self) -> Option<(Config, String)> {
        let twisted = self.model.is_ising() && self.model.boundaries().any_antiperiodic();
        let open = self.model.is_ising() && self.model.boundaries().any_open();
        let shaped = self.model.is_shaped_ising();
        let staggered = self.model.is_staggered();
        let clusters = self.algorithm.clusters().is_some();
        if self.engine != EngineKind::Auto || !(twisted || open || shaped || staggered) || clusters
        {
            return None;
        }
        let on_multispin = |engine| Config {
            engine,
            ..self.clone()
        };
        // Named a multispin engine, does it still run on the vector engines (its model's spins,
        // dilution, replica moves)?
        if on_multispin(EngineKind::multispin_with(Layout::Smsc)).is_vector() {
            return None;
        }
        let view = match self.algorithm.annealing() {
            Some(options) => options.engine_config(self).ok()?,
            None => self.clone(),
        };
        let (engine, why) = auto_candidates(&view).into_iter().find(|(engine, _)| {
            engine.multispin().is_some() && validate_engine(&view, engine).is_ok()
        })?;
        let why = match (twisted, self.model.lattice()) {
            _ if open => format!(
                "an open axis runs as words whose edge sites leave out the bonds across it; {why}"
            ),
            _ if staggered => format!(
                "the antiferromagnet runs as coupling bits, its staggered magnetisation counted \
                 by sublattice; {why}"
            ),
            (true, _) => format!("an antiperiodic axis runs as coupling bits; {why}"),
            (false, LatticeKind::Honeycomb) => {
                format!("the honeycomb's brick wall runs on multispin words; {why}")
            }
            (false, LatticeKind::Kagome) => {
                format!("the kagome lattice runs on multispin words; {why}")
            }
            (false, _) => format!("the triangular lattice runs on multispin words; {why}"),
        };
        Some((on_multispin(engine), auto_chose(&engine, &why)))
    }
}

/// The engine checks of `Config::validate`: the engine the config names, or the one `Auto`
/// chooses, must take the lattice and the systems; for `Auto` the message says how it chose.
pub(crate) fn validate_engine_choice(config: &Config) -> Result<(), ConfigError> {
    let (engine, choice) = config.choose_engine()?;
    validate_engine(config, &engine).map_err(|error| match error {
        ConfigError::Invalid(msg) if config.engine == EngineKind::Auto => {
            ConfigError::Invalid(format!("{choice}: {msg}"))
        }
        other => other,
    })
}

/// The engines `Auto` tries, fastest first, with why each is chosen: AMSC where 32 or more
/// systems fill the lanes of words (for the ferromagnet, temperatures in lanes only where they
/// fill at least half of them: idle lanes cost as much as busy ones), else SMSC (one lattice,
/// 32 sites per word), else, for the ferromagnet, the simple engine.
fn auto_candidates(config: &Config) -> Vec<(EngineKind, &'static str)> {
    let amsc = |lanes| EngineKind::multispin_with(Layout::Amsc { lanes });
    let disordered = config.model.disorder() == Disorder::Bimodal;
    let temperatures = config.temperatures.betas().len();
    let mut candidates = Vec::new();
    if disordered {
        candidates.push((
            amsc(Lanes::Samples),
            "samples in multiples of 32 fill the lanes of words",
        ));
    }
    candidates.push((
        amsc(Lanes::Replicas),
        "replicas in multiples of 32 fill the lanes of words",
    ));
    if disordered || temperatures >= 16 {
        candidates.push((
            amsc(Lanes::Temperatures),
            "the temperatures (at most 32) share words, one per lane",
        ));
    }
    candidates.push((
        EngineKind::multispin_with(Layout::Smsc),
        "one lattice per system, 32 sites per word (size a multiple of 64)",
    ));
    if !disordered {
        candidates.push((
            EngineKind::Simple,
            "too few systems to fill multispin words, and a size that is not a multiple of 64",
        ));
    }
    candidates
}

/// What `Auto` chose and why, in the config's own words.
fn auto_chose(engine: &EngineKind, why: &str) -> String {
    let named = ron::to_string(engine).expect("an engine kind is plain data");
    format!("no engine given, so engine: Auto chose {named} ({why})")
}

/// Why no multispin layout takes a spin-glass config, layout by layout.
fn no_multispin_layout_fits(config: &Config) -> String {
    let needs = auto_candidates(config)
        .iter()
        .filter_map(|(engine, _)| validate_engine(config, engine).err())
        .map(|error| match error {
            ConfigError::Invalid(msg) => msg,
            other => other.to_string(),
        })
        .collect::<Vec<_>>()
        .join("; ");
    format!(
        "model EdwardsAnderson needs the multispin engine, and with no engine given (engine: \
         Auto) none of its layouts fits: {needs}"
    )
}

/// Sites per system within what `engine` indexes.
fn validate_site_limit(model: &Model, engine: &EngineKind) -> Result<(), ConfigError> {
    let (dims, size) = (model.dims(), model.size());
    let sites = u128::from(size).pow(dims);
    let limit = SiteLimit::of(engine);
    if sites >= u128::from(limit.sites) {
        return invalid(format!(
            "lattice {size}^{dims} has {sites} sites, but {} takes fewer than {} = 2^{} sites per \
             system ({}){}",
            limit.engine,
            limit.sites,
            limit.sites.trailing_zeros(),
            limit.reason,
            limit.hint
        ));
    }
    Ok(())
}

/// The largest lattice (in sites per system) an engine indexes, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SiteLimit {
    /// Sites per system must stay below this (a power of two).
    pub sites: u64,
    /// The engine, in words.
    pub engine: &'static str,
    /// What bounds it.
    pub reason: &'static str,
    /// Where larger lattices can go (empty if nowhere).
    pub hint: &'static str,
}

impl SiteLimit {
    /// The limit of `engine`: the simple engine and AMSC (one site per word) take fewer than
    /// 2^31 sites ([`MAX_SIMPLE_SITES`], [`MAX_MULTISPIN_WORDS`]); SMSC (32 sites per word) would
    /// index 2^36 sites in 2^31 words, but the hot start's 32-bit Philox block counter bounds
    /// it at 2^34 ([`MAX_MULTISPIN_SITES`]).
    pub fn of(engine: &EngineKind) -> SiteLimit {
        let words = "word indices within a system are 32-bit";
        match engine.multispin().map(|options| options.layout) {
            None => SiteLimit {
                sites: MAX_SIMPLE_SITES,
                engine: "the simple engine",
                reason: "site indices are 32-bit",
                hint: "; engine: Multispin(layout: Smsc) takes up to 2^34 sites, with a size \
                       that is a multiple of 64",
            },
            Some(Layout::Amsc { .. }) => SiteLimit {
                sites: MAX_MULTISPIN_WORDS.min(MAX_MULTISPIN_SITES),
                engine: "layout Amsc (one site per word)",
                reason: words,
                hint: "; layout Smsc takes larger lattices",
            },
            Some(Layout::Smsc) if MAX_MULTISPIN_WORDS * 32 < MAX_MULTISPIN_SITES => SiteLimit {
                sites: MAX_MULTISPIN_WORDS * 32,
                engine: "layout Smsc (32 sites per word)",
                reason: words,
                hint: "",
            },
            Some(Layout::Smsc) => SiteLimit {
                sites: MAX_MULTISPIN_SITES,
                engine: "layout Smsc",
                reason: "the hot start numbers its blocks of 4 random spins with a 32-bit counter",
                hint: "",
            },
        }
    }
}

/// What each engine and layout can pack: the lattice, the model, the system counts.
fn validate_engine(config: &Config, engine: &EngineKind) -> Result<(), ConfigError> {
    validate_site_limit(&config.model, engine)?;
    let options = match engine.multispin() {
        None if config.model.disorder() == Disorder::Bimodal => {
            return invalid(
                "model EdwardsAnderson needs the multispin engine: \
                 engine: Multispin(layout: Amsc(lanes: Samples))"
                    .into(),
            );
        }
        None => return Ok(()),
        Some(options) => options,
    };
    let size = config.model.size();
    if config.model.lattice() == LatticeKind::Triangular && !size.is_multiple_of(2) {
        return invalid(format!(
            "the triangular lattice's multispin words hold the checkerboard's two colours, each \
             updated in two halves of alternate rows: size must be even (a multiple of 6), got \
             {size}"
        ));
    }
    match options.layout {
        Layout::Smsc if !size.is_multiple_of(64) => invalid(format!(
            "layout Smsc packs 32 same-colour sites along x in a word: size must be a multiple \
             of 64, got {size}"
        )),
        Layout::Smsc => Ok(()),
        Layout::Amsc { lanes } => validate_lanes(config, lanes),
    }
}

fn validate_lanes(config: &Config, lanes: Lanes) -> Result<(), ConfigError> {
    let disordered = config.model.disorder() == Disorder::Bimodal;
    let temperatures = config.temperatures.betas().len();
    match lanes {
        Lanes::Samples if !config.samples.is_multiple_of(32) => invalid(format!(
            "lanes: Samples packs 32 disorder samples per word: samples must be a multiple of \
             32, got {}",
            config.samples
        )),
        Lanes::Temperatures if temperatures > 32 => invalid(format!(
            "lanes: Temperatures packs one temperature per lane: at most 32 temperatures, got \
             {temperatures}"
        )),
        Lanes::Replicas if !config.replicas.is_multiple_of(32) => invalid(format!(
            "lanes: Replicas packs 32 replicas per word: replicas must be a multiple of 32, got {}",
            config.replicas
        )),
        Lanes::Replicas if disordered && !config.replicas.is_multiple_of(64) => invalid(format!(
            "lanes: Replicas with the Edwards-Anderson model pairs replica r with r + \
             replicas/2 in the same lane of another word: replicas must be a multiple of 64, got {}",
            config.replicas
        )),
        _ => Ok(()),
    }
}

/// A workgroup size the GPU engines accept ([`WORKGROUP_SIZES`]).
pub(crate) fn validate_workgroup_size(size: u32) -> Result<(), ConfigError> {
    if !size.is_power_of_two() || !WORKGROUP_SIZES.contains(&size) {
        return invalid(format!(
            "workgroup_size must be a power of two in {}..={}, got {size}",
            WORKGROUP_SIZES.start(),
            WORKGROUP_SIZES.end()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Randoms;
    use crate::config::testing::{assert_mentions, invalid_message, parse_error, sample_with};

    /// The sample with `engine` and lattice `dims`, `size`.
    fn lattice_with(engine: &str, dims: u32, size: u32) -> String {
        sample_with("replicas: 4,", &format!("replicas: 32, engine: {engine},"))
            .replace("dims: 2, size: 32", &format!("dims: {dims}, size: {size}"))
    }

    #[test]
    fn site_limit_depends_on_the_engine() {
        let smsc = "Multispin(layout: Smsc)";
        let amsc = "Multispin(layout: Amsc(lanes: Replicas))";
        // The benchmark target: 65536^2 = 2^32 sites, 2^27 SMSC words.
        let target = Config::from_ron_str(&lattice_with(smsc, 2, 65536)).unwrap();
        target.validate().unwrap();
        let shared = lattice_with("Multispin(layout: Smsc, randoms: Shared)", 2, 65536);
        Config::from_ron_str(&shared).unwrap().validate().unwrap();
        let glass = lattice_with(smsc, 2, 65536).replace("Ising(", "EdwardsAnderson(");
        Config::from_ron_str(&glass).unwrap().validate().unwrap();
        // The simple engine and AMSC (one site per word) keep 2^31.
        assert_mentions(
            &invalid_message(&lattice_with("Simple", 2, 65536)),
            &[
                "65536^2 has 4294967296 sites",
                "the simple engine takes fewer than 2147483648 = 2^31 sites per system",
                "Smsc",
            ],
        );
        assert_mentions(
            &invalid_message(&lattice_with(amsc, 2, 65536)),
            &["65536^2", "Amsc", "2147483648 = 2^31", "32-bit"],
        );
        Config::from_ron_str(&lattice_with(amsc, 2, 46340))
            .unwrap()
            .validate()
            .unwrap();
        // SMSC: below 2^34 sites; 131008 = 2^17 - 64 is the largest 2D size.
        let largest = Config::from_ron_str(&lattice_with(smsc, 2, 131_008)).unwrap();
        largest.validate().unwrap();
        assert_mentions(
            &invalid_message(&lattice_with(smsc, 2, 131_072)),
            &[
                "131072^2 has 17179869184 sites",
                "17179869184 = 2^34",
                "32-bit counter",
            ],
        );
        // 2560^3 < 2^34 < 2624^3.
        Config::from_ron_str(&lattice_with(smsc, 3, 2560))
            .unwrap()
            .validate()
            .unwrap();
        assert_mentions(
            &invalid_message(&lattice_with(smsc, 3, 2624)),
            &["2624^3", "2^34"],
        );
        // Sizes beyond u32 products are refused, not wrapped.
        assert_mentions(
            &invalid_message(&lattice_with(smsc, 3, 4_294_967_232)),
            &["4294967232^3", "2^34"],
        );
    }

    #[test]
    fn site_limits_follow_the_index_bounds() {
        let limit = |engine| SiteLimit::of(&engine).sites;
        let smsc = EngineKind::Multispin {
            layout: Layout::Smsc,
            randoms: Randoms::Exact,
        };
        let amsc = EngineKind::Multispin {
            layout: Layout::Amsc {
                lanes: Lanes::Samples,
            },
            randoms: Randoms::Shared,
        };
        assert_eq!(limit(EngineKind::Simple), 1 << 31);
        assert_eq!(limit(amsc), 1 << 31);
        assert_eq!(limit(smsc), 1 << 34);
        // Words per word system stay below 2^31 in both layouts (an SMSC word is 32 sites).
        assert!(limit(amsc) <= MAX_MULTISPIN_WORDS);
        assert!(limit(smsc) / 32 <= MAX_MULTISPIN_WORDS);
        // The hot start's Philox block counter (4 sites per block) is a u32.
        assert!((limit(smsc) - 1) / 4 <= u64::from(u32::MAX));
    }

    /// The engine `Auto` resolves to for the sample with `from` replaced by `to`.
    fn auto_engine(from: &str, to: &str) -> EngineKind {
        let config = Config::from_ron_str(&sample_with(from, to)).unwrap();
        assert_eq!(config.engine, EngineKind::Auto, "no engine given");
        config.validate().unwrap();
        let (resolved, choice) = config.resolve_engine().unwrap();
        assert!(choice.contains("engine: Auto chose"), "{choice}");
        resolved.engine
    }

    #[test]
    fn auto_engine_picks_the_fastest_that_fits() {
        let amsc = |lanes| EngineKind::multispin_with(Layout::Amsc { lanes });
        let smsc = EngineKind::multispin_with(Layout::Smsc);
        // Few systems on a small lattice: the simple engine.
        assert_eq!(
            auto_engine("replicas: 4", "replicas: 4"),
            EngineKind::Simple
        );
        assert_eq!(
            auto_engine("replicas: 4", "replicas: 64"),
            amsc(Lanes::Replicas)
        );
        assert_eq!(auto_engine("size: 32", "size: 64"), smsc);
        // One huge lattice only SMSC takes.
        assert_eq!(auto_engine("size: 32", "size: 65536"), smsc);
        // Sixteen temperatures fill half the lanes of a word.
        let many = format!(
            "Betas({:?})",
            (1..=16).map(|i| 0.02 * f64::from(i)).collect::<Vec<_>>()
        );
        assert_eq!(
            auto_engine("Betas([0.40, 0.44])", &many),
            amsc(Lanes::Temperatures)
        );
        // The spin glass: samples in lanes first, then replicas, then temperatures.
        let glass = |counts: &str| {
            sample_with("Ising(", "EdwardsAnderson(").replace("replicas: 4,", counts)
        };
        let resolved = |text: String| {
            let config = Config::from_ron_str(&text).unwrap();
            config.validate().unwrap();
            config.resolve_engine().unwrap().0.engine
        };
        assert_eq!(
            resolved(glass("replicas: 2, samples: 64,")),
            amsc(Lanes::Samples)
        );
        assert_eq!(resolved(glass("replicas: 64,")), amsc(Lanes::Replicas));
        assert_eq!(resolved(glass("replicas: 2,")), amsc(Lanes::Temperatures));
        // Nothing fits: the error says what each layout needs.
        let crowded = glass("replicas: 2, samples: 4,").replace(
            "Betas([0.40, 0.44])",
            &format!("Betas({:?})", (1..=33).map(f64::from).collect::<Vec<_>>()),
        );
        assert_mentions(
            &invalid_message(&crowded),
            &[
                "EdwardsAnderson needs the multispin engine",
                "engine: Auto",
                "samples must be a multiple of 32, got 4",
                "replicas must be a multiple of 32, got 2",
                "at most 32 temperatures, got 33",
                "multiple of 64, got 32",
            ],
        );
    }

    /// An Ising model with an antiperiodic axis takes the layout `Auto` would take on the
    /// torus; where none fits, or the model runs as states for another reason, it stays on two
    /// discrete states.
    #[test]
    fn a_twisted_ising_model_takes_a_multispin_layout_where_one_fits() {
        let twisted = |text: &str| {
            let config = Config::from_ron_str(text).unwrap();
            config.validate().unwrap();
            config.states_on_multispin()
        };
        let sample = |from: &str, to: &str| {
            sample_with(from, to).replace(
                "field: 0.0)",
                "field: 0.0, boundaries: (Periodic, Antiperiodic))",
            )
        };
        let engine = |resolved: Option<(Config, String)>| {
            let (config, choice) = resolved.expect("a layout fits");
            assert_mentions(&choice, &["engine: Auto chose", "antiperiodic"]);
            assert!(!config.is_vector());
            config.engine
        };
        let smsc = EngineKind::multispin_with(Layout::Smsc);
        let replicas = EngineKind::multispin_with(Layout::Amsc {
            lanes: Lanes::Replicas,
        });
        assert_eq!(engine(twisted(&sample("size: 32", "size: 64"))), smsc);
        assert_eq!(
            engine(twisted(&sample("replicas: 4", "replicas: 32"))),
            replicas
        );
        let on_states = sample("replicas: 4", "replicas: 4");
        assert!(Config::from_ron_str(&on_states).unwrap().is_vector());
        assert_eq!(twisted(&on_states), None);
        let diluted = sample("field: 0.0", "field: 0.0, dilution: 0.1");
        assert_eq!(twisted(&diluted.replace("size: 32", "size: 64")), None);
        let named = sample("size: 32", "size: 64").replace(
            "replicas: 4,",
            "replicas: 4, engine: Multispin(layout: Amsc(lanes: Temperatures)),",
        );
        assert_eq!(twisted(&named), None);
        // Population annealing asks of its engine's systems: 4 runs of 500 replicas.
        let annealed = twisted(include_str!("../../assets/examples/interface_tension.ron"));
        assert_eq!(engine(annealed), replicas);
    }

    /// The honeycomb's Ising model (a twisted torus, the +-J glass) runs on multispin words
    /// where the config names them or `Auto` finds a layout that fits, at sizes past the vector
    /// engine's 2^31 sites too, and so does its antiferromagnet at zero field outside population
    /// annealing; on two discrete states otherwise.
    #[test]
    fn the_honeycomb_ising_model_takes_multispin_words_where_they_fit() {
        let honeycomb = |from: &str, to: &str| {
            sample_with(from, to).replace("field: 0.0)", "field: 0.0, lattice: Honeycomb)")
        };
        let resolved = |text: &str| {
            let config = Config::from_ron_str(text).unwrap();
            config.validate().unwrap();
            config.states_on_multispin()
        };
        let (on_words, choice) = resolved(&honeycomb("replicas: 4", "replicas: 32")).unwrap();
        assert_mentions(&choice, &["engine: Auto chose", "honeycomb"]);
        assert!(!on_words.is_vector());
        let huge = honeycomb("size: 32", "size: 65536").replace("replicas: 4", "replicas: 1");
        let (huge, _) = resolved(&huge).expect("SMSC takes 2^32 sites");
        assert_eq!(huge.engine, EngineKind::multispin_with(Layout::Smsc));
        let on_states = honeycomb("replicas: 4", "replicas: 4");
        assert!(resolved(&on_states).is_none());
        assert!(Config::from_ron_str(&on_states).unwrap().is_vector());
        let named = honeycomb(
            "replicas: 4,",
            "replicas: 4, engine: Multispin(layout: Smsc),",
        )
        .replace("size: 32", "size: 64");
        assert!(!Config::from_ron_str(&named).unwrap().is_vector());
        let simple = honeycomb("replicas: 4,", "replicas: 32, engine: Simple,");
        assert_mentions(
            &invalid_message(&simple),
            &["Simple", "Multispin", "honeycomb"],
        );
        // The antiferromagnet: on words at zero field, its staggered magnetisation counted by
        // sublattice, annealed too; on states in a field.
        let antiferromagnet = honeycomb("replicas: 4", "replicas: 32")
            .replace("Honeycomb)", "Honeycomb, antiferromagnet: true)");
        let (on_words, choice) = resolved(&antiferromagnet).expect("a layout fits");
        assert_mentions(&choice, &["staggered"]);
        assert!(Config::from_ron_str(&antiferromagnet).unwrap().is_vector());
        assert!(!on_words.is_vector());
        let in_field = antiferromagnet.replace("field: 0.0", "field: 0.5");
        assert!(resolved(&in_field).is_none());
        let annealed = include_str!("../../assets/examples/interface_tension.ron").replace(
            "boundaries: (Periodic, Antiperiodic)",
            "antiferromagnet: true",
        );
        assert!(annealed.contains("antiferromagnet: true"));
        let (annealed_on_words, _) = resolved(&annealed).expect("a layout fits the anneal");
        assert!(!annealed_on_words.is_vector());
        let named = annealed.replace("seed:", "engine: Multispin(layout: Smsc), seed:");
        assert!(!Config::from_ron_str(&named).unwrap().is_vector());
        let twisted = honeycomb("replicas: 4", "replicas: 32").replace(
            "lattice: Honeycomb",
            "lattice: Honeycomb, boundaries: (Periodic, Antiperiodic)",
        );
        let glass = honeycomb("replicas: 4", "replicas: 2, samples: 32")
            .replace("Ising(", "EdwardsAnderson(");
        for (words, lanes) in [(twisted, Lanes::Replicas), (glass, Lanes::Samples)] {
            let (config, _) = resolved(&words).expect("a layout fits");
            let layout = Layout::Amsc { lanes };
            assert_eq!(config.engine, EngineKind::multispin_with(layout), "{words}");
        }
    }

    /// The triangular lattice's Ising model (the ferromagnet, the antiferromagnet, which is
    /// not bipartite, the +-J glass) runs on multispin words where the config names them or
    /// `Auto` finds a layout that fits, of even sizes only; on two discrete states otherwise;
    /// the kagome lattice's too, but diluted.
    #[test]
    fn the_triangular_ising_model_takes_multispin_words_where_they_fit() {
        let triangular = |from: &str, to: &str| {
            sample_with(from, to)
                .replace("field: 0.0)", "field: 0.0, lattice: Triangular)")
                .replace("size: 32", "size: 30")
        };
        let resolved = |text: &str| {
            let config = Config::from_ron_str(text).unwrap();
            config.validate().unwrap();
            config.states_on_multispin()
        };
        let (on_words, choice) = resolved(&triangular("replicas: 4", "replicas: 32")).unwrap();
        assert_mentions(&choice, &["engine: Auto chose", "triangular"]);
        assert!(!on_words.is_vector());
        let antiferromagnet = triangular("replicas: 4", "replicas: 32")
            .replace("field: 0.0,", "field: 0.0, antiferromagnet: true,");
        let (config, _) = resolved(&antiferromagnet).expect("a layout fits");
        assert!(!config.is_vector());
        let glass = triangular("replicas: 4", "replicas: 2, samples: 32")
            .replace("Ising(", "EdwardsAnderson(");
        let (config, _) = resolved(&glass).expect("a layout fits");
        let samples = Layout::Amsc {
            lanes: Lanes::Samples,
        };
        assert_eq!(config.engine, EngineKind::multispin_with(samples));
        let on_states = triangular("replicas: 4", "replicas: 4");
        assert!(resolved(&on_states).is_none());
        assert!(Config::from_ron_str(&on_states).unwrap().is_vector());
        let odd = triangular(
            "replicas: 4,",
            "replicas: 32, engine: Multispin(layout: Amsc(lanes: Replicas)),",
        )
        .replace("size: 30", "size: 33");
        assert_mentions(&invalid_message(&odd), &["triangular", "even", "33"]);
        let odd_auto = triangular("replicas: 4", "replicas: 32").replace("size: 30", "size: 33");
        assert!(
            resolved(&odd_auto).is_none(),
            "odd sizes stay on discrete states"
        );
        let kagome = antiferromagnet.replace("lattice: Triangular", "lattice: Kagome");
        let (config, choice) = resolved(&kagome).expect("a layout fits");
        assert_mentions(&choice, &["kagome"]);
        assert!(!config.is_vector());
        let diluted = kagome.replace("field: 0.0,", "field: 0.0, dilution: 0.1,");
        assert!(
            resolved(&diluted).is_none(),
            "diluted lattices stay on discrete states"
        );
    }

    #[test]
    fn resolving_keeps_a_named_engine_and_records_an_auto_choice() {
        let named = sample_with("replicas: 4,", "replicas: 4, engine: Simple,");
        let config = Config::from_ron_str(&named).unwrap();
        let (resolved, choice) = config.resolve_engine().unwrap();
        assert_eq!(resolved.to_ron_string(), config.to_ron_string());
        assert_eq!(choice, "engine named in the config");
        // Auto is replaced in the text the run writes (and fingerprints), which reads back to
        // the same engine.
        let auto = Config::from_ron_str(&sample_with("replicas: 4", "replicas: 32")).unwrap();
        let (resolved, _) = auto.resolve_engine().unwrap();
        let text = resolved.to_ron_string();
        assert!(!text.contains("engine: Auto"), "{text}");
        let read_back = Config::from_ron_str(&text).unwrap();
        assert_eq!(read_back.resolve_engine().unwrap().0, resolved);
    }

    #[test]
    fn engines_and_layouts_refuse_what_they_cannot_pack() {
        let ea = |engine: &str, extra: &str| {
            sample_with(
                "replicas: 4,",
                &format!("replicas: 4, engine: {engine}, {extra}"),
            )
            .replace("Ising(", "EdwardsAnderson(")
        };
        assert_mentions(
            &invalid_message(&ea("Simple", "samples: 8,")),
            &["EdwardsAnderson needs the multispin engine"],
        );
        assert_mentions(
            &invalid_message(&ea(
                "Multispin(layout: Amsc(lanes: Samples))",
                "samples: 40,",
            )),
            &["multiple of 32", "got 40"],
        );
        assert_mentions(
            &invalid_message(&ea("Multispin(layout: Smsc)", "")),
            &["multiple of 64", "got 32"],
        );
        assert_mentions(
            &invalid_message(&ea("Multispin(layout: Amsc(lanes: Replicas))", "")),
            &["replicas must be a multiple of 32", "got 4"],
        );
        let odd = ea("Multispin(layout: Amsc(lanes: Temperatures))", "")
            .replace("replicas: 4", "replicas: 3");
        assert_mentions(
            &invalid_message(&odd),
            &["1 or an even number of replicas", "got 3"],
        );
        let replicas_32 = ea("Multispin(layout: Amsc(lanes: Replicas))", "")
            .replace("replicas: 4", "replicas: 32");
        assert_mentions(
            &invalid_message(&replicas_32),
            &["multiple of 64", "got 32"],
        );
        let many = ea("Multispin(layout: Amsc(lanes: Temperatures))", "").replace(
            "Betas([0.40, 0.44])",
            &format!("Betas({:?})", (1..=33).map(f64::from).collect::<Vec<_>>()),
        );
        assert_mentions(
            &invalid_message(&many),
            &["at most 32 temperatures", "got 33"],
        );
        assert_mentions(
            &invalid_message(&sample_with("replicas: 4,", "replicas: 4, samples: 2,")),
            &["ferromagnet has no disorder", "got 2"],
        );
        assert_mentions(
            &invalid_message(&sample_with("replicas: 4,", "replicas: 4, samples: 0,")),
            &["samples must be at least 1"],
        );
        let fine = ea(
            "Multispin(layout: Amsc(lanes: Samples), randoms: Shared)",
            "samples: 64,",
        );
        Config::from_ron_str(&fine).unwrap().validate().unwrap();
        let (_, _, msg) = parse_error(&ea("Multispin(layout: Amsc(lanes: Sites))", ""));
        assert_mentions(&msg, &["`Sites`", "`Replicas`, `Samples`, `Temperatures`"]);
    }
}

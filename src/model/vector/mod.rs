//! The vector-spin models, O(n) with n = 2 (XY) and 3 (Heisenberg): the systems of a run, their
//! couplings and field, the tables their kernels take, and the checks of their configs.
//!
//! `H = -sum_<ij> J_ij s_i . s_j - h sum_i s_i^x` with unit vectors `s_i`, in the fixed-point
//! arithmetic of [`fixed`]. Spins are held component-major: component `a` of site `i` of system
//! `b` is word `(b n + a) N + i` of the lattices ([`VectorSystems::spin_index`]).
//!
//! The systems are numbered, and sliced by sample, by their [`SystemIndex`] as Ising systems are
//! ([`crate::model::systems`]); a slice holds its samples' couplings
//! ([`VectorSystems::sample_slice`]).

pub mod checks;
pub mod fixed;
pub mod gaussian;
pub mod states;
pub mod tiles;

use std::f64::consts::PI;
use std::ops::{Deref, DerefMut};

use super::boundaries::closed_samples;
use super::couplings::{Instance, InstanceCouplings, coupling_signs, coupling_values};
use super::ising::bond_activation;
use super::lattices::{bond_sign, honeycomb_gaps, kagome_holes};
use super::systems::SystemIndex;
use super::vacancies::Vacancies;
use super::{Lattice, Shape};
use crate::config::{Boundaries, Config, Disorder};
use fixed::{CouplingScale, ONE, acceptance_table, from_f64};
use gaussian::gaussian_couplings;
use states::States;

/// The couplings of every sample.
#[derive(Debug, Clone, PartialEq)]
pub enum VectorCouplings {
    /// The same `J` on every bond: 1 for the ferromagnet (0 gives free spins, for tests).
    Uniform(i32),
    /// `J = +-1` per bond `site * dims + d` (the bond to the `+d` neighbour), per sample: the
    /// bimodal spin glass, the bonds of `EdwardsAnderson` for the same seed.
    Bonds(Vec<Vec<i8>>),
    /// Fixed-point words of `J` per bond, per sample ([`CouplingScale::GAUSSIAN`]): the
    /// Gaussian spin glass ([`gaussian`]).
    Gaussian(Vec<Vec<i32>>),
}

/// The couplings of one sample.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SampleBonds<'a> {
    Uniform(i32),
    /// `J` of bond `site * dims + d`.
    PerBond(&'a [i8]),
    /// The fixed-point word of `J` of bond `site * dims + d`.
    Words(&'a [i32]),
}

impl SampleBonds<'_> {
    /// `J` of bond `site * dims + d`, in the units of the run's [`CouplingScale`].
    pub fn coupling(&self, bond: u64) -> i32 {
        match self {
            SampleBonds::Uniform(j) => *j,
            SampleBonds::PerBond(bonds) => i32::from(bonds[bond as usize]),
            SampleBonds::Words(words) => words[bond as usize],
        }
    }
}

/// The systems of a vector-spin run: `temperatures x samples x replicas` lattices.
#[derive(Debug, Clone, PartialEq)]
pub struct VectorSystems {
    /// The temperatures, samples and replicas, and their numbering.
    pub index: SystemIndex,
    pub lattice: Lattice,
    /// Spin components `n`: 2 or 3.
    pub components: u32,
    /// The states `q` of a clock model, whose spins take only the angles `2 pi k / q`
    /// ([`fixed::Directions`]); 0 for spins of every direction.
    pub clock: u32,
    /// The states of a discrete model (Potts, Blume-Capel), one word a spin
    /// ([`states`]); `None` for unit vectors.
    pub states: Option<States>,
    pub field: f64,
    /// The couplings of these samples (local sample `s` is the run's `first_sample + s`), with
    /// the edges closed as `boundaries` say ([`super::boundaries`]).
    pub couplings: VectorCouplings,
    /// How the lattice closes along each axis.
    pub boundaries: Boundaries,
    /// The empty sites of these samples of a diluted model of discrete states (which hold the
    /// vacancy there, [`States::vacancy`]); `None` where every site is occupied.
    pub vacancies: Option<Vacancies>,
}

/// Spin units of `cos(2 pi x / L)` and `sin(2 pi x / L)` for `x < L`, computed on the host.
#[derive(Debug, Clone, PartialEq)]
pub struct PhaseTable {
    pub cos: Vec<i32>,
    pub sin: Vec<i32>,
}

impl Deref for VectorSystems {
    type Target = SystemIndex;

    fn deref(&self) -> &SystemIndex {
        &self.index
    }
}

impl DerefMut for VectorSystems {
    fn deref_mut(&mut self) -> &mut SystemIndex {
        &mut self.index
    }
}

impl VectorSystems {
    /// The ferromagnet (`coupling` 1; 0 for free spins) of `components`-vectors on `lattice`
    /// at `betas`, `replicas` per temperature.
    pub fn uniform(
        lattice: Lattice,
        components: u32,
        (coupling, field): (i32, f64),
        betas: Vec<f64>,
        replicas: u32,
        seed: u64,
    ) -> Self {
        VectorSystems {
            index: SystemIndex::new(betas, Disorder::Ferromagnet, 1, replicas, seed),
            lattice,
            components,
            clock: 0,
            states: None,
            field,
            couplings: VectorCouplings::Uniform(coupling),
            boundaries: Boundaries::PERIODIC,
            vacancies: None,
        }
    }

    /// These systems as the spin glass of `disorder` with `samples` samples, their couplings
    /// drawn from the seed as a config's are (the bimodal glass's are the bonds
    /// `EdwardsAnderson` draws); the ferromagnet (one sample) as they are.
    pub fn with_disorder(self, disorder: Disorder, samples: u32) -> Self {
        let (lattice, seed) = (self.lattice, self.seed);
        let couplings = match disorder {
            Disorder::Ferromagnet => return self,
            Disorder::Bimodal => VectorCouplings::Bonds(
                (0..samples)
                    .map(|s| coupling_values(disorder, &lattice, seed, s))
                    .collect(),
            ),
            Disorder::Gaussian => VectorCouplings::Gaussian(
                (0..samples)
                    .map(|s| gaussian_couplings(&lattice, seed, s))
                    .collect(),
            ),
        };
        self.with_glass_couplings(disorder, samples, couplings)
    }

    /// These systems as the spin glass on the couplings of `instance` (a config's
    /// `couplings: File(..)`), in place of drawing them.
    pub fn with_instance(self, instance: &Instance) -> Self {
        let bonds = self.lattice.bonds();
        let (disorder, couplings) = match instance.couplings() {
            InstanceCouplings::Bimodal(bits) => (
                Disorder::Bimodal,
                VectorCouplings::Bonds(
                    bits.iter()
                        .map(|bits| coupling_signs(bits, bonds).collect())
                        .collect(),
                ),
            ),
            InstanceCouplings::Gaussian(words) => {
                (Disorder::Gaussian, VectorCouplings::Gaussian(words.clone()))
            }
        };
        self.with_glass_couplings(disorder, instance.samples(), couplings)
    }

    /// These systems as the spin glass of `disorder` on `couplings`, those of `samples`
    /// samples.
    fn with_glass_couplings(
        self,
        disorder: Disorder,
        samples: u32,
        couplings: VectorCouplings,
    ) -> Self {
        let index = SystemIndex {
            disorder,
            samples,
            all_samples: samples,
            ..self.index
        };
        VectorSystems {
            index,
            couplings,
            ..self
        }
    }

    /// The systems of samples `first .. first + count` of these ([`SystemIndex::sample_slice`]),
    /// with those samples' couplings.
    pub fn sample_slice(&self, first: u32, count: u32) -> VectorSystems {
        let index = self.index.sample_slice(first, count);
        let samples = first as usize..(first + count) as usize;
        let couplings = match &self.couplings {
            VectorCouplings::Uniform(j) => VectorCouplings::Uniform(*j),
            VectorCouplings::Bonds(bonds) => VectorCouplings::Bonds(bonds[samples].to_vec()),
            VectorCouplings::Gaussian(words) => VectorCouplings::Gaussian(words[samples].to_vec()),
        };
        // Field by field: `..self.clone()` would copy every sample's couplings first.
        VectorSystems {
            index,
            lattice: self.lattice,
            components: self.components,
            clock: self.clock,
            states: self.states.clone(),
            field: self.field,
            couplings,
            boundaries: self.boundaries,
            vacancies: (self.vacancies.as_ref()).map(|v| v.sample_slice(first, count)),
        }
    }

    /// These systems with the edges of their lattice closed as `boundaries` say: the couplings
    /// across each open edge 0, across each antiperiodic edge `-J`
    /// ([`super::boundaries::close_edges`]); a ferromagnet's couplings become one sample's per
    /// bond.
    pub fn with_boundaries(self, boundaries: Boundaries) -> Self {
        if boundaries.is_periodic() {
            return self;
        }
        let (lattice, systems) = (self.lattice, self.per_bond());
        let couplings = match systems.couplings {
            VectorCouplings::Bonds(samples) => {
                VectorCouplings::Bonds(closed_samples(boundaries, &lattice, samples))
            }
            VectorCouplings::Gaussian(samples) => {
                VectorCouplings::Gaussian(closed_samples(boundaries, &lattice, samples))
            }
            VectorCouplings::Uniform(_) => unreachable!("couplings per bond"),
        };
        VectorSystems {
            couplings,
            boundaries,
            ..systems
        }
    }

    /// These systems without the bonds `gaps` (in increasing order): their couplings 0 in every
    /// sample; a ferromagnet's couplings become one sample's per bond.
    pub fn without_bonds(self, gaps: impl Iterator<Item = u64> + Clone) -> Self {
        fn open<T: From<i8>>(samples: &mut [Vec<T>], gaps: impl Iterator<Item = u64> + Clone) {
            for bonds in samples {
                gaps.clone().for_each(|b| bonds[b as usize] = T::from(0));
            }
        }
        let mut systems = self.per_bond();
        match &mut systems.couplings {
            VectorCouplings::Bonds(samples) => open(samples, gaps),
            VectorCouplings::Gaussian(samples) => open(samples, gaps),
            VectorCouplings::Uniform(_) => unreachable!("couplings per bond"),
        }
        systems
    }

    /// These systems with the empty sites `vacancies` (where there are any) and what their
    /// lattice lacks: the honeycomb's bonds, the kagome lattice's sites, empty in every sample
    /// ([`super::lattices`]).
    pub fn with_missing(self, vacancies: Option<Vacancies>) -> Self {
        let lattice = self.lattice;
        let systems = match lattice.shape {
            Shape::Honeycomb => self.without_bonds(honeycomb_gaps(&lattice)),
            _ => self,
        };
        let vacancies = match lattice.shape {
            Shape::Kagome => {
                let all = vacancies.unwrap_or_else(|| Vacancies::none(systems.samples));
                Some(all.with_sites(&kagome_holes(&lattice)))
            }
            _ => vacancies,
        };
        match vacancies {
            Some(vacancies) => systems.with_vacancies(vacancies),
            None => systems,
        }
    }

    /// These systems with a ferromagnet's uniform `J` as one sample's couplings per bond.
    fn per_bond(self) -> Self {
        let VectorCouplings::Uniform(j) = self.couplings else {
            return self;
        };
        let j = i8::try_from(j).expect("a uniform coupling is 0 or +-1");
        let bonds = vec![vec![j; self.lattice.bonds() as usize]];
        VectorSystems {
            couplings: VectorCouplings::Bonds(bonds),
            ..self
        }
    }

    /// These systems as the clock model of `q` states (0: spins of every direction).
    pub fn with_clock(self, q: u32) -> Self {
        VectorSystems { clock: q, ..self }
    }

    /// These systems as the discrete spins of `states`, a state a word.
    pub fn with_states(self, states: States) -> Self {
        VectorSystems {
            components: 1,
            states: Some(states),
            ..self
        }
    }

    /// These systems with the empty sites `vacancies`, as many samples as they have (a diluted
    /// ferromagnet's samples differ by their empty sites alone).
    pub fn with_vacancies(self, vacancies: Vacancies) -> Self {
        let samples = vacancies.samples().len() as u32;
        let index = SystemIndex {
            samples,
            all_samples: samples,
            ..self.index
        };
        // A ferromagnet's one sample of couplings per bond (open edges, the honeycomb's missing
        // bonds) becomes every diluted sample's.
        let couplings = match self.couplings {
            VectorCouplings::Bonds(bonds) if index.disorder.is_ferromagnet() => {
                VectorCouplings::Bonds(vec![bonds[0].clone(); samples as usize])
            }
            couplings => couplings,
        };
        VectorSystems {
            index,
            couplings,
            vacancies: Some(vacancies),
            ..self
        }
    }

    /// Put the vacancy ([`States::vacancy`]) on the empty sites of every system's lattice of
    /// `spins` (as [`VectorSystems::spin_index`] holds them); unit vectors there become the
    /// zero vector ([`fixed::is_empty`]).
    pub fn place_vacancies(&self, spins: &mut [i32]) {
        let Some(vacancies) = &self.vacancies else {
            return;
        };
        // Discrete states are one component a site.
        let empty = self
            .states
            .as_ref()
            .map_or(0, |states| states.vacancy() as i32);
        for b in 0..self.systems() {
            for &i in vacancies.sample(self.sample_of(b)) {
                for a in 0..self.components {
                    spins[self.spin_index(b, a, u64::from(i))] = empty;
                }
            }
        }
    }

    /// The components of a spin as its overlaps count them: `n` of a vector, those of a
    /// discrete state's spin ([`States::spin_components`]).
    pub fn spin_components(&self) -> u32 {
        match &self.states {
            Some(states) => states.spin_components(),
            None => self.components,
        }
    }

    /// Whether the samples differ: by their couplings (a spin glass) or their empty sites.
    pub fn is_quenched(&self) -> bool {
        !self.disorder.is_ferromagnet() || self.vacancies.is_some()
    }

    /// Whether the couplings are antiferromagnetic (every bond's `J <= 0`, some `J < 0`: open
    /// edges and the honeycomb's missing bonds are 0) on a bipartite lattice, whose order
    /// parameter is the staggered magnetisation.
    pub fn is_bipartite_antiferromagnet(&self) -> bool {
        let antiferromagnetic = match &self.couplings {
            VectorCouplings::Uniform(j) => *j < 0,
            VectorCouplings::Bonds(samples) => samples
                .iter()
                .all(|bonds| bonds.iter().all(|&j| j <= 0) && bonds.contains(&-1)),
            VectorCouplings::Gaussian(_) => false,
        };
        antiferromagnetic && self.lattice.shape.is_bipartite()
    }

    /// The occupied sites of sample `s`.
    pub fn occupied_sites(&self, s: u32) -> u64 {
        let empty = self.vacancies.as_ref().map_or(0, |v| v.sample(s).len());
        self.lattice.sites() - empty as u64
    }

    /// The directions their spins take.
    pub fn directions(&self) -> fixed::Directions {
        fixed::Directions {
            n: self.components as usize,
            clock: self.clock,
        }
    }

    /// Words of every lattice together.
    pub fn spin_words(&self) -> usize {
        self.systems() as usize * self.system_words() as usize
    }

    /// Words of one system's lattice.
    pub fn system_words(&self) -> u64 {
        u64::from(self.components) * self.lattice.sites()
    }

    /// Where component `a` of site `i` of system `b` lives.
    pub fn spin_index(&self, b: u32, a: u32, i: u64) -> usize {
        (u64::from(b * self.components + a) * self.lattice.sites() + i) as usize
    }

    /// The couplings of sample `s`.
    pub fn bonds(&self, s: u32) -> SampleBonds<'_> {
        match &self.couplings {
            VectorCouplings::Uniform(j) => SampleBonds::Uniform(*j),
            VectorCouplings::Bonds(bonds) => SampleBonds::PerBond(&bonds[s as usize]),
            VectorCouplings::Gaussian(words) => SampleBonds::Words(&words[s as usize]),
        }
    }

    /// How the couplings enter the local fields and bond sums.
    pub fn coupling_scale(&self) -> CouplingScale {
        CouplingScale::of(self.disorder)
    }

    /// The uniform field in local-field units (spin units but for the Gaussian glass).
    pub fn field_units(&self) -> i32 {
        self.coupling_scale().field_units(self.field)
    }

    /// The acceptance tables of every temperature, one after another ([`fixed::TABLE_LEN`]
    /// words each).
    pub fn acceptance_tables(&self) -> Vec<u32> {
        self.betas
            .iter()
            .flat_map(|&b| acceptance_table(b))
            .collect()
    }

    /// The cluster updates' bond activation threshold of every temperature
    /// ([`bond_activation`] of `beta J` times the states' [`States::bond_gap`]); `None` for
    /// spins without Fortuin-Kasteleyn bonds: unit vectors, states whose pairs differ, or
    /// couplings other than one `J > 0`.
    pub fn cluster_thresholds(&self) -> Option<Vec<u32>> {
        let gap = self.states.as_ref()?.bond_gap()?;
        let j = self.ferromagnetic_coupling()?;
        (j > 0).then(|| {
            let energy = gap * f64::from(j);
            self.betas
                .iter()
                .map(|&b| bond_activation(b * energy))
                .collect()
        })
    }

    /// Whether cluster updates of these systems record the statistic of an improved estimator
    /// of `<|m|^2>` ([`crate::engine::clusters`]): those of discrete states; a clock's
    /// reflections, whose clusters' sizes estimate nothing of it, record none.
    pub fn clusters_record_sizes(&self) -> bool {
        self.clock == 0
    }

    /// The acceptance tables of a clock ferromagnet's cluster updates, which bond a pair where
    /// reflecting one of its spins alone raises the bond's energy ([`crate::engine::clusters`]):
    /// the temperatures' [`acceptance_tables`](Self::acceptance_tables); `None` where the model
    /// is no clock, its bonds are not all `J = 1` (with the lattice's open and antiperiodic
    /// edges) or it is in a field, which the mirrors do not keep.
    pub fn clock_cluster_tables(&self) -> Option<Vec<u32>> {
        // The integer couplings' ferromagnet: J = 1 on every bond the lattice has.
        let ferromagnet = self.ferromagnetic_coupling()? == 1;
        let reflectable = self.clock > 0 && ferromagnet && self.field == 0.0;
        reflectable.then(|| self.acceptance_tables())
    }

    /// The one coupling `J` of every bond: of the uniform couplings, or of a ferromagnet with open
    /// or antiperiodic edges or on the honeycomb lattice (`J` on every bond, 0 across the open
    /// edges and on the honeycomb's gaps, `-J` across the antiperiodic edges, which the cluster
    /// kernels take from the lattice, [`bond_sign`]); `None` otherwise.
    fn ferromagnetic_coupling(&self) -> Option<i32> {
        let samples = match &self.couplings {
            VectorCouplings::Uniform(j) => return Some(*j),
            VectorCouplings::Bonds(samples) => samples,
            VectorCouplings::Gaussian(_) => return None,
        };
        let first = (0..)
            .zip(samples.iter().flatten())
            .find(|&(_, &j)| j != 0)?;
        let j = first.1
            * bond_sign(
                self.boundaries,
                &self.lattice,
                first.0 % self.lattice.bonds(),
            );
        let expected = |bond: u64| j * bond_sign(self.boundaries, &self.lattice, bond);
        let uniform =
            (samples.iter()).all(|bonds| (0..).zip(bonds).all(|(bond, &b)| b == expected(bond)));
        uniform.then_some(i32::from(j))
    }

    /// The phases of the smallest nonzero wave number `2 pi / L`, for the Fourier components.
    pub fn phases(&self) -> PhaseTable {
        let l = f64::from(self.lattice.size);
        let angle = |x: u32| 2.0 * PI * f64::from(x) / l;
        let table = |f: fn(f64) -> f64| {
            (0..self.lattice.size)
                .map(|x| from_f64(f(angle(x))))
                .collect()
        };
        PhaseTable {
            cos: table(f64::cos),
            sin: table(f64::sin),
        }
    }

    /// Total energy of system `b` from its measured bond sums (units `2^-32`, summed over the
    /// directions) and magnetisation along the field (spin units); see
    /// [`States::energy`] for discrete states.
    pub fn energy(&self, bond_sum: i64, field_magnetisation: i64) -> f64 {
        let bonds = bond_sum as f64 / 2f64.powi(fixed::MEASURE_FRACTION_BITS as i32);
        -bonds - self.field * field_magnetisation as f64 / f64::from(ONE)
    }
}

/// The systems of a vector-spin `config` (validated), on the couplings of `instance` where the
/// config gives them (read by [`crate::io::instance::read_instance`]), else drawn from the seed;
/// a diluted model's empty sites `vacancies` where the config reads them from a file (read by
/// [`crate::io::instance::read_vacancies`]), else drawn from the seed; the honeycomb's missing
/// bonds and the kagome lattice's missing sites ([`super::lattices`]) besides.
pub fn vector_systems(
    config: &Config,
    instance: Option<&Instance>,
    vacancies: Option<Vacancies>,
) -> VectorSystems {
    let model = &config.model;
    let lattice = Lattice::of(model);
    let ferromagnet = VectorSystems::uniform(
        lattice,
        model.components(),
        (model.uniform_coupling(), model.field()),
        config.temperatures.betas(),
        config.replicas,
        config.seed,
    )
    .with_clock(model.clock_states().unwrap_or(0));
    let ferromagnet = match States::of(config) {
        Some(states) => ferromagnet.with_states(states),
        None => ferromagnet,
    };
    let systems = match instance {
        Some(instance) => ferromagnet.with_instance(instance),
        None => ferromagnet.with_disorder(model.disorder(), config.samples),
    }
    .with_boundaries(model.boundaries());
    let vacancies = match vacancies {
        None if model.dilution() > 0.0 && config.vacancies.is_drawn() => Some(Vacancies::draw(
            &lattice,
            config.seed,
            config.samples,
            model.dilution(),
        )),
        given => given,
    };
    systems.with_missing(vacancies)
}

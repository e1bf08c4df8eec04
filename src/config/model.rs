//! The spin model, its couplings and the temperatures it is simulated at.

use serde::{Deserialize, Serialize};

use super::boundaries::Boundaries;

/// The couplings of a model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Disorder {
    /// Every `J_ij = +1`.
    #[default]
    Ferromagnet,
    /// `J_ij = +-1` with probability 1/2 each, drawn per disorder sample.
    Bimodal,
    /// `J_ij` from the normal distribution N(0, 1), drawn per disorder sample, in the vector
    /// models' fixed point (`model::vector::gaussian`: `2^-24` steps, `|J| <= 8`).
    Gaussian,
}

/// Where each disorder sample's quenched disorder (a spin glass's couplings, a diluted
/// model's empty sites) comes from.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Quenched {
    /// Drawn per disorder sample from the seed (the default).
    #[default]
    Drawn,
    /// Read from a NumPy file in the layout spinflip writes: `couplings.npy`, `int8` +-1 (a
    /// Gaussian glass's: `float64`; 0 across an open edge) of shape `(samples, [L,] L, L,
    /// dims)`, the bond from each site to its `+d` neighbour, as drawn (the model's
    /// `boundaries` close the edges); `vacancies.npy`, `uint8` 1 (empty) or 0 of shape
    /// `(samples, [L,] L, L)`. A relative path is taken from the working directory.
    File(String),
}

impl Quenched {
    /// Whether the disorder is drawn from the seed (left out of the resolved config).
    pub fn is_drawn(&self) -> bool {
        *self == Quenched::Drawn
    }
}

/// The lattice a model's spins live on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum LatticeKind {
    /// The square lattice (2D; the default there).
    Square,
    /// The simple-cubic lattice (3D; the default there).
    Cubic,
    /// The triangular lattice (2D): six neighbours, three colours (`size` a multiple of 3; any
    /// even size for cluster updates alone).
    Triangular,
    /// The honeycomb lattice (2D): three neighbours, bipartite.
    Honeycomb,
    /// The kagome lattice (2D): four neighbours, corner-sharing triangles (`size` cells of the
    /// triangular lattice a side, a multiple of 6, any even one for cluster updates alone;
    /// three quarters of them hold a site).
    Kagome,
}

impl LatticeKind {
    /// The square or simple-cubic lattice of `dims` dimensions.
    pub fn hypercubic(dims: u32) -> Self {
        match dims {
            3 => LatticeKind::Cubic,
            _ => LatticeKind::Square,
        }
    }

    /// Whether this is the square or the simple-cubic lattice.
    pub fn is_hypercubic(self) -> bool {
        matches!(self, LatticeKind::Square | LatticeKind::Cubic)
    }

    /// The dimension of the lattice.
    pub fn dims(self) -> u32 {
        match self {
            LatticeKind::Cubic => 3,
            _ => 2,
        }
    }

    /// The lattice's name in a model's name: "" for the square and cubic lattices.
    fn describe(self) -> &'static str {
        match self {
            LatticeKind::Square | LatticeKind::Cubic => "",
            LatticeKind::Triangular => " triangular",
            LatticeKind::Honeycomb => " honeycomb",
            LatticeKind::Kagome => " kagome",
        }
    }
}

/// The most states of a clock model: a state's angle is a 32-bit turn, and the kernels take
/// `k (2^32 mod q)` in 32 bits ([`crate::model::vector::fixed::clock_turn`]).
pub const MAX_CLOCK_STATES: u32 = 1 << 16;

/// The most states of a Potts model: the engines count each state's sites in a measurement.
pub const MAX_POTTS_STATES: u32 = 32;

/// The spin model and its lattice.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum Model {
    /// Ferromagnetic Ising model (J = 1) on a periodic `size^dims` lattice in a uniform field `h`.
    /// With `dilution`, run by the vector engines as two discrete states (the vacancy a third).
    Ising {
        dims: u32,
        size: u32,
        #[serde(default)]
        field: f64,
        /// The probability that a site is empty (site dilution), drawn per sample.
        #[serde(default, skip_serializing_if = "is_zero")]
        dilution: f64,
        /// Every `J = -1` (the antiferromagnet) where true.
        #[serde(default, skip_serializing_if = "is_false")]
        antiferromagnet: bool,
        /// The lattice (the square or simple-cubic one of `dims` where left out).
        #[serde(
            default,
            with = "named_lattice",
            skip_serializing_if = "Option::is_none"
        )]
        lattice: Option<LatticeKind>,
        /// How the lattice closes along each axis (every axis periodic where left out).
        #[serde(default, skip_serializing_if = "Boundaries::is_periodic")]
        boundaries: Boundaries,
    },
    /// Edwards-Anderson spin glass with bimodal couplings `J_ij = +-1` (probability 1/2 each),
    /// drawn per disorder sample from the seed, in a uniform field `h`; `disorder: Gaussian`
    /// draws `J_ij` from N(0, 1) instead. With Gaussian couplings or `dilution`, run by the
    /// vector engines as two discrete states (the vacancy a third): the multispin engine's bits
    /// hold neither.
    EdwardsAnderson {
        dims: u32,
        size: u32,
        #[serde(default)]
        field: f64,
        #[serde(default = "bimodal", skip_serializing_if = "is_bimodal")]
        disorder: Disorder,
        /// The probability that a site is empty (site dilution), drawn per sample.
        #[serde(default, skip_serializing_if = "is_zero")]
        dilution: f64,
        /// The lattice (the square or simple-cubic one of `dims` where left out).
        #[serde(
            default,
            with = "named_lattice",
            skip_serializing_if = "Option::is_none"
        )]
        lattice: Option<LatticeKind>,
        /// How the lattice closes along each axis (every axis periodic where left out).
        #[serde(default, skip_serializing_if = "Boundaries::is_periodic")]
        boundaries: Boundaries,
    },
    /// O(2) spins (XY model, plane rotator): unit vectors in the plane,
    /// `H = -sum_<ij> J_ij s_i . s_j - h sum_i s_i^x`, the field along the first component;
    /// `disorder: Bimodal` gives the vector spin glass (`J_ij = +-1` per sample, the bonds of
    /// `EdwardsAnderson` for the same seed), `disorder: Gaussian` the one with `J_ij` from
    /// N(0, 1).
    XY {
        dims: u32,
        size: u32,
        #[serde(default)]
        field: f64,
        #[serde(default, skip_serializing_if = "Disorder::is_ferromagnet")]
        disorder: Disorder,
        /// Every `J = -1` (the antiferromagnet) where true.
        #[serde(default, skip_serializing_if = "is_false")]
        antiferromagnet: bool,
        /// The lattice (the square or simple-cubic one of `dims` where left out).
        #[serde(
            default,
            with = "named_lattice",
            skip_serializing_if = "Option::is_none"
        )]
        lattice: Option<LatticeKind>,
        /// How the lattice closes along each axis (every axis periodic where left out).
        #[serde(default, skip_serializing_if = "Boundaries::is_periodic")]
        boundaries: Boundaries,
    },
    /// The `q`-state clock model: XY spins restricted to the angles `2 pi k / q`,
    /// `H = -sum_<ij> J_ij cos(theta_i - theta_j) - h sum_i cos(theta_i)`, run by the vector
    /// engines with the XY model's fixed-point spins, couplings and measurements (`q` from 2
    /// to [`MAX_CLOCK_STATES`]; `q = 2` is the Ising model, `q = 4` two Ising models at half
    /// the coupling).
    Clock {
        q: u32,
        dims: u32,
        size: u32,
        #[serde(default)]
        field: f64,
        #[serde(default, skip_serializing_if = "Disorder::is_ferromagnet")]
        disorder: Disorder,
        /// Every `J = -1` (the antiferromagnet) where true.
        #[serde(default, skip_serializing_if = "is_false")]
        antiferromagnet: bool,
        /// The lattice (the square or simple-cubic one of `dims` where left out).
        #[serde(
            default,
            with = "named_lattice",
            skip_serializing_if = "Option::is_none"
        )]
        lattice: Option<LatticeKind>,
        /// How the lattice closes along each axis (every axis periodic where left out).
        #[serde(default, skip_serializing_if = "Boundaries::is_periodic")]
        boundaries: Boundaries,
    },
    /// The `q`-state Potts model, `H = -sum_<ij> J_ij delta(s_i, s_j) - h sum_i delta(s_i, 0)`,
    /// states `0 .. q` (`q` from 2 to [`MAX_POTTS_STATES`]; `q = 2` is the Ising model at half
    /// the coupling); `disorder: Bimodal` gives the +-J Potts glass (the bonds of
    /// `EdwardsAnderson` for the same seed), `disorder: Gaussian` the one with `J_ij` from
    /// N(0, 1). Run by the vector engines with one state a word.
    Potts {
        q: u32,
        dims: u32,
        size: u32,
        #[serde(default)]
        field: f64,
        #[serde(default, skip_serializing_if = "Disorder::is_ferromagnet")]
        disorder: Disorder,
        /// The probability that a site is empty (site dilution), drawn per sample.
        #[serde(default, skip_serializing_if = "is_zero")]
        dilution: f64,
        /// Every `J = -1` (the antiferromagnet) where true.
        #[serde(default, skip_serializing_if = "is_false")]
        antiferromagnet: bool,
        /// The lattice (the square or simple-cubic one of `dims` where left out).
        #[serde(
            default,
            with = "named_lattice",
            skip_serializing_if = "Option::is_none"
        )]
        lattice: Option<LatticeKind>,
        /// How the lattice closes along each axis (every axis periodic where left out).
        #[serde(default, skip_serializing_if = "Boundaries::is_periodic")]
        boundaries: Boundaries,
    },
    /// The spin-1 Blume-Capel model, `s_i` in `{-1, 0, +1}`,
    /// `H = -sum_<ij> s_i s_j + D sum_i s_i^2 - h sum_i s_i` with the crystal field `D`;
    /// `D -> -infinity` leaves the Ising model. Run by the vector engines with one state a word.
    BlumeCapel {
        dims: u32,
        size: u32,
        crystal_field: f64,
        #[serde(default)]
        field: f64,
        /// The probability that a site is empty (site dilution), drawn per sample.
        #[serde(default, skip_serializing_if = "is_zero")]
        dilution: f64,
        /// Every `J = -1` (the antiferromagnet) where true.
        #[serde(default, skip_serializing_if = "is_false")]
        antiferromagnet: bool,
        /// The lattice (the square or simple-cubic one of `dims` where left out).
        #[serde(
            default,
            with = "named_lattice",
            skip_serializing_if = "Option::is_none"
        )]
        lattice: Option<LatticeKind>,
        /// How the lattice closes along each axis (every axis periodic where left out).
        #[serde(default, skip_serializing_if = "Boundaries::is_periodic")]
        boundaries: Boundaries,
    },
    /// O(3) spins (classical Heisenberg model): unit vectors in space, otherwise as `XY`.
    Heisenberg {
        dims: u32,
        size: u32,
        #[serde(default)]
        field: f64,
        #[serde(default, skip_serializing_if = "Disorder::is_ferromagnet")]
        disorder: Disorder,
        /// Every `J = -1` (the antiferromagnet) where true.
        #[serde(default, skip_serializing_if = "is_false")]
        antiferromagnet: bool,
        /// The lattice (the square or simple-cubic one of `dims` where left out).
        #[serde(
            default,
            with = "named_lattice",
            skip_serializing_if = "Option::is_none"
        )]
        lattice: Option<LatticeKind>,
        /// How the lattice closes along each axis (every axis periodic where left out).
        #[serde(default, skip_serializing_if = "Boundaries::is_periodic")]
        boundaries: Boundaries,
    },
}

/// A lattice given by its name alone (`lattice: Triangular`, not `Some(Triangular)`).
mod named_lattice {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::LatticeKind;

    pub fn serialize<S: Serializer>(
        lattice: &Option<LatticeKind>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        lattice
            .expect("skipped where left out")
            .serialize(serializer)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<LatticeKind>, D::Error> {
        LatticeKind::deserialize(deserializer).map(Some)
    }
}

/// Whether a flag left out of the resolved config is at its default, false.
fn is_false(value: &bool) -> bool {
    !*value
}

/// Whether a value left out of the resolved config is at its default, 0.
fn is_zero(value: &f64) -> bool {
    *value == 0.0
}

/// The Edwards-Anderson glass's couplings when left out: `+-1`.
fn bimodal() -> Disorder {
    Disorder::Bimodal
}

/// Whether the Edwards-Anderson glass's couplings are the default, `+-1`.
fn is_bimodal(disorder: &Disorder) -> bool {
    *disorder == Disorder::Bimodal
}

impl Disorder {
    /// Whether every `J_ij = +1`; any other disorder is a spin glass.
    pub fn is_ferromagnet(&self) -> bool {
        *self == Disorder::Ferromagnet
    }
}

impl Model {
    /// Lattice dimension.
    pub fn dims(&self) -> u32 {
        self.lattice_and_field().0
    }

    /// Linear size L.
    pub fn size(&self) -> u32 {
        self.lattice_and_field().1
    }

    /// Uniform field h.
    pub fn field(&self) -> f64 {
        self.lattice_and_field().2
    }

    /// `(dims, size, field)`, which every model has.
    fn lattice_and_field(&self) -> (u32, u32, f64) {
        match *self {
            Model::Ising {
                dims, size, field, ..
            }
            | Model::EdwardsAnderson {
                dims, size, field, ..
            }
            | Model::XY {
                dims, size, field, ..
            }
            | Model::Clock {
                dims, size, field, ..
            }
            | Model::Potts {
                dims, size, field, ..
            }
            | Model::BlumeCapel {
                dims, size, field, ..
            }
            | Model::Heisenberg {
                dims, size, field, ..
            } => (dims, size, field),
        }
    }

    /// Whether every `J = -1` (the Edwards-Anderson glass has no such flag).
    pub fn is_antiferromagnet(&self) -> bool {
        match *self {
            Model::Ising {
                antiferromagnet, ..
            }
            | Model::XY {
                antiferromagnet, ..
            }
            | Model::Clock {
                antiferromagnet, ..
            }
            | Model::Potts {
                antiferromagnet, ..
            }
            | Model::BlumeCapel {
                antiferromagnet, ..
            }
            | Model::Heisenberg {
                antiferromagnet, ..
            } => antiferromagnet,
            Model::EdwardsAnderson { .. } => false,
        }
    }

    /// The coupling of a ferromagnet's or antiferromagnet's bonds: 1 or -1.
    pub fn uniform_coupling(&self) -> i32 {
        match self.is_antiferromagnet() {
            true => -1,
            false => 1,
        }
    }

    /// The lattice the model's spins live on.
    pub fn lattice(&self) -> LatticeKind {
        let given = match *self {
            Model::Ising { lattice, .. }
            | Model::EdwardsAnderson { lattice, .. }
            | Model::XY { lattice, .. }
            | Model::Clock { lattice, .. }
            | Model::Potts { lattice, .. }
            | Model::BlumeCapel { lattice, .. }
            | Model::Heisenberg { lattice, .. } => lattice,
        };
        given.unwrap_or(LatticeKind::hypercubic(self.dims()))
    }

    /// How the lattice closes along each axis.
    pub fn boundaries(&self) -> Boundaries {
        match *self {
            Model::Ising { boundaries, .. }
            | Model::EdwardsAnderson { boundaries, .. }
            | Model::XY { boundaries, .. }
            | Model::Clock { boundaries, .. }
            | Model::Potts { boundaries, .. }
            | Model::BlumeCapel { boundaries, .. }
            | Model::Heisenberg { boundaries, .. } => boundaries,
        }
    }

    /// The couplings of the model.
    pub fn disorder(&self) -> Disorder {
        match self {
            Model::Ising { .. } | Model::BlumeCapel { .. } => Disorder::Ferromagnet,
            Model::EdwardsAnderson { disorder, .. }
            | Model::XY { disorder, .. }
            | Model::Clock { disorder, .. }
            | Model::Potts { disorder, .. }
            | Model::Heisenberg { disorder, .. } => *disorder,
        }
    }

    /// Words of a spin: 1 for the Ising models and the discrete states of `Potts` and
    /// `BlumeCapel`, 2 components for `XY` and `Clock`, 3 for `Heisenberg`.
    pub fn components(&self) -> u32 {
        match self {
            Model::Ising { .. }
            | Model::EdwardsAnderson { .. }
            | Model::Potts { .. }
            | Model::BlumeCapel { .. } => 1,
            Model::XY { .. } | Model::Clock { .. } => 2,
            Model::Heisenberg { .. } => 3,
        }
    }

    /// The states of a clock model's spins; `None` for every other model.
    pub fn clock_states(&self) -> Option<u32> {
        match self {
            Model::Clock { q, .. } => Some(*q),
            _ => None,
        }
    }

    /// The probability that a site is empty (the Ising, Edwards-Anderson, Potts and
    /// Blume-Capel models take `dilution`); 0 for every other model.
    pub fn dilution(&self) -> f64 {
        match self {
            Model::Ising { dilution, .. }
            | Model::EdwardsAnderson { dilution, .. }
            | Model::Potts { dilution, .. }
            | Model::BlumeCapel { dilution, .. } => *dilution,
            _ => 0.0,
        }
    }

    /// Whether the model's samples differ: a spin glass's couplings or a diluted model's empty
    /// sites are drawn per disorder sample.
    pub fn is_quenched(&self) -> bool {
        !self.disorder().is_ferromagnet() || self.dilution() != 0.0
    }

    /// The discrete states of a `Potts` or `BlumeCapel` model's spins, and of a diluted Ising
    /// model's (two); `None` for every other model.
    pub fn discrete_states(&self) -> Option<u32> {
        match self {
            Model::Potts { q, .. } => Some(*q),
            Model::BlumeCapel { .. } => Some(3),
            Model::Ising { .. } | Model::EdwardsAnderson { .. } if self.ising_as_states() => {
                Some(2)
            }
            _ => None,
        }
    }

    /// Whether the model is `Ising` or `EdwardsAnderson` (Ising spins).
    pub fn is_ising(&self) -> bool {
        matches!(self, Model::Ising { .. } | Model::EdwardsAnderson { .. })
    }

    /// Whether an Ising model runs as two discrete states: diluted, with Gaussian couplings
    /// (the multispin engine's bits hold neither an empty site nor a coupling other than
    /// +-J; its updates leave out the bonds across an open edge), or antiferromagnetic on a
    /// bipartite lattice in a field (the multispin engine measures the staggered magnetisation
    /// in place of the uniform one, which the field's energy needs). The honeycomb lattice's
    /// brick wall is the square lattice's words with a y bond left out, the triangular
    /// lattice's the square lattice's words with the diagonal bond added, the kagome lattice's
    /// the triangular lattice's words with its holes left alone.
    fn ising_as_states(&self) -> bool {
        let staggered_in_field = self.is_staggered() && self.field() != 0.0;
        let gaussian = self.disorder() == Disorder::Gaussian;
        self.is_ising() && (self.dilution() != 0.0 || gaussian || staggered_in_field)
    }

    /// Whether the model is the Ising antiferromagnet on a bipartite lattice (square, cubic,
    /// honeycomb), whose order parameter is the staggered magnetisation `sum_i (-1)^(x+y+z)
    /// s_i`, the sublattices being the checkerboard's colours.
    pub fn is_staggered(&self) -> bool {
        let bipartite = !matches!(
            self.lattice(),
            LatticeKind::Triangular | LatticeKind::Kagome
        );
        self.is_ising() && self.is_antiferromagnet() && bipartite
    }

    /// Whether the model is the Ising model or the Edwards-Anderson glass on the honeycomb,
    /// triangular or kagome lattice, which the multispin engine runs where the config names it
    /// (the brick wall: a y bond of each site left out; the triangular lattice: the diagonal
    /// bond added, and each colour updated in two halves of alternate rows; the kagome lattice:
    /// the triangular lattice's words, its holes never updated or counted).
    pub fn is_shaped_ising(&self) -> bool {
        self.is_ising()
            && matches!(
                self.lattice(),
                LatticeKind::Honeycomb | LatticeKind::Triangular | LatticeKind::Kagome
            )
    }

    /// Whether the model is run by [`crate::vector`]'s loop on the vector engines (unit
    /// vectors: `XY`, `Clock`, `Heisenberg`; discrete states: `Potts`, `BlumeCapel`, a diluted
    /// `Ising` or `EdwardsAnderson`, a Gaussian `EdwardsAnderson`) rather than by the Ising
    /// engines.
    pub fn is_vector(&self) -> bool {
        match self {
            Model::Ising { .. } | Model::EdwardsAnderson { .. } => self.ising_as_states(),
            _ => true,
        }
    }

    /// "Ising 2D", "Edwards-Anderson +-J 3D", "Heisenberg 2D", "XY +-J spin glass 3D",
    /// "6-state clock 2D", "3-state Potts +-J spin glass 3D", "Blume-Capel 2D",
    /// "Ising antiferromagnet 2D triangular".
    pub fn name(&self) -> String {
        let spins = match self {
            Model::Ising { .. } => "Ising".to_string(),
            Model::EdwardsAnderson { disorder, .. } => match disorder {
                Disorder::Gaussian => "Edwards-Anderson Gaussian".to_string(),
                _ => "Edwards-Anderson +-J".to_string(),
            },
            Model::XY { .. } => "XY".to_string(),
            Model::Clock { q, .. } => format!("{q}-state clock"),
            Model::Potts { q, .. } => format!("{q}-state Potts"),
            Model::BlumeCapel { .. } => "Blume-Capel".to_string(),
            Model::Heisenberg { .. } => "Heisenberg".to_string(),
        };
        let chooses_disorder = matches!(
            self,
            Model::XY { .. } | Model::Clock { .. } | Model::Potts { .. } | Model::Heisenberg { .. }
        );
        let glass = match (chooses_disorder, self.disorder()) {
            _ if self.is_antiferromagnet() => " antiferromagnet",
            (false, _) | (true, Disorder::Ferromagnet) => "",
            (true, Disorder::Bimodal) => " +-J spin glass",
            (true, Disorder::Gaussian) => " Gaussian spin glass",
        };
        let diluted = match self.dilution() != 0.0 {
            true => "diluted ",
            false => "",
        };
        let (lattice, edges) = (self.lattice().describe(), self.boundaries().describe());
        format!("{diluted}{spins}{glass} {}D{lattice}{edges}", self.dims())
    }
}

/// The temperatures simulated (k_B = J = 1): a list of inverse temperatures or temperatures, or
/// a generated ladder. Left out with `algorithm: Annealing`, whose schedule gives the
/// temperatures (the default, an empty list, is refused for every other algorithm).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum Temperatures {
    /// Inverse temperatures beta.
    Betas(Vec<f64>),
    /// Temperatures T = 1 / beta.
    Temperatures(Vec<f64>),
    /// `count` temperatures from `min` to `max`, geometric in T (equal ratios), ascending in T.
    GeometricT { min: f64, max: f64, count: u32 },
    /// `count` inverse temperatures from `min` to `max`, equally spaced in beta, ascending.
    LinearBeta { min: f64, max: f64, count: u32 },
}

impl Default for Temperatures {
    fn default() -> Self {
        Temperatures::Betas(Vec::new())
    }
}

impl Temperatures {
    /// Whether the temperatures are left out (the empty list of `algorithm: Annealing`).
    pub fn is_default(&self) -> bool {
        *self == Temperatures::default()
    }

    /// The scale the config gives the temperatures in: T for `Temperatures` and `GeometricT`,
    /// beta for `Betas` and `LinearBeta`.
    pub fn scale(&self) -> TemperatureScale {
        match self {
            Temperatures::Betas(_) | Temperatures::LinearBeta { .. } => TemperatureScale::Beta,
            Temperatures::Temperatures(_) | Temperatures::GeometricT { .. } => TemperatureScale::T,
        }
    }

    /// The inverse temperatures, in the order given (generated ladders from `min` to `max`).
    pub fn betas(&self) -> Vec<f64> {
        match self {
            Temperatures::Betas(betas) => betas.clone(),
            Temperatures::Temperatures(ts) => ts.iter().map(|t| 1.0 / t).collect(),
            Temperatures::GeometricT { min, max, count } => ladder(*count)
                .map(|f| 1.0 / (min * (max / min).powf(f)))
                .collect(),
            Temperatures::LinearBeta { min, max, count } => {
                ladder(*count).map(|f| min + (max - min) * f).collect()
            }
        }
    }
}

/// How a run shows its temperatures (file names, tables, warnings): as the config gave them.
/// Every number computed stays in beta; this is presentation only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum TemperatureScale {
    /// Inverse temperatures (the default: summaries written before the scale was recorded).
    #[default]
    #[serde(rename = "beta")]
    Beta,
    /// Temperatures T = 1 / beta.
    T,
}

impl TemperatureScale {
    /// "beta" or "T".
    pub fn name(self) -> &'static str {
        match self {
            TemperatureScale::Beta => "beta",
            TemperatureScale::T => "T",
        }
    }

    /// Inverse temperature `beta` in this scale.
    pub fn value(self, beta: f64) -> f64 {
        match self {
            TemperatureScale::Beta => beta,
            TemperatureScale::T => 1.0 / beta,
        }
    }

    /// "beta 0.440687" or "T 0.950000": a temperature in this scale for a table or a warning.
    pub fn show(self, beta: f64) -> String {
        format!("{} {:.6}", self.name(), self.value(beta))
    }
}

/// `count` fractions from 0 to 1 inclusive (just 0 for one).
fn ladder(count: u32) -> impl Iterator<Item = f64> {
    let steps = f64::from(count.saturating_sub(1).max(1));
    (0..count).map(move |i| f64::from(i) / steps)
}

//! The fixed-point arithmetic of vector spins, the one definition every backend computes.
//!
//! A spin component is an `i32` in units of `2^-28` ([`ONE`] is 1.0), so a unit vector's
//! components lie in `[-2^28, 2^28]`. Every quantity of an update is an integer, and every
//! operation is exact integer arithmetic (sums, products in 64 bits, high words of products),
//! the arithmetic right shift (floor division by a power of two) or a leading-zero count; even
//! the normalisation [`unit`] is a fixed sequence of these, with no division, square root or
//! float. So the CPU, WGSL and CUDA give the same bits by construction, without relying on how
//! a compiler or driver rounds, contracts or flushes floats (design/vector-spins.md says why
//! floats cannot give that). The kernels in `shaders/wgsl/vector.wgsl` and
//! `shaders/cuda/vector.cuh` mirror this file function by function.

use crate::config::Disorder;

/// Fractional bits of a spin component.
pub const FRACTION_BITS: u32 = 28;

/// 1.0 in spin units.
pub const ONE: i32 = 1 << FRACTION_BITS;

/// Largest `|H|` (local field plus uniform field, in units of 1) whose components fit an `i32`
/// in spin units: `z + |h|` must stay below it.
pub const MAX_LOCAL_FIELD: f64 = 8.0;

/// Bits by which an energy change in units of `2^-56` (a product of two spin units) is shifted
/// to the units of the acceptance tables, `2^-24`.
pub const ENERGY_SHIFT: u32 = 32;

/// Fractional bits of a Gaussian coupling: `J` is an `i32` in units of `2^-24`.
pub const GAUSSIAN_FRACTION_BITS: u32 = 24;

/// Largest `|J|` of a Gaussian coupling: a draw beyond is clamped to it (an 8-sigma tail, about
/// one bond in 10^15), so that the local field has a bound.
pub const MAX_GAUSSIAN_COUPLING: f64 = 8.0;

/// Bits by which a Gaussian glass's local field is coarser than a spin unit (units `2^-25`):
/// `z` bonds of `|J| <= 8` need a range of 64, eight times [`MAX_LOCAL_FIELD`].
pub const GAUSSIAN_FIELD_SHIFT: u32 = 3;

/// The Gaussian coupling word whose value (`word / 2^24`, `gaussian::coupling_value`) is `j`
/// exactly, where there is one: `j` a multiple of `2^-24` with `|j| <= 8`, as every drawn
/// coupling is (a couplings file gives them back).
pub fn exact_coupling_word(j: f64) -> Option<i32> {
    let units = j * f64::from(1u32 << GAUSSIAN_FRACTION_BITS);
    // Scaling by a power of two is exact, so `units` is an integer just where `j` is on the grid.
    (j.abs() <= MAX_GAUSSIAN_COUPLING && units.fract() == 0.0).then_some(units as i32)
}

/// How the couplings of a run enter its local fields and measured bond sums. The integer
/// couplings (`J = 1` or `+-1`) have no fraction bits and the local field in spin units, so
/// each bond term is `J s_j` exactly; a Gaussian `J` has [`GAUSSIAN_FRACTION_BITS`] and a
/// local field [`GAUSSIAN_FIELD_SHIFT`] bits coarser.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CouplingScale {
    /// Fractional bits of a coupling word.
    pub fraction_bits: u32,
    /// The local field is in units of `2^-(28 - field_shift)`.
    pub field_shift: u32,
}

impl CouplingScale {
    /// The couplings `J = 1` and `J = +-1`.
    pub const INTEGER: CouplingScale = CouplingScale {
        fraction_bits: 0,
        field_shift: 0,
    };

    /// The Gaussian couplings.
    pub const GAUSSIAN: CouplingScale = CouplingScale {
        fraction_bits: GAUSSIAN_FRACTION_BITS,
        field_shift: GAUSSIAN_FIELD_SHIFT,
    };

    /// The scale of the couplings of `disorder`.
    pub fn of(disorder: Disorder) -> CouplingScale {
        match disorder {
            Disorder::Gaussian => CouplingScale::GAUSSIAN,
            Disorder::Ferromagnet | Disorder::Bimodal => CouplingScale::INTEGER,
        }
    }

    /// Largest `|J|` in units of 1: 1 for the integer couplings, [`MAX_GAUSSIAN_COUPLING`]
    /// for the Gaussian ones.
    pub fn max_coupling(self) -> f64 {
        match self.fraction_bits {
            0 => 1.0,
            _ => MAX_GAUSSIAN_COUPLING,
        }
    }

    /// `floor(J s 2^-(fraction_bits + field_shift))`: a neighbour's spin component `s` times
    /// the coupling word `j`, in local-field units; exactly `j s` for the integer couplings.
    pub fn bond_field(self, j: i32, s: i32) -> i32 {
        ((i64::from(j) * i64::from(s)) >> (self.fraction_bits + self.field_shift)) as i32
    }

    /// `floor(j product 2^-fraction_bits)`: a measured bond product (units `2^-32`) times the
    /// coupling word `j`, in the same units.
    pub fn bond_measure(self, j: i32, product: i64) -> i64 {
        (i64::from(j) * product) >> self.fraction_bits
    }

    /// Bits by which an energy change (a spin unit times a local-field unit) is shifted to the
    /// units of the acceptance tables.
    pub fn energy_shift(self) -> u32 {
        ENERGY_SHIFT - self.field_shift
    }

    /// Largest `|H|` in units of 1 whose components fit an `i32` in local-field units.
    pub fn max_local_field(self) -> f64 {
        MAX_LOCAL_FIELD * f64::from(1u32 << self.field_shift)
    }

    /// A field in units of 1 in local-field units, rounded.
    pub fn field_units(self, value: f64) -> i32 {
        from_f64(value / f64::from(1u32 << self.field_shift))
    }
}

/// Bits of the energy unit of the acceptance tables: an energy change `k` in units of `2^-24`.
pub const TABLE_FRACTION_BITS: u32 = 2 * FRACTION_BITS - ENERGY_SHIFT;

/// Entries of one byte's acceptance table.
pub const TABLE_BYTE: usize = 256;

/// Bytes of an energy change in table units (below `2^31`: `|dE| <= 2 * 64`, the local field
/// of a Gaussian glass).
pub const TABLE_BYTES: usize = 4;

/// Entries of one temperature's acceptance table: [`TABLE_BYTES`] tables of [`TABLE_BYTE`].
pub const TABLE_LEN: usize = TABLE_BYTES * TABLE_BYTE;

/// Bits by which a bond's dot product (units `2^-56`) is shifted for the measured sums (units
/// `2^-32`), so that the sums over 2^31 sites fit an `i64`.
pub const MEASURE_SHIFT: u32 = 24;

/// Fractional bits of a measured bond product, `2 * FRACTION_BITS - MEASURE_SHIFT`.
pub const MEASURE_FRACTION_BITS: u32 = 2 * FRACTION_BITS - MEASURE_SHIFT;

/// A spin or a local field: components beyond the model's `n` are zero.
pub type Vector = [i32; 3];

/// Whether `s` is an empty site's spin: the zero vector, which holds the kagome lattice's
/// missing quarter ([`super::VectorSystems::place_vacancies`]). No update moves it (the
/// over-relaxation keeps it: [`unit`] of zero fails) and no sum counts it.
pub fn is_empty(s: &Vector) -> bool {
    s.iter().all(|&c| c == 0)
}

/// `a . b` of the first `n` components, exactly (each product below 2^62 in magnitude for the
/// ranges of an update).
pub fn dot(a: &Vector, b: &Vector, n: usize) -> i64 {
    (0..n).map(|i| i64::from(a[i]) * i64::from(b[i])).sum()
}

/// The seed polynomials of [`inverse_sqrt`], `[c0, c1, c2]` in units of `2^-30` for
/// `c0 - x (c1 - x c2)`, `x = z / 2^32` in `[1/2, 1)`: the minimax quadratic of `1 / sqrt(x)`
/// in relative error (`2^-8.3`) for `t >= 2^31` (`z = t`), the same times `sqrt(2)` for
/// `t < 2^31` (`z = 2 t`).
const SEED_HIGH: [u32; 3] = [0x8ef8_f371, 0x843c_ba9b, 0x3578_0865];
const SEED_LOW: [u32; 3] = [0xca31_8fad, 0xbb02_fd07, 0x4b9d_cd36];

/// `2^46 / sqrt(t)` for `t` in `[2^30, 2^32)` (a value in `(2^30, 2^31]`), within `2^-29`
/// relative: the seed polynomial of `t`'s octave, then two Newton steps ([`newton_step`]),
/// each squaring the relative error (`2^-8.3`, `2^-16`, then the steps' own floors:
/// `1.9 * 2^-30` at most, checked at every octave's ends and at random `t` by the tests).
/// Integer multiplies and shifts only, so every backend computes the same word.
pub fn inverse_sqrt(t: u32) -> u32 {
    let (z, seed) = match t < 1 << 31 {
        true => (t << 1, SEED_LOW),
        false => (t, SEED_HIGH),
    };
    let y = seed[0] - mulhi(z, seed[1] - mulhi(z, seed[2]));
    newton_step(newton_step(y, t), t)
}

/// One Newton step of `y ~ 2^46 / sqrt(t)` (`y < 2^31.5`): `y (3 - t y^2 2^-92) / 2`, with
/// `y^2 >> 31`, its product with `t` and the result floored to 32-bit words.
fn newton_step(y: u32, t: u32) -> u32 {
    let square = ((u64::from(y) * u64::from(y)) >> 31) as u32;
    let correction = (3 << 29) - mulhi(square, t);
    ((u64::from(y) * u64::from(correction)) >> 30) as u32
}

/// `v / |v|` in spin units, `None` for the zero vector; `v . v` must be below `2^62` (`|v| < 8`
/// in units of 1, which every caller's range gives). `v` is scaled by the power of two `2^k`
/// that brings `v . v` into `[2^60, 2^62)`, its top 32 bits `t = (v . v 4^k) >> 30` give
/// `y = inverse_sqrt(t) ~ 2^61 / sqrt(v . v 4^k)`, and each component is `v_a 2^k y / 2^33`
/// rounded (half up). The norm of the result differs from 1 by less than `2^-27`: each
/// component is rounded by at most half a unit (`sqrt(3)/2 2^-28` in the norm), `y` is within
/// `2^-29` and `t`'s truncation within `2^-31` (relative).
pub fn unit(v: &Vector, n: usize) -> Option<Vector> {
    let square = dot(v, v, n) as u64;
    if square == 0 {
        return None;
    }
    debug_assert!(square < 1 << 62, "unit of a vector beyond |v| < 8: {v:?}");
    let k = square.leading_zeros().saturating_sub(2) / 2;
    let y = inverse_sqrt(((square << (2 * k)) >> 30) as u32);
    let mut u = [0; 3];
    for a in 0..n {
        u[a] = (mulhi_signed(v[a] << k, y) + 1) >> 1;
    }
    Some(u)
}

/// `sin(pi/2 f) / f` as a polynomial in `f^2`: the Taylor coefficients
/// `(-1)^k (pi/2)^(2k+1) / (2k+1)!` in units of `2^-30`, lowest first (the next term is below
/// `10^-11`).
pub const SINE_COEFFICIENTS: [i32; 8] = [
    1686629713, -693598668, 85569306, -5026995, 172272, -3864, 61, -1,
];

/// `cos(pi/2 f)` as a polynomial in `f^2`: `(-1)^k (pi/2)^(2k) / (2k)!` in units of `2^-30`,
/// lowest first (the next term is below `10^-10`).
pub const COSINE_COEFFICIENTS: [i32; 8] = [
    1073741824,
    -1324675879,
    272375560,
    -22401992,
    987048,
    -27060,
    506,
    -7,
];

/// `sum_k c_k y^k` in units of `2^-30` for `y` in units of `2^-32` (Horner's rule, each step's
/// product floored to its high word). Every accumulator that is multiplied, `c_7` and then
/// `c_k + mulhi(acc, y)` for `k` from 6 down to 1, has the sign of its coefficient and is not
/// zero, for every `y`: each coefficient exceeds the sum of the magnitudes of those above it
/// plus one per floor. The kernels so take the sign correction of the high word from the
/// coefficient instead of the accumulator.
fn polynomial(coefficients: &[i32; 8], y: u32) -> i32 {
    (coefficients[..7].iter().rev()).fold(coefficients[7], |acc, &c| c + mulhi_signed(acc, y))
}

/// The cosine and sine of the angle `2 pi w / 2^32` in spin units, within a few units: the
/// quadrant from the top two bits, and `sin(pi/2 f)`, `cos(pi/2 f)` of the fraction
/// `f = x / 2^30` of the quarter turn from [`SINE_COEFFICIENTS`] and [`COSINE_COEFFICIENTS`].
/// The clock models' states take their spins from it; a uniform proposal's angle takes
/// [`cos_sin_tabulated`], as accurate at a third of the multiplies.
pub fn cos_sin_turn(w: u32) -> (i32, i32) {
    let x = w & QUARTER_TURN_MASK;
    let (cosine, sine_over_f) = quarter_polynomials(x);
    quadrant_turn(cosine >> 2, mulhi_signed(sine_over_f, x), w >> 30)
}

/// `cos(pi/2 f)` and `sin(pi/2 f) / f` in units of `2^-30` for the fraction `f = x / 2^30` of
/// a quarter turn: [`COSINE_COEFFICIENTS`] and [`SINE_COEFFICIENTS`] in `f^2` (`x^2 >> 28`).
fn quarter_polynomials(x: u32) -> (i32, i32) {
    let y = ((u64::from(x) * u64::from(x)) >> 28) as u32;
    (
        polynomial(&COSINE_COEFFICIENTS, y),
        polynomial(&SINE_COEFFICIENTS, y),
    )
}

/// The point `(c, s)` of a first-quadrant angle turned by `quadrant` quarter turns.
fn quadrant_turn(c: i32, s: i32, quadrant: u32) -> (i32, i32) {
    match quadrant {
        0 => (c, s),
        1 => (-s, c),
        2 => (-c, -s),
        _ => (s, -c),
    }
}

/// The fraction of a quarter turn in the low 30 bits of an angle's word.
const QUARTER_TURN_MASK: u32 = 0x3fff_ffff;

/// Entries of [`quarter_turn_table`]: the angles `j / 2^8` of a quarter turn.
pub const QUARTER_TURNS: usize = 256;

/// Bits of a quarter turn's fraction below an entry of [`quarter_turn_table`].
const QUARTER_TURN_SHIFT: u32 = 30 - QUARTER_TURNS.trailing_zeros();

/// `round(pi 2^30)`: with the fraction below an entry shifted to the top of a word, `mulhi`
/// gives its angle in radians in units of `2^-39`.
const PI_BITS: u32 = 3_373_259_426;

/// `round(2^18 / 6)`: `mulhi` of `delta^3` in units of `2^-53` gives `delta^3 / 6` in units of
/// `2^-39`.
const SIXTH_BITS: u32 = 43_691;

/// `[cos, sin]` of the angle `j / 2^8` of a quarter turn in units of `2^-30` (`j < 256`), from
/// [`quarter_polynomials`] as [`cos_sin_turn`] takes them, before its shift to spin units:
/// integer arithmetic, so every backend's table is the same.
pub fn quarter_turn_entry(j: u32) -> [i32; 2] {
    let x = j << QUARTER_TURN_SHIFT;
    let (cosine, sine_over_f) = quarter_polynomials(x);
    [cosine, mulhi_signed(sine_over_f, x << 2)]
}

/// [`quarter_turn_entry`] of every `j`, computed once: the table the GPU kernels copy into
/// shared memory from the lookup words after the phases (`engine::vector_gpu::lookup_words`).
pub fn quarter_turn_table() -> &'static [[i32; 2]; QUARTER_TURNS] {
    static TABLE: std::sync::OnceLock<[[i32; 2]; QUARTER_TURNS]> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| std::array::from_fn(|j| quarter_turn_entry(j as u32)))
}

/// The cosine and sine of the angle `2 pi w / 2^32` in spin units, within about a unit: the
/// quadrant from the top two bits, the [`quarter_turn_table`] entry `(C, S)` of the next 8, and
/// the angle `delta < pi / 2^9` of the 22 below turned in by `cos(a + delta) = C - C (1 -
/// cos delta) - S sin delta`, `sin(a + delta) = S - S (1 - cos delta) + C sin delta`, with
/// `1 - cos delta = delta^2 / 2` and `sin delta = delta - delta^3 / 6` (the next terms below
/// `2^-34`), in units of `2^-30` and rounded to spin units. Eight high words of products,
/// where [`cos_sin_turn`] takes sixteen.
pub fn cos_sin_tabulated(w: u32) -> (i32, i32) {
    let x = w & QUARTER_TURN_MASK;
    let [c, s] = quarter_turn_table()[(x >> QUARTER_TURN_SHIFT) as usize].map(|e| e as u32);
    let delta = mulhi(x << (32 - QUARTER_TURN_SHIFT), PI_BITS);
    let square = mulhi(delta, delta);
    let sine_delta = delta - mulhi(mulhi(delta, square), SIXTH_BITS);
    let cosine = c as i32 - (mulhi(c, square) >> 15) as i32 - (mulhi(s, sine_delta) >> 7) as i32;
    let sine = s as i32 - (mulhi(s, square) >> 15) as i32 + (mulhi(c, sine_delta) >> 7) as i32;
    quadrant_turn((cosine + 2) >> 2, (sine + 2) >> 2, w >> 30)
}

/// `sqrt(t)` in spin units for `t < 2^62` in units of `2^-56` (a spin unit squared), within a
/// unit: `t` scaled by `4^k` into `[2^60, 2^62)` as [`unit`] scales, its top word `T`, and
/// `T inverse_sqrt(T) / 2^(31 + k)`.
pub fn sqrt_square(t: u64) -> i32 {
    if t == 0 {
        return 0;
    }
    let k = t.leading_zeros().saturating_sub(2) / 2;
    let top = ((t << (2 * k)) >> 30) as u32;
    ((u64::from(top) * u64::from(inverse_sqrt(top))) >> (31 + k)) as i32
}

/// The directions a vector model's spins take: every direction of the circle (`n = 2`) or
/// the sphere (`n = 3`), or, for a clock model (`clock = q > 0`, `n = 2`), the `q` angles
/// `2 pi k / q`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Directions {
    /// Spin components.
    pub n: usize,
    /// The clock model's states; 0 for every angle.
    pub clock: u32,
}

/// The angle of clock state `k < q` in units of `2^-32` turns: `floor(k 2^32 / q)`, so that
/// state 0 lies on the first axis and the states of `q = 2` and `q = 4` on the axes exactly.
/// The kernels compute it in 32 bits as `k T + (k R) / q` with `2^32 = T q + R`
/// ([`clock_split`]), which is the same integer: `k R < q^2 <= 2^32`.
pub fn clock_turn(k: u32, q: u32) -> u32 {
    ((u64::from(k) << 32) / u64::from(q)) as u32
}

/// `(T, R)` with `2^32 = T q + R`, `R < q`: the kernels' constants for [`clock_turn`].
pub fn clock_split(q: u32) -> (u32, u32) {
    let q = u64::from(q);
    (((1 << 32) / q) as u32, ((1 << 32) % q) as u32)
}

/// The state of a clock with `q` states that the random word `w` picks, uniformly up to the
/// grid of the word: `floor(w q / 2^32)`.
pub fn clock_state(w: u32, q: u32) -> u32 {
    mulhi(w, q)
}

/// The state `k` of a clock with `q` states whose spin ([`unit`](fn@unit) of the point of
/// [`clock_turn`]) is `s`: the number of the bisectors between neighbouring states (the turns
/// `clock_turn(m, q) + T / 2`, `2^32 = T q + R`) whose points lie at smaller angles than `s`,
/// found by bisection, modulo `q`. Angles are compared exactly ([`angle_below`]), and `s` lies
/// half a state's spacing from every bisector (the spin's rounding moves its angle by about
/// `2^-28`), so every backend finds the same state in `log2(q) + 1` steps. A cluster update
/// reflects a clock spin into the state `(m - k) mod q` ([`crate::engine::clusters`]).
pub fn clock_index(s: &Vector, q: u32) -> u32 {
    let half = clock_split(q).0 / 2;
    let (mut below, mut above) = (0, q);
    while below < above {
        let middle = (below + above) / 2;
        let (c, sine) = cos_sin_turn(clock_turn(middle, q) + half);
        match angle_below(&[c, sine, 0], s) {
            true => below = middle + 1,
            false => above = middle,
        }
    }
    below % q
}

/// Whether the angle of the plane vector `a` in `[0, 2 pi)` is below that of `b`: `a` in the
/// upper half plane (`y > 0`, or `y = 0 <= x`) and `b` in the lower, or both in the same half
/// and the cross product `a x b` positive. Exact integers.
pub fn angle_below(a: &Vector, b: &Vector) -> bool {
    let lower = |v: &Vector| v[1] < 0 || (v[1] == 0 && v[0] < 0);
    match (lower(a), lower(b)) {
        (false, true) => true,
        (true, false) => false,
        _ => i64::from(a[0]) * i64::from(b[1]) - i64::from(a[1]) * i64::from(b[0]) > 0,
    }
}

/// A point of the unit sphere (`n = 3`) or circle (`n = 2`) from two random words, uniform up
/// to the grid of the words, not normalised: `|r . r - 1| < 2^-24` (each of the cosine and sine
/// within 4 units moves `c^2 + s^2` by at most `2^-25`, the radius `sqrt(1 - z^2)` within a unit
/// and the two floored products a unit each add `2^-26`; at most `8 * 2^-28` over four million
/// points, measured), so a uniform proposal takes it as the new spin. The circle's angle from
/// `words[0]` ([`cos_sin_tabulated`]; a clock's, the turn of the state the word picks,
/// [`clock_state`], through [`cos_sin_turn`] as its spins); the sphere's `z` from `words[0]`
/// (its top 29 bits, signed: uniform in `[-1, 1)`, Archimedes) and the angle about the axis
/// from `words[1]` ([`cos_sin_tabulated`]).
pub fn sphere_point(words: &[u32; 4], directions: Directions) -> Vector {
    if directions.n == 2 {
        let (c, s) = match directions.clock {
            0 => cos_sin_tabulated(words[0]),
            q => cos_sin_turn(clock_turn(clock_state(words[0], q), q)),
        };
        return [c, s, 0];
    }
    let z = (words[0] as i32) >> 3;
    let one = i64::from(ONE);
    let rho = i64::from(sqrt_square(
        (one * one - i64::from(z) * i64::from(z)) as u64,
    ));
    let (c, s) = cos_sin_tabulated(words[1]);
    let scale = |v: i32| ((rho * i64::from(v)) >> FRACTION_BITS) as i32;
    [scale(c), scale(s), z]
}

/// The high word of the 64-bit product of two 32-bit words.
pub fn mulhi(a: u32, b: u32) -> u32 {
    ((u64::from(a) * u64::from(b)) >> 32) as u32
}

/// A heat bath's target `floor(u W / 2^32)` for the random word `u` and the total weight
/// `W < 2^48` of its states: `W_hi u + mulhi(W_lo, u)`, exactly, in 32-bit products.
pub fn heat_bath_target(total: u64, u: u32) -> u64 {
    (total >> 32) * u64::from(u) + u64::from(mulhi(total as u32, u))
}

/// The heat bath's pick among states `0 .. q` of integer Boltzmann weights `weight(k)` for the
/// random word `u`: the first state whose cumulative weight exceeds [`heat_bath_target`] of
/// the total, as the kernels pick (they recompute each weight in the second pass too).
pub fn heat_bath_state(q: u32, weight: impl Fn(u32) -> u32, u: u32) -> u32 {
    let total: u64 = (0..q).map(|k| u64::from(weight(k))).sum();
    let target = heat_bath_target(total, u);
    let mut cumulative = 0;
    for k in 0..q {
        cumulative += u64::from(weight(k));
        if cumulative > target {
            return k;
        }
    }
    unreachable!("the target lies below the total weight")
}

/// The high word of `a * b` for a signed `a`: `floor(a b / 2^32)`.
pub fn mulhi_signed(a: i32, b: u32) -> i32 {
    ((i64::from(a) * i64::from(b)) >> 32) as i32
}

/// The acceptance threshold of an energy change `k > 0` in units of `2^-24` (below `2^28`),
/// from a temperature's table ([`acceptance_table`]): the product of the four bytes' entries,
/// taken byte 0 first, each product's high word. A move is accepted where a uniform random
/// word is below it.
pub fn threshold(k: u32, table: &[u32]) -> u32 {
    let entry = |byte: usize| table[byte * TABLE_BYTE + ((k >> (8 * byte)) & 0xff) as usize];
    mulhi(mulhi(mulhi(entry(0), entry(1)), entry(2)), entry(3))
}

/// The acceptance table of inverse temperature `beta`: entry `b` of byte `j` is
/// `exp(-beta b 256^j 2^-24) 2^32`, rounded and held below `2^32`. Computed on the host in
/// `f64` and handed to every backend, so the kernels never evaluate an exponential.
pub fn acceptance_table(beta: f64) -> Vec<u32> {
    let unit = (-f64::from(TABLE_FRACTION_BITS)).exp2();
    (0..TABLE_BYTES)
        .flat_map(|byte| {
            (0..TABLE_BYTE).map(move |b| {
                let energy = b as f64 * 256f64.powi(byte as i32) * unit;
                ((-beta * energy).exp() * 2f64.powi(32))
                    .round()
                    .min(f64::from(u32::MAX)) as u32
            })
        })
        .collect()
}

/// Whether the Metropolis test accepts the energy change `delta` (units `2^-(24 + shift)`:
/// `2^-56` for the local field in spin units, [`CouplingScale::energy_shift`]) with the random
/// word `u` under a temperature's table: always where `delta <= 0`, else where `u` is below the
/// threshold of `delta` shifted to table units (floor).
pub fn accepts(delta: i64, shift: u32, u: u32, table: &[u32]) -> bool {
    delta <= 0 || u < threshold((delta >> shift) as u32, table)
}

/// A spin component in units of 1.
pub fn to_f64(component: i32) -> f64 {
    f64::from(component) / f64::from(ONE)
}

/// A value in units of 1 as spin units, rounded.
pub fn from_f64(value: f64) -> i32 {
    (value * f64::from(ONE)).round() as i32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(v: &Vector, n: usize) -> f64 {
        (dot(v, v, n) as f64).sqrt() / f64::from(ONE)
    }

    /// A deterministic stream of words for the tests (splitmix64).
    fn words(seed: u64) -> impl Iterator<Item = u64> {
        std::iter::successors(Some(seed), |x| Some(x.wrapping_add(0x9e37_79b9_7f4a_7c15))).map(
            |x| {
                let x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
                let x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
                x ^ (x >> 31)
            },
        )
    }

    #[test]
    fn inverse_sqrt_is_within_two_to_the_minus_29() {
        let ends = [1 << 30, (1 << 31) - 1, 1 << 31, u32::MAX];
        let near_ends = ends
            .iter()
            .flat_map(|&t| (0..1000).map(move |d| t.saturating_sub(d)));
        let random = words(7)
            .take(200_000)
            .map(|w| (1 << 30) + (w % (3 << 30)) as u32);
        for t in near_ends.chain(random).filter(|&t| t >= 1 << 30) {
            let exact = 2f64.powi(46) / f64::from(t).sqrt();
            let error = f64::from(inverse_sqrt(t)) / exact - 1.0;
            assert!(error.abs() < 2f64.powi(-29), "t = {t}: {error:e}");
        }
    }

    /// `unit(v)` against `v / |v|` in `f64`: each component within one unit (half a unit of
    /// rounding, the rest the root's error), the norm within `2^-27` of 1.
    fn assert_unit(v: &Vector, n: usize) {
        let u = unit(v, n).unwrap();
        let length = (0..n).map(|a| f64::from(v[a]).powi(2)).sum::<f64>().sqrt();
        for a in 0..n {
            let exact = f64::from(v[a]) / length * f64::from(ONE);
            assert!((f64::from(u[a]) - exact).abs() < 1.0, "{v:?} -> {u:?}");
        }
        assert!((norm(&u, n) - 1.0).abs() < 2f64.powi(-27), "{v:?} -> {u:?}");
    }

    #[test]
    fn unit_vectors_have_norm_one_within_two_to_the_minus_27() {
        let largest = i32::MAX; // |v| just below 8: v . v below 2^62
        let edges: [Vector; 10] = [
            [1, 0, 0],
            [0, -1, 0],
            [3, -4, 0],
            [1, 1, 1],
            [ONE, 0, 0],
            [0, 0, -ONE],
            [ONE, ONE, ONE],
            [largest, 0, 0],
            [-largest / 2, largest / 2, largest / 2],
            [7, 7, -ONE / 1000],
        ];
        for n in [2, 3] {
            for v in edges.iter().filter(|v| v[..n].iter().any(|&c| c != 0)) {
                assert_unit(v, n);
            }
        }
        // Random directions at every scale, components from a few units to 2^29.
        let mut stream = words(11);
        for _ in 0..100_000 {
            let shift = stream.next().unwrap() % 30;
            let mut v = [0; 3];
            for c in &mut v {
                *c = (stream.next().unwrap() as i32) >> (shift + 2);
            }
            for n in [2, 3] {
                if v[..n].iter().any(|&c| c != 0) {
                    assert_unit(&v, n);
                }
            }
        }
        assert_eq!(unit(&[0, 0, 5], 2), None);
    }

    #[test]
    fn thresholds_follow_the_boltzmann_factor() {
        for beta in [0.1, 0.7, 3.0] {
            let table = acceptance_table(beta);
            for energy in [1e-6, 0.01, 0.5, 2.0, 7.9, 15.9] {
                let k = (energy * 2f64.powi(24)) as u32;
                let expected = (-beta * f64::from(k) * 2f64.powi(-24)).exp();
                let got = f64::from(threshold(k, &table)) / 2f64.powi(32);
                assert!(
                    (got - expected).abs() < 1e-8,
                    "{beta} {energy}: {got} {expected}"
                );
            }
        }
    }

    #[test]
    fn downhill_is_always_accepted_and_uphill_by_the_table() {
        let table = acceptance_table(1.0);
        assert!(accepts(0, ENERGY_SHIFT, u32::MAX, &table));
        assert!(accepts(-5, ENERGY_SHIFT, u32::MAX, &table));
        let t = (-1f64).exp() * 2f64.powi(32);
        // dE = 1 (threshold exp(-1) 2^32) in spin units and in a Gaussian glass's units.
        for scale in [CouplingScale::INTEGER, CouplingScale::GAUSSIAN] {
            let (shift, delta) = (scale.energy_shift(), 1i64 << (56 - scale.field_shift));
            assert!(accepts(delta, shift, (t - 4.0) as u32, &table));
            assert!(!accepts(delta, shift, (t + 4.0) as u32, &table));
        }
    }

    /// Words of angles at every quadrant's and table entry's edges, and between.
    fn turn_words() -> impl Iterator<Item = u32> {
        let edges = (0..4 * QUARTER_TURNS as u32).flat_map(|k| {
            [
                k << QUARTER_TURN_SHIFT,
                ((k + 1) << QUARTER_TURN_SHIFT).wrapping_sub(1),
            ]
        });
        (0..4096u32).map(|k| k.wrapping_mul(1_048_573)).chain(edges)
    }

    /// `cos_sin` of each of [`turn_words`] agrees with `f64`'s within `bound` spin units.
    fn assert_turns_within(cos_sin: fn(u32) -> (i32, i32), bound: f64) {
        for w in turn_words() {
            let angle = 2.0 * std::f64::consts::PI * f64::from(w) / 2f64.powi(32);
            let (c, s) = cos_sin(w);
            for (got, want) in [(c, angle.cos()), (s, angle.sin())] {
                let error = (f64::from(got) - want * f64::from(ONE)).abs();
                assert!(
                    error <= bound,
                    "w = {w:#x}: {got} against {want} ({error} units)"
                );
            }
        }
    }

    /// The polynomials' cosine and sine agree with `f64`'s within 4 spin units.
    #[test]
    fn the_turns_cosine_and_sine_are_within_four_units() {
        assert_turns_within(cos_sin_turn, 4.0);
    }

    /// Every entry of the quarter turn's table is the cosine and sine of its angle within 5
    /// units of `2^-30` (4.1 at most: the floors of the polynomials' Horner steps).
    #[test]
    fn quarter_turn_entries_are_within_five_units_of_two_to_the_minus_30() {
        for (j, &[c, s]) in quarter_turn_table().iter().enumerate() {
            let angle = std::f64::consts::FRAC_PI_2 * j as f64 / QUARTER_TURNS as f64;
            for (got, want) in [(c, angle.cos()), (s, angle.sin())] {
                let error = (f64::from(got) - want * 2f64.powi(30)).abs();
                assert!(
                    error <= 5.0,
                    "entry {j}: {got} against {want} ({error} units)"
                );
            }
        }
    }

    /// The tabulated cosine and sine agree with `f64`'s within 2 spin units (1.53 at most over
    /// 2^24 words, [`cos_sin_turn`] 2.27).
    #[test]
    fn tabulated_cosine_and_sine_are_within_two_units() {
        assert_turns_within(cos_sin_tabulated, 2.0);
    }

    /// The bound that gives every multiplied Horner accumulator of [`polynomial`] its
    /// coefficient's sign: `|c_k| > sum_{j > k} (|c_j| + 1)` for `k` from 1 to 7.
    #[test]
    fn horner_accumulators_keep_their_coefficients_signs() {
        for coefficients in [SINE_COEFFICIENTS, COSINE_COEFFICIENTS] {
            for k in 1..8 {
                let above: i64 = coefficients[k + 1..]
                    .iter()
                    .map(|&c| i64::from(c).abs() + 1)
                    .sum();
                assert!(
                    i64::from(coefficients[k]).abs() > above,
                    "{coefficients:?}: c_{k}"
                );
            }
        }
    }

    /// `sqrt_square` is the square root within a unit, from 0 to `2^56` (1.0 squared) and
    /// beyond.
    #[test]
    fn square_roots_are_within_a_unit() {
        for t in [
            0u64,
            1,
            2,
            3,
            1 << 20,
            12_345_678_901,
            (1 << 56) - 1,
            1 << 56,
            (1 << 62) - 1,
        ] {
            let want = (t as f64).sqrt();
            let got = f64::from(sqrt_square(t));
            assert!((got - want).abs() <= 1.0, "sqrt({t}) = {got}, not {want}");
        }
    }

    /// Points of the sphere and the circle have `|r . r - 1| < 2^-24` (a uniform proposal's
    /// spin is the point itself), `z` uniform (Archimedes) and the angle uniform: the moments
    /// of many points match the sphere's.
    #[test]
    fn sphere_points_have_unit_norm_and_the_spheres_moments() {
        let blocks: Vec<[u32; 4]> = (0..20_000u32)
            .map(|k| {
                crate::rng::random_block(
                    9,
                    crate::rng::Counter {
                        word: k,
                        sweep: 0,
                        purpose: crate::rng::Purpose::VectorMetropolis,
                        colour: 0,
                        draw: 0,
                        batch: 0,
                    },
                )
            })
            .collect();
        for n in [2, 3] {
            for block in &blocks {
                let p = sphere_point(block, Directions { n, clock: 0 });
                let deviation = (dot(&p, &p, n) - (1 << 56)).abs();
                assert!(
                    deviation < 1 << 32,
                    "{p:?}: |r . r - 1| = {deviation} 2^-56"
                );
            }
        }
        let points: Vec<Vector> = (blocks.iter())
            .map(|block| sphere_point(block, Directions { n: 3, clock: 0 }))
            .collect();
        let one = f64::from(ONE);
        // <x^2> = <y^2> = <z^2> = 1/3 and <x> = 0, each within 5 standard errors.
        let count = points.len() as f64;
        for a in 0..3 {
            let mean = points.iter().map(|p| f64::from(p[a]) / one).sum::<f64>() / count;
            let square = points
                .iter()
                .map(|p| (f64::from(p[a]) / one).powi(2))
                .sum::<f64>()
                / count;
            assert!(
                mean.abs() < 5.0 * (1.0 / 3.0 / count).sqrt(),
                "<s_{a}> = {mean}"
            );
            let sigma = (4.0 / 45.0 / count).sqrt();
            assert!(
                (square - 1.0 / 3.0).abs() < 5.0 * sigma,
                "<s_{a}^2> = {square}"
            );
        }
        let circle = sphere_point(&[0x4000_0000, 0, 0, 0], Directions { n: 2, clock: 0 });
        assert!(
            circle[0].abs() <= 4 && (circle[1] - ONE).abs() <= 4,
            "{circle:?}"
        );
    }

    /// The kernels' 32-bit form of a clock state's turn is the 64-bit division for every
    /// state of a range of `q` (powers of two, primes, the largest), and the states a word
    /// picks cover `0 .. q` in order.
    #[test]
    fn clock_turns_in_32_bits_are_the_division() {
        let most = crate::config::MAX_CLOCK_STATES;
        for q in (2..300).chain([1000, 4093, 65521, 65535, most]) {
            let (t, r) = clock_split(q);
            for k in (0..q).step_by((q as usize / 512).max(1)).chain([q - 1]) {
                assert_eq!(k * t + (k * r) / q, clock_turn(k, q), "q {q}, k {k}");
            }
            assert_eq!((clock_state(0, q), clock_state(u32::MAX, q)), (0, q - 1));
        }
    }

    /// Every state's spin gives its state back, for a range of `q` (every state of the small
    /// ones, a spread of the largest's).
    #[test]
    fn clock_spins_give_their_states_back() {
        let most = crate::config::MAX_CLOCK_STATES;
        for q in (2..130).chain([1000, 4093, 65521, most]) {
            for k in (0..q).step_by((q as usize / 700).max(1)).chain([q - 1]) {
                let (c, s) = cos_sin_turn(clock_turn(k, q));
                let spin = unit(&[c, s, 0], 2).unwrap();
                assert_eq!(clock_index(&spin, q), k, "q {q}, k {k}");
            }
        }
    }

    #[test]
    fn angles_order_around_the_circle_from_the_first_axis() {
        let ordered = [
            [1, 0, 0],
            [3, 1, 0],
            [0, 2, 0],
            [-5, 1, 0],
            [-1, 0, 0],
            [-2, -3, 0],
        ];
        let ordered = ordered.iter().chain([[0, -1, 0], [4, -1, 0]].iter());
        let points: Vec<&Vector> = ordered.collect();
        for (i, a) in points.iter().enumerate() {
            for (j, b) in points.iter().enumerate() {
                assert_eq!(angle_below(a, b), i < j, "{a:?} {b:?}");
            }
        }
    }

    /// The states of the 2- and 4-state clocks lie on the axes exactly, so that their
    /// energies are the Ising models' they map onto; a 6-state clock's within a unit of
    /// `cos(2 pi k / 6)`.
    #[test]
    fn clock_states_lie_on_their_angles() {
        let point = |k: u32, q: u32| {
            // The middle of the words that pick state k.
            let word = ((2 * u64::from(k) + 1) << 31) / u64::from(q);
            let words = [word as u32, 0, 0, 0];
            unit(&sphere_point(&words, Directions { n: 2, clock: q }), 2).unwrap()
        };
        assert_eq!([point(0, 2), point(1, 2)], [[ONE, 0, 0], [-ONE, 0, 0]]);
        let axes = [[ONE, 0, 0], [0, ONE, 0], [-ONE, 0, 0], [0, -ONE, 0]];
        assert_eq!((0..4).map(|k| point(k, 4)).collect::<Vec<_>>(), axes);
        for k in 0..6 {
            let angle = 2.0 * std::f64::consts::PI * f64::from(k) / 6.0;
            let [c, s, _] = point(k, 6);
            assert!(
                (f64::from(c) - angle.cos() * f64::from(ONE)).abs() <= 4.0,
                "{k}: {c}"
            );
            assert!(
                (f64::from(s) - angle.sin() * f64::from(ONE)).abs() <= 4.0,
                "{k}: {s}"
            );
        }
    }
}

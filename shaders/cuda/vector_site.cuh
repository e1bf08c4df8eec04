// One site of a vector-spin lattice, the twin of SiteUpdate and propose in
// src/engine/cpu/vector_metropolis.rs and of shaders/wgsl/vector_site.wgsl. The kernels take the
// same buffers as the WGSL bindings (engine::cuda::vector): spins (component a of site i of
// system b at (b n + a) N + i), acceptance tables, counts (COUNTERS per system: accepted moves,
// then the observation), couplings (one int per bond site * directions() + d and sample, or the
// one uniform J; fixed point for the Gaussian glass), proposal widths per temperature, phases
// (then a discrete model's P(a, b), V(a) and s(a), or unit vectors' quarter turn table:
// engine::vector_gpu::lookup_words). System z draws the randoms of batch global_index(z), the
// run's index of the system (slice_constants.cuh: z itself but in an engine of a sample slice,
// whose couplings are its samples').

#include "dispatch.cuh"
#include "lattice.cuh"
#include "philox.cuh"
#include "slice_constants.cuh"
#include "vector.cuh"
#include "vector_spins.cuh"

constexpr unsigned SAMPLES = SPINFLIP_SAMPLES;
constexpr unsigned REPLICAS = SPINFLIP_REPLICAS;
// Whether couplings holds one J for every bond (the ferromagnet) instead of one per bond.
constexpr bool UNIFORM_COUPLINGS = SPINFLIP_UNIFORM_COUPLINGS != 0u;
// Fractional bits of a coupling (CouplingScale::fraction_bits): 0 for J = 1 and J = +-1 (then
// FIELD_SHIFT is 0 too), 24 for the Gaussian glass.
constexpr unsigned COUPLING_BITS = SPINFLIP_COUPLING_BITS;
// The uniform field along the first component in local-field units (defines are unsigned: its
// bits).
constexpr int FIELD = static_cast<int>(SPINFLIP_FIELD_BITS);

constexpr unsigned PURPOSE_VECTOR_METROPOLIS = 11u;
constexpr unsigned PURPOSE_VECTOR_INITIAL_SPINS = 12u;
constexpr int UNIFORM = 0;
constexpr int HEAT_BATH = -1;
// 64-bit counters per system (engine::vector_gpu::counters): accepted (1), spare (3), the
// observation (30 sums, the norm deviation); for discrete states then their counts, Fourier
// components and staggered counts (8 q): COUNTERS of vector_site.wgsl.
constexpr unsigned COUNTERS = SPINFLIP_COUNTERS;
// A discrete model's states q (0 for unit vectors), a state a word; their tables follow the
// phases. State q is the vacancy of an empty site.
constexpr unsigned STATES = SPINFLIP_STATES;
// The states in the tables: the vacancy too (States::table_words).
constexpr unsigned TABLE_STATES = STATES + 1u;

__device__ __forceinline__ unsigned temperature_of(unsigned system) {
    return system / (SAMPLES * REPLICAS);
}

// Whether the Metropolis kernels lay the systems' threads one after another along the grid
// (MetropolisLaunch::flat, for lattices whose threads fill less than a block), each thread
// adding its accepted moves to its system's count, instead of a grid layer a system whose block
// adds them once.
constexpr bool FLAT_SYSTEMS = SPINFLIP_FLAT_SYSTEMS != 0u;

// A Metropolis kernel's thread: its system z, its index t among the `threads` threads a system
// of its pass (from 0, before params.first_thread), and whether z is a system (a flat grid's
// last block runs past the last one).
struct PassThread {
    unsigned z;
    unsigned t;
    bool live;
};

__device__ __forceinline__ PassThread pass_thread(const DispatchParams& params,
                                                  unsigned threads) {
    if (FLAT_SYSTEMS) {
        const unsigned g = thread_in_system();
        return PassThread{g / threads, g % threads, g / threads < params.systems};
    }
    return PassThread{layer(params), thread_in_system(), true};
}

// Add a Metropolis thread's `accepted` moves to system z's count (counter 0): at once where the
// systems lie flat along the grid, else summed over the block in `block_accepted` (zeroed
// before), which thread 0 adds. Every thread of the block calls it.
__device__ __forceinline__ void count_accepted(unsigned long long* counts,
                                               unsigned& block_accepted, unsigned z,
                                               unsigned accepted) {
    unsigned long long* count = counts + static_cast<unsigned long long>(z) * COUNTERS;
    if (FLAT_SYSTEMS) {
        if (accepted != 0u) {
            atomicAdd(count, static_cast<unsigned long long>(accepted));
        }
        return;
    }
    atomicAdd(&block_accepted, accepted);
    __syncthreads();
    if (threadIdx.x == 0u) {
        atomicAdd(count, static_cast<unsigned long long>(block_accepted));
    }
}

// J of bond `bond` (site * directions() + d) of system b's sample.
__device__ __forceinline__ int coupling(const int* couplings, unsigned b, unsigned bond) {
    if (UNIFORM_COUPLINGS) {
        return couplings[0];
    }
    const unsigned sample = (b / REPLICAS) % SAMPLES;
    return couplings[static_cast<unsigned long long>(sample) * directions() * lattice_sites() + bond];
}

// The bond between site i and its k-th neighbour j (site * directions() + d of the site whose +d
// neighbour the other is).
__device__ __forceinline__ unsigned neighbour_bond(unsigned i, unsigned j, unsigned k) {
    return (k % 2u == 0u ? j : i) * directions() + k / 2u;
}

// CouplingScale::bond_field: J s, exactly in 32 bits for the integer couplings, else the 64-bit
// product floored to local-field units.
__device__ __forceinline__ int bond_field(int J, int s) {
    if (COUPLING_BITS == 0u) {
        return J * s;
    }
    return static_cast<int>((static_cast<long long>(J) * s) >> (COUPLING_BITS + FIELD_SHIFT));
}

// SiteUpdate::local_field: sum_j J_ij s_j plus the uniform field, in local-field units.
__device__ __forceinline__ Vector local_field(const int* spins, const int* couplings, unsigned b,
                                              unsigned i) {
    Vector h = {{FIELD, 0, 0}};
    const Neighbours near = neighbours(i);
#pragma unroll
    for (unsigned k = 0u; k < coordination(); k++) {
        const unsigned j = near.site[k];
        const int J = coupling(couplings, b, neighbour_bond(i, j, k));
        const Vector s = load_spin(spins, b, j);
#pragma unroll
        for (unsigned a = 0u; a < COMPONENTS; a++) {
            h.c[a] += bond_field(J, s.c[a]);
        }
    }
    return h;
}

// StateUpdate::energy's P(a, b) in the units a coupling word multiplies: table units for the
// integer couplings, whole units for the Gaussian words (their 2^-24 steps the table's); 0
// where either is the vacancy, state STATES.
__device__ __forceinline__ int state_pair(const int* lookups, unsigned a, unsigned b) {
    return lookups[2u * L + a * TABLE_STATES + b] >> COUPLING_BITS;
}

// States::site: V(a) in table units.
__device__ __forceinline__ int state_site(const int* lookups, unsigned a) {
    return lookups[2u * L + TABLE_STATES * TABLE_STATES + a];
}

// States::value: s(a).
__device__ __forceinline__ int state_value(const int* lookups, unsigned a) {
    return lookups[2u * L + TABLE_STATES * (TABLE_STATES + 1u) + a];
}

// The state of site i of system b.
__device__ __forceinline__ unsigned load_state(const int* spins, unsigned b, unsigned i) {
    return static_cast<unsigned>(spins[static_cast<unsigned long long>(b) * lattice_sites() + i]);
}

// fixed::quarter_turn_table, from the lookup words after the phases (unit vectors only:
// lookup_words), copied by load_quarter_turns for cos_sin_tabulated.
// fixed::QUARTER_TURNS, QUARTER_TURN_SHIFT, PI_BITS and SIXTH_BITS: the table's entries, the
// bits of a quarter turn's fraction below an entry, round(pi 2^30) and round(2^18 / 6).
constexpr unsigned QUARTER_TURNS = 256u;
constexpr unsigned QUARTER_TURN_SHIFT = 22u;
constexpr unsigned PI_BITS = 3373259426u;
constexpr unsigned SIXTH_BITS = 43691u;

__shared__ uint2 quarter_turns[QUARTER_TURNS];

// Copy the quarter turn's table into shared memory where the proposals of unit vectors take
// their angles from it. Every thread of the block calls it, before a barrier that precedes
// the first proposal.
__device__ __forceinline__ void load_quarter_turns(const int* lookups) {
    if (STATES != 0u || CLOCK != 0u) {
        return;
    }
    for (unsigned e = threadIdx.x; e < QUARTER_TURNS; e += blockDim.x) {
        const unsigned at = 2u * (L + e);
        quarter_turns[e] = make_uint2(static_cast<unsigned>(lookups[at]),
                                      static_cast<unsigned>(lookups[at + 1u]));
    }
}

// fixed::cos_sin_tabulated: {cos, sin} of 2 pi w / 2^32 in spin units, the quadrant from the
// top two bits, the table's entry (C, S) from the next 8, turned by the angle delta of the 22
// below: C - C delta^2 / 2 - S sin delta and S - S delta^2 / 2 + C sin delta in units of 2^-30,
// sin delta = delta - delta^3 / 6 (delta in units of 2^-39, its square of 2^-46).
__device__ __forceinline__ int2 cos_sin_tabulated(unsigned w) {
    const unsigned x = w & 0x3fffffffu;
    const uint2 entry = quarter_turns[x >> QUARTER_TURN_SHIFT];
    const unsigned delta = __umulhi(x << (32u - QUARTER_TURN_SHIFT), PI_BITS);
    const unsigned square = __umulhi(delta, delta);
    const unsigned sine_delta = delta - __umulhi(__umulhi(delta, square), SIXTH_BITS);
    const int c = static_cast<int>(entry.x - (__umulhi(entry.x, square) >> 15) -
                                   (__umulhi(entry.y, sine_delta) >> 7));
    const int s = static_cast<int>(entry.y - (__umulhi(entry.y, square) >> 15) +
                                   (__umulhi(entry.x, sine_delta) >> 7));
    return quadrant_turn((c + 2) >> 2, (s + 2) >> 2, w >> 30);
}

// fixed::sphere_point: a point of the unit circle (the angle from word 0; a clock's, the turn
// of the state mulhi(w0, q) it picks, fixed::clock_state) or sphere (z from word 0's top 29
// bits, signed; the angle about the axis from word 1), not normalised.
__device__ __forceinline__ Vector sphere_point(uint4 words) {
    if (COMPONENTS == 2u) {
        const int2 circle = CLOCK != 0u ? cos_sin_turn(clock_turn(__umulhi(words.x, CLOCK)))
                                        : cos_sin_tabulated(words.x);
        return Vector{{circle.x, circle.y, 0}};
    }
    const int z = static_cast<int>(words.x) >> 3;
    const long long one = ONE;
    const long long rho =
        sqrt_square(static_cast<unsigned long long>(one * one - static_cast<long long>(z) * z));
    const int2 angle = cos_sin_tabulated(words.y);
    return Vector{{static_cast<int>((rho * angle.x) >> FRACTION_BITS),
                   static_cast<int>((rho * angle.y) >> FRACTION_BITS), z}};
}

// propose: the spin a block's point r of the unit circle or sphere gives: r itself for UNIFORM
// (unit(r), the state's spin, for a clock), else unit(s + (r width) >> 28); none where that is
// the zero vector.
__device__ __forceinline__ Unit propose(uint4 words, const Vector& s, int width) {
    const Vector r = sphere_point(words);
    if (width == UNIFORM) {
        return CLOCK == 0u ? Unit{r, true} : unit(r);
    }
    Vector v = {{0, 0, 0}};
#pragma unroll
    for (unsigned a = 0u; a < COMPONENTS; a++) {
        v.c[a] = s.c[a] + static_cast<int>((static_cast<long long>(r.c[a]) * width) >> FRACTION_BITS);
    }
    return unit(v);
}

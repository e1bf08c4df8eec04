// What the clock spins' cluster kernels share (clock_bonds, clock_flip), the twin of
// clock.wgsl: Wolff's embedding of the clock model (src/engine/clusters.rs). The kernels take
// the cluster kernels' arguments (cluster.cuh) on the vector engine's spins, two components a
// site (vector_spins.cuh).

#include "cluster_draws.cuh"
#include "vector.cuh"
#include "vector_spins.cuh"

// Words of a temperature's acceptance table (fixed::TABLE_LEN): the activation argument holds
// one a temperature.
constexpr unsigned TABLE_WORDS = 4u * TABLE_BYTE;

// engine::clusters::clock_mirror: m = mulhi(w, q), w word 2 of the update's Wolff block
// `words` (wolff_block).
__device__ __forceinline__ unsigned clock_mirror(const uint4& words) {
    return __umulhi(words.z, CLOCK);
}

// Clock models of at most CLOCK_TABLE_STATES states keep the bisectors between neighbouring
// states and the states' spins in a table in shared memory (16 KiB at 1024 states), which the
// block fills before its searches (fill_clock_table): a search step is then a read, and a
// reflected spin one, where each is otherwise a point of cos_sin_turn's two polynomials, and a
// spin unit's inverse square root. clock.wgsl's table stops at 256 states: 1024 would fill the
// 16 KiB of workgroup memory that WebGPU promises, which its kernels share with other variables.
constexpr unsigned CLOCK_TABLE_STATES = 1024u;
constexpr bool CLOCK_TABLED = CLOCK <= CLOCK_TABLE_STATES;
constexpr unsigned CLOCK_TABLE_LEN = CLOCK_TABLED && CLOCK > 0u ? CLOCK : 1u;

struct ClockTable {
    int2 bisectors[CLOCK_TABLE_LEN];
    int2 spins[CLOCK_TABLE_LEN];
};

// The bisector between states m and m + 1, at turn clock_turn(m) + T / 2.
__device__ __forceinline__ int2 clock_bisector(unsigned m) {
    return cos_sin_turn(clock_turn(m) + CLOCK_TURN / 2u);
}

// The block's table, where the model has one; every thread of the block calls it.
__device__ __forceinline__ void fill_clock_table(ClockTable& table) {
    if constexpr (CLOCK_TABLED) {
        for (unsigned m = threadIdx.x; m < CLOCK; m += blockDim.x) {
            table.bisectors[m] = clock_bisector(m);
            const Vector spin = clock_spin(m);
            table.spins[m] = make_int2(spin.c[0], spin.c[1]);
        }
        __syncthreads();
    }
}

// The largest power of two not above n (1 for n = 0).
__host__ __device__ constexpr unsigned highest_power_of_two(unsigned n) {
    unsigned p = 1u;
    while (p * 2u <= n) {
        p *= 2u;
    }
    return p;
}

// The bisector between states m and m + 1, from the table where the model has one.
__device__ __forceinline__ Vector bisector_of(unsigned m, const ClockTable& table) {
    const int2 bisector = CLOCK_TABLED ? table.bisectors[m] : clock_bisector(m);
    return Vector{{bisector.x, bisector.y, 0}};
}

// The number of bisectors between neighbouring states whose angle is below s's (a prefix of
// them), counted by steps of the powers of two from the highest not above CLOCK down: a search
// of fixed turns that the compiler unrolls, where a bisection's loop took its lanes through
// their turns apart (on an H100 the 6-state SW 35.8 -> 34.4 ps a site, 1000 states 131.4 ->
// 123.8).
__device__ __forceinline__ unsigned clock_search(const Vector& s, const ClockTable& table) {
    unsigned below = 0u;
#pragma unroll
    for (unsigned step = highest_power_of_two(CLOCK); step > 0u; step /= 2u) {
        if (below + step <= CLOCK) {
            if (angle_below(bisector_of(below + step - 1u, table), s)) {
                below += step;
            }
        }
    }
    return below;
}

// Clock models of at least CLOCK_GUESS_STATES states guess the count of bisectors below a spin
// from its angle (clock_index); fewer states go straight to the search, of at most three
// steps (the guess on an H100: the 6-state SW 34.2 -> 35.7 ps a site, 8 states 36.2 -> 35.3).
constexpr unsigned CLOCK_GUESS_STATES = 8u;

// A whole turn, in radians.
constexpr float TURN_RADIANS = 6.28318531f;

// The angle of s in [0, 2 pi), within 1e-5 (Abramowitz and Stegun 4.4.49 for the arctangent
// of the smaller component over the larger, then the octant), NaN for the zero vector.
__device__ __forceinline__ float clock_angle(const Vector& s) {
    const float x = static_cast<float>(s.c[0]);
    const float y = static_cast<float>(s.c[1]);
    const float z = __fdividef(fminf(fabsf(x), fabsf(y)), fmaxf(fabsf(x), fabsf(y)));
    const float z2 = z * z;
    float angle =
        z * (0.9998660f +
             z2 * (-0.3302995f + z2 * (0.1801410f + z2 * (-0.0851330f + z2 * 0.0208351f))));
    angle = fabsf(y) > fabsf(x) ? TURN_RADIANS / 4.0f - angle : angle;
    angle = x < 0.0f ? TURN_RADIANS / 2.0f - angle : angle;
    return y < 0.0f ? TURN_RADIANS - angle : angle;
}

// fixed::clock_index: the clock state whose spin is s, the count of bisectors below it
// (clock_search), guessed from s's angle in floating point where the model has many states:
// the guess g is the count where bisector g - 1 lies below s and bisector g does not, two
// independent reads where the search's are a chain; the search counts where the guess misses.
__device__ __forceinline__ unsigned clock_index(const Vector& s, const ClockTable& table) {
    unsigned below;
    if constexpr (CLOCK >= CLOCK_GUESS_STATES) {
        constexpr float STATES_PER_RADIAN = static_cast<float>(CLOCK) / TURN_RADIANS;
        const unsigned guess = min(__float2uint_rn(clock_angle(s) * STATES_PER_RADIAN), CLOCK);
        const bool above_lower = guess == 0u || angle_below(bisector_of(guess - 1u, table), s);
        const bool below_upper = guess == CLOCK || !angle_below(bisector_of(guess, table), s);
        below = above_lower && below_upper ? guess : clock_search(s, table);
    } else {
        below = clock_search(s, table);
    }
    return below == CLOCK ? 0u : below;
}

// The spin of the state that mirror m reflects s's state k into, (m - k) mod q
// (engine::clusters::reflected_state).
__device__ __forceinline__ Vector reflected(const Vector& s, unsigned mirror,
                                            const ClockTable& table) {
    const unsigned k = (mirror + CLOCK - clock_index(s, table)) % CLOCK;
    return CLOCK_TABLED ? Vector{{table.spins[k].x, table.spins[k].y, 0}} : clock_spin(k);
}

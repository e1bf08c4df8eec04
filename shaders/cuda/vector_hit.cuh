// One Metropolis hit of one vector spin, shared by vector_metropolis (the plain checkerboard)
// and vector_tiles (the double checkerboard): the twin of metropolis_hit and energy_change in
// src/engine/cpu/vector_metropolis.rs and of shaders/wgsl/vector_hit.wgsl. Randoms: draw d of
// site i is the block (i, sweep, VectorMetropolis, d, colour, global_index(z)); a hit's words
// (HitWords in vector_metropolis.rs) are words 0 (and 1) the point of the sphere, word 3 the
// acceptance word: a Heisenberg hit's and a clock's heat bath's (word 0) of draw `hit`, XY's
// hits 2k and 2k + 1 halves of draw k (pair_words).

#include "vector_site.cuh"

// vector_metropolis::energy_change: (s - v) . h, exactly; each s_a - v_a, a difference of unit
// vectors' components, fits an int, so each product is one 32 x 32 -> 64-bit multiply.
__device__ __forceinline__ long long energy_change(const Vector& s, const Vector& v,
                                                   const Vector& h) {
    long long sum = 0;
#pragma unroll
    for (unsigned a = 0u; a < COMPONENTS; a++) {
        sum += static_cast<long long>(s.c[a] - v.c[a]) * h.c[a];
    }
    return sum;
}

// The Boltzmann weight of clock state k in the field h: the threshold of best - s_k . h, in
// table units.
__device__ __forceinline__ unsigned clock_weight(unsigned k, const Vector& h, long long best,
                                                 const unsigned* table) {
    const long long shortfall = best - dot(clock_spin(k), h);
    return threshold(static_cast<unsigned>(shortfall >> (ENERGY_SHIFT - FIELD_SHIFT)), table);
}

// vector_metropolis::heat_bath: the first clock state whose cumulative Boltzmann weight
// (threshold of its alignment's shortfall from the best state's) exceeds floor(u W / 2^32), W
// the total weight (below 2^48: W_hi u + mulhi(W_lo, u)).
__device__ __forceinline__ Vector heat_bath(unsigned u, const Vector& h, const unsigned* table) {
    long long best = dot(clock_spin(0u), h);
    for (unsigned k = 1u; k < CLOCK; k++) {
        const long long alignment = dot(clock_spin(k), h);
        best = alignment > best ? alignment : best;
    }
    unsigned long long total = 0ull;
    for (unsigned k = 0u; k < CLOCK; k++) {
        total += clock_weight(k, h, best, table);
    }
    const unsigned long long target = heat_bath_target(total, u);
    unsigned long long cumulative = 0ull;
    for (unsigned k = 0u; k < CLOCK; k++) {
        cumulative += clock_weight(k, h, best, table);
        if (cumulative > target) {
            return clock_spin(k);
        }
    }
    return clock_spin(CLOCK - 1u);
}

// The block of draw d of site i (of checkerboard colour `colour`) of system z.
__device__ __forceinline__ uint4 hit_draw(const DispatchParams& params, unsigned z, unsigned i,
                                          unsigned colour, unsigned d) {
    const uint2 key = make_uint2(params.seed_lo, params.seed_hi);
    const uint4 counter = philox_counter(i, params.sweep, PURPOSE_VECTOR_METROPOLIS,
                                         (d << 1u) | colour, global_index(z));
    return philox4x32_10(counter, key);
}

// HitWords::in_pairs: whether a site's hits share their blocks in pairs (XY's and a clock's
// Metropolis hits, not Heisenberg's or the heat bath's).
__device__ __forceinline__ bool in_pairs(bool heat_bath) {
    return COMPONENTS == 2u && !heat_bath;
}

// HitWords::next: whether hit `hit` of a site takes the words of the hit before it, the
// second of an XY pair.
__device__ __forceinline__ bool takes_spare(unsigned hit, bool heat_bath) {
    return in_pairs(heat_bath) && hit % 2u == 1u;
}

// HitWords::next: the draw whose block hit `hit` of a site opens (an XY pair's first hit, any
// other hit but a pair's second).
__device__ __forceinline__ unsigned draw_of(unsigned hit, bool heat_bath) {
    return in_pairs(heat_bath) ? hit / 2u : hit;
}

// The words of an XY pair's hit from its half (a, b) of the pair's block: the point's word a at
// 0, the acceptance word b at 3.
__device__ __forceinline__ uint4 pair_words(unsigned a, unsigned b) {
    return make_uint4(a, 0u, 0u, b);
}

// vector_metropolis::metropolis_hit: a hit of spin s against its local field h, the proposal
// of the hit's words (hit_words), with the proposal width and the acceptance table of its
// system's temperature; whether it was accepted (s replaced). A clock's heat bath (width
// HEAT_BATH) replaces s and counts where it changed.
__device__ __forceinline__ bool metropolis_hit(const uint4& words, const Vector& h, Vector& s,
                                               const unsigned* table, int width) {
    if (width == HEAT_BATH) {
        const Vector v = heat_bath(words.x, h, table);
        const bool changed = v.c[0] != s.c[0] || v.c[1] != s.c[1];
        s = v;
        return changed;
    }
    const Unit v = propose(words, s, width);
    if (v.ok && accepts(energy_change(s, v.v, h), words.w, table)) {
        s = v.v;
        return true;
    }
    return false;
}

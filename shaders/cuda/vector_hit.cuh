// One Metropolis hit of one vector spin, shared by vector_metropolis (the plain checkerboard)
// and vector_tiles (the double checkerboard): the twin of metropolis_hit and energy_change in
// src/engine/cpu/vector_metropolis.rs and of shaders/wgsl/vector_hit.wgsl. Randoms: block
// (i, sweep, VectorMetropolis, hit, colour, global_index(z)), words 0 (and 1) the point of the
// sphere, word 3 the acceptance word.

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

// vector_metropolis::metropolis_hit: hit `hit` of site i (of checkerboard colour `colour`) of
// system z against its local field h, the proposal of the hit's block, with the proposal width and the acceptance table of z's temperature; whether it was accepted (s
// replaced).
__device__ __forceinline__ bool metropolis_hit(const DispatchParams& params, unsigned z,
                                               unsigned i, unsigned colour, unsigned hit,
                                               const Vector& h, Vector& s,
                                               const unsigned* table, int width) {
    const uint2 key = make_uint2(params.seed_lo, params.seed_hi);
    const uint4 counter = philox_counter(i, params.sweep, PURPOSE_VECTOR_METROPOLIS,
                                         (hit << 1u) | colour, global_index(z));
    const uint4 words = philox4x32_10(counter, key);
    const Unit v = propose(words, s, width);
    if (v.ok && accepts(energy_change(s, v.v, h), words.w, table)) {
        s = v.v;
        return true;
    }
    return false;
}

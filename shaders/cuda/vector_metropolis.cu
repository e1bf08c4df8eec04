// Metropolis on one checkerboard colour of every vector-spin lattice, the twin of
// vector_metropolis.wgsl: update thread ci of system z (the launch's threads from
// params.first_thread: a piece of a sweep runs some of them) updates the ci-th site of
// params.colour, HITS proposals against its local field, each hit vector_hit.cuh's. CPU twin:
// src/engine/cpu/vector_metropolis.rs (the randoms: hit_words of site i, its draws the blocks
// (i, sweep, VectorMetropolis, draw, colour, z)). Accepted moves of the updated sites are
// summed per block, then added to the system's counter 0; where the systems lie flat along the
// grid (FLAT_SYSTEMS, pass_thread), each thread adds its own.

#include "vector_hit.cuh"

// Proposals per site (VectorSweeps::hits).
constexpr unsigned HITS = SPINFLIP_HITS;

// HitWords::next: the words of hit `hit` of site i (its earlier hits asked for already;
// `spare` the words 2-3 an XY pair's first hit left for its second, in registers).
__device__ __forceinline__ uint4 hit_words(const DispatchParams& params, unsigned z, unsigned i,
                                           unsigned colour, unsigned hit, bool heat_bath,
                                           uint2& spare) {
    if (takes_spare(hit, heat_bath)) {
        return pair_words(spare.x, spare.y);
    }
    const uint4 words = hit_draw(params, z, i, colour, draw_of(hit, heat_bath));
    if (in_pairs(heat_bath)) {
        spare = make_uint2(words.z, words.w);
        return pair_words(words.x, words.y);
    }
    return words;
}

// The hits of site i of system z from spin s; returns the moves accepted (s updated).
__device__ __forceinline__ unsigned update_site(const DispatchParams& params, unsigned z,
                                                unsigned i, const Vector& h, Vector& s,
                                                const unsigned* table, int width) {
    unsigned accepted = 0u;
    uint2 spare = make_uint2(0u, 0u);
    for (unsigned hit = 0u; hit < HITS; hit++) {
        const uint4 words =
            hit_words(params, z, i, params.colour, hit, width == HEAT_BATH, spare);
        accepted += metropolis_hit(words, h, s, table, width) ? 1u : 0u;
    }
    return accepted;
}

extern "C" __global__ void vector_metropolis(DispatchParams params, int* spins,
                                             const unsigned* tables,
                                             unsigned long long* counts, const int* couplings,
                                             const int* widths, const int* lookups) {
    __shared__ unsigned block_accepted;
    if (threadIdx.x == 0u) {
        block_accepted = 0u;
    }
    load_quarter_turns(lookups);
    __syncthreads();
    const PassThread at =
        pass_thread(params, params.threads != 0u ? params.threads : lattice_sites() / 2u);
    const unsigned ci = at.t + params.first_thread;
    const unsigned z = at.z;
    unsigned accepted = 0u;
    if (at.live && ci < lattice_sites() / 2u && dispatched(params, ci)) {
        const unsigned i = colour_site(params.colour, ci);
        const unsigned t = temperature_of(z);
        Vector s = load_spin(spins, z, i);
        if (!is_empty(s)) {
            const Vector h = local_field(spins, couplings, z, i);
            accepted = update_site(params, z, i, h, s, tables + t * 4u * TABLE_BYTE, widths[t]);
            store_spin(spins, z, i, s);
        }
    }
    count_accepted(counts, block_accepted, z, accepted);
}

// Per lane of every word system: up spins (STAGGERED: up on colour 0, down on colour 1) and satisfied bonds (J s s' = +1, each bond once via
// the forward neighbours; the triangular lattice's diagonal the third; none across an open edge), counted with bit-sliced lane counters along strips of LINE_RUN lines
// of sites, summed per block and added to 64-bit counters; the twin of multispin_observables.wgsl. CPU twin:
// src/engine/cpu/multispin_observables.rs. Layout of `observations`: [slot][g][lane][up,
// satisfied] as 64-bit counters, added to with 64-bit atomics directly.

#include "dispatch.cuh"
#include "bitslice.cuh"
#include "multispin_lattice.cuh"

constexpr bool DISORDERED = SPINFLIP_DISORDERED != 0u;
// Whether the up spins are counted: not for a swap round at zero field, whose decisions need
// the satisfied bonds alone (the swap kernel never reads the up half of its records then).
constexpr bool COUNT_UP = SPINFLIP_COUNT_UP != 0u;
// Whether the satisfied bonds are counted: not for a measurement right after the colour-1 update
// that tallied the next swap round's (at zero field), whose records in slot `records_slot` hold
// them already; block 0 of each word system copies them instead (about a third of the kernel's
// time, without the neighbours' and couplings' loads).
constexpr bool COUNT_BONDS = SPINFLIP_COUNT_BONDS != 0u;
// Whether the up spins counted are the bipartite antiferromagnet's staggered ones: up on colour
// 0, down on colour 1.
constexpr bool STAGGERED = SPINFLIP_STAGGERED != 0u;

// Satisfied-bond lanes of the bond in direction +d of the word at `cw` with spin `spin`.
__device__ __forceinline__ unsigned satisfied(const unsigned* bonds, unsigned spin,
                                              unsigned plus, unsigned d, unsigned cw) {
    const unsigned bond = DISORDERED ? bonds[d * direction_stride() + cw] : 0u;
    return ~(spin ^ plus ^ bond);
}

// Satisfied-bond lanes of the third forward bond of the word at `cw` (spin `spin`, step y of
// `walk`, of the colour whose words are `own`): +z in 3D, the triangular lattice's +(1, 1)
// (the +x neighbour in the row above, of this colour), none on the other 2D lattices.
__device__ __forceinline__ unsigned third_bond(const unsigned* own, const unsigned* other,
                                               const unsigned* own_bonds, unsigned spin,
                                               const LineWalk& walk, unsigned y, unsigned cw) {
    if (DIMS == 3u) {
        return satisfied(own_bonds, spin, other[cw + walk.plus_z], 2u, cw);
    }
    if (TRIANGULAR == 1u) {
        const unsigned above = walk_plus_y(y, cw);
        const uint2 diagonal = x_neighbours(own[above], own[above + walk.adjacent], walk.p);
        return satisfied(own_bonds, spin, diagonal.y, 2u, cw);
    }
    return 0u;
}

// Adds the satisfied bonds of word system g's lanes in slot `records_slot` (a swap round's tally)
// to those of slot params.slot.
__device__ __forceinline__ void copy_tallied_bonds(const DispatchParams& params, unsigned g,
                                                   unsigned records_slot,
                                                   unsigned long long* observations) {
    if (blockIdx.x == 0u && blockIdx.y == 0u && threadIdx.x < 32u) {
        const unsigned lane = threadIdx.x;
        const unsigned long long tallied =
            observations[observation_index(records_slot, params.systems, g, lane, 1u)];
        atomicAdd(observations + observation_index(params.slot, params.systems, g, lane, 1u),
                  tallied);
    }
}

extern "C" __global__ void multispin_observables(DispatchParams params, const unsigned* spins,
                                                 const unsigned* couplings,
                                                 unsigned long long* observations,
                                                 unsigned records_slot) {
    // Per lane: up spins (0..31) and satisfied bonds (32..63) of the block. Shared memory starts
    // undefined in CUDA (WGSL zeroes workgroup memory).
    __shared__ unsigned lane_totals[64];
    for (unsigned i = threadIdx.x; i < 64u; i += blockDim.x) {
        lane_totals[i] = 0u;
    }
    __syncthreads();
    const unsigned strip = thread_in_system();
    const unsigned g = layer(params);
    // Threads past the last strip count nothing but still take part in the transposes.
    LaneTally<strip_planes()> up = {};
    LaneTally<strip_planes()> bonds = {};
    if (strip < strips()) {
        const unsigned* colours[2] = {colour_array(spins, g, 0u), colour_array(spins, g, 1u)};
        const unsigned* colour_couplings[2] = {nullptr, nullptr};
        if (DISORDERED && COUNT_BONDS) {
            colour_couplings[0] = colour_bonds(couplings, coupling_group(g), 0u);
            colour_couplings[1] = colour_bonds(couplings, coupling_group(g), 1u);
        }
        unsigned steps = 0u;
        for (unsigned r = 0u; r < LINE_RUN; r++) {
            const LineWalk walk = line_walk(strip_line(strip, r));
            const uint3 line = line_position(strip_line(strip, r));
            for (unsigned y = 0u; y < line_length(); y++) {
                const unsigned colour = walk_colour(walk, y);
                const unsigned cw = walk_word(walk, y);
                const unsigned* own = colour == 0u ? colours[0] : colours[1];
                const unsigned* other = colour == 0u ? colours[1] : colours[0];
                const unsigned* own_bonds =
                    colour == 0u ? colour_couplings[0] : colour_couplings[1];
                const unsigned spin = own[cw];
                // The kagome lattice's spins and bonds (2D: y is the row).
                const unsigned h = y & 1u;
                if (COUNT_UP) {
                    const unsigned counted = STAGGERED && colour == 1u ? ~spin : spin;
                    tally_add3(up, is_hole(walk.p, h) ? 0u : counted, 0u, 0u);
                }
                if (COUNT_BONDS) {
                    const uint2 x = x_neighbours(other[cw], other[cw + walk.adjacent], walk.p);
                    const unsigned bond_y =
                        has_plus_y(colour)
                            ? satisfied(own_bonds, spin, other[walk_plus_y(y, cw)], 1u, cw)
                            : 0u;
                    const uint3 kept = forward_lanes(line, y);
                    tally_add3(bonds, satisfied(own_bonds, spin, x.y, 0u, cw) & kept.x,
                               bond_y & kept.y,
                               third_bond(own, other, own_bonds, spin, walk, y, cw) & kept.z);
                }
                tally_step(up, bonds, steps);
            }
        }
        tally_flush(up);
        tally_flush(bonds);
    }
    // The warp's sums per lane by transposes, one shared atomic per thread and counter: reading
    // each lane's count out of the planes thread by thread, 32 shared atomics per counter, took
    // 35.8 M instructions and 55-56 us against 25.5 M and 45 us (3D spin glass, L = 16, 2048
    // word systems, H200).
    const unsigned own_lane = threadIdx.x & 31u;
    if (COUNT_UP) {
        atomicAdd(&lane_totals[own_lane], warp_lane_sum(up.planes));
    }
    if (COUNT_BONDS) {
        atomicAdd(&lane_totals[32u + own_lane], warp_lane_sum(bonds.planes));
    } else {
        copy_tallied_bonds(params, g, records_slot, observations);
    }
    __syncthreads();
    const unsigned first = COUNT_UP ? 0u : 32u;
    const unsigned end = COUNT_BONDS ? 64u : 32u;
    for (unsigned i = first + threadIdx.x; i < end; i += blockDim.x) {
        const unsigned long long index =
            observation_index(params.slot, params.systems, g, i % 32u, i / 32u);
        atomicAdd(observations + index, static_cast<unsigned long long>(lane_totals[i]));
    }
}

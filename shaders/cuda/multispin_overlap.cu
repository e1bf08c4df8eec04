// Sites where the replicas of an overlap pair differ, and the forward bonds of those sites whose
// two ends differ differently (D = a ^ b differs across the bond: q_i q_j = -1, the link
// overlap; the triangular lattice's diagonal bonds too; none across an open edge), per x-plane (and lane for AMSC), counted with bit-sliced lane counters along strips
// of lines (all of one x-plane); the twin of multispin_overlap.wgsl. The grid layer is the pair
// pw = ts * (REPLICA_WORDS / 2) + rw of word systems (ts * REPLICA_WORDS + rw, that +
// REPLICA_WORDS / 2). CPU twin: src/engine/cpu/multispin_overlap.rs. Layout of `overlaps`:
// [slot][pair][pair count] as u32 counts, per overlap slot one word with the sites in its low
// half and the bonds in its high half where a plane's counts fit 16 bits
// (PACKED_OVERLAPS), else [sites, bonds][overlap_slot] (MultispinLayout::pair_counts).

#include "dispatch.cuh"
#include "bitslice.cuh"
#include "multispin_lattice.cuh"

// The pairs of every slot: REPLICA_WORDS / 2 of each temperature and sample word
// (params.systems counts the word systems).
__device__ __forceinline__ unsigned overlap_pairs(const DispatchParams& params) {
    return params.systems / REPLICA_WORDS * (REPLICA_WORDS / 2u);
}

// Whether a plane's two counts share a word, where they fit 16 bits
// (MultispinLayout::packs_overlap_counts).
constexpr bool PACKED_OVERLAPS = SPINFLIP_PACKED_OVERLAPS != 0u;

// Words of one pair's counts in a slot.
__device__ constexpr unsigned pair_counts() {
    return (PACKED_OVERLAPS ? 1u : 2u) * overlap_slots();
}

extern "C" __global__ void multispin_overlap(DispatchParams params, const unsigned* spins,
                                             unsigned* overlaps) {
    const unsigned strip = thread_in_system();
    if (strip >= strips()) {
        return;
    }
    const unsigned pair = layer(params);
    const unsigned half = REPLICA_WORDS / 2u;
    const unsigned a = (pair / half) * REPLICA_WORDS + pair % half;
    const unsigned b = a + half;
    // Words of D = a ^ b; shifting commutes with XOR, so D's x-neighbours are x_neighbours of
    // D's words.
    const unsigned* a_colours[2] = {colour_array(spins, a, 0u), colour_array(spins, a, 1u)};
    const unsigned* b_colours[2] = {colour_array(spins, b, 0u), colour_array(spins, b, 1u)};
    LaneTally<strip_planes()> sites = {};
    LaneTally<strip_planes()> links = {};
    unsigned steps = 0u;
    for (unsigned r = 0u; r < LINE_RUN; r++) {
        const LineWalk walk = line_walk(strip_line(strip, r));
        const uint3 line = line_position(strip_line(strip, r));
        for (unsigned y = 0u; y < line_length(); y++) {
            const unsigned colour = walk_colour(walk, y);
            const unsigned cw = walk_word(walk, y);
            const unsigned* own_a = colour == 0u ? a_colours[0] : a_colours[1];
            const unsigned* own_b = colour == 0u ? b_colours[0] : b_colours[1];
            const unsigned* other_a = colour == 0u ? a_colours[1] : a_colours[0];
            const unsigned* other_b = colour == 0u ? b_colours[1] : b_colours[0];
            const unsigned own = own_a[cw] ^ own_b[cw];
            const unsigned adjacent = cw + walk.adjacent;
            const uint2 x = x_neighbours(other_a[cw] ^ other_b[cw],
                                         other_a[adjacent] ^ other_b[adjacent], walk.p);
            const unsigned plus_y = walk_plus_y(y, cw);
            const unsigned plus_z = cw + walk.plus_z;
            // The kagome lattice's spins and bonds (2D: y is the row).
            const unsigned h = y & 1u;
            tally_add3(sites, is_hole(walk.p, h) ? 0u : own, 0u, 0u);
            const unsigned link_y =
                has_plus_y(colour) ? own ^ other_a[plus_y] ^ other_b[plus_y] : 0u;
            unsigned link_z = DIMS == 3u ? own ^ other_a[plus_z] ^ other_b[plus_z] : 0u;
            if (TRIANGULAR == 1u) {
                // The +(1, 1) neighbour: the +x one in the row above, of this colour.
                const unsigned above = plus_y + walk.adjacent;
                const uint2 diagonal = x_neighbours(own_a[plus_y] ^ own_b[plus_y],
                                                    own_a[above] ^ own_b[above], walk.p);
                link_z = own ^ diagonal.y;
            }
            const uint3 kept = forward_lanes(line, y);
            tally_add3(links, (own ^ x.y) & kept.x, link_y & kept.y, link_z & kept.z);
            tally_step(sites, links, steps);
        }
    }
    tally_flush(sites);
    tally_flush(links);
    // Every line of the strip lies in this x-plane.
    const uint3 position = line_position(strip);
    unsigned* base = overlaps +
                     (static_cast<unsigned long long>(params.slot) * overlap_pairs(params) + pair) *
                         pair_counts();
    for (unsigned j = 0u; j < 32u; j++) {
        unsigned* slot = base + overlap_slot(position.y, position.z, j);
        const unsigned count = tally_count(sites, j);
        const unsigned link_count = tally_count(links, j);
        if (PACKED_OVERLAPS) {
            if ((count | link_count) != 0u) {
                atomicAdd(slot, count | (link_count << 16u));
            }
            continue;
        }
        if (count != 0u) {
            atomicAdd(slot, count);
        }
        if (link_count != 0u) {
            atomicAdd(slot + overlap_slots(), link_count);
        }
    }
}

// Checkerboard Metropolis on multispin words: 32 lanes (AMSC) or 32 sites (SMSC) per word, exact
// independent decisions; the twin of multispin_metropolis.wgsl. CPU twin:
// src/engine/cpu/multispin_metropolis.rs. Thread cw of word system g = blockIdx.z updates word cw
// of colour params.colour.

#include "dispatch.cuh"
#include "bitslice.cuh"
#include "multispin_lattice.cuh"
#include "multispin_decide.cuh"

// Edwards-Anderson couplings to read (the ferromagnet has none); and which threshold table a
// word system uses: g / WORDS_PER_TABLE.
constexpr bool DISORDERED = SPINFLIP_DISORDERED != 0u;
constexpr unsigned WORDS_PER_TABLE = SPINFLIP_WORDS_PER_TABLE;

extern "C" __global__ void multispin_metropolis(DispatchParams params, unsigned* spins,
                                                const unsigned* thresholds,
                                                const unsigned* couplings) {
    const unsigned g = blockIdx.z;
    load_class_thresholds(thresholds + (g / WORDS_PER_TABLE) * CLASS_COUNT * 32u);
    const unsigned cw = thread_in_system();
    if (cw >= colour_words()) {
        return;
    }
    const unsigned colour = params.colour;
    const unsigned wr = row_words();
    const WordSite site = word_site(colour, cw / wr, cw % wr);
    unsigned* own = spins + colour_base(g, colour);
    const unsigned* other = spins + colour_base(g, 1u - colour);
    const unsigned group = coupling_group(g);
    const unsigned spin = own[cw];
    BondCount count = {0u, 0u, 0u};
    const uint2 x =
        x_neighbours(other[site.row * wr + site.w], other[site.row * wr + site.adjacent], site.p);
    uint2 x_bonds = make_uint2(0u, 0u);
    if (DISORDERED) {
        const unsigned* other_bonds = couplings + bond_base(group, 0u, 1u - colour) + site.row * wr;
        const unsigned minus = x_neighbours(other_bonds[site.w], other_bonds[site.adjacent], site.p).x;
        x_bonds = make_uint2(minus, couplings[bond_base(group, 0u, colour) + cw]);
    }
    bond_count_add(count, spin ^ x.x ^ x_bonds.x);
    bond_count_add(count, spin ^ x.y ^ x_bonds.y);
#pragma unroll
    for (unsigned d = 1u; d < DIMS; d++) {
        const unsigned minus_row = site.minus_rows[d - 1u];
        const unsigned plus_row = site.plus_rows[d - 1u];
        uint2 bonds = make_uint2(0u, 0u);
        if (DISORDERED) {
            bonds = make_uint2(couplings[bond_base(group, d, 1u - colour) + minus_row * wr + site.w],
                               couplings[bond_base(group, d, colour) + cw]);
        }
        bond_count_add(count, spin ^ other[minus_row * wr + site.w] ^ bonds.x);
        bond_count_add(count, spin ^ other[plus_row * wr + site.w] ^ bonds.y);
    }
    own[cw] = spin ^ accepted_lanes(params, spin, count, cw, colour, g);
}

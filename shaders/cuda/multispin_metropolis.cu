// Checkerboard Metropolis on multispin words: 32 lanes (AMSC) or 32 sites (SMSC) per word, exact
// independent decisions; the twin of multispin_metropolis.wgsl. CPU twin:
// src/engine/cpu/multispin_metropolis.rs. Thread cw of word system g = blockIdx.z updates word cw
// of colour params.colour.

#include "dispatch.cuh"
#include "bitslice.cuh"
#include "multispin_lattice.cuh"
#include "multispin_decide.cuh"

// Edwards-Anderson couplings to read (the ferromagnet has none).
constexpr bool DISORDERED = SPINFLIP_DISORDERED != 0u;

extern "C" __global__ void multispin_metropolis(DispatchParams params, unsigned* spins,
                                                const unsigned* thresholds,
                                                const unsigned* couplings) {
    const unsigned g = blockIdx.z;
    const unsigned cw = thread_in_system();
    if (cw >= colour_words()) {
        return;
    }
    const unsigned colour = params.colour;
    const unsigned wr = row_words();
    const WordSite site = word_site(colour, cw / wr, cw % wr);
    unsigned* own = colour_array(spins, g, colour);
    const unsigned* other = colour_array(spins, g, 1u - colour);
    const unsigned spin = own[cw];
    // Bonds: a site's minus-side bonds are stored with its neighbour (the other colour).
    const unsigned* own_bonds = nullptr;
    const unsigned* other_bonds = nullptr;
    if (DISORDERED) {
        own_bonds = colour_bonds(couplings, coupling_group(g), colour);
        other_bonds = colour_bonds(couplings, coupling_group(g), 1u - colour);
    }
    BondCount count = {0u, 0u, 0u};
    const unsigned row = site.row * wr;
    const uint2 x = x_neighbours(other[row + site.w], other[row + site.adjacent], site.p);
    uint2 x_bonds = make_uint2(0u, 0u);
    if (DISORDERED) {
        const unsigned minus =
            x_neighbours(other_bonds[row + site.w], other_bonds[row + site.adjacent], site.p).x;
        x_bonds = make_uint2(minus, own_bonds[cw]);
    }
    bond_count_add(count, spin ^ x.x ^ x_bonds.x);
    bond_count_add(count, spin ^ x.y ^ x_bonds.y);
#pragma unroll
    for (unsigned d = 1u; d < DIMS; d++) {
        const unsigned minus = site.minus_rows[d - 1u] * wr + site.w;
        const unsigned plus = site.plus_rows[d - 1u] * wr + site.w;
        uint2 bonds = make_uint2(0u, 0u);
        if (DISORDERED) {
            bonds = make_uint2(other_bonds[d * direction_stride() + minus],
                               own_bonds[d * direction_stride() + cw]);
        }
        bond_count_add(count, spin ^ other[minus] ^ bonds.x);
        bond_count_add(count, spin ^ other[plus] ^ bonds.y);
    }
    own[cw] = spin ^ accepted_lanes(params, thresholds, spin, count, cw, colour, g);
}

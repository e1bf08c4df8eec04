// One system's bit planes (discrete_planes.cuh) back into its states, a word a site, the inverse
// of discrete_pack and the twin of discrete_unpack.wgsl. CPU twin:
// src/engine/cpu/discrete_unpack.rs. Thread t of system z (c = t / H, cw = t mod H, H =
// words_per_colour()) writes the states of colour sites 32 cw .. 32 cw + 32 of colour c from
// its PLANES words; threads past 2 H return.

#include "discrete_planes.cuh"

extern "C" __global__ void discrete_unpack(DispatchParams params, int* spins,
                                           const unsigned* planes) {
    const PlaneThread at = plane_thread(params);
    if (!at.live) {
        return;
    }
    const unsigned z = at.z;
    const unsigned c = at.c;
    const unsigned cw = at.cw;
    unsigned words[MAX_PLANES] = {};
#pragma unroll
    for (unsigned p = 0u; p < PLANES; p++) {
        words[p] = planes[plane_word(z, p, c, cw)];
    }
    for (unsigned bit = 0u; bit < PLANE_BITS; bit++) {
        unsigned state = 0u;
#pragma unroll
        for (unsigned p = 0u; p < PLANES; p++) {
            state |= ((words[p] >> bit) & 1u) << p;
        }
        const unsigned site = colour_site(c, cw * PLANE_BITS + bit);
        spins[static_cast<unsigned long long>(z) * lattice_sites() + site] =
            static_cast<int>(state);
    }
}

// One system's discrete states, a word a site, into its bit planes (discrete_planes.cuh), the
// twin of discrete_pack.wgsl. CPU twin: src/engine/cpu/discrete_pack.rs. Thread t of system z
// (both colours: c = t / H, cw = t mod H, H = words_per_colour()) builds the PLANES words of
// (z, c, cw) from the states of colour sites 32 cw .. 32 cw + 32; threads past 2 H return.

#include "discrete_planes.cuh"

extern "C" __global__ void discrete_pack(DispatchParams params, const int* spins,
                                         unsigned* planes) {
    const PlaneThread at = plane_thread(params);
    if (!at.live) {
        return;
    }
    const unsigned z = at.z;
    const unsigned c = at.c;
    const unsigned cw = at.cw;
    unsigned words[MAX_PLANES] = {};
    for (unsigned bit = 0u; bit < PLANE_BITS; bit++) {
        const unsigned state = load_state(spins, z, colour_site(c, cw * PLANE_BITS + bit));
#pragma unroll
        for (unsigned p = 0u; p < PLANES; p++) {
            words[p] |= ((state >> p) & 1u) << bit;
        }
    }
#pragma unroll
    for (unsigned p = 0u; p < PLANES; p++) {
        planes[plane_word(z, p, c, cw)] = words[p];
    }
}

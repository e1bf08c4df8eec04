// A cluster update's bonds of clock spins, the twin of clock_bonds.wgsl: thread g of system z
// draws the D Philox blocks (g D + j, update, CLUSTER_BOND, 0, 0, b'), D = directions(), of the
// 4 D forward bonds of sites 4g .. 4g + 3, as cluster_bonds does, and writes their active bonds
// as bonds[g]. A bond (coupling 1, -1 across an antiperiodic edge; none across an open edge or
// a honeycomb's gap) of two occupied sites is active where its word is not below the
// acceptance threshold of dE = J (s - R s) . s', the energy it gains when its site's spin s
// alone is reflected through the update's mirror (clock.cuh); the temperature's table is
// activation[t TABLE_WORDS ..], t = z / SLICE_BLOCK. CPU twin: src/engine/cpu/clock_bonds.rs.

#include "clock.cuh"

extern "C" __global__ void clock_bonds(DispatchParams params, int* spins,
                                       const unsigned* activation, unsigned* bonds,
                                       unsigned* labels, unsigned* counts,
                                       unsigned long long* sizes) {
    __shared__ ClockTable clock_table;
    fill_clock_table(clock_table);
    const Quad quad = quad_of(params);
    if (!quad.live) {
        return;
    }
    const unsigned* table =
        activation + static_cast<unsigned long long>(quad.z / SLICE_BLOCK) * TABLE_WORDS;
    const uint2 key = make_uint2(params.seed_lo, params.seed_hi);
    const unsigned batch = global_index(quad.z);
    const unsigned mirror = clock_mirror(wolff_block(params, batch));
    constexpr unsigned per_site = directions();
    unsigned randoms[4u * per_site];
    for (unsigned j = 0u; j < per_site; j++) {
        const uint4 block = philox4x32_10(
            philox_counter(quad.g * per_site + j, params.sweep, PURPOSE_CLUSTER_BOND, 0u, batch),
            key);
        randoms[4u * j] = block.x;
        randoms[4u * j + 1u] = block.y;
        randoms[4u * j + 2u] = block.z;
        randoms[4u * j + 3u] = block.w;
    }
    // The four sites' spins; the +x neighbours of the first three are among them where the row
    // goes on.
    Vector quad_spins[4];
    load_quad(spins, quad.z, quad.g, quad_spins);
    unsigned word = 0u;
    for (unsigned k = 0u; k < 4u; k++) {
        const unsigned site = 4u * quad.g + k;
        const Vector s = quad_spins[k];
        if (is_empty(s)) {
            continue;
        }
        const Vector r = reflected(s, mirror, clock_table);
        const Vector change = {{s.c[0] - r.c[0], s.c[1] - r.c[1], 0}};
        const Neighbours near = neighbours(site);
        for (unsigned d = 0u; d < per_site; d++) {
            const unsigned j = near.site[2u * d + 1u];
            const bool in_quad = d == 0u && k < 3u && j == site + 1u;
            const Vector n = in_quad ? quad_spins[(k + 1u) % 4u] : load_spin(spins, quad.z, j);
            if (missing_bond(site, d) || is_empty(n)) {
                continue;
            }
            const long long gain = twisted_bond(site, d) ? -dot(change, n) : dot(change, n);
            if (!accepts(gain, randoms[k * per_site + d], table)) {
                word |= 1u << (8u * k + d);
            }
        }
    }
    bonds[static_cast<unsigned long long>(quad.z) * (lattice_sites() / 4u) + quad.g] = word;
}

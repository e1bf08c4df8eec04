// Over-relaxation of one checkerboard colour of every vector-spin lattice, the twin of
// vector_overrelaxation.wgsl: each spin reflected about its local field and normalised again;
// no randoms. CPU twin: src/engine/cpu/vector_overrelaxation.rs. Update thread ci (the launch's
// threads from params.first_thread: a piece of a sweep runs some of them) takes the ci-th site.

#include "vector_site.cuh"

// vector_overrelaxation::reflect: unit(2 ((s . d) >> 28) d - s) with d = unit(h); s where h or
// the reflection is zero.
__device__ __forceinline__ Vector reflect(const Vector& s, const Vector& h) {
    const Unit direction = unit(h);
    if (!direction.ok) {
        return s;
    }
    const long long projection = dot(s, direction.v) >> FRACTION_BITS;
    Vector v = {{0, 0, 0}};
#pragma unroll
    for (unsigned a = 0u; a < COMPONENTS; a++) {
        v.c[a] = static_cast<int>((2 * projection * direction.v.c[a]) >> FRACTION_BITS) - s.c[a];
    }
    const Unit reflected = unit(v);
    return reflected.ok ? reflected.v : s;
}

extern "C" __global__ void vector_overrelaxation(DispatchParams params, int* spins,
                                                 const int* couplings) {
    const unsigned ci = update_thread(params);
    const unsigned z = layer(params);
    if (ci >= lattice_sites() / 2u || !dispatched(params, ci)) {
        return;
    }
    const unsigned i = colour_site(params.colour, ci);
    store_spin(spins, z, i, reflect(load_spin(spins, z, i), local_field(spins, couplings, z, i)));
}

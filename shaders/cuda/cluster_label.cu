// The clusters of a cluster update's bonds by union-find without iterations (Komura, Comput.
// Phys. Commun. 194, 54 (2015)), the twin of cluster_label.wgsl: thread g of system z joins
// sites 4g .. 4g + 3 to their forward neighbours over their active bonds, linking the larger
// root under the smaller with atomicMin, so that a cluster's root ends as its smallest site.
// CPU twin: src/engine/cpu/cluster_label.rs.

#include "cluster.cuh"

// Join the clusters of sites a and b among `labels` (one system's).
__device__ void join(unsigned* labels, unsigned a, unsigned b) {
    while (true) {
        a = find_root(labels, a);
        b = find_root(labels, b);
        if (a == b) {
            return;
        }
        if (a < b) {
            const unsigned t = a;
            a = b;
            b = t;
        }
        const unsigned old = atomicMin(&labels[a], b);
        if (old == a) {
            return;
        }
        // a had been linked to old (< a) meanwhile: join old's cluster with b's.
        a = old;
    }
}

extern "C" __global__ void cluster_label(DispatchParams params, const int* spins,
                                         const unsigned* activation, unsigned* bonds,
                                         unsigned* labels, unsigned* counts,
                                         unsigned long long* sizes) {
    const unsigned g = thread_in_system();
    const unsigned z = blockIdx.z;
    const unsigned n = lattice_sites();
    if (4u * g >= n) {
        return;
    }
    const unsigned word = bonds[static_cast<unsigned long long>(z) * (n / 4u) + g];
    if (word == 0u) {
        return;
    }
    unsigned* system = labels + static_cast<unsigned long long>(z) * n;
    for (unsigned k = 0u; k < 4u; k++) {
        const unsigned site = 4u * g + k;
        const Neighbours near = neighbours(site);
        for (unsigned d = 0u; d < DIMS; d++) {
            if (((word >> (8u * k + d)) & 1u) == 1u) {
                join(system, site, near.site[2u * d + 1u]);
            }
        }
    }
}

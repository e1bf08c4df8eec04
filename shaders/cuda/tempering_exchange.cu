// The spin exchanges of a swap round, the twin of tempering_exchange.wgsl (CPU twin:
// src/engine/cpu/tempering_exchange.rs): thread i of group q (z) moves word i of the systems of
// group q between neighbour temperatures where the round's masks say so. The simple engine's
// int spins move as their bits.

#include "dispatch.cuh"
#include "tempering.cuh"

constexpr unsigned SYSTEM_WORDS = SPINFLIP_SYSTEM_WORDS;

extern "C" __global__ void tempering_exchange(DispatchParams params, unsigned* spins,
                                              const unsigned* masks) {
    const unsigned i = thread_in_system();
    const unsigned q = blockIdx.z;
    if (i >= SYSTEM_WORDS) {
        return;
    }
    if (EXCHANGE == EXCHANGE_WITHIN_WORDS) {
        const unsigned mask = masks[q];
        if (mask != 0u) {
            const unsigned long long at = static_cast<unsigned long long>(q) * SYSTEM_WORDS + i;
            const unsigned w = spins[at];
            const unsigned differ = (w ^ (w >> 1u)) & mask;
            spins[at] = w ^ differ ^ (differ << 1u);
        }
        return;
    }
    for (unsigned k = params.colour; k + 1u < TEMPERATURES; k += 2u) {
        const unsigned mask = masks[k * GROUPS + q];
        if (mask != 0u) {
            const unsigned long long a =
                static_cast<unsigned long long>(k * GROUPS + q) * SYSTEM_WORDS + i;
            const unsigned long long b = a + static_cast<unsigned long long>(GROUPS) * SYSTEM_WORDS;
            const unsigned differ = (spins[a] ^ spins[b]) & mask;
            spins[a] ^= differ;
            spins[b] ^= differ;
        }
    }
}

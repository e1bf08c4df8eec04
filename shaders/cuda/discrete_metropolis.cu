// Metropolis or the heat bath on one checkerboard colour of every lattice of discrete states
// (Potts, Blume-Capel), the twin of discrete_metropolis.wgsl: update thread ci of system z (the
// pass's threads from params.first_thread: a piece of a sweep runs some of them) updates the
// ci-th site of params.colour, HITS times (a thread takes SITES_PER_THREAD update
// threads' sites), its energies exact ints in table units from the state tables
// (vector_site.cuh). CPU twin: src/engine/cpu/discrete_metropolis.rs (the randoms:
// block (i, sweep, VectorMetropolis, hit, colour, z); Metropolis proposes
// (a + 1 + mulhi(w0, q - 1)) mod q and accepts with word 3, the heat bath draws from word 0;
// an empty site keeps its vacancy). Moves that changed a state are summed per block, then added to the system's counter 0;
// where the systems lie flat along the grid (FLAT_SYSTEMS, pass_thread), each thread adds its own.

#include "vector_site.cuh"

// Proposals per site (VectorSweeps::hits).
constexpr unsigned HITS = SPINFLIP_HITS;

// Whether the states are drawn from their heat bath (VectorSweeps::heat_bath), else proposed by
// Metropolis; the widths say the same (check_widths).
constexpr unsigned HEAT_BATH_SWEEPS = SPINFLIP_HEAT_BATH_SWEEPS;
// Sites a thread updates (VectorSweeps::state_sites_per_thread): the r-th is update thread
// t + r * stride of the pass, so that each r is a coalesced run of the colour; their states are
// read before any is updated.
constexpr unsigned SITES_PER_THREAD = SPINFLIP_SITES_PER_THREAD;

// StateUpdate::surroundings: the couplings to a site's neighbours and their states.
struct Surroundings {
    int couplings[6];
    unsigned states[6];
};

__device__ __forceinline__ Surroundings surroundings(const int* spins, const int* couplings,
                                                     unsigned z, unsigned i) {
    Surroundings around;
    const Neighbours near = neighbours(i);
#pragma unroll
    for (unsigned k = 0u; k < coordination(); k++) {
        const unsigned j = near.site[k];
        around.couplings[k] = coupling(couplings, z, neighbour_bond(i, j, k));
        around.states[k] = load_state(spins, z, j);
    }
    return around;
}

// StateUpdate::energy: V(a) - sum_j J_ij P(a, s_j), in table units.
__device__ __forceinline__ int state_energy(const int* lookups, unsigned a,
                                            const Surroundings& around) {
    int e = state_site(lookups, a);
#pragma unroll
    for (unsigned k = 0u; k < coordination(); k++) {
        e -= around.couplings[k] * state_pair(lookups, a, around.states[k]);
    }
    return e;
}

// StateUpdate::heat_bath: the first state whose cumulative Boltzmann weight
// threshold(E_k - E_min) exceeds floor(u W / 2^32), W the total weight (below 2^38).
__device__ __forceinline__ unsigned heat_bath(const int* lookups, unsigned u,
                                              const Surroundings& around,
                                              const unsigned* table) {
    int lowest = state_energy(lookups, 0u, around);
    for (unsigned k = 1u; k < STATES; k++) {
        lowest = min(lowest, state_energy(lookups, k, around));
    }
    unsigned long long total = 0ull;
    for (unsigned k = 0u; k < STATES; k++) {
        total += threshold(static_cast<unsigned>(state_energy(lookups, k, around) - lowest), table);
    }
    const unsigned long long pick = heat_bath_target(total, u);
    unsigned long long cumulative = 0ull;
    for (unsigned k = 0u; k < STATES; k++) {
        cumulative +=
            threshold(static_cast<unsigned>(state_energy(lookups, k, around) - lowest), table);
        if (cumulative > pick) {
            return k;
        }
    }
    return STATES - 1u;
}

// StateUpdate::hit: hit `hit` of site i (of colour params.colour) of system z in state s;
// whether the state changed.
__device__ __forceinline__ bool state_hit(const DispatchParams& params, const int* lookups,
                                          unsigned z, unsigned i, unsigned hit,
                                          const Surroundings& around, unsigned& s, int width,
                                          const unsigned* table) {
    const uint2 key = make_uint2(params.seed_lo, params.seed_hi);
    const unsigned purpose = (hit << 1u) | params.colour;
    const uint4 counter =
        philox_counter(i, params.sweep, PURPOSE_VECTOR_METROPOLIS, purpose, global_index(z));
    const uint4 words = philox4x32_10(counter, key);
    const unsigned a = s;
    unsigned b;
    // The heat bath's loops only where the kernel is built for it (as the WGSL twin).
    if (HEAT_BATH_SWEEPS == 1u && width == HEAT_BATH) {
        b = heat_bath(lookups, words.x, around, table);
    } else {
        b = (a + 1u + __umulhi(words.x, STATES - 1u)) % (STATES > 0u ? STATES : 1u);
        const int change = state_energy(lookups, b, around) - state_energy(lookups, a, around);
        if (change > 0 && words.w >= threshold(static_cast<unsigned>(change), table)) {
            return false;
        }
    }
    s = b;
    return a != b;
}

extern "C" __global__ void discrete_metropolis(DispatchParams params, int* spins,
                                               const unsigned* tables,
                                               unsigned long long* counts, const int* couplings,
                                               const int* widths, const int* lookups) {
    __shared__ unsigned block_accepted;
    if (threadIdx.x == 0u) {
        block_accepted = 0u;
    }
    __syncthreads();
    const unsigned span = params.threads != 0u ? params.threads : lattice_sites() / 2u;
    const unsigned stride = (span + SITES_PER_THREAD - 1u) / SITES_PER_THREAD;
    const PassThread at = pass_thread(params, stride);
    const unsigned z = at.z;
    const unsigned thread = at.t;
    bool live[SITES_PER_THREAD];
    unsigned sites[SITES_PER_THREAD];
    unsigned states[SITES_PER_THREAD];
    Surroundings around[SITES_PER_THREAD];
#pragma unroll
    for (unsigned r = 0u; r < SITES_PER_THREAD; r++) {
        const unsigned k = thread + r * stride;
        const unsigned ci = params.first_thread + k;
        live[r] = at.live && thread < stride && k < span && ci < lattice_sites() / 2u;
        if (live[r]) {
            sites[r] = colour_site(params.colour, ci);
            states[r] = load_state(spins, z, sites[r]);
            around[r] = surroundings(spins, couplings, z, sites[r]);
        }
    }
    unsigned accepted = 0u;
    const unsigned t = temperature_of(z);
#pragma unroll
    for (unsigned r = 0u; r < SITES_PER_THREAD; r++) {
        // An empty site (the vacancy, state STATES) stays as it is.
        if (live[r] && states[r] < STATES) {
            unsigned s = states[r];
            for (unsigned hit = 0u; hit < HITS; hit++) {
                accepted += state_hit(params, lookups, z, sites[r], hit, around[r], s, widths[t],
                                      tables + t * 4u * TABLE_BYTE)
                                ? 1u
                                : 0u;
            }
            spins[static_cast<unsigned long long>(z) * lattice_sites() + sites[r]] =
                static_cast<int>(s);
        }
    }
    count_accepted(counts, block_accepted, z, accepted);
}

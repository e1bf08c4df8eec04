// The temperature history at a measurement, the twin of tempering_history.wgsl: the labels of
// the chain sets of sample 0 (the first R T words of the state) into slot params.slot.

#include "dispatch.cuh"
#include "tempering.cuh"

extern "C" __global__ void tempering_history(DispatchParams params, const unsigned* state,
                                             unsigned* history) {
    const unsigned i = thread_in_system();
    const unsigned words = CHAIN_REPLICAS * TEMPERATURES;
    if (i < words) {
        history[static_cast<unsigned long long>(params.slot) * words + i] =
            state[state_index(SECTION_LABELS, 0u, 0u) + i];
    }
}

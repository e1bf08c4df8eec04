// The slice index of a kernel compiled with the defines SLICE_BLOCK, RUN_BLOCK, SLICE_FIRST
// (SliceIndex::constants, as the WGSL override constants of slice.wgsl), so that its divisions
// fold.

#include "slice.cuh"

constexpr unsigned SLICE_BLOCK = SPINFLIP_SLICE_BLOCK;
constexpr unsigned RUN_BLOCK = SPINFLIP_RUN_BLOCK;
constexpr unsigned SLICE_FIRST = SPINFLIP_SLICE_FIRST;

// The run's index of local index i.
__device__ __forceinline__ unsigned global_index(unsigned i) {
    return slice_global(SliceIndex{SLICE_BLOCK, RUN_BLOCK, SLICE_FIRST}, i);
}

// The run's index of a local system, word system or chain set of a sample slice, the Philox
// batch of its randoms: the twin of slice.wgsl and SliceIndex in src/model/ising.rs. `block`
// of them per temperature here, `run_block` in the run, this slice's block starting at `first`;
// every whole run's index is the identity.

struct SliceIndex {
    unsigned block;
    unsigned run_block;
    unsigned first;
};

__device__ __forceinline__ unsigned slice_global(const SliceIndex& slice, unsigned i) {
    return (i / slice.block) * slice.run_block + slice.first + i % slice.block;
}

// Philox on the GPU for the known-answer tests, the twin of philox_kat.wgsl: thread i maps
// (counter, key) pair i to 4 words. Layout of `philox_io`: 6 input words (counter x4, key x2)
// then 4 output words per pair.

#include "philox.cuh"

extern "C" __global__ void philox_kat(unsigned* philox_io, unsigned pairs) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= pairs) {
        return;
    }
    unsigned* io = philox_io + 10u * i;
    const uint4 out = philox4x32_10(make_uint4(io[0], io[1], io[2], io[3]), make_uint2(io[4], io[5]));
    io[6] = out.x;
    io[7] = out.y;
    io[8] = out.z;
    io[9] = out.w;
}

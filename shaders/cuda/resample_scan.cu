// Resampling, second kernel, the twin of resample_scan.wgsl: one thread block per population
// turns its chunks' copy counts into each chunk's first destination (an exclusive prefix sum,
// in place) and writes the population's new size. Each thread sums a run of consecutive
// chunks; the block scans the runs.

#include "resample.cuh"

extern "C" __global__ void resample_scan(unsigned* chunks, unsigned* sizes) {
    __shared__ unsigned partial[SCAN_THREADS];
    const unsigned b = blockIdx.x;
    const unsigned t = threadIdx.x;
    const unsigned per_block = SLOTS / CHUNK;
    const unsigned run = (per_block + SCAN_THREADS - 1u) / SCAN_THREADS;
    const unsigned block_end = (b + 1u) * per_block;
    const unsigned first = min(b * per_block + t * run, block_end);
    const unsigned end = min(first + run, block_end);
    unsigned sum = 0u;
    for (unsigned c = first; c < end; c++) {
        sum += chunks[c];
    }
    partial[t] = sum;
    __syncthreads();
    // Inclusive scan of the runs' sums (Hillis-Steele).
    for (unsigned offset = 1u; offset < SCAN_THREADS; offset *= 2u) {
        const unsigned before = t >= offset ? partial[t - offset] : 0u;
        __syncthreads();
        partial[t] += before;
        __syncthreads();
    }
    unsigned running = partial[t] - sum;
    for (unsigned c = first; c < end; c++) {
        const unsigned n = chunks[c];
        chunks[c] = running;
        running += n;
    }
    if (t == SCAN_THREADS - 1u) {
        sizes[b] = partial[t];
    }
}

/* Integer instruction rates of the GPU, for reading the pairwise engine's
 * figures against: each kernel runs 8 independent chains per thread of one
 * operation (the DPX add-max and three-way max the inner loop uses, a plain
 * max, an add), on every SM, and prints operations per second.
 * usage: int_rate */
#include <cuda_runtime.h>
#include <stdio.h>

#define ITER 4096
#define CHAINS 8

template <int OP> __global__ void rate_kernel(int *out, int k1, int k2)
{
    int v[CHAINS];
#pragma unroll
    for (int c = 0; c < CHAINS; ++c) v[c] = threadIdx.x + c * 7;
    for (int i = 0; i < ITER; ++i) {
#pragma unroll
        for (int c = 0; c < CHAINS; ++c) {
            if (OP == 0) v[c] = __viaddmax_s32(v[c], k1, v[(c + 1) % CHAINS]);
            else if (OP == 1) v[c] = __vimax3_s32_relu(v[c], v[(c + 3) % CHAINS], v[(c + 1) % CHAINS]);
            else if (OP == 2) v[c] = max(v[c], v[(c + 1) % CHAINS]);
            else v[c] = v[c] + v[(c + 1) % CHAINS];
        }
    }
    int s = 0;
#pragma unroll
    for (int c = 0; c < CHAINS; ++c) s += v[c];
    if (s == 0x7fffffff) out[0] = s;
}

template <int OP> static void measure(const char *name, double ops_per_step)
{
    int *out, sms;
    cudaMalloc(&out, 4);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    const int blocks = sms * 16, threads = 256;
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    rate_kernel<OP><<<blocks, threads>>>(out, 3, 5);
    cudaEventRecord(a);
    rate_kernel<OP><<<blocks, threads>>>(out, 3, 5);
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms;
    cudaEventElapsedTime(&ms, a, b);
    const double ops = (double)blocks * threads * ITER * CHAINS * ops_per_step;
    printf("%-32s %8.2f Tops/s\n", name, ops / (ms / 1e3) / 1e12);
    cudaFree(out);
}

int main(void)
{
    /* One instruction per chain and step (check with cuobjdump -sass). */
    measure<0>("viaddmax_s32 (add-max)", 1);
    measure<1>("vimax3_s32_relu (3-way max)", 1);
    measure<2>("max", 1);
    measure<3>("add", 1);
    return 0;
}

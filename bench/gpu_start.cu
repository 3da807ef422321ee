/* What the CUDA driver takes to start on this machine, the floor under a
 * whole `swsearch search`: the first runtime call (the driver's start), each
 * GPU's context (cudaFree(0)) one after another and on threads of their
 * own, the device record (cudaGetDeviceProperties) against two attributes,
 * a small allocation and copy, and the contexts' teardown (cudaDeviceReset).
 * The program's start before main and its exit after it are for the caller
 * to time around it (`/usr/bin/time`).
 * usage: gpu_start [GPUS]   (default: every GPU) */
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void *start_context(void *arg)
{
    const int device = (int)(long)arg;
    if (cudaSetDevice(device) == cudaSuccess) cudaFree(0);
    return NULL;
}

int main(int argc, char **argv)
{
    const double t0 = now();
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        fprintf(stderr, "gpu_start: no GPU\n");
        return 1;
    }
    const double t1 = now();
    int n = argc > 1 ? atoi(argv[1]) : count;
    if (n < 1 || n > count) n = count;
    if (n > 64) n = 64;
    printf("driver start (cudaGetDeviceCount): %.3f s, %d GPUs, using %d\n", t1 - t0, count, n);

    /* Contexts on threads of their own, as swsearch's warm-up starts them. */
    pthread_t threads[64];
    const double t2 = now();
    for (int i = 0; i < n; i++) pthread_create(&threads[i], NULL, start_context, (void *)(long)i);
    for (int i = 0; i < n; i++) pthread_join(threads[i], NULL);
    const double t3 = now();
    printf("%d contexts on threads of their own: %.3f s\n", n, t3 - t2);

    cudaDeviceProp prop;
    double t = now();
    for (int i = 0; i < n; i++) cudaGetDeviceProperties(&prop, i);
    printf("cudaGetDeviceProperties x %d: %.4f s\n", n, now() - t);
    t = now();
    for (int i = 0; i < n; i++) {
        int v;
        cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, i);
        cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, i);
    }
    printf("cudaDeviceGetAttribute x %d: %.4f s\n", 2 * n, now() - t);

    t = now();
    for (int i = 0; i < n; i++) {
        void *d = NULL;
        static char host[1 << 20];
        cudaSetDevice(i);
        cudaMalloc(&d, sizeof host);
        cudaMemcpy(d, host, sizeof host, cudaMemcpyHostToDevice);
        cudaFree(d);
    }
    printf("1 MiB allocated, copied and freed on each: %.4f s\n", now() - t);

    t = now();
    for (int i = 0; i < n; i++) {
        cudaSetDevice(i);
        cudaDeviceReset();
    }
    printf("contexts torn down one after another (cudaDeviceReset): %.3f s\n", now() - t);
    printf("in main: %.3f s\n", now() - t0);
    return 0;
}

// The driver behind waves-winner-first.txt (not built by CMake): nvcc -std=c++17 -O3 -arch=sm_90 -I<tree>/include -I<tree>/benchmarks -o waves waves-driver.cu; ./waves.
// It printed the columns w1 w2 w4 w8 when measured (the loop over {0, 1, 4} is the check after the change; 0: the policy).
// fold ArgMax / ArgMinMax / Min / Sum over int8 and half under forced pass-1 waves (1, 2, 4), cub beside.
#include <fold/fold.cuh>
#include <cub/device/device_reduce.cuh>
#include "bench_forced.cuh"
#include <cuda_fp16.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)
template <typename T> __global__ void fill(T* p, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    unsigned long long x = i * 0x9E3779B97F4A7C15ull; x ^= x >> 29; x *= 0xBF58476D1CE4E5B9ull; x ^= x >> 32;
    if constexpr (sizeof(T) == 1) p[i] = (T)(x & 0xff); else p[i] = __float2half((float)((x & 0xffff) / 65536.0 * 200.0 - 100.0));
  }
}
cudaEvent_t ea, eb;
template <typename F> float timeit(F f, int reps) {
  std::vector<float> t; for (int r = 0; r < reps; ++r) { CK(cudaEventRecord(ea)); CK(f()); CK(cudaEventRecord(eb)); CK(cudaEventSynchronize(eb)); float ms; CK(cudaEventElapsedTime(&ms, ea, eb)); t.push_back(ms * 1000); }
  std::sort(t.begin(), t.end()); return t[t.size() / 2];
}
template <typename T> void run(const char* tn, int lg) {
  size_t n = size_t(1) << lg; T* d; CK(cudaMalloc(&d, n * sizeof(T))); fill<<<1024, 256>>>(d, n); CK(cudaDeviceSynchronize());
  void* tmp; CK(cudaMalloc(&tmp, 1 << 26)); size_t bytes = 1 << 26;
  T* vo; int* io; float* fo; CK(cudaMalloc(&vo, 64)); CK(cudaMalloc(&io, 64)); CK(cudaMalloc(&fo, 64));
  cub::KeyValuePair<int, T>* kv; CK(cudaMalloc(&kv, 64));
  int reps = lg >= 28 ? 11 : 31; const int N = (int)n;
  auto am = [&] { return fold::DeviceReduce::ArgMax(tmp, bytes, d, vo, io, N, (cudaStream_t)0, bench::forced); };
  auto amm = [&] { return fold::DeviceReduce::ArgMinMax(tmp, bytes, d, vo, io, vo + 1, io + 1, N, (cudaStream_t)0, bench::forced); };
  auto mn = [&] { return fold::DeviceReduce::Min(tmp, bytes, d, vo, N, (cudaStream_t)0, bench::forced); };
  auto cam = [&] { return cub::DeviceReduce::ArgMax(tmp, bytes, d, kv, N, (cudaStream_t)0); };
  double gb = n * sizeof(T) / 1e3;
  printf("%-5s 2^%d cub-ArgMax %8.1f us |", tn, lg, timeit(cam, reps));
  for (int w : {0, 1, 4}) {
    bench::forced_hooks = {fold::detail::ReducePath::automatic, 0, w};
    float a = timeit(am, reps), b = timeit(amm, reps), c = timeit(mn, reps);
    printf(" w%d ArgMax %7.1f (%2.0f%%) ArgMinMax %7.1f (%2.0f%%) Min %7.1f (%2.0f%%) |", w, a, gb / a / 33.5232, b, gb / b / 33.5232, c, gb / c / 33.5232);
  }
  bench::forced_hooks = {};
  printf("\n"); fflush(stdout);
  CK(cudaFree(d)); CK(cudaFree(tmp)); CK(cudaFree(vo)); CK(cudaFree(io)); CK(cudaFree(fo)); CK(cudaFree(kv));
}
int main() {
  CK(cudaEventCreate(&ea)); CK(cudaEventCreate(&eb));
  for (int lg : {24, 26, 28, 30}) { run<std::int8_t>("int8", lg); run<__half>("half", lg); }
}

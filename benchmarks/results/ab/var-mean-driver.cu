// The driver behind var-mean-partials.txt (not built by CMake): nvcc -std=c++17 -O3 -arch=sm_90 -I<tree>/include -o vm var-mean-driver.cu
// VarMean over half, float and double: fold's time per call (median of N) at 2^24-2^30, values hashed from the index.
#include <fold/fold.cuh>
#include <cuda_fp16.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cstring>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)
template <typename T> __global__ void fill(T* p, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    unsigned long long x = i * 0x9E3779B97F4A7C15ull; x ^= x >> 29; x *= 0xBF58476D1CE4E5B9ull; x ^= x >> 32;
    p[i] = (T)(float)((x & 0xffff) / 65536.0 * 4.0 + 3.0);
  }
}
cudaEvent_t ea, eb;
template <typename T> void run(const char* tn, int lg) {
  size_t n = size_t(1) << lg; T* d; CK(cudaMalloc(&d, n * sizeof(T))); fill<<<1024, 256>>>(d, n); CK(cudaDeviceSynchronize());
  using A = std::conditional_t<sizeof(T) == 2, float, T>;
  A* o; CK(cudaMalloc(&o, 64)); size_t bytes = 0;
  CK(fold::DeviceReduce::VarMean(nullptr, bytes, d, o, o + 1, (long long)n, 1.0, (cudaStream_t)0));
  void* tmp; CK(cudaMalloc(&tmp, bytes));
  auto f = [&] { return fold::DeviceReduce::VarMean(tmp, bytes, d, o, o + 1, (long long)n, 1.0, (cudaStream_t)0); };
  std::vector<float> t; int reps = lg >= 28 ? 21 : 51;
  for (int r = 0; r < reps; ++r) { CK(cudaEventRecord(ea)); CK(f()); CK(cudaEventRecord(eb)); CK(cudaEventSynchronize(eb)); float ms; CK(cudaEventElapsedTime(&ms, ea, eb)); t.push_back(ms * 1000); }
  std::sort(t.begin(), t.end());
  A h[2]; CK(cudaMemcpy(h, o, sizeof(h), cudaMemcpyDeviceToHost));
  printf("VarMean %-6s 2^%d %8.1f us %5.1f %% peak  var %.9g mean %.9g\n", tn, lg, t[t.size() / 2], n * sizeof(T) / (t[t.size() / 2] * 1e3) / 33.5232, (double)h[0], (double)h[1]);
  CK(cudaFree(d)); CK(cudaFree(o)); CK(cudaFree(tmp));
}
int main() {
  CK(cudaEventCreate(&ea)); CK(cudaEventCreate(&eb));
  for (int lg : {24, 26, 28, 30}) { run<__half>("half", lg); run<float>("float", lg); run<double>("double", lg); }
}

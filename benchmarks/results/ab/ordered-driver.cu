// The driver of ordered-pipelined-<base>.txt (not built by CMake): fold's order-preserving Reduce (a user operator
// not declared commutative), the same operator declared commutative, and cub's Reduce with it, on one stream.
// Build against any tree: nvcc -std=c++17 -O3 -arch=sm_90 -I<tree>/include -o ordered <this file>; run
// `ordered <log2 items>...`. Per case: "one" = the median of 15 (5 at 2^30) single calls timed by events, "b2b" = 10
// calls back to back between two events (time per call, the median of 5), each the lower of two samples; the
// order-preserving result's bits are printed so that trees can be compared (items hashed from the index).
#include <fold/fold.cuh>
#include <cub/device/device_reduce.cuh>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)
struct CustomSum
{
  template <typename T>
  __host__ __device__ T operator()(const T& a, const T& b) const { return static_cast<T>(a + b); }
};
template <typename T>
__global__ void fill(T* p, size_t n)
{
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
  {
    unsigned long long x = (i + 1) * 0x9E3779B97F4A7C15ull; x ^= x >> 29; x *= 0xBF58476D1CE4E5B9ull; x ^= x >> 32;
    if constexpr (std::is_integral_v<T>) p[i] = static_cast<T>(x & 0xffff) - 32768;
    else p[i] = static_cast<T>(static_cast<double>(x & 0xffff) / 65536.0 * 2.0 - 1.0);
  }
}
cudaEvent_t ea, eb;
template <typename F>
float timeit(F f, int reps, int inner)
{
  std::vector<float> t;
  for (int r = 0; r < reps; ++r)
  {
    CK(cudaEventRecord(ea));
    for (int i = 0; i < inner; ++i) CK(f());
    CK(cudaEventRecord(eb)); CK(cudaEventSynchronize(eb));
    float ms; CK(cudaEventElapsedTime(&ms, ea, eb)); t.push_back(ms * 1000 / inner);
  }
  std::sort(t.begin(), t.end()); return t[t.size() / 2];
}
template <typename T>
void run(const char* tn, int lg)
{
  const size_t n = size_t(1) << lg; const int N = static_cast<int>(n);
  T* d; CK(cudaMalloc(&d, n * sizeof(T))); fill<<<1024, 256>>>(d, n); CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
  T* out; CK(cudaMalloc(&out, 4 * sizeof(T)));
  size_t fb = 0, fcb = 0, cb = 0;
  CK(fold::DeviceReduce::Reduce(nullptr, fb, d, out, N, CustomSum{}, T{}, (cudaStream_t)0));
  CK(fold::DeviceReduce::Reduce(nullptr, fcb, d, out + 1, N, fold::commutative(CustomSum{}), T{}, (cudaStream_t)0));
  CK(cub::DeviceReduce::Reduce(nullptr, cb, d, out + 2, N, CustomSum{}, T{}, (cudaStream_t)0));
  void *ft, *fct, *ct; CK(cudaMalloc(&ft, fb)); CK(cudaMalloc(&fct, fcb)); CK(cudaMalloc(&ct, cb));
  auto fo = [&] { return fold::DeviceReduce::Reduce(ft, fb, d, out, N, CustomSum{}, T{}, (cudaStream_t)0); };
  auto fc = [&] { return fold::DeviceReduce::Reduce(fct, fcb, d, out + 1, N, fold::commutative(CustomSum{}), T{}, (cudaStream_t)0); };
  auto cf = [&] { return cub::DeviceReduce::Reduce(ct, cb, d, out + 2, N, CustomSum{}, T{}, (cudaStream_t)0); };
  const int reps = lg >= 30 ? 5 : 15;
  float r[2][3][2];
  for (int s = 0; s < 2; ++s)
  {
    r[s][0][0] = timeit(fo, reps, 1); r[s][1][0] = timeit(fc, reps, 1); r[s][2][0] = timeit(cf, reps, 1);
    r[s][0][1] = timeit(fo, 5, 10);   r[s][1][1] = timeit(fc, 5, 10);   r[s][2][1] = timeit(cf, 5, 10);
  }
  CK(cudaMemset(out, 0xff, 4 * sizeof(T))); CK(fo()); CK(fc()); CK(cf()); CK(cudaDeviceSynchronize());
  T h[3]; CK(cudaMemcpy(h, out, 3 * sizeof(T), cudaMemcpyDeviceToHost));
  unsigned long long bits = 0; std::memcpy(&bits, &h[0], sizeof(T));
  const double a = (double)h[0], c = (double)h[2];
  const bool ok = std::is_integral_v<T> ? h[0] == h[2] && h[1] == h[2] : (std::abs(a - c) <= 1e-3 * std::max(1.0, std::abs(c)) * (lg >= 26 ? 10 : 1));
  for (int m = 0; m < 2; ++m)
  {
    const float o = std::min(r[0][0][m], r[1][0][m]), cm = std::min(r[0][1][m], r[1][1][m]), cu = std::min(r[0][2][m], r[1][2][m]);
    printf("%-6s 2^%d %-3s ordered %9.2f us  commutative %9.2f  cub %9.2f  ord/cub %.3f  ord/comm %.3f  (%.1f GB/s) bits %016llx%s\n",
           tn, lg, m ? "b2b" : "one", o, cm, cu, o / cu, o / cm, n * sizeof(T) / o / 1e3, bits, ok ? "" : "  CHECK FAILED");
  }
  CK(cudaFree(d)); CK(cudaFree(out)); CK(cudaFree(ft)); CK(cudaFree(fct)); CK(cudaFree(ct));
}
int main(int argc, char** argv)
{
  CK(cudaEventCreate(&ea)); CK(cudaEventCreate(&eb));
  for (int i = 1; i < argc; ++i)
  {
    const int lg = atoi(argv[i]);
    run<int>("int32", lg); run<float>("float", lg); run<double>("double", lg);
  }
}

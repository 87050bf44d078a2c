// SPDX-License-Identifier: Apache-2.0
// fold-bench: sums a large random array with fold::DeviceReduce and with cub::DeviceReduce on the same buffer,
// checks both against a double-precision host sum, and prints the median kernel time of each.
//
//   fold-bench [log2 of the number of floats, default 28]
#include <fold/fold.cuh>

#include <cub/device/device_reduce.cuh>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

namespace
{
bool ok(cudaError_t status, const char* what)
{
  if (status != cudaSuccess)
  {
    std::fprintf(stderr, "fold-bench: %s failed: %s\n", what, cudaGetErrorString(status));
    return false;
  }
  return true;
}

//! Median over `repetitions` of the time of `call(stream)`, timed with events around each call.
template <typename CallT>
float median_ms(CallT call, int repetitions)
{
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  std::vector<float> times;
  for (int i = 0; i < repetitions; ++i)
  {
    cudaEventRecord(start);
    call();
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    times.push_back(ms);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
  return times[times.size() / 2];
}
} // namespace

int main(int argc, char** argv)
{
  const int log2_n = argc > 1 ? std::atoi(argv[1]) : 28;
  if (log2_n < 0 || log2_n > 32)
  {
    std::fprintf(stderr, "usage: fold-bench [log2 of the number of floats, 0..32]\n");
    return 2;
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0)
  {
    std::fprintf(stderr, "fold-bench: no CUDA device found; it needs a GPU to run\n");
    return 1;
  }
  cudaDeviceProp properties{};
  if (!ok(cudaGetDeviceProperties(&properties, 0), "cudaGetDeviceProperties"))
  {
    return 1;
  }
  const std::size_t n = std::size_t{1} << log2_n;

  std::vector<float> host(n);
  std::mt19937 random(42);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  double reference = 0;
  for (auto& x : host)
  {
    x = uniform(random);
    reference += x;
  }

  float* d_in          = nullptr;
  float* d_out         = nullptr;
  void* d_fold_temp    = nullptr;
  void* d_cub_temp     = nullptr;
  std::size_t fold_bytes = 0, cub_bytes = 0;
  if (!ok(cudaMalloc(&d_in, n * sizeof(float)), "cudaMalloc") || !ok(cudaMalloc(&d_out, 2 * sizeof(float)), "cudaMalloc")
      || !ok(cudaMemcpy(d_in, host.data(), n * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy")
      || !ok(fold::DeviceReduce::Sum(nullptr, fold_bytes, d_in, d_out, n), "fold size query")
      || !ok(cub::DeviceReduce::Sum(nullptr, cub_bytes, d_in, d_out + 1, n), "cub size query")
      || !ok(cudaMalloc(&d_fold_temp, fold_bytes), "cudaMalloc") || !ok(cudaMalloc(&d_cub_temp, cub_bytes), "cudaMalloc"))
  {
    return 1;
  }

  auto run_fold = [&] { return fold::DeviceReduce::Sum(d_fold_temp, fold_bytes, d_in, d_out, n); };
  auto run_cub  = [&] { return cub::DeviceReduce::Sum(d_cub_temp, cub_bytes, d_in, d_out + 1, n); };
  if (!ok(run_fold(), "fold Sum") || !ok(run_cub(), "cub Sum") || !ok(cudaDeviceSynchronize(), "the reductions"))
  {
    return 1;
  }
  float results[2];
  if (!ok(cudaMemcpy(results, d_out, sizeof(results), cudaMemcpyDeviceToHost), "cudaMemcpy"))
  {
    return 1;
  }

  const int repetitions = 50;
  const float fold_ms   = median_ms(run_fold, repetitions);
  const float cub_ms    = median_ms(run_cub, repetitions);
  const double gbytes   = static_cast<double>(n) * sizeof(float) / 1e9;

  std::printf("device: %s (%d SMs)\n", properties.name, properties.multiProcessorCount);
  std::printf("Sum of 2^%d random floats in [-1, 1); host reference (double) %.6f\n", log2_n, reference);
  std::printf("%-6s %14s %12s %10s\n", "", "result", "time (us)", "GB/s");
  std::printf("%-6s %14.6f %12.2f %10.1f\n", "fold", results[0], fold_ms * 1e3, gbytes / (fold_ms * 1e-3));
  std::printf("%-6s %14.6f %12.2f %10.1f\n", "cub", results[1], cub_ms * 1e3, gbytes / (cub_ms * 1e-3));
  std::printf("fold time / cub time: %.3f\n", fold_ms / cub_ms);

  cudaFree(d_in);
  cudaFree(d_out);
  cudaFree(d_fold_temp);
  cudaFree(d_cub_temp);
  // Both results must be within a loose bound of the reference (n * eps * sum|x| is far looser than needed).
  const double bound = 1e-3 * std::sqrt(static_cast<double>(n)) + 1e-3;
  const bool correct = std::fabs(results[0] - reference) <= bound && std::fabs(results[1] - reference) <= bound;
  if (!correct)
  {
    std::fprintf(stderr, "fold-bench: a result is off by more than %g\n", bound);
  }
  return correct ? 0 : 1;
}

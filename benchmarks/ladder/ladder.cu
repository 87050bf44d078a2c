// SPDX-License-Identifier: Apache-2.0
// The reduction optimisation ladder of the seed notes (Harris's "Optimizing Parallel Reduction in CUDA" and
// its warp-shuffle and vector-load sequels), one kernel per step, then fold and cub on the same data.
//
// Each ladder kernel is the first pass: it reads all n floats and writes one partial per block, which is where
// all the time goes; the partials are summed on the host to check the step. The data are integers in [-8, 8]
// stored as floats, so every partial sum a step can form is an exact float and each step's result must equal
// the reference exactly; fold and cub (full reductions) are checked the same way.
//
//   fold-ladder [--log2=25] [--json=path]     (25: the 32M floats of the notes; 30: 2^30 floats)
#include <fold/fold.cuh>

#include "bench_common.cuh"

#include <cub/device/device_reduce.cuh>

#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace
{
constexpr unsigned block = 256;

__host__ __device__ inline float item(std::uint64_t i)
{
  return static_cast<float>(static_cast<int>(bench::mix(i * 0x9E3779B97F4A7C15ull + 77) % 17) - 8);
}

__global__ void fill_items(float* data, std::size_t n)
{
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
  {
    data[i] = item(i);
  }
}

// 0: interleaved addressing; `tid % (2s)` leaves most of each warp idle and the modulo is slow.
__global__ void reduce0(const float* in, float* out, std::size_t n)
{
  __shared__ float s[block];
  const unsigned tid  = threadIdx.x;
  const std::size_t i = blockIdx.x * std::size_t{block} + tid;
  s[tid]              = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned k = 1; k < block; k *= 2)
  {
    if (tid % (2 * k) == 0)
    {
      s[tid] += s[tid + k];
    }
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

// 1: interleaved addressing with a strided index: no divergence, but 2-, 4-, ... way bank conflicts.
__global__ void reduce1(const float* in, float* out, std::size_t n)
{
  __shared__ float s[block];
  const unsigned tid  = threadIdx.x;
  const std::size_t i = blockIdx.x * std::size_t{block} + tid;
  s[tid]              = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned k = 1; k < block; k *= 2)
  {
    const unsigned index = 2 * k * tid;
    if (index < block)
    {
      s[index] += s[index + k];
    }
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

// 2: sequential addressing: contiguous active threads, conflict-free; half the threads idle from the start.
__global__ void reduce2(const float* in, float* out, std::size_t n)
{
  __shared__ float s[block];
  const unsigned tid  = threadIdx.x;
  const std::size_t i = blockIdx.x * std::size_t{block} + tid;
  s[tid]              = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned k = block / 2; k > 0; k >>= 1)
  {
    if (tid < k)
    {
      s[tid] += s[tid + k];
    }
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

// 3: first add during load: each thread adds two items as it loads; half the blocks.
__global__ void reduce3(const float* in, float* out, std::size_t n)
{
  __shared__ float s[block];
  const unsigned tid  = threadIdx.x;
  const std::size_t i = blockIdx.x * std::size_t{2 * block} + tid;
  s[tid]              = (i < n ? in[i] : 0.0f) + (i + block < n ? in[i + block] : 0.0f);
  __syncthreads();
  for (unsigned k = block / 2; k > 0; k >>= 1)
  {
    if (tid < k)
    {
      s[tid] += s[tid + k];
    }
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

__device__ void warp_tail(volatile float* s, unsigned tid)
{
  s[tid] += s[tid + 32];
  __syncwarp();
  s[tid] += s[tid + 16];
  __syncwarp();
  s[tid] += s[tid + 8];
  __syncwarp();
  s[tid] += s[tid + 4];
  __syncwarp();
  s[tid] += s[tid + 2];
  __syncwarp();
  s[tid] += s[tid + 1];
}

// 4: unroll the last warp: no barriers once one warp is left (with __syncwarp, as Volta and later require).
__global__ void reduce4(const float* in, float* out, std::size_t n)
{
  __shared__ float s[block];
  const unsigned tid  = threadIdx.x;
  const std::size_t i = blockIdx.x * std::size_t{2 * block} + tid;
  s[tid]              = (i < n ? in[i] : 0.0f) + (i + block < n ? in[i + block] : 0.0f);
  __syncthreads();
  for (unsigned k = block / 2; k > 32; k >>= 1)
  {
    if (tid < k)
    {
      s[tid] += s[tid + k];
    }
    __syncthreads();
  }
  if (tid < 32) warp_tail(s, tid);
  if (tid == 0) out[blockIdx.x] = s[0];
}

// 5: complete unroll: the block size is a template parameter, every loop disappears.
template <unsigned BlockSize>
__global__ void reduce5(const float* in, float* out, std::size_t n)
{
  __shared__ float s[BlockSize];
  const unsigned tid  = threadIdx.x;
  const std::size_t i = blockIdx.x * std::size_t{2 * BlockSize} + tid;
  s[tid]              = (i < n ? in[i] : 0.0f) + (i + BlockSize < n ? in[i + BlockSize] : 0.0f);
  __syncthreads();
  if (BlockSize >= 512) { if (tid < 256) s[tid] += s[tid + 256]; __syncthreads(); }
  if (BlockSize >= 256) { if (tid < 128) s[tid] += s[tid + 128]; __syncthreads(); }
  if (BlockSize >= 128) { if (tid < 64) s[tid] += s[tid + 64]; __syncthreads(); }
  if (tid < 32) warp_tail(s, tid);
  if (tid == 0) out[blockIdx.x] = s[0];
}

// 6: many items per thread: a fixed grid, each thread sums a grid-stride sequence before the block reduction.
template <unsigned BlockSize>
__global__ void reduce6(const float* in, float* out, std::size_t n)
{
  __shared__ float s[BlockSize];
  const unsigned tid = threadIdx.x;
  float sum          = 0.0f;
  for (std::size_t i = blockIdx.x * std::size_t{2 * BlockSize} + tid; i < n; i += std::size_t{2 * BlockSize} * gridDim.x)
  {
    sum += in[i] + (i + BlockSize < n ? in[i + BlockSize] : 0.0f);
  }
  s[tid] = sum;
  __syncthreads();
  if (BlockSize >= 512) { if (tid < 256) s[tid] += s[tid + 256]; __syncthreads(); }
  if (BlockSize >= 256) { if (tid < 128) s[tid] += s[tid + 128]; __syncthreads(); }
  if (BlockSize >= 128) { if (tid < 64) s[tid] += s[tid + 64]; __syncthreads(); }
  if (tid < 32) warp_tail(s, tid);
  if (tid == 0) out[blockIdx.x] = s[0];
}

__device__ float block_sum_shuffle(float sum)
{
  __shared__ float warps[block / 32];
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  if (threadIdx.x % 32 == 0) warps[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x < 32)
  {
    sum = threadIdx.x < block / 32 ? warps[threadIdx.x] : 0.0f;
    for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  }
  return sum;
}

// 7: warp shuffles instead of shared memory for the block reduction; the loads are step 6's.
__global__ void reduce7(const float* in, float* out, std::size_t n)
{
  float sum = 0.0f;
  for (std::size_t i = blockIdx.x * std::size_t{2 * block} + threadIdx.x; i < n; i += std::size_t{2 * block} * gridDim.x)
  {
    sum += in[i] + (i + block < n ? in[i + block] : 0.0f);
  }
  sum = block_sum_shuffle(sum);
  if (threadIdx.x == 0) out[blockIdx.x] = sum;
}

// 8: 128-bit vector loads: two float4 per iteration instead of two floats, a quarter of the load instructions
// per byte (n a multiple of 8 here).
__global__ void reduce8(const float* in, float* out, std::size_t n)
{
  const float4* in4 = reinterpret_cast<const float4*>(in);
  const std::size_t n4 = n / 4;
  float sum = 0.0f;
  for (std::size_t i = blockIdx.x * std::size_t{2 * block} + threadIdx.x; i < n4; i += std::size_t{2 * block} * gridDim.x)
  {
    const float4 a = in4[i];
    const float4 b = i + block < n4 ? in4[i + block] : float4{0.0f, 0.0f, 0.0f, 0.0f};
    sum += ((a.x + a.y) + (a.z + a.w)) + ((b.x + b.y) + (b.z + b.w));
  }
  sum = block_sum_shuffle(sum);
  if (threadIdx.x == 0) out[blockIdx.x] = sum;
}

struct Step
{
  const char* key;
  const char* name;
  std::function<std::size_t(std::size_t)> grid; // blocks for n items
  void (*kernel)(const float*, float*, std::size_t);
};
} // namespace

int main(int argc, char** argv)
{
  int log2_n = 25;
  std::string json_path;
  for (int i = 1; i < argc; ++i)
  {
    if (std::strncmp(argv[i], "--log2=", 7) == 0) log2_n = std::atoi(argv[i] + 7);
    else if (std::strncmp(argv[i], "--json=", 7) == 0) json_path = argv[i] + 7;
    else
    {
      std::fprintf(stderr, "usage: fold-ladder [--log2=25] [--json=path]\n");
      return 2;
    }
  }
  bench::DeviceFacts facts = bench::device_facts();
  facts.ceiling_gbps       = bench::measure_read_ceiling(facts);
  const std::size_t n      = std::size_t{1} << log2_n;
  const int persistent     = facts.sms * 8; // grid of the steps with many items per thread

  const std::vector<Step> steps = {
    {"interleaved_divergent", "interleaved addressing, divergent branch", [](std::size_t m) { return (m + block - 1) / block; }, reduce0},
    {"interleaved_bank_conflicts", "interleaved addressing, bank conflicts", [](std::size_t m) { return (m + block - 1) / block; }, reduce1},
    {"sequential_addressing", "sequential addressing", [](std::size_t m) { return (m + block - 1) / block; }, reduce2},
    {"first_add_during_load", "first add during load", [](std::size_t m) { return (m + 2 * block - 1) / (2 * block); }, reduce3},
    {"unroll_last_warp", "unroll the last warp", [](std::size_t m) { return (m + 2 * block - 1) / (2 * block); }, reduce4},
    {"complete_unroll", "complete unroll", [](std::size_t m) { return (m + 2 * block - 1) / (2 * block); }, reduce5<block>},
    {"many_items_per_thread", "many items per thread", [=](std::size_t) { return std::size_t(persistent); }, reduce6<block>},
    {"warp_shuffle", "warp-shuffle reduction", [=](std::size_t) { return std::size_t(persistent); }, reduce7},
    {"vector_loads", "128-bit vector loads", [=](std::size_t) { return std::size_t(persistent); }, reduce8},
  };

  float* data     = nullptr;
  float* partials = nullptr;
  float* result   = nullptr;
  BENCH_CHECK(cudaMalloc(&data, n * sizeof(float)));
  BENCH_CHECK(cudaMalloc(&partials, ((n + block - 1) / block) * sizeof(float)));
  BENCH_CHECK(cudaMalloc(&result, sizeof(float)));
  fill_items<<<4096, 256>>>(data, n);
  BENCH_CHECK(cudaGetLastError());
  double reference = 0;
  for (std::size_t i = 0; i < n; ++i) reference += item(i);
  BENCH_CHECK(cudaDeviceSynchronize());

  bench::EventTimer timer;
  const int repetitions = log2_n >= 29 ? 15 : 40;
  auto median_seconds   = [&](auto&& work) {
    work(); // warm-up
    std::vector<double> samples;
    for (int r = 0; r < repetitions; ++r) samples.push_back(timer.seconds(work));
    return bench::median(samples);
  };

  struct Row
  {
    std::string key, name;
    double seconds;
    bool correct;
  };
  std::vector<Row> rows;
  for (const Step& step : steps)
  {
    const std::size_t grid = step.grid(n);
    const double t = median_seconds([&] { step.kernel<<<static_cast<unsigned>(grid), block>>>(data, partials, n); });
    BENCH_CHECK(cudaGetLastError());
    std::vector<float> host(grid);
    BENCH_CHECK(cudaMemcpy(host.data(), partials, grid * sizeof(float), cudaMemcpyDeviceToHost));
    double sum = 0;
    for (float p : host) sum += p;
    rows.push_back({step.key, step.name, t, sum == reference});
  }

  std::size_t fold_bytes = 0, cub_bytes = 0;
  BENCH_CHECK(fold::DeviceReduce::Sum(nullptr, fold_bytes, data, result, n));
  BENCH_CHECK(cub::DeviceReduce::Sum(nullptr, cub_bytes, data, result, n));
  void* temp = nullptr;
  BENCH_CHECK(cudaMalloc(&temp, std::max(fold_bytes, cub_bytes)));
  for (const char* library : {"fold", "cub"})
  {
    const bool is_fold = std::strcmp(library, "fold") == 0;
    const double t = median_seconds([&] {
      BENCH_CHECK(is_fold ? fold::DeviceReduce::Sum(temp, fold_bytes, data, result, n)
                          : cub::DeviceReduce::Sum(temp, cub_bytes, data, result, n));
    });
    float value = 0;
    BENCH_CHECK(cudaMemcpy(&value, result, sizeof(float), cudaMemcpyDeviceToHost));
    rows.push_back({library, is_fold ? "fold::DeviceReduce::Sum" : "cub::DeviceReduce::Sum", t, value == reference});
  }

  const double bytes = n * sizeof(float);
  std::printf("device: %s; n = 2^%d floats (%.0f MB); peak %.0f GB/s, measured read ceiling %.0f GB/s\n", facts.name.c_str(),
              log2_n, bytes / 1e6, facts.peak_gbps, facts.ceiling_gbps);
  std::printf("%-42s %10s %9s %7s %9s %9s %s\n", "step", "time us", "GB/s", "% peak", "vs prev", "vs first", "check");
  bool all_correct = true;
  for (std::size_t i = 0; i < rows.size(); ++i)
  {
    const Row& r = rows[i];
    const double gbps = bytes / r.seconds / 1e9;
    std::printf("%-42s %10.1f %9.0f %7.1f %9.2f %9.2f %s\n", r.name.c_str(), r.seconds * 1e6, gbps, 100 * gbps / facts.peak_gbps,
                i == 0 ? 1.0 : rows[i - 1].seconds / r.seconds, rows[0].seconds / r.seconds, r.correct ? "ok" : "WRONG");
    all_correct = all_correct && r.correct;
  }
  if (!json_path.empty())
  {
    FILE* f = std::fopen(json_path.c_str(), "w");
    if (f == nullptr)
    {
      std::fprintf(stderr, "fold-ladder: cannot write %s\n", json_path.c_str());
      return 1;
    }
    std::fprintf(f, "{\n  \"device\": \"%s\", \"sms\": %d, \"log2_n\": %d, \"bytes\": %.0f, \"peak_GBps\": %.1f, \"ceiling_GBps\": %.1f,\n  \"steps\": [\n",
                 facts.name.c_str(), facts.sms, log2_n, bytes, facts.peak_gbps, facts.ceiling_gbps);
    for (std::size_t i = 0; i < rows.size(); ++i)
    {
      std::fprintf(f, "    {\"key\": \"%s\", \"name\": \"%s\", \"seconds\": %.9g, \"correct\": %s}%s\n", rows[i].key.c_str(),
                   rows[i].name.c_str(), rows[i].seconds, rows[i].correct ? "true" : "false", i + 1 < rows.size() ? "," : "");
    }
    std::fprintf(f, "  ]\n}\n");
    std::fclose(f);
  }
  cudaFree(data);
  cudaFree(partials);
  cudaFree(result);
  cudaFree(temp);
  return all_correct ? 0 : 1;
}

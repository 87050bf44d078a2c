// SPDX-License-Identifier: Apache-2.0
// fold-tune: the tile-shape sweep behind the sm_90 policy. fold's Sum over float and int8 with the block size,
// items per thread and occupancy of the policy changed one at a time, through the dispatch's tuning parameter
// (the same kernels, the same dispatch), next to cub's, back to back on one stream and under CUDA-graph replay;
// each tile shape automatic and forced single-pass at one wave. Prints one line per type, size and mode:
// median us per call.
//
//   fold-tune [--max-log2=N]    sizes 2^13 .. 2^N (default 30)
#include <fold/fold.cuh>

#include "bench_common.cuh"
#include "bench_forced.cuh"

#include <cub/device/device_reduce.cuh>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace
{
cudaStream_t stream = nullptr;

//! The sm_90 policy with the tile shape and occupancy replaced.
template <int Threads, int Items, int MinBlocks>
struct Shape
{
  FOLD_HOST_DEVICE static constexpr fold::ReducePolicy policy(int arch)
  {
    fold::ReducePolicy p           = fold::select_reduce_policy(arch);
    p.block_threads                = Threads;
    p.items_per_thread             = Items;
    p.commutative_items_per_thread = Items;
    p.min_blocks_per_sm            = MinBlocks;
    return p;
  }
  static std::string name()
  {
    return std::to_string(Threads) + "x" + std::to_string(Items) + "/" + std::to_string(MinBlocks);
  }
};

template <typename TuningT, typename T>
cudaError_t fold_sum(void* temp, std::size_t& bytes, const T* in, T* out, std::size_t n, cudaStream_t s)
{
  using InitT  = fold::detail::sum_init_t<T>;
  using AccumT = fold::detail::accumulator_t<fold::Sum, InitT, T>;
  return fold::detail::reduce<AccumT, TuningT>(temp,
                                               bytes,
                                               in,
                                               out,
                                               n,
                                               fold::Sum{},
                                               fold::detail::InitialValue<InitT>{InitT{}},
                                               fold::detail::CastTo<AccumT>{},
                                               s);
}

template <typename CallT>
double median_us(CallT call, int slices, std::size_t n, bool graph)
{
  bench::Sampler<CallT> sampler(call, slices, bench::calls_per_sample(n), graph, stream);
  std::vector<double> samples;
  for (int r = 0; r < 11; ++r)
  {
    samples.push_back(sampler.sample());
  }
  BENCH_CHECK(sampler.status());
  return bench::median(samples) * 1e6;
}

template <typename T, typename... TuningTs>
void sweep(const bench::DeviceFacts& facts, int max_log2)
{
  for (int log2 = 13; log2 <= max_log2; log2 += log2 < 24 ? 1 : 2)
  {
    const std::size_t n      = std::size_t{1} << log2;
    const std::size_t stride = (n + 255) / 256 * 256;
    const int slices         = bench::slices_for(facts, n * sizeof(T));
    T* pool                  = nullptr;
    T* out                   = nullptr;
    BENCH_CHECK(cudaMalloc(&pool, stride * slices * sizeof(T)));
    BENCH_CHECK(cudaMalloc(&out, sizeof(T)));
    bench::fill(pool, stride * slices, 99 + n);
    // Storage for the largest need of every variant (two-pass at 4 waves is the most).
    std::size_t temp_bytes = 0;
    bench::forced_hooks    = {fold::detail::ReducePath::two_pass, 0, 4};
    (
        [&]
        {
          std::size_t b = 0;
          BENCH_CHECK(fold_sum<bench::Forced<TuningTs>>(nullptr, b, pool, out, n, stream));
          temp_bytes = std::max(temp_bytes, b);
        }(),
        ...);
    bench::forced_hooks   = {};
    std::size_t cub_bytes = 0;
    BENCH_CHECK(cub::DeviceReduce::Sum(nullptr, cub_bytes, pool, out, static_cast<std::int64_t>(n), stream));
    void* temp = nullptr;
    BENCH_CHECK(cudaMalloc(&temp, std::max(temp_bytes, cub_bytes)));
    BENCH_CHECK(cudaMemset(temp, 0, std::max(temp_bytes, cub_bytes)));
    BENCH_CHECK(cudaDeviceSynchronize());

    for (bool graph : {false, true})
    {
      std::printf("%-6s 2^%-3d %-6s", bench::type_name<T>(), log2, graph ? "graph" : "stream");
      std::printf(" cub %.2f",
                  median_us(
                      [&](int s, cudaStream_t st)
                      {
                        std::size_t b = cub_bytes;
                        return cub::DeviceReduce::Sum(
                            temp, b, pool + s * stride, out, static_cast<std::int64_t>(n), st);
                      },
                      slices,
                      n,
                      graph));
      (
          [&]
          {
            for (fold::detail::ReducePath path :
                 {fold::detail::ReducePath::automatic, fold::detail::ReducePath::single_pass})
            {
              bench::forced_hooks = {path, 0, path == fold::detail::ReducePath::automatic ? 0 : 1};
              std::printf(" %s%s %.2f",
                          TuningTs::name().c_str(),
                          path == fold::detail::ReducePath::automatic ? "" : "-1pass",
                          median_us(
                              [&](int s, cudaStream_t st)
                              {
                                std::size_t b = temp_bytes;
                                return fold_sum<bench::Forced<TuningTs>>(temp, b, pool + s * stride, out, n, st);
                              },
                              slices,
                              n,
                              graph));
              bench::forced_hooks = {};
            }
          }(),
          ...);
      std::printf("\n");
      std::fflush(stdout);
    }
    BENCH_CHECK(cudaFree(temp));
    BENCH_CHECK(cudaFree(pool));
    BENCH_CHECK(cudaFree(out));
  }
}
} // namespace

int main(int argc, char** argv)
{
  int max_log2 = 30;
  for (int i = 1; i < argc; ++i)
  {
    if (std::strncmp(argv[i], "--max-log2=", 11) == 0)
    {
      max_log2 = std::atoi(argv[i] + 11);
    }
    else
    {
      std::printf("usage: fold-tune [--max-log2=N]\n");
      return 2;
    }
  }
  const bench::DeviceFacts facts = bench::device_facts();
  BENCH_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  std::printf("fold-tune on %s (%d SMs): median us per call; columns threads x items (4-byte) / min blocks per SM\n",
              facts.name.c_str(),
              facts.sms);
  using Default = Shape<256, 16, 6>;
  sweep<float, Default, Shape<256, 16, 4>, Shape<256, 32, 4>, Shape<256, 32, 3>, Shape<512, 16, 3>>(facts, max_log2);
  sweep<double, Default, Shape<256, 16, 4>, Shape<256, 32, 4>, Shape<256, 32, 3>, Shape<512, 16, 3>>(facts, max_log2);
  sweep<__half, Default, Shape<256, 32, 4>, Shape<512, 16, 3>>(facts, max_log2);
  sweep<std::int8_t, Default, Shape<256, 32, 4>, Shape<512, 16, 3>>(facts, max_log2);
  return 0;
}

// SPDX-License-Identifier: Apache-2.0
// AgentReduce on its own: vector loads from aligned pointers, plain loads from misaligned pointers and from
// iterators, guarded partial tiles, ranges of many tiles, and the transform applied with each item's index.
#include <fold/agent/agent_reduce.cuh>

#include "ops_util.cuh"
#include "test_util.cuh"

#include <thrust/iterator/counting_iterator.h>

#include <cstdint>
#include <vector>

namespace
{
using Algorithm = fold::BlockReduceAlgorithm;
using OffsetT   = std::uint64_t;

template <int BlockThreads, int ItemsPerThread, int VectorItems, typename InputIteratorT>
__global__ void agent_kernel(InputIteratorT in, std::uint32_t* out, OffsetT begin, OffsetT end)
{
  using AgentT = fold::AgentReduce<BlockThreads,
                                   ItemsPerThread,
                                   VectorItems,
                                   Algorithm::warp_reductions,
                                   InputIteratorT,
                                   std::uint32_t,
                                   OffsetT,
                                   fold::Sum,
                                   fold_test::IndexMix>;
  __shared__ typename AgentT::TempStorage storage;
  const std::uint32_t result = AgentT(storage, in, fold::Sum{}, fold_test::IndexMix{}).ConsumeRange(begin, end);
  if (threadIdx.x == 0)
  {
    *out = result;
  }
}

template <typename T>
std::uint32_t expected_sum(const std::vector<T>& values, OffsetT base, OffsetT begin, OffsetT end)
{
  std::uint32_t sum = 0;
  for (OffsetT i = begin; i < end; ++i)
  {
    sum += fold_test::IndexMix{}(values[base + i], i);
  }
  return sum;
}

template <int BlockThreads, int ItemsPerThread, int VectorItems, typename T>
void check_pointer_input(OffsetT misalignment)
{
  constexpr int tile = BlockThreads * ItemsPerThread;
  INFO("type bytes " << sizeof(T) << ", vector items " << VectorItems << ", misaligned by " << misalignment);
  const auto values = fold_test::random_values<T>(12 * tile + 64, 99, fold_test::Values::full_range);
  fold_test::DeviceBuffer<T> d_in(values);
  fold_test::DeviceBuffer<std::uint32_t> d_out(1);
  for (OffsetT first_tile : {0, 3})
  {
    for (OffsetT length : {1, 17, tile - 1, tile, tile + 1, 2 * tile, 5 * tile + 17, 8 * tile})
    {
      INFO("first tile " << first_tile << ", length " << length);
      const OffsetT begin = first_tile * tile, end = begin + length;
      d_out.poison();
      agent_kernel<BlockThreads, ItemsPerThread, VectorItems>
          <<<1, BlockThreads>>>(static_cast<const T*>(d_in.get() + misalignment), d_out.get(), begin, end);
      CUDA_REQUIRE(cudaGetLastError());
      CUDA_REQUIRE(cudaDeviceSynchronize());
      REQUIRE(d_out.front() == expected_sum(values, misalignment, begin, end));
    }
  }
}
} // namespace

TEST_CASE("AgentReduce with vector loads from aligned pointers", "[agent]")
{
  check_pointer_input<64, 8, 4, std::uint32_t>(0);
  check_pointer_input<128, 32, 16, std::uint8_t>(0);
  check_pointer_input<32, 4, 2, std::uint64_t>(0);
  check_pointer_input<256, 16, 8, std::uint16_t>(0);
}

TEST_CASE("AgentReduce falls back to plain loads from misaligned pointers", "[agent]")
{
  check_pointer_input<64, 8, 4, std::uint32_t>(1);
  check_pointer_input<128, 32, 16, std::uint8_t>(3);
  check_pointer_input<32, 4, 2, std::uint64_t>(1);
}

TEST_CASE("AgentReduce with plain loads", "[agent]")
{
  check_pointer_input<64, 5, 1, std::uint32_t>(0);
  check_pointer_input<96, 3, 1, std::int16_t>(1);
}

TEST_CASE("AgentReduce reads iterators", "[agent]")
{
  constexpr int threads = 128, items = 4, tile = threads * items;
  fold_test::DeviceBuffer<std::uint32_t> d_out(1);
  const OffsetT base = 1ull << 33; // indices beyond 32 bits
  for (OffsetT length : {1, tile - 1, tile, 7 * tile + 5})
  {
    INFO("length " << length);
    d_out.poison();
    agent_kernel<threads, items, 1>
        <<<1, threads>>>(thrust::counting_iterator<std::uint64_t>(0), d_out.get(), base, base + length);
    CUDA_REQUIRE(cudaGetLastError());
    CUDA_REQUIRE(cudaDeviceSynchronize());
    std::uint32_t expected = 0;
    for (OffsetT i = base; i < base + length; ++i)
    {
      expected += fold_test::IndexMix{}(i, i);
    }
    REQUIRE(d_out.front() == expected);
  }
}

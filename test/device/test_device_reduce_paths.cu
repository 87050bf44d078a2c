// SPDX-License-Identifier: Apache-2.0
// The kernel paths, forced through the dispatch's test hook: single tile, single pass and two passes, at several
// grid sizes. Every path must be right; single-pass and two-pass must agree bit for bit (the last block reduces
// the partials exactly as pass 2 does); the single-pass ticket must work in storage full of garbage and over
// many calls back to back on one storage.
#include <fold/device/device_reduce.cuh>

#include "device_test_util.cuh"
#include "test_util.cuh"

#include <cstdint>
#include <cstring>
#include <vector>

namespace
{
using fold::detail::ReducePath;

using ForcePath = fold_test::ForceDispatch;

template <typename T>
T sum_with(ReducePath path, int max_grid, const T* d_in, std::size_t n)
{
  ForcePath force(path, max_grid);
  fold_test::DeviceBuffer<T> d_out(1);
  d_out.poison();
  fold_test::two_call([&](void* temp, std::size_t& bytes)
                      { return fold::DeviceReduce::Sum(temp, bytes, d_in, d_out.get(), n, 0, fold_test::forced); });
  return d_out.front();
}
} // namespace

TEST_CASE("Every path and grid gives the exact integer sum", "[device][paths]")
{
  for (std::size_t n :
       {std::size_t{1}, std::size_t{1000}, std::size_t{4097}, std::size_t{1'000'003}, std::size_t{1} << 24})
  {
    const auto values = fold_test::random_values<std::uint32_t>(n, n, fold_test::Values::full_range);
    fold_test::DeviceBuffer<std::uint32_t> d_in(values);
    std::uint32_t expected = 0;
    for (auto v : values)
      expected += v;
    for (ReducePath path :
         {ReducePath::automatic, ReducePath::single_tile, ReducePath::single_pass, ReducePath::two_pass})
    {
      for (int max_grid : {0, 1, 2, 3, 7, 100, 1000, 100000})
      {
        if (path == ReducePath::single_tile && (max_grid != 0 || n > (1u << 22)))
        {
          continue; // one block, no grid; and slow for large inputs
        }
        INFO("n " << n << ", path " << static_cast<int>(path) << ", max grid " << max_grid);
        CHECK(sum_with(path, max_grid, d_in.get(), n) == expected);
      }
    }
  }
}

TEST_CASE("Single-pass and two-pass float sums are bitwise identical at every grid size", "[device][paths]")
{
  for (std::size_t n : {std::size_t{5000}, std::size_t{1'234'567}, std::size_t{1} << 25})
  {
    const auto values = fold_test::random_values<float>(n, n + 1, fold_test::Values::full_range);
    fold_test::DeviceBuffer<float> d_in(values);
    for (int max_grid : {0, 1, 5, 64, 132, 1000})
    {
      INFO("n " << n << ", max grid " << max_grid);
      const float single = sum_with(ReducePath::single_pass, max_grid, d_in.get(), n);
      const float two    = sum_with(ReducePath::two_pass, max_grid, d_in.get(), n);
      CHECK(fold_test::same_bits(single, two));
      // And the default dispatch, run again, gives the same bits as before.
      CHECK(fold_test::same_bits(sum_with(ReducePath::automatic, max_grid, d_in.get(), n),
                                 sum_with(ReducePath::automatic, max_grid, d_in.get(), n)));
    }
  }
}

TEST_CASE("Single-pass ArgMax: first occurrence at every grid size", "[device][paths]")
{
  const std::size_t n = 3'000'017;
  const auto values   = fold_test::random_values<__half>(n, 9, fold_test::Values::few);
  fold_test::DeviceBuffer<__half> d_in(values);
  std::size_t expected = 0;
  for (std::size_t i = 1; i < n; ++i)
  {
    if (static_cast<float>(values[expected]) < static_cast<float>(values[i]))
      expected = i;
  }
  for (ReducePath path : {ReducePath::single_pass, ReducePath::two_pass})
  {
    for (int max_grid : {0, 1, 3, 77, 5000})
    {
      INFO("path " << static_cast<int>(path) << ", max grid " << max_grid);
      ForcePath force(path, max_grid);
      fold_test::DeviceBuffer<__half> d_max(1);
      fold_test::DeviceBuffer<std::int64_t> d_index(1);
      d_index.poison();
      fold_test::two_call(
          [&](void* temp, std::size_t& bytes) {
            return fold::DeviceReduce::ArgMax(
                temp, bytes, d_in.get(), d_max.get(), d_index.get(), n, 0, fold_test::forced);
          });
      CHECK(d_index.front() == static_cast<std::int64_t>(expected));
    }
  }
}

TEST_CASE("The single-pass ticket works in garbage-filled storage and over many calls on one storage",
          "[device][paths]")
{
  const std::size_t n = 1 << 20;
  const int calls     = 1000;
  const auto values   = fold_test::random_values<std::uint32_t>(n, 5, fold_test::Values::full_range);
  fold_test::DeviceBuffer<std::uint32_t> d_in(values);
  std::uint32_t expected = 0;
  for (auto v : values)
    expected += v;

  std::size_t bytes = 0;
  CUDA_REQUIRE(fold::DeviceReduce::Sum(nullptr, bytes, d_in.get(), static_cast<std::uint32_t*>(nullptr), n));
  fold_test::DeviceBuffer<std::uint64_t> d_temp((bytes + 7) / 8);
  for (std::uint64_t garbage : {0ull, ~0ull, 0x0123456789ABCDEFull, 0xFFFFFF0000000001ull})
  {
    INFO("storage filled with " << std::hex << garbage);
    CUDA_REQUIRE(cudaMemcpy(d_temp.get(),
                            std::vector<std::uint64_t>(d_temp.size(), garbage).data(),
                            d_temp.size() * 8,
                            cudaMemcpyHostToDevice));
    fold_test::DeviceBuffer<std::uint32_t> d_out(calls);
    d_out.poison();
    for (int c = 0; c < calls; ++c) // back to back, one storage, no synchronisation in between
    {
      CUDA_REQUIRE(fold::DeviceReduce::Sum(d_temp.get(), bytes, d_in.get(), d_out.get() + c, n));
    }
    CUDA_REQUIRE(cudaDeviceSynchronize());
    const auto out = d_out.to_host();
    int wrong      = 0;
    for (auto v : out)
      wrong += v != expected;
    CHECK(wrong == 0);
  }
}

// SPDX-License-Identifier: Apache-2.0
// AgentReduce's winner-first fold of ArgMin, ArgMax and ArgMinMax over 1- and 2-byte items (fold/detail/tile_fold.cuh),
// one block over one range: ranges of fewer than `TileFold::min_deferred_tiles` full tiles (4 for ArgMin and ArgMax, 2
// for ArgMinMax) search each winning tile for its index; longer ones leave the index for the end and load the winning
// tile again (`ConsumeTilesDeferred`). Both must give the first extreme of the range, as the host finds it (its index,
// and its rank above it): with random items, ties everywhere, one value everywhere, the extreme planted in several
// tiles and in the partial tile, or only in the partial tile, zeros of both signs (at random, and side by side in one
// slot) and NaNs.
#include <fold/agent/agent_reduce.cuh>
#include <fold/detail/extremum.cuh>
#include <fold/detail/fused.cuh>

#include "test_util.cuh"

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace
{
using OffsetT = std::uint64_t;

//! The tile DeviceReduce gives packed pairs of 1- and 2-byte items: 256 threads, 64 bytes a thread, 16-byte slots.
template <typename T>
constexpr int items_per_thread = 64 / static_cast<int>(sizeof(T));
template <typename T>
constexpr int vector_items = 16 / static_cast<int>(sizeof(T));
template <typename T>
constexpr int tile_items = 256 * items_per_thread<T>;

template <typename T, typename OpT, typename TransformT, typename AccumT>
__global__ void arg_agent_kernel(const T* in, AccumT* out, OffsetT begin, OffsetT end)
{
  using AgentT = fold::AgentReduce<256,
                                   items_per_thread<T>,
                                   vector_items<T>,
                                   fold::BlockReduceAlgorithm::warp_reductions,
                                   const T*,
                                   AccumT,
                                   OffsetT,
                                   OpT,
                                   TransformT>;
  __shared__ typename AgentT::TempStorage storage;
  const AccumT result = AgentT(storage, in, OpT{}, TransformT{}).ConsumeRange(begin, end);
  if (threadIdx.x == 0)
  {
    *out = result;
  }
}

enum class Arrangement
{
  random,     //!< every value of the type (floats in [-1000, 1000))
  few,        //!< five values: ties in every tile
  constant,   //!< one value: the first item wins
  planted,    //!< few values, each extreme planted in three full tiles, late ones first, and once in the partial tile
  tail,       //!< few values, with each extreme only in the last two items (the partial tile of a range ending there)
  zeros,      //!< floats: negative numbers with -0.0 and +0.0 planted
  tile_zeros, //!< floats: negative numbers; two -0.0 in one slot of tile 3, -0.0 then +0.0 in one slot of tile 5,
              //!< +0.0 in tile 7 (ArgMax: the +0.0 of tile 5; ArgMin: the first -0.0 of tile 3)
  nans,       //!< floats: NaNs of both signs planted
};

template <typename T>
std::vector<T> arranged(Arrangement a, std::size_t n, std::uint64_t seed)
{
  if (a == Arrangement::random)
  {
    return fold_test::random_values<T>(n, seed, fold_test::Values::full_range);
  }
  fold_test::Random random{seed};
  std::vector<T> values(n);
  for (auto& v : values)
  {
    const double x = a == Arrangement::constant ? 7.0
                     : a == Arrangement::zeros || a == Arrangement::tile_zeros || a == Arrangement::nans
                         ? -static_cast<double>(random.between(1, 9)) / 8
                         : static_cast<double>(random.between(10, 14));
    v              = fold_test::from_double<T>(x);
  }
  auto plant             = [&](std::size_t i, double v) { values[i % n] = fold_test::from_double<T>(v); };
  const std::size_t tile = tile_items<T>;
  if (a == Arrangement::planted)
  {
    for (std::size_t t : {5, 2, 4})
    {
      plant(t * tile + static_cast<std::size_t>(random.between(0, static_cast<std::int64_t>(tile) - 1)), 30.0);
      plant(t * tile + static_cast<std::size_t>(random.between(0, static_cast<std::int64_t>(tile) - 1)), 1.0);
    }
  }
  if (a == Arrangement::planted || a == Arrangement::tail)
  {
    plant(n - 1, 30.0);
    plant(n - 2, 1.0);
  }
  if constexpr (fold::is_floating_v<T>)
  {
    if (a == Arrangement::zeros)
    {
      for (int copy = 0; copy < 3; ++copy)
      {
        plant(static_cast<std::size_t>(random.between(0, static_cast<std::int64_t>(n) - 1)), -0.0);
        plant(static_cast<std::size_t>(random.between(0, static_cast<std::int64_t>(n) - 1)), 0.0);
      }
    }
    if (a == Arrangement::tile_zeros)
    {
      plant(3 * tile + 40, -0.0);
      plant(3 * tile + 41, -0.0);
      plant(5 * tile + 100, -0.0);
      plant(5 * tile + 101, 0.0);
      plant(7 * tile + 9, 0.0);
    }
    if (a == Arrangement::nans)
    {
      plant(static_cast<std::size_t>(random.between(0, static_cast<std::int64_t>(n) - 1)),
            -std::numeric_limits<double>::quiet_NaN());
      plant(static_cast<std::size_t>(random.between(0, static_cast<std::int64_t>(n) - 1)),
            std::numeric_limits<double>::quiet_NaN());
    }
  }
  return values;
}

//! The index of the first item of `[begin, end)` that comes first in fold's order (NaN first, +0.0 above -0.0).
template <bool ForMax, typename T>
std::int64_t first_extreme(const std::vector<T>& values, OffsetT begin, OffsetT end)
{
  OffsetT best = begin;
  for (OffsetT i = begin + 1; i < end; ++i)
  {
    if (ForMax ? fold::detail::max_before(values[i], values[best]) : fold::detail::min_before(values[i], values[best]))
    {
      best = i;
    }
  }
  return static_cast<std::int64_t>(best);
}

//! Checks the packed pair `packed` against the host: the index of the first extreme of `[begin, end)`, and that
//! item's rank above it.
template <bool ForMax, typename T>
void check_pair(std::uint64_t packed, const std::vector<T>& values, OffsetT begin, OffsetT end)
{
  using Reduction             = fold::detail::PackedArgReduction<T, ForMax>;
  const std::int64_t expected = first_extreme<ForMax>(values, begin, end);
  INFO((ForMax ? "ArgMax" : "ArgMin") << ", expected index " << expected);
  CHECK(Reduction::unpack(packed).key == expected);
  const auto rank = Reduction::rank(typename Reduction::Values{}(values[static_cast<std::size_t>(expected)]));
  CHECK(static_cast<std::uint32_t>(packed >> 32) == rank);
}

template <typename T>
void check_arg_agent()
{
  using fold::detail::Fused;
  using fold::detail::PackArg;
  using fold::detail::PackedArgMax;
  using Both             = Fused<std::uint64_t, std::uint64_t>;
  const std::size_t tile = tile_items<T>;
  std::vector<Arrangement> arrangements{
      Arrangement::random, Arrangement::few, Arrangement::constant, Arrangement::planted, Arrangement::tail};
  if constexpr (fold::is_floating_v<T>)
  {
    arrangements.push_back(Arrangement::zeros);
    arrangements.push_back(Arrangement::tile_zeros);
    arrangements.push_back(Arrangement::nans);
  }
  const std::size_t n = 16 * tile + 300;
  fold_test::DeviceBuffer<std::uint64_t> d_one(1);
  fold_test::DeviceBuffer<Both> d_both(1);
  for (Arrangement a : arrangements)
  {
    for (std::uint64_t seed = 0; seed < 2; ++seed)
    {
      const auto values = arranged<T>(a, n, 17 * static_cast<std::uint64_t>(a) + seed);
      fold_test::DeviceBuffer<T> d_in(values);
      // 1 full tile and a partial one (searched tile by tile); 2 and 3 (ArgMinMax deferred, ArgMin and ArgMax
      // searched); 4, 6 and 9 full tiles, with and without a partial one (all deferred); ranges from tile 0 and from
      // tile 2, and one ending at the last item.
      for (OffsetT begin : {OffsetT{0}, OffsetT{2 * tile}})
      {
        for (OffsetT length : {tile + 5,
                               2 * tile + 3,
                               3 * tile + 17,
                               4 * tile,
                               4 * tile + 1,
                               6 * tile + 255,
                               9 * tile + tile - 1,
                               n - begin})
        {
          const OffsetT end = begin + length;
          INFO("arrangement " << static_cast<int>(a) << ", seed " << seed << ", range [" << begin << ", " << end
                              << "), tile " << tile);
          d_one.poison();
          arg_agent_kernel<T, PackedArgMax, PackArg<T, false>><<<1, 256>>>(d_in.get(), d_one.get(), begin, end);
          CUDA_REQUIRE(cudaGetLastError());
          CUDA_REQUIRE(cudaDeviceSynchronize());
          check_pair<false>(d_one.front(), values, begin, end);
          d_one.poison();
          arg_agent_kernel<T, PackedArgMax, PackArg<T, true>><<<1, 256>>>(d_in.get(), d_one.get(), begin, end);
          CUDA_REQUIRE(cudaGetLastError());
          CUDA_REQUIRE(cudaDeviceSynchronize());
          check_pair<true>(d_one.front(), values, begin, end);
          d_both.poison();
          arg_agent_kernel<T, Fused<PackedArgMax, PackedArgMax>, Fused<PackArg<T, false>, PackArg<T, true>>>
              <<<1, 256>>>(d_in.get(), d_both.get(), begin, end);
          CUDA_REQUIRE(cudaGetLastError());
          CUDA_REQUIRE(cudaDeviceSynchronize());
          const Both both = d_both.front();
          check_pair<false>(both.first, values, begin, end);
          check_pair<true>(both.second, values, begin, end);
        }
      }
    }
  }
}
} // namespace

TEMPLATE_TEST_CASE("AgentReduce's ArgMin, ArgMax and ArgMinMax over 1- and 2-byte items find the first extreme, "
                   "tile by tile and with the index left for the end",
                   "[agent][argmax]",
                   std::int8_t,
                   std::uint8_t,
                   std::int16_t,
                   __half,
                   __nv_bfloat16)
{
  check_arg_agent<TestType>();
}

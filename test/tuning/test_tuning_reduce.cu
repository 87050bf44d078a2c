// SPDX-License-Identifier: Apache-2.0
// The policy chain and its selector (host only).
#include <fold/agent/agent_reduce.cuh>
#include <fold/detail/tile_fold.cuh>
#include <fold/tuning/tuning_reduce.cuh>
#include <fold/util/operators.cuh>

#include "test_util.cuh"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>

namespace
{
bool same_policy(const fold::ReducePolicy& a, const fold::ReducePolicy& b)
{
  return a.block_threads == b.block_threads && a.items_per_thread == b.items_per_thread &&
         a.commutative_items_per_thread == b.commutative_items_per_thread && a.vector_bytes == b.vector_bytes &&
         a.block_algorithm == b.block_algorithm && a.min_blocks_per_sm == b.min_blocks_per_sm &&
         a.oversubscription == b.oversubscription && a.one_wave_max_mib == b.one_wave_max_mib &&
         a.single_pass_blocks_per_sm == b.single_pass_blocks_per_sm && a.max_units == b.max_units;
}
} // namespace

TEST_CASE("the chain has an entry for each of sm_60, sm_70, sm_80, sm_90 and sm_100, in ascending order", "[tuning]")
{
  constexpr auto chain = fold::reduce_policy_chain();
  const int expected[] = {600, 700, 800, 900, 1000};
  REQUIRE(fold::ReducePolicyChain::size == 5);
  for (int i = 0; i < fold::ReducePolicyChain::size; ++i)
  {
    CHECK(chain.entries[i].arch == expected[i]);
  }
}

TEST_CASE("every policy is a valid kernel shape", "[tuning]")
{
  constexpr auto chain = fold::reduce_policy_chain();
  for (const auto& entry : chain.entries)
  {
    INFO("arch " << entry.arch);
    const auto& p = entry.policy;
    CHECK(p.block_threads % 32 == 0);
    CHECK(p.block_threads >= 32);
    CHECK(p.block_threads <= 1024);
    CHECK(p.items_per_thread >= 1);
    CHECK(p.commutative_items_per_thread >= 1);
    CHECK((p.vector_bytes == 4 || p.vector_bytes == 8 || p.vector_bytes == 16));
    CHECK(p.min_blocks_per_sm >= 1);
    CHECK(p.oversubscription >= 1);
    CHECK(p.one_wave_max_mib >= 0);
    CHECK(p.single_pass_blocks_per_sm >= 0);
    CHECK(p.max_units >= 1);
  }
}

TEST_CASE("gpu_to_gpu: every architecture gets the canonical tree and keeps its own launch fields", "[tuning]")
{
  constexpr auto chain = fold::reduce_policy_chain();
  for (const auto& entry : chain.entries)
  {
    INFO("arch " << entry.arch);
    const fold::ReducePolicy own       = entry.policy;
    const fold::ReducePolicy canonical = fold::CanonicalTuning<>::policy(entry.arch);
    CHECK(canonical.block_threads == fold::detail::canonical_tree.block_threads);
    CHECK(canonical.items_per_thread == fold::detail::canonical_tree.items_per_thread);
    CHECK(canonical.commutative_items_per_thread == fold::detail::canonical_tree.commutative_items_per_thread);
    CHECK(canonical.vector_bytes == fold::detail::canonical_tree.vector_bytes);
    CHECK(canonical.block_algorithm == fold::detail::canonical_tree.block_algorithm);
    CHECK(canonical.max_units == fold::detail::canonical_tree.max_units);
    CHECK(canonical.oversubscription == own.oversubscription);
    CHECK(canonical.one_wave_max_mib == own.one_wave_max_mib);
    CHECK(canonical.single_pass_blocks_per_sm == own.single_pass_blocks_per_sm);
    CHECK(canonical.min_blocks_per_sm * canonical.block_threads ==
          std::max(own.min_blocks_per_sm * own.block_threads, canonical.block_threads));
  }
  // And a tuning whose own tile differs gets the canonical one all the same.
  struct Odd
  {
    __host__ __device__ static constexpr fold::ReducePolicy policy(int)
    {
      return {512, 7, 9, 8, fold::BlockReduceAlgorithm::raking, 2, 3, 0, 1, 99};
    }
  };
  constexpr auto odd = fold::CanonicalTuning<Odd>::policy(900);
  CHECK(odd.block_threads == fold::detail::canonical_tree.block_threads);
  CHECK(odd.items_per_thread == fold::detail::canonical_tree.items_per_thread);
  CHECK(odd.commutative_items_per_thread == fold::detail::canonical_tree.commutative_items_per_thread);
  CHECK(odd.min_blocks_per_sm == 4);
  CHECK(odd.max_units == fold::detail::canonical_tree.max_units);
}

TEST_CASE("the selector picks the highest entry not above the architecture", "[tuning]")
{
  constexpr auto chain = fold::reduce_policy_chain();
  struct Case
  {
    int arch;
    int entry;
  };
  const Case cases[] = {{0, 0},
                        {350, 0},
                        {520, 0},
                        {600, 0},
                        {610, 0},
                        {700, 1},
                        {720, 1},
                        {750, 1},
                        {800, 2},
                        {860, 2},
                        {890, 2},
                        {900, 3},
                        {1000, 4},
                        {1030, 4},
                        {1200, 4}};
  for (const Case& c : cases)
  {
    INFO("arch " << c.arch);
    CHECK(same_policy(fold::select_reduce_policy(c.arch), chain.entries[c.entry].policy));
  }
  // The selector is usable in constant expressions (the kernels' __launch_bounds__ need it).
  static_assert(fold::select_reduce_policy(900).block_threads > 0);
}

TEST_CASE("tile shapes keep the bytes per thread (up to the accumulator cap) and split into whole vectors", "[tuning]")
{
  const fold::ReducePolicy p = fold::select_reduce_policy(900);
  const int cap              = fold::detail::max_accumulator_bytes_per_thread / 4; // items of 4-byte accumulators
  for (int bytes : {1, 2, 4, 8, 16, 12, 24})
  {
    for (bool vectorizable : {false, true})
    {
      for (bool commutative : {false, true})
      {
        INFO("item bytes " << bytes << ", vectorizable " << vectorizable << ", commutative " << commutative);
        const fold::detail::TileShape s = fold::detail::make_tile_shape(p, bytes, vectorizable, 4, commutative);
        // The commutative tile differs for 4-byte items only.
        const int items = commutative && bytes == 4 ? p.commutative_items_per_thread : p.items_per_thread;
        CHECK(s.block_threads == p.block_threads);
        CHECK(s.items_per_thread % s.vector_items == 0);
        CHECK(s.tile_items == s.block_threads * s.items_per_thread);
        CHECK(s.items_per_thread >= std::min(items * 4 / bytes, cap));
        CHECK(s.items_per_thread <= std::max(items * 4 / bytes, s.vector_items));
        if (vectorizable && p.vector_bytes % bytes == 0 && p.vector_bytes > bytes)
        {
          CHECK(s.vector_items * bytes == p.vector_bytes);
        }
        else
        {
          CHECK(s.vector_items == 1);
        }
      }
    }
  }
  // Input type decides vectorisation: raw pointers of primitive types only.
  CHECK(fold::detail::reduce_tile_shape<const float*>(900).vector_items == 4);
  CHECK(fold::detail::reduce_tile_shape<const std::int8_t*>(900).vector_items == 16);
  CHECK(fold::detail::reduce_tile_shape<const double*>(900).vector_items == 2);
  CHECK(fold::detail::reduce_tile_shape<__half*>(900).vector_items == 8);
  struct Pair
  {
    float a, b;
  };
  CHECK(fold::detail::reduce_tile_shape<Pair*>(900).vector_items == 1);
  // Wide accumulators cap the items per thread (but never below one vector).
  CHECK(fold::detail::reduce_tile_shape<const std::int8_t*, int>(900).items_per_thread == 64);
  CHECK(fold::detail::reduce_tile_shape<const std::int8_t*, fold::KeyValuePair<std::int64_t, std::int8_t>>(900)
            .items_per_thread == 16);
  CHECK(
      fold::detail::reduce_tile_shape<const double*, fold::KeyValuePair<std::int64_t, double>>(900).items_per_thread ==
      8);
  struct Big
  {
    double v[8];
  };
  CHECK(fold::detail::reduce_tile_shape<const float*, Big>(900).items_per_thread == 4);
}

TEST_CASE("DeviceReduce's commutative operators get the commutative tile, all others the contiguous-run tile",
          "[tuning]")
{
  const fold::ReducePolicy p = fold::select_reduce_policy(900);
  struct Ordered
  {
    __host__ __device__ float operator()(float a, float b) const { return a - b; }
  };
  using Commutative = decltype(fold::commutative(Ordered{}));
  CHECK(fold::detail::reduce_tile_shape<const float*, float, fold::DefaultTuning, fold::Sum>(900).items_per_thread ==
        p.commutative_items_per_thread);
  CHECK(fold::detail::reduce_tile_shape<const float*, float, fold::DefaultTuning, Commutative>(900).items_per_thread ==
        p.commutative_items_per_thread);
  CHECK(fold::detail::reduce_tile_shape<const float*, float, fold::DefaultTuning, Ordered>(900).items_per_thread ==
        p.items_per_thread);
  CHECK(fold::detail::reduce_tile_shape<const float*, float>(900).items_per_thread == p.items_per_thread);
  // The accumulator cap binds the commutative tile as well: 16 pairs of 16 bytes.
  CHECK(fold::detail::
            reduce_tile_shape<const float*, fold::KeyValuePair<std::int64_t, float>, fold::DefaultTuning, fold::ArgMax>(
                900)
                .items_per_thread == 16);
  // Other item sizes keep the order-preserving tile: 64 int8, 32 __half, 8 double.
  CHECK(
      fold::detail::reduce_tile_shape<const std::int8_t*, int, fold::DefaultTuning, fold::Sum>(900).items_per_thread ==
      64);
  CHECK(fold::detail::reduce_tile_shape<const __half*, float, fold::DefaultTuning, fold::Sum>(900).items_per_thread ==
        32);
  CHECK(fold::detail::reduce_tile_shape<const double*, double, fold::DefaultTuning, fold::Sum>(900).items_per_thread ==
        8);
  // gpu_to_gpu's tree is the same for both classes.
  CHECK(fold::detail::reduce_tile_shape<const float*, float, fold::CanonicalTuning<>, fold::Sum>(900).tile_items ==
        fold::detail::reduce_tile_shape<const float*, float, fold::CanonicalTuning<>, Ordered>(900).tile_items);
}

TEST_CASE("the short tile holds 16 items a thread of up to 4 bytes, and is shorter for 1-, 2- and 4-byte items only",
          "[tuning]")
{
  using fold::detail::reduce_tile_shape;
  using fold::detail::short_tile_is_shorter;
  using fold::detail::ShortTileTuning;
  using Short1 = ShortTileTuning<fold::DefaultTuning, 1>;
  using Short2 = ShortTileTuning<fold::DefaultTuning, 2>;
  using Short4 = ShortTileTuning<fold::DefaultTuning, 4>;
  using Short8 = ShortTileTuning<fold::DefaultTuning, 8>;
  // sm_90: 4096 items of 1, 2 or 4 bytes (one, two or four 16-byte vectors a thread), against 16384, 8192 and 8192.
  CHECK(reduce_tile_shape<const std::int8_t*, int, Short1, fold::Sum>(900).tile_items == 4096);
  CHECK(reduce_tile_shape<const std::int16_t*, int, Short2, fold::Sum>(900).tile_items == 4096);
  CHECK(reduce_tile_shape<const float*, float, Short4, fold::Min>(900).tile_items == 4096);
  CHECK(reduce_tile_shape<const std::int8_t*, int, fold::DefaultTuning, fold::Sum>(900).tile_items == 16384);
  CHECK(reduce_tile_shape<const float*, float, fold::DefaultTuning, fold::Min>(900).tile_items == 8192);
  // 8-byte items keep their tile, so no second kernel is compiled for them.
  CHECK(reduce_tile_shape<const double*, double, Short8, fold::Min>(900).tile_items ==
        reduce_tile_shape<const double*, double, fold::DefaultTuning, fold::Min>(900).tile_items);
  STATIC_REQUIRE(short_tile_is_shorter<const std::int8_t*, int, fold::Sum, fold::DefaultTuning>());
  STATIC_REQUIRE(short_tile_is_shorter<const __half*, float, fold::Min, fold::DefaultTuning>());
  STATIC_REQUIRE(short_tile_is_shorter<const int*, int, fold::Sum, fold::DefaultTuning>());
  STATIC_REQUIRE(!short_tile_is_shorter<const double*, double, fold::Min, fold::DefaultTuning>());
  STATIC_REQUIRE(!short_tile_is_shorter<const std::int64_t*, std::int64_t, fold::Sum, fold::DefaultTuning>());
  // gpu_to_gpu's 4-byte tile is already the short one.
  STATIC_REQUIRE(!short_tile_is_shorter<const int*, int, fold::Sum, fold::CanonicalTuning<>>());
}

TEST_CASE("an exact reduction's pass 2 folds its partials in half the policy's items a thread", "[tuning]")
{
  using fold::detail::PartialsTuning;
  using fold::detail::reduce_tile_shape;
  using Partials = PartialsTuning<fold::DefaultTuning>;
  constexpr auto chain = fold::reduce_policy_chain();
  for (const auto& entry : chain.entries)
  {
    INFO("arch " << entry.arch);
    const fold::ReducePolicy& policy  = entry.policy;
    const fold::ReducePolicy partials = Partials::policy(entry.arch);
    CHECK(partials.items_per_thread == policy.items_per_thread / 2);
    CHECK(partials.commutative_items_per_thread == policy.items_per_thread / 2);
    CHECK(partials.block_threads == policy.block_threads);
    CHECK(partials.min_blocks_per_sm == policy.min_blocks_per_sm);
  }
  // sm_90: 2048 float partials of Min (8192 in the policy's commutative tile), 1024 of double.
  CHECK(reduce_tile_shape<float*, float, Partials, fold::Min>(900).tile_items == 2048);
  CHECK(reduce_tile_shape<float*, float, fold::DefaultTuning, fold::Min>(900).tile_items == 8192);
  CHECK(reduce_tile_shape<double*, double, Partials, fold::Min>(900).tile_items == 1024);
}

namespace
{
//! A user operator fold is not told is commutative: the order-preserving tile.
using Plus = fold_test::OrderedPlus;

//! What `max_units_of` must give: the policy's units over the divisor, at most two tiles of pass 2's partials.
template <typename ReductionOpT, typename AccumT>
int expected_units(const fold::ReducePolicy& p, int divisor = 1)
{
  const int partial_tile = fold::detail::tile_shape_of<AccumT*, AccumT, ReductionOpT>(p).tile_items;
  return std::min(p.max_units / divisor, 2 * partial_tile);
}
} // namespace

TEST_CASE("inexact reductions are cut into no more units than two tiles of their partials hold", "[tuning]")
{
  using fold::detail::max_units_of;
  using Moments = fold::detail::Moments<float>;
  // sm_90: a float sum keeps the policy's 16384 (two tiles of 8192 partials); a double sum 4096 (two of 2048); an
  // order-preserving float reduction 8192 (its tile: 16 items a thread); VarMean its own 1024.
  const fold::ReducePolicy sm90 = fold::select_reduce_policy(900);
  REQUIRE(sm90.max_units == 16384);
  CHECK(max_units_of<fold::Sum, float>(sm90) == 16384);
  CHECK(max_units_of<fold::Sum, double>(sm90) == 4096);
  CHECK(max_units_of<Plus, float>(sm90) == 8192);
  CHECK(max_units_of<Plus, double>(sm90) == 4096);
  CHECK(max_units_of<fold::detail::MergeMoments, Moments>(sm90) == 1024);
  // Every policy of the chain, and the canonical tree on every architecture (the same there, whatever the arch).
  constexpr auto chain = fold::reduce_policy_chain();
  for (const auto& entry : chain.entries)
  {
    INFO("arch " << entry.arch);
    for (const fold::ReducePolicy& p : {entry.policy, fold::CanonicalTuning<>::policy(entry.arch)})
    {
      CHECK(max_units_of<fold::Sum, float>(p) == expected_units<fold::Sum, float>(p));
      CHECK(max_units_of<fold::Sum, double>(p) == expected_units<fold::Sum, double>(p));
      CHECK(max_units_of<Plus, float>(p) == expected_units<Plus, float>(p));
      CHECK(max_units_of<fold::detail::MergeMoments, Moments>(p) ==
            expected_units<fold::detail::MergeMoments, Moments>(p, 16));
    }
    const fold::ReducePolicy canonical   = fold::CanonicalTuning<>::policy(entry.arch);
    const fold::ReducePolicy canonical90 = fold::CanonicalTuning<>::policy(900);
    CHECK(max_units_of<fold::Sum, double>(canonical) == max_units_of<fold::Sum, double>(canonical90));
    CHECK(max_units_of<fold::Sum, float>(canonical) == max_units_of<fold::Sum, float>(canonical90));
  }
}

TEST_CASE("beyond max_unit_tiles tiles a unit, large inexact reductions get more units, up to the policy's", "[tuning]")
{
  using fold::detail::max_units_of;
  const fold::ReducePolicy sm90 = fold::select_reduce_policy(900);
  REQUIRE(fold::detail::max_unit_tiles == 16);
  // Up to 16 tiles a unit within two tiles of partials: the cap alone, whatever the tile count.
  for (std::uint64_t tiles : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{65536}})
  {
    INFO("tiles " << tiles);
    CHECK(max_units_of<fold::Sum, double>(sm90, tiles) == 4096);
    CHECK(max_units_of<Plus, float>(sm90, tiles) == 8192);
  }
  CHECK(max_units_of<Plus, float>(sm90, 131072) == 8192);
  // Beyond: units of 16 tiles (the last one partly), up to the policy's 16384.
  CHECK(max_units_of<fold::Sum, double>(sm90, 65537) == 4097);
  CHECK(max_units_of<fold::Sum, double>(sm90, 131072) == 8192);
  CHECK(max_units_of<Plus, float>(sm90, 131073) == 8193);
  CHECK(max_units_of<Plus, float>(sm90, 262144) == 16384);
  CHECK(max_units_of<Plus, double>(sm90, 524288) == 16384);
  CHECK(max_units_of<fold::Sum, float>(sm90, std::uint64_t{1} << 40) == 16384);
  // VarMean's 1024 is below its partials' two tiles already: the tile count never raises it.
  CHECK(max_units_of<fold::detail::MergeMoments, fold::detail::Moments<float>>(sm90, std::uint64_t{1} << 40) == 1024);
}

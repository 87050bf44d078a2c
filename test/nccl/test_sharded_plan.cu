// SPDX-License-Identifier: Apache-2.0
// The sharded plan without a GPU: Shards, the granule (the single-GPU plan's unit), and where each rank's partials
// go. On whole granules the ranks' partials are the single-GPU plan's partials, one for one.
#include <fold/dispatch/dispatch_reduce_distributed.cuh>

#include "test_util.cuh"

#include <cstdint>
#include <vector>

using fold::nccl::Shards;

TEST_CASE("Shards: offsets, validity, even splits on a granule", "[sharded][plan]")
{
  const Shards shards{{5, 0, 7}};
  REQUIRE(shards.valid());
  CHECK(shards.ranks() == 3);
  CHECK(shards.total() == 12);
  CHECK(shards.offset(2) == 5);
  CHECK(shards.count(1) == 0);
  CHECK_FALSE(Shards{}.valid());
  CHECK_FALSE(Shards{{1, -1}}.valid());
  CHECK_FALSE(Shards{{INT64_MAX, 1}}.valid());
  CHECK_FALSE(Shards::even(10, 0).valid());

  for (const std::int64_t total : {0, 1, 100, 8191, 8192, 3'000'017})
  {
    for (const int ranks : {1, 2, 3, 7, 64})
    {
      const Shards even = Shards::even(total, ranks, 8192);
      REQUIRE(even.ranks() == ranks);
      CHECK(even.total() == total);
      for (int r = 0; r + 1 < ranks; ++r)
      {
        CHECK(even.count(r) % 8192 == 0);
      }
    }
  }
  CHECK(Shards::even(10, 4) == Shards{{3, 3, 3, 1}});
  CHECK(Shards::even(3'000'017, 64, 8192).count(0) == 49152);
}

TEST_CASE("granule: the single-GPU unit, a function of the total", "[sharded][plan]")
{
  using fold::detail::sharded_unit_items;
  // float sums on sm_90: 256 threads x 32 items.
  const auto shape = fold::detail::make_tile_shape(fold::select_reduce_policy(900), 4, true, 4, true);
  REQUIRE(shape.tile_items == 8192);
  CHECK(sharded_unit_items(0, shape, 16384) == 8192);
  CHECK(sharded_unit_items(8192, shape, 16384) == 8192);
  CHECK(sharded_unit_items(std::int64_t{16384} * 8192, shape, 16384) == 8192);
  CHECK(sharded_unit_items(std::int64_t{16384} * 8192 + 1, shape, 16384) == 16384);
  CHECK(sharded_unit_items(std::int64_t{1} << 40, shape, 16384) == std::int64_t{1} << 26);
}

TEST_CASE("plan: on whole granules the ranks' partials are the single-GPU partials", "[sharded][plan]")
{
  const int tile = 8192;
  for (const std::int64_t total : {std::int64_t{1}, std::int64_t{3'000'017}, (std::int64_t{1} << 28) + 5})
  {
    const std::int64_t unit =
        total <= tile ? tile
                      : static_cast<std::int64_t>(fold::detail::make_reduce_plan<std::uint64_t>(
                                                      static_cast<std::uint64_t>(total), tile, 1024, 16384, 1, 0, 4, 4)
                                                      .share.grain_items);
    const auto single = fold::detail::make_reduce_plan<std::uint64_t>(
        static_cast<std::uint64_t>(total), tile, 1024, 16384, 1000, 0, 4, 4);
    const std::int64_t single_partials = total <= tile ? 1 : static_cast<std::int64_t>(single.partials);
    for (const int ranks : {1, 2, 5, 64})
    {
      const Shards shards = Shards::even(total, ranks, unit);
      const auto plan =
          fold::detail::make_sharded_plan(shards, 0, fold::detail::every_rank, unit, sizeof(float), alignof(float), 0);
      INFO(total << " items, " << ranks << " ranks");
      CHECK(plan.partials == single_partials);
      for (int r = 0; r < ranks; ++r)
      {
        CHECK(plan.first_of(shards, r) == shards.offset(r) / unit); // rank r's first unit is the whole's
      }
      CHECK(plan.temp_storage_bytes > 0);
    }
  }
}

TEST_CASE("plan: slots, compaction and the gather to a root", "[sharded][plan]")
{
  const Shards shards{{20, 0, 35, 10}}; // units of 10: 2, 0, 4, 1 partials
  const auto all = fold::detail::make_sharded_plan(shards, 1, fold::detail::every_rank, 10, 8, 8, 0);
  CHECK(all.slot == 4);
  CHECK(all.partials == 7);
  CHECK(all.compact); // ranks 0 and 1 have fewer partials than the slot
  CHECK(all.gathered_at(shards, 2) == 8);
  CHECK(all.compact_offset >= 4 * 4 * 8);
  CHECK(all.local_offset >= all.compact_offset + 7 * 8);

  const auto to_root = fold::detail::make_sharded_plan(shards, 3, 2, 10, 8, 8, 0);
  CHECK_FALSE(to_root.compact);
  CHECK(to_root.gathered_at(shards, 3) == 6);
  const fold::detail::ShardedSpans spans{shards, to_root, 8};
  CHECK(spans.offset(2) == 2 * 8);
  CHECK(spans.bytes(2) == 4 * 8);
  CHECK(spans.bytes(1) == 0);

  // Exact reductions: one partial per rank with items.
  const auto exact = fold::detail::make_sharded_plan(shards, 0, fold::detail::every_rank, 0, 8, 8, 100);
  CHECK(exact.slot == 1);
  CHECK(exact.partials == 3);
  CHECK(exact.compact); // rank 1 is empty
  CHECK(exact.temp_storage_bytes >= exact.local_offset + 100);
  const Shards full{{3, 3, 0}};
  CHECK_FALSE(fold::detail::make_sharded_plan(full, 0, fold::detail::every_rank, 0, 8, 8, 100).compact);
}

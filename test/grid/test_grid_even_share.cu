// SPDX-License-Identifier: Apache-2.0
// GridEvenShare (host only): every tile exactly once, in order, contiguous per block, balanced to one tile.
#include <fold/grid/grid_even_share.cuh>

#include "test_util.cuh"

#include <cstdint>

namespace
{
template <typename OffsetT>
void check_share(OffsetT num_items, int tile_items, int max_grid)
{
  INFO("num_items " << num_items << ", tile " << tile_items << ", max grid " << max_grid);
  const auto share    = fold::GridEvenShare<OffsetT>::make(num_items, tile_items, max_grid);
  const OffsetT tiles = (num_items + (tile_items - 1)) / tile_items; // no overflow for the sizes used here
  REQUIRE(share.total_grains == tiles);
  REQUIRE(share.grid_size == static_cast<int>(tiles < static_cast<OffsetT>(max_grid) ? tiles : max_grid));

  OffsetT expected_begin = 0;
  OffsetT min_tiles = ~OffsetT{0}, max_tiles = 0;
  for (int b = 0; b < share.grid_size; ++b)
  {
    const auto r = share.block_range(b);
    REQUIRE(r.begin == expected_begin);                       // contiguous, in block order: every item exactly once
    REQUIRE(r.end > r.begin);                                 // every block gets work
    REQUIRE(r.begin % static_cast<OffsetT>(tile_items) == 0); // ranges start on tile boundaries
    if (b + 1 < share.grid_size)
    {
      REQUIRE(r.end % static_cast<OffsetT>(tile_items) == 0); // only the last block may end in a partial tile
    }
    const OffsetT block_tiles = (r.end - r.begin + (tile_items - 1)) / tile_items;
    min_tiles                 = block_tiles < min_tiles ? block_tiles : min_tiles;
    max_tiles                 = block_tiles > max_tiles ? block_tiles : max_tiles;
    expected_begin            = r.end;
  }
  REQUIRE(expected_begin == num_items);
  REQUIRE(max_tiles - min_tiles <= 1);
}
} // namespace

TEST_CASE("even share: edge sizes", "[grid]")
{
  for (std::uint32_t n : {1u, 2u, 255u, 256u, 257u, 4095u, 4096u, 4097u, 1u << 20})
  {
    for (int tile : {1, 256, 4096})
    {
      for (int grid : {1, 2, 3, 132, 1056})
      {
        check_share<std::uint32_t>(n, tile, grid);
      }
    }
  }
}

TEST_CASE("even share: random sizes, tiles and grids", "[grid]")
{
  fold_test::Random random{2024};
  for (int i = 0; i < 2000; ++i)
  {
    const auto n    = static_cast<std::uint64_t>(random.between(1, 1ll << 40));
    const auto tile = static_cast<int>(random.between(1, 1 << 14));
    const auto grid = static_cast<int>(random.between(1, 1 << 13));
    if (n / tile > (1u << 26)) // keep the walk over blocks cheap
    {
      continue;
    }
    check_share<std::uint64_t>(n, tile, grid);
  }
}

TEST_CASE("even share: 32-bit offsets near their maximum do not overflow", "[grid]")
{
  const std::uint32_t max = 0xFFFFFFFFu;
  for (std::uint32_t n : {max, max - 1, max - 4095, 0x80000000u})
  {
    const auto share = fold::GridEvenShare<std::uint32_t>::make(n, 4096, 1000);
    REQUIRE(share.block_range(share.grid_size - 1).end == n);
    std::uint64_t covered = 0;
    for (int b = 0; b < share.grid_size; ++b)
    {
      const auto r = share.block_range(b);
      REQUIRE(r.end > r.begin);
      covered += r.end - r.begin;
    }
    REQUIRE(covered == n);
  }
}

// SPDX-License-Identifier: Apache-2.0
//! @file
//! GridEvenShare: splits `num_items` into whole tiles and gives each block of the grid one contiguous range of
//! tiles, the ranges balanced to within one tile. Because every block owns a contiguous slice, in order, a
//! block's partial is the reduction of that slice: the property order-preserving reductions are built on.
#pragma once

#include <fold/util/macros.cuh>

namespace fold
{

//! A half-open range of item offsets `[begin, end)`.
template <typename OffsetT>
struct Range
{
  OffsetT begin;
  OffsetT end;
};

template <typename OffsetT>
struct GridEvenShare
{
  OffsetT num_items   = 0;
  OffsetT tile_items  = 1;
  OffsetT total_tiles = 0;
  int grid_size       = 0; //!< blocks to launch: `min(total_tiles, max_grid_size)`
  OffsetT share       = 0; //!< whole tiles every block gets
  OffsetT extra       = 0; //!< the first `extra` blocks get one tile more

  //! The share of `num_items` items in tiles of `tile_items` over at most `max_grid_size` blocks.
  FOLD_HOST_DEVICE static constexpr GridEvenShare make(OffsetT num_items, int tile_items, int max_grid_size)
  {
    GridEvenShare s{};
    s.num_items   = num_items;
    s.tile_items  = static_cast<OffsetT>(tile_items);
    s.total_tiles = num_items / s.tile_items + (num_items % s.tile_items != 0);
    s.grid_size   = static_cast<OffsetT>(max_grid_size) < s.total_tiles ? max_grid_size : static_cast<int>(s.total_tiles);
    if (s.grid_size > 0)
    {
      s.share = s.total_tiles / static_cast<OffsetT>(s.grid_size);
      s.extra = s.total_tiles % static_cast<OffsetT>(s.grid_size);
    }
    return s;
  }

  //! The items block `block` reduces. Only the last block's range can end in a partial tile.
  FOLD_HOST_DEVICE constexpr Range<OffsetT> block_range(int block) const
  {
    const OffsetT b          = static_cast<OffsetT>(block);
    const OffsetT first_tile = b * share + (b < extra ? b : extra);
    const OffsetT last_tile  = first_tile + share + (b < extra ? 1 : 0); // one past
    // Computed from tile counts so that the end never overflows OffsetT, even for num_items near its maximum.
    const OffsetT end = last_tile == total_tiles ? num_items : last_tile * tile_items;
    return {first_tile * tile_items, end};
  }
};

} // namespace fold

// SPDX-License-Identifier: Apache-2.0
//! @file
//! GridEvenShare: splits `num_items` into grains (whole units of `grain_items`) and gives each block of the grid
//! one contiguous range of grains, the ranges balanced to within one grain. Because every block owns a
//! contiguous slice, in order, a block's partial is the reduction of that slice: the property order-preserving
//! reductions are built on. The dispatch uses a grain of one row of vectors (`TileShape::grain_items`), so that
//! every range starts 16-byte aligned and the blocks of one wave finish together.
#pragma once

#include <fold/util/macros.cuh>

FOLD_NAMESPACE_BEGIN

namespace detail
{
//! A half-open range of item offsets `[begin, end)`.
template <typename OffsetT>
struct Range
{
  OffsetT begin;
  OffsetT end;
};
} // namespace detail

template <typename OffsetT>
struct GridEvenShare
{
  OffsetT num_items    = 0;
  OffsetT grain_items  = 1;
  OffsetT total_grains = 0;
  int grid_size        = 0; //!< blocks to launch: `min(total_grains, max_grid_size)`
  OffsetT share        = 0; //!< whole grains every block gets
  OffsetT extra        = 0; //!< the first `extra` blocks get one grain more

  //! The share of `num_items` items in grains of `grain_items` items over at most `max_grid_size` blocks.
  FOLD_HOST_DEVICE static constexpr GridEvenShare make(OffsetT num_items, OffsetT grain_items, int max_grid_size)
  {
    GridEvenShare s{};
    s.num_items    = num_items;
    s.grain_items  = grain_items;
    s.total_grains = num_items / s.grain_items + (num_items % s.grain_items != 0);
    s.grid_size =
        static_cast<OffsetT>(max_grid_size) < s.total_grains ? max_grid_size : static_cast<int>(s.total_grains);
    if (s.grid_size > 0)
    {
      s.share = s.total_grains / static_cast<OffsetT>(s.grid_size);
      s.extra = s.total_grains % static_cast<OffsetT>(s.grid_size);
    }
    return s;
  }

  //! The grains block `block` reduces, `[first, last)`.
  FOLD_HOST_DEVICE constexpr detail::Range<OffsetT> block_grains(int block) const
  {
    const OffsetT b     = static_cast<OffsetT>(block);
    const OffsetT first = b * share + (b < extra ? b : extra);
    return {first, first + share + (b < extra ? 1 : 0)};
  }

  //! The items of grain `grain`: `grain_items` of them, fewer for the last grain.
  FOLD_HOST_DEVICE constexpr detail::Range<OffsetT> grain_range(OffsetT grain) const
  {
    // Computed from grain counts so that the end never overflows OffsetT, even for num_items near its maximum.
    const OffsetT begin = grain * grain_items;
    return {begin, grain + 1 == total_grains ? num_items : begin + grain_items};
  }

  //! The items block `block` reduces. Only the last block's range can end in a partial grain.
  FOLD_HOST_DEVICE constexpr detail::Range<OffsetT> block_range(int block) const
  {
    const detail::Range<OffsetT> grains = block_grains(block);
    return {grains.begin * grain_items, grain_range(grains.end - 1).end};
  }
};

FOLD_NAMESPACE_END

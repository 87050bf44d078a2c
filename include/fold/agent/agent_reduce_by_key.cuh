// SPDX-License-Identifier: Apache-2.0
//! @file
//! AgentReduceByKey: one thread block reduces one tile of a reduce-by-key, in a single pass over the keys and
//! values.
//!
//! A tile is `BlockThreads x ItemsPerThread` items. Each warp loads its share coalesced into shared memory and
//! reads it back so that thread `t` holds items `t * ItemsPerThread, ...` in order. An item is a run *head* when it is
//! the first item or its key differs (`!equal(previous key, key)`) from the key before it. Each thread folds its items
//! into a `RunPair` (heads, value since the last head); a BlockScan of the pairs in thread order gives each thread the
//! pair of the items before it in the tile. The tile publishes its own pair, and warp 0 asks the look-back
//! (`RunTileState`) for the pair of the tiles before it while every warp walks its items in order: the tile's heads
//! take slots 0, 1, ... in shared memory, each with its key and the value of the run it closes as far as that run
//! lies in the tile. After one barrier the slots leave the block in one coalesced pass, numbered from the heads of
//! the tiles before; slot 0's run, which may have begun in an earlier tile, gets the earlier tiles' value in front
//! of its own, and the thread holding the last item writes the last run's aggregate and the number of runs.
//!
//! The operands of the reduction keep index order everywhere (thread fold, scan, look-back), so the operator need
//! not be commutative, and the grouping depends only on the tile shape: the same values give the same bits on
//! every run.
#pragma once

#include <fold/block/block_scan.cuh>
#include <fold/grid/run_tile_state.cuh>
#include <fold/util/macros.cuh>
#include <fold/util/type_traits.cuh>
#include <fold/util/uninitialized.cuh>

FOLD_NAMESPACE_BEGIN
namespace detail
{

template <int BlockThreads,
          int ItemsPerThread,
          typename KeysInputIteratorT,
          typename UniqueOutputIteratorT,
          typename ValuesInputIteratorT,
          typename AggregatesOutputIteratorT,
          typename NumRunsOutputIteratorT,
          typename EqualityOpT,
          typename ReductionOpT,
          typename AccumT,
          typename OffsetT>
class AgentReduceByKey
{
  static_assert(ItemsPerThread >= 1 && ItemsPerThread <= 32, "AgentReduceByKey: 1 to 32 items per thread");
  using KeyT       = value_t<KeysInputIteratorT>;
  using PairT      = RunPair<OffsetT, AccumT>;
  using ScanT      = BlockScan<PairT, BlockThreads>;
  using TileStateT = RunTileState<OffsetT, AccumT>;
  using NumRunsT   = non_void_value_t<NumRunsOutputIteratorT, OffsetT>;

public:
  static constexpr int tile_items = BlockThreads * ItemsPerThread;

  struct TempStorage
  {
    Uninitialized<KeyT, tile_items> keys;     //!< the tile's keys, then its unique keys
    Uninitialized<AccumT, tile_items> values; //!< the tile's values, then the aggregates its heads close
    typename ScanT::TempStorage scan;
    Uninitialized<PairT, 1> prefix; //!< the pair of the tiles before this one
  };

  FOLD_DEVICE FOLD_FORCEINLINE AgentReduceByKey(TempStorage& storage,
                                                KeysInputIteratorT keys_in,
                                                UniqueOutputIteratorT unique_out,
                                                ValuesInputIteratorT values_in,
                                                AggregatesOutputIteratorT aggregates_out,
                                                NumRunsOutputIteratorT num_runs_out,
                                                EqualityOpT equal,
                                                ReductionOpT op,
                                                OffsetT num_items)
      : storage_(storage)
      , keys_in_(keys_in)
      , unique_out_(unique_out)
      , values_in_(values_in)
      , aggregates_out_(aggregates_out)
      , num_runs_out_(num_runs_out)
      , equal_(equal)
      , op_(op)
      , num_items_(num_items)
  {
  }

  //! Reduces tile `tile` (of `num_tiles`, `num_items > 0`); every thread of the block calls it.
  FOLD_DEVICE FOLD_FORCEINLINE void ConsumeTile(OffsetT tile, OffsetT num_tiles, const TileStateT& state)
  {
    if (tile + 1 == num_tiles)
    {
      ConsumeTile<true>(tile, state);
    }
    else
    {
      ConsumeTile<false>(tile, state);
    }
  }

private:
  //! One tile. `Last`: the call's last tile, which may be partly full and publishes nothing. The others are full
  //! and compiled without a bound check on any item: 3-7 % faster (docs/performance.md, "Groups of 32 tiles").
  template <bool Last>
  FOLD_DEVICE FOLD_FORCEINLINE void ConsumeTile(OffsetT tile, const TileStateT& state)
  {
    const int thread    = static_cast<int>(threadIdx.x);
    const OffsetT base  = tile * static_cast<OffsetT>(tile_items);
    const int tile_size = Last ? static_cast<int>(num_items_ - base) : tile_items;
    // The tile's items, counted from its first: every load below is then a constant offset from one address.
    const KeysInputIteratorT keys_in     = keys_in_ + base;
    const ValuesInputIteratorT values_in = values_in_ + base;

    // Load: each warp its 32 x ItemsPerThread items, coalesced into its part of shared memory, then each lane's run
    // of ItemsPerThread items; no block-wide barrier.
    const int lane       = thread % 32;
    const int warp_first = (thread - lane) * ItemsPerThread;
#pragma unroll
    for (int i = 0; i < ItemsPerThread; ++i)
    {
      const int index = warp_first + i * 32 + lane;
      if (!Last || index < tile_size)
      {
        construct_at(storage_.keys.data() + index, static_cast<KeyT>(keys_in[index]));
        construct_at(storage_.values.data() + index, static_cast<AccumT>(values_in[index]));
      }
    }
    __syncwarp();
    const int first = thread * ItemsPerThread;
    const int valid = !Last                                ? ItemsPerThread // items of this thread
                      : tile_size - first < 0              ? 0
                      : tile_size - first > ItemsPerThread ? ItemsPerThread
                                                           : tile_size - first;
    KeyT keys[ItemsPerThread];
    AccumT values[ItemsPerThread];
#pragma unroll
    for (int i = 0; i < ItemsPerThread; ++i)
    {
      if (i < valid)
      {
        keys[i]   = storage_.keys[first + i];
        values[i] = storage_.values[first + i];
      }
    }
    unsigned heads = 0; // bit i: item i starts a run
    if (valid > 0)
    {
      if (lane > 0)
      {
        heads = !equal_(static_cast<KeyT>(storage_.keys[first - 1]), keys[0]);
      }
      else // the key before is another warp's: read it again from global memory
      {
        heads = (tile == 0 && first == 0) || !equal_(static_cast<KeyT>(keys_in[first - 1]), keys[0]);
      }
    }
#pragma unroll
    for (int i = 1; i < ItemsPerThread; ++i)
    {
      if (i < valid && !equal_(keys[i - 1], keys[i]))
      {
        heads |= 1u << i;
      }
    }

    // This thread's pair, then the pair of the threads before it and of the whole tile.
    // A thread past the last item (last tile only) counts one pretend head, so that the scan never hands its
    // made-up value to the operator; those heads are taken off the tile's count below.
    PairT mine{static_cast<OffsetT>(valid > 0 ? __popc(heads) : 1), valid > 0 ? values[0] : AccumT{}};
#pragma unroll
    for (int i = 1; i < ItemsPerThread; ++i)
    {
      if (i < valid)
      {
        mine.value = (heads >> i) & 1u ? values[i] : static_cast<AccumT>(op_(mine.value, values[i]));
      }
    }
    const RunPairOp<ReductionOpT> pair_op{op_};
    PairT before{};
    PairT tile_pair{};
    ScanT::ExclusiveScan(storage_.scan, mine, before, tile_pair, pair_op);
    // Past the scan's barrier every thread has read its keys and values: their storage takes the tile's runs.

    // The tile's own pair, for the tiles after it. The last tile's is never needed by anyone.
    if (!Last && thread == 0)
    {
      state.publish_aggregate(tile, tile_pair);
    }
    // Walk the items: the tile's heads take slots 0, 1, ... in order, each with its key and the value of the run
    // it closes, as far as that run lies in this tile (slot 0's run began before the tile unless the tile's first
    // item is a head; it gets the tiles before it below). Predicated, not branched.
    int slot     = thread == 0 ? 0 : static_cast<int>(before.heads);
    AccumT value = before.value; // meaningless in thread 0, whose first item starts the fold
#pragma unroll
    for (int i = 0; i < ItemsPerThread; ++i)
    {
      if (i < valid)
      {
        const bool head = (heads >> i) & 1u;
        if (head)
        {
          construct_at(storage_.keys.data() + slot, keys[i]);
          construct_at(storage_.values.data() + slot, value);
        }
        value = head || (i == 0 && thread == 0) ? values[i] : static_cast<AccumT>(op_(value, values[i]));
        slot += head ? 1 : 0;
      }
    }
    // The tiles before this one, asked by warp 0 once its own walk is done (before it, warp 0's keys and values
    // would live across the look-back and spill: 1.18-1.39x cub's time against 0.99-1.14, docs/performance.md),
    // while the other warps walk theirs.
    if (tile > 0 && thread < 32)
    {
      const PairT found = state.exclusive_prefix(tile, tile_pair, Last, op_);
      if (thread == 0)
      {
        construct_at(storage_.prefix.data(), found);
      }
    }
    __syncthreads(); // the runs and the prefix are in shared memory

    PairT prefix{};
    if (tile > 0)
    {
      prefix = storage_.prefix[0];
    }
    const OffsetT tile_first = tile > 0 ? prefix.heads : 0; // heads before the tile
    if (Last && valid > 0 && first + valid == tile_size)
    {
      // This thread holds the call's last item: the last run ends here. It began before the tile when the tile
      // has no head up to here.
      aggregates_out_[tile_first + static_cast<OffsetT>(slot) - 1] =
          slot == 0 ? static_cast<AccumT>(op_(prefix.value, value)) : value;
      *num_runs_out_ = static_cast<NumRunsT>(tile_first + static_cast<OffsetT>(slot));
    }
    const int busy_threads = (tile_size + ItemsPerThread - 1) / ItemsPerThread;
    const int tile_heads   = static_cast<int>(tile_pair.heads) - (BlockThreads - busy_threads);
    int next               = thread;
    if (thread == 0 && tile_heads > 0)
    {
      // Slot 0 closes the run that enters the tile (none in tile 0): its earlier part, then this tile's.
      unique_out_[tile_first] = storage_.keys[0];
      if (tile > 0)
      {
        aggregates_out_[tile_first - 1] =
            heads & 1u ? prefix.value : static_cast<AccumT>(op_(prefix.value, storage_.values[0]));
      }
      next = BlockThreads;
    }
    for (; next < tile_heads; next += BlockThreads)
    {
      const OffsetT run_index        = tile_first + static_cast<OffsetT>(next);
      unique_out_[run_index]         = storage_.keys[next];
      aggregates_out_[run_index - 1] = storage_.values[next];
    }
  }

  TempStorage& storage_;
  KeysInputIteratorT keys_in_;
  UniqueOutputIteratorT unique_out_;
  ValuesInputIteratorT values_in_;
  AggregatesOutputIteratorT aggregates_out_;
  NumRunsOutputIteratorT num_runs_out_;
  EqualityOpT equal_;
  ReductionOpT op_;
  OffsetT num_items_;
};

} // namespace detail
FOLD_NAMESPACE_END

// SPDX-License-Identifier: Apache-2.0
//! @file
//! AgentReduceByKey: one thread block reduces one tile of a reduce-by-key, in a single pass over the keys and
//! values.
//!
//! A tile is `BlockThreads x ItemsPerThread` items. Each warp loads its share coalesced into shared memory and
//! reads it back so that thread `t` holds items `t * ItemsPerThread, ...` in order. An item is a run *head* when it is
//! the first item or its key differs (`!equal(previous key, key)`) from the key before it. Each thread folds its items
//! into a `RunPair` (heads, value since the last head); a BlockScan of the pairs in thread order gives each thread the
//! pair of the items before it in the tile; the tile's look-back (`RunTileState`) gives the pair of the tiles before
//! it. A thread then walks its items in order: at a head with `c` heads before it, the key is unique key `c` and the
//! value carried so far is the aggregate of run `c - 1`. Both go to shared memory and leave the block in one coalesced
//! pass; the thread holding the last item writes the last run's aggregate and the number of runs.
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
    constexpr bool last = Last;
    const int thread    = static_cast<int>(threadIdx.x);
    const OffsetT base  = tile * static_cast<OffsetT>(tile_items);
    const int tile_size = last ? static_cast<int>(num_items_ - base) : tile_items;

    // Load: each warp its 32 x ItemsPerThread items, coalesced into its part of shared memory, then each lane's run
    // of ItemsPerThread items; no block-wide barrier.
    const int lane       = thread % 32;
    const int warp_first = (thread - lane) * ItemsPerThread;
#pragma unroll
    for (int i = 0; i < ItemsPerThread; ++i)
    {
      const int index = warp_first + i * 32 + lane;
      if (!last || index < tile_size)
      {
        construct_at(storage_.keys.data() + index, static_cast<KeyT>(keys_in_[base + index]));
        construct_at(storage_.values.data() + index, static_cast<AccumT>(values_in_[base + index]));
      }
    }
    __syncwarp();
    const int first = thread * ItemsPerThread;
    const int valid = !last                                ? ItemsPerThread // items of this thread
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
        heads = (tile == 0 && first == 0) || !equal_(static_cast<KeyT>(keys_in_[base + first - 1]), keys[0]);
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

    // The tiles before this one. The last tile's own pair is never needed by anyone.
    PairT prefix{};
    if (!last && thread == 0)
    {
      state.publish_aggregate(tile, tile_pair);
    }
    if (tile > 0 && thread < 32)
    {
      const PairT found = state.exclusive_prefix(tile, tile_pair, last, op_);
      if (thread == 0)
      {
        construct_at(storage_.prefix.data(), found);
      }
    }
    __syncthreads(); // the prefix is in shared memory, and the tile's keys and values have been read
    const bool has_prefix = tile > 0;
    if (has_prefix)
    {
      prefix = storage_.prefix[0];
    }
    const OffsetT tile_first = has_prefix ? prefix.heads : 0; // heads before the tile

    // Walk the items: each head names its unique key and closes the run before it.
    bool carrying = has_prefix || thread > 0;
    PairT run     = thread == 0 ? prefix : has_prefix ? pair_op(prefix, before) : before;
#pragma unroll
    for (int i = 0; i < ItemsPerThread; ++i)
    {
      if (i < valid)
      {
        if ((heads >> i) & 1u)
        {
          const int slot = static_cast<int>(run.heads - tile_first);
          construct_at(storage_.keys.data() + slot, keys[i]);
          if (carrying)
          {
            construct_at(storage_.values.data() + slot, run.value);
          }
          run      = {static_cast<OffsetT>(run.heads + 1), values[i]};
          carrying = true;
        }
        else
        {
          run.value = static_cast<AccumT>(op_(run.value, values[i]));
        }
      }
    }
    if (last && valid > 0 && first + valid == tile_size)
    {
      aggregates_out_[run.heads - 1] = run.value;
      *num_runs_out_                 = static_cast<NumRunsT>(run.heads);
    }
    __syncthreads();
    const int busy_threads = (tile_size + ItemsPerThread - 1) / ItemsPerThread;
    const int tile_heads   = static_cast<int>(tile_pair.heads) - (BlockThreads - busy_threads);
    for (int slot = thread; slot < tile_heads; slot += BlockThreads)
    {
      const OffsetT run_index = tile_first + static_cast<OffsetT>(slot);
      unique_out_[run_index]  = storage_.keys[slot];
      if (run_index > 0)
      {
        aggregates_out_[run_index - 1] = storage_.values[slot];
      }
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

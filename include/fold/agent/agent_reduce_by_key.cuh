// SPDX-License-Identifier: Apache-2.0
//! @file
//! AgentReduceByKey: one thread block reduces one tile of a reduce-by-key, in a single pass over the keys and
//! values; AgentRunFixUp: one thread block closes, for a chunk of tiles, the runs that entered them from earlier
//! tiles.
//!
//! A tile is `BlockThreads x ItemsPerThread` items. Each warp loads its share coalesced into shared memory and
//! reads it back so that thread `t` holds items `t * ItemsPerThread, ...` in order. An item is a run *head* when it is
//! the first item or its key differs (`!equal(previous key, key)`) from the key before it. Each thread folds its items
//! into a `RunPair` (heads, value since the last head); a BlockScan of the pairs in thread order gives each thread the
//! pair of the items before it in the tile. The tile publishes its head count, and warp 0 asks the look-back
//! (`RunCountState`) for the heads of the tiles before it while every warp walks its items in order: the tile's heads
//! take slots 0, 1, ... in shared memory, each with its key and the value of the run it closes as far as that run
//! lies in the tile. After one barrier the slots leave the block in one coalesced pass, numbered from the heads of
//! the tiles before. Every run that ends in the tile and began in it is written there; the run that entered the tile
//! from earlier ones (slot 0's, or the call's last when the last tile has no head) is left to the fix-up, with the
//! tile's `RunTileRecord`.
//!
//! The operands of the reduction keep index order everywhere (thread fold, scan, fix-up), so the operator need not be
//! commutative, and the grouping depends only on the tile and chunk shapes: the same values give the same bits on
//! every run.
#pragma once

#include <fold/block/block_scan.cuh>
#include <fold/block/block_stage.cuh>
#include <fold/grid/run_tile_state.cuh>
#include <fold/util/macros.cuh>
#include <fold/util/type_traits.cuh>
#include <fold/util/uninitialized.cuh>

#include <cstdint>
#include <type_traits>

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
  using KeyT     = value_t<KeysInputIteratorT>;
  using PairT    = RunPair<OffsetT, AccumT>;
  using ScanT    = BlockScan<PairT, BlockThreads>;
  using CountsT  = RunCountState<OffsetT>;
  using RecordT  = RunTileRecord<OffsetT, AccumT>;
  using NumRunsT = non_void_value_t<NumRunsOutputIteratorT, OffsetT>;

public:
  static constexpr int tile_items = BlockThreads * ItemsPerThread;

  struct TempStorage
  {
    alignas(16) Uninitialized<KeyT, tile_items> keys;     //!< the tile's keys, then its unique keys
    alignas(16) Uninitialized<AccumT, tile_items> values; //!< the tile's values, then the aggregates its heads close
    typename ScanT::TempStorage scan;
    Uninitialized<OffsetT, 1> first_run; //!< the heads of the tiles before this one
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
  //! Its record goes to `records[tile]` (unused for a call of one tile).
  FOLD_DEVICE FOLD_FORCEINLINE void
  ConsumeTile(OffsetT tile, OffsetT num_tiles, const CountsT& counts, RecordT* records)
  {
    if (tile + 1 == num_tiles)
    {
      ConsumeTile<true>(tile, counts, records);
    }
    else
    {
      ConsumeTile<false>(tile, counts, records);
    }
  }

private:
  //! Whether full tiles may be staged in 16-byte vectors (`stage_vectors_async`): keys and values read through
  //! pointers to the types kept in shared memory (`KeyT` is the keys' own). They are where both of a tile's pointers
  //! are 16-byte aligned; a tile and a warp's part of it are then whole vectors for every type.
  static constexpr bool stages_vectors = std::is_pointer_v<KeysInputIteratorT> &&
                                         std::is_pointer_v<ValuesInputIteratorT> &&
                                         std::is_same_v<value_t<ValuesInputIteratorT>, AccumT> &&
                                         std::is_trivially_copyable_v<KeyT> && std::is_trivially_copyable_v<AccumT>;

  //! A warp's `32 x ItemsPerThread` items from `warp_first` on (of the tile at `keys_in`, `values_in`; those below
  //! `tile_size` in the last tile) into its part of shared memory, coalesced: a full tile in 16-byte vectors where it
  //! can, else an item a lane at a time.
  template <bool Last>
  FOLD_DEVICE FOLD_FORCEINLINE void
  LoadWarpPart(KeysInputIteratorT keys_in, ValuesInputIteratorT values_in, int warp_first, int lane, int tile_size)
  {
    if constexpr (!Last && stages_vectors)
    {
      if (((reinterpret_cast<std::uintptr_t>(keys_in) | reinterpret_cast<std::uintptr_t>(values_in)) & 15) == 0)
      {
        constexpr int warp_items = 32 * ItemsPerThread;
        stage_vectors_async<32, warp_items>(storage_.keys.data() + warp_first, keys_in + warp_first, lane);
        stage_vectors_async<32, warp_items>(storage_.values.data() + warp_first, values_in + warp_first, lane);
        wait_for_copies();
        return;
      }
    }
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
  }

  //! One tile. `Last`: the call's last tile, which may be partly full and publishes nothing. The others are full
  //! and compiled without a bound check on any item: 3-7 % faster (docs/performance.md, "Groups of 32 tiles").
  template <bool Last>
  FOLD_DEVICE FOLD_FORCEINLINE void ConsumeTile(OffsetT tile, const CountsT& counts, RecordT* records)
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
    LoadWarpPart<Last>(keys_in, values_in, warp_first, lane, tile_size);
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

    const int busy_threads = (tile_size + ItemsPerThread - 1) / ItemsPerThread;
    const int tile_heads   = static_cast<int>(tile_pair.heads) - (BlockThreads - busy_threads);
    // The tile's head count, for the tiles after it (the last tile's is never needed); tile 0's is already the count
    // of the tiles up to it.
    if (!Last && thread == 0)
    {
      counts.publish(tile, tile == 0 ? tile_inclusive : tile_aggregate, tile_pair.heads);
    }
    // Walk the items: the tile's heads take slots 0, 1, ... in order, each with its key and the value of the run
    // it closes, as far as that run lies in this tile (slot 0's run began before the tile unless the tile's first
    // item is a head). Predicated, not branched.
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
    const bool holds_last = Last && valid > 0 && first + valid == tile_size; // the call's last item
    if (holds_last && slot == 0)
    {
      // A last tile without a head: slot 0 takes the tile's part of the run that entered it, for its record.
      construct_at(storage_.values.data(), value);
    }
    // The heads of the tiles before this one, asked by warp 0 once its own walk is done (before it, warp 0's keys
    // and values would live across the look-back and spill: 1.18-1.39x cub's time against 0.99-1.14,
    // docs/performance.md), while the other warps walk theirs.
    if (tile > 0 && thread < 32)
    {
      const OffsetT found = counts.exclusive_prefix(tile, static_cast<OffsetT>(tile_heads));
      if (thread == 0)
      {
        if (!Last)
        {
          counts.publish(tile, tile_inclusive, static_cast<OffsetT>(found + tile_pair.heads));
        }
        construct_at(storage_.first_run.data(), found);
      }
    }
    __syncthreads(); // the runs and the heads before the tile are in shared memory

    const OffsetT tile_first = tile > 0 ? storage_.first_run[0] : OffsetT{0};
    if (holds_last)
    {
      // The last run ends here; if it began before the tile (no head up to here), the fix-up writes it.
      if (slot > 0)
      {
        aggregates_out_[tile_first + static_cast<OffsetT>(slot) - 1] = value;
      }
      *num_runs_out_ = static_cast<NumRunsT>(tile_first + static_cast<OffsetT>(slot));
    }
    if (thread == 0 && !(Last && tile == 0))
    {
      // The run that entered the tile ends at its edge (a head first), after its part here (a head later, or the
      // call's end), or goes on.
      const int closes = tile == 0 ? 0 : heads & 1u ? run_ends_before : tile_heads > 0 || Last ? run_ends_after : 0;
      records[tile]    = RecordT{{static_cast<OffsetT>(tile_heads), tile_pair.value}, // a last tile's pair: unused
                              storage_.values[0],
                              tile_first,
                              closes};
    }
    // Slot s closes run tile_first + s - 1: inside the tile for s > 0.
    for (int next = thread; next < tile_heads; next += BlockThreads)
    {
      const OffsetT run_index = tile_first + static_cast<OffsetT>(next);
      unique_out_[run_index]  = storage_.keys[next];
      if (next > 0)
      {
        aggregates_out_[run_index - 1] = storage_.values[next];
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

//! The fix-up of `TilesPerThread x BlockThreads` tiles (a chunk): thread `t` holds the records of tiles
//! `t * TilesPerThread, ...` of the chunk. Each thread folds its tiles' pairs left to right, a BlockScan of the
//! threads' pairs gives each tile the pair of the chunk's tiles before it, and where no head lies between the chunk's
//! start and a tile, the value entering the chunk (`RunChunkState::entering`, asked by warp 0 only when some tile
//! needs it) comes in front. Every tile whose record closes the run that entered it then writes that run's aggregate:
//! the carried value, then the tile's own part of the run. The call's last tile's pair continues nothing and is left
//! out.
template <int BlockThreads,
          int TilesPerThread,
          typename AggregatesOutputIteratorT,
          typename ReductionOpT,
          typename AccumT,
          typename OffsetT>
class AgentRunFixUp
{
  using PairT   = RunPair<OffsetT, AccumT>;
  using RecordT = RunTileRecord<OffsetT, AccumT>;
  using ScanT   = BlockScan<PairT, BlockThreads>;

public:
  static constexpr int chunk_tiles = BlockThreads * TilesPerThread;

  struct TempStorage
  {
    typename ScanT::TempStorage scan;
    Uninitialized<AccumT, 1> entering; //!< the value entering the chunk
  };

  FOLD_DEVICE FOLD_FORCEINLINE AgentRunFixUp(TempStorage& storage,
                                             const RecordT* records,
                                             AggregatesOutputIteratorT aggregates_out,
                                             ReductionOpT op,
                                             OffsetT num_tiles)
      : storage_(storage)
      , records_(records)
      , aggregates_out_(aggregates_out)
      , op_(op)
      , num_tiles_(num_tiles)
  {
  }

  //! Closes the runs entering the tiles of chunk `chunk`; every thread of the block calls it.
  FOLD_DEVICE FOLD_FORCEINLINE void ConsumeChunk(OffsetT chunk, const RunChunkState<OffsetT, AccumT>& state)
  {
    const int thread    = static_cast<int>(threadIdx.x);
    const OffsetT first = chunk * static_cast<OffsetT>(chunk_tiles) + static_cast<OffsetT>(thread * TilesPerThread);
    RecordT records[TilesPerThread];
#pragma unroll
    for (int k = 0; k < TilesPerThread; ++k)
    {
      if (first + static_cast<OffsetT>(k) < num_tiles_)
      {
        records[k] = records_[first + static_cast<OffsetT>(k)];
      }
    }
    // Whether tile k's pair continues into a later tile: every tile's but the call's last.
    auto continues = [&](int k) { return first + static_cast<OffsetT>(k) + 1 < num_tiles_; };
    const RunPairOp<ReductionOpT> pair_op{op_};
    // A thread without such a pair counts one pretend head, so that the scan never hands a made-up value to the
    // operator; only threads past every real pair have none, and nothing reads what they pass on.
    PairT mine{OffsetT{1}, AccumT{}};
#pragma unroll
    for (int k = 0; k < TilesPerThread; ++k)
    {
      if (continues(k))
      {
        mine = k == 0 ? records[0].pair : pair_op(mine, records[k].pair);
      }
    }
    PairT before{};
    PairT chunk_pair{};
    ScanT::ExclusiveScan(storage_.scan, mine, before, chunk_pair, pair_op);
    if (thread == 0 && (chunk + 1) * static_cast<OffsetT>(chunk_tiles) < num_tiles_)
    {
      state.publish(chunk, chunk_pair); // a full chunk before the last tile: a later chunk may need it
    }

    // The pair of the chunk's tiles before each of this thread's tiles (`has`: there are some), and whether a tile
    // that closes its entering run needs the value entering the chunk (no head between the chunk's start and it).
    PairT within[TilesPerThread];
    bool has[TilesPerThread];
    bool needs  = false;
    PairT run   = before;
    bool so_far = thread > 0;
#pragma unroll
    for (int k = 0; k < TilesPerThread; ++k)
    {
      within[k] = run;
      has[k]    = so_far;
      needs     = needs ||
              (first + static_cast<OffsetT>(k) < num_tiles_ && records[k].closes != 0 && (!so_far || run.heads == 0));
      if (continues(k))
      {
        run    = so_far ? pair_op(run, records[k].pair) : records[k].pair;
        so_far = true;
      }
    }
    // Chunk 0 never needs it: its tile 0 starts with a head, and tile 0 closes nothing.
    if (__syncthreads_or(needs))
    {
      if (thread < 32)
      {
        const AccumT entering = state.entering(chunk, op_);
        if (thread == 0)
        {
          construct_at(storage_.entering.data(), entering);
        }
      }
      __syncthreads();
    }
#pragma unroll
    for (int k = 0; k < TilesPerThread; ++k)
    {
      if (first + static_cast<OffsetT>(k) < num_tiles_ && records[k].closes != 0)
      {
        const AccumT carried = has[k] && within[k].heads != 0 ? within[k].value
                               : has[k] ? static_cast<AccumT>(op_(storage_.entering[0], within[k].value))
                                        : storage_.entering[0];
        aggregates_out_[records[k].first_run - 1] =
            records[k].closes == run_ends_before ? carried : static_cast<AccumT>(op_(carried, records[k].entering));
      }
    }
  }

private:
  TempStorage& storage_;
  const RecordT* records_;
  AggregatesOutputIteratorT aggregates_out_;
  ReductionOpT op_;
  OffsetT num_tiles_;
};

} // namespace detail
FOLD_NAMESPACE_END

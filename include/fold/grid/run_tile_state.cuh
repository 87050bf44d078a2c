// SPDX-License-Identifier: Apache-2.0
//! @file
//! RunTileState: how the tiles of a single-pass reduce-by-key pass each other the runs that cross tile edges,
//! with a decoupled look-back whose floating-point result does not depend on timing.
//!
//! Each tile's summary is a `RunPair`: the number of run heads in it, and the reduction of its items since its
//! last head (all of them if it has none). Tiles combine with `RunPairOp`. A tile publishes its own pair as soon
//! as it has it (an *aggregate*). Tiles are grouped 32 to a group: a tile folds the aggregates of the tiles
//! before it in its group, and the last tile of a group publishes the group's aggregate and then the pair of
//! groups `[0, g]` (its *inclusive* pair), which later groups find by looking back over the groups.
//!
//! CUB's look-back combines whatever mix of aggregates and inclusive pairs it finds, in a grouping that depends on
//! which predecessors had finished: its floating-point results change from run to run (NVIDIA/cccl issue 9995).
//! Here every value half is a fixed grouping: within a group, the left fold `((v[s] op v[s+1]) op ...) op v[t-1]`
//! of the tiles' values from the last tile `s` with a head (the group's first tile if none has one); over the
//! groups, the same left fold of the groups' values, which a look-back may continue from any published inclusive
//! pair (itself such a left fold) with the same bits; a tile's value is the groups' fold, then its group's. The
//! count half is an integer sum, exact in any order. So the bits depend on the tile shape and the group size only.
//! Without the groups, a tile would fold every tile back to the nearest inclusive pair, one dependent operation
//! each and on the critical path of the next tile: over a single long run that was 100-300 tiles
//! (docs/performance.md, "What bounds a single run").
#pragma once

#include <fold/util/macros.cuh>
#include <fold/warp/warp_reduce.cuh>

#include <cuda/atomic>

#include <cstring>
#include <type_traits>

FOLD_NAMESPACE_BEGIN
namespace detail
{

//! The number of run heads in a stretch of items and the reduction of its items since its last head.
template <typename OffsetT, typename AccumT>
struct RunPair
{
  OffsetT heads;
  AccumT value;
};

//! `a` then `b`: the heads add up, and `b`'s value continues `a`'s unless `b` starts a run of its own.
template <typename ReductionOpT>
struct RunPairOp
{
  ReductionOpT op;

  template <typename OffsetT, typename AccumT>
  FOLD_DEVICE FOLD_FORCEINLINE RunPair<OffsetT, AccumT> operator()(const RunPair<OffsetT, AccumT>& a,
                                                                   const RunPair<OffsetT, AccumT>& b) const
  {
    return {static_cast<OffsetT>(a.heads + b.heads),
            b.heads != 0 ? b.value : static_cast<AccumT>(op(a.value, b.value))};
  }
};

//! A value kept as 32-bit words, read and written through L2 only (`ld.global.cg`/`st.global.cg`), so that no
//! multiprocessor's L1 can hold a stale copy from an earlier call.
template <typename T>
struct L2Words
{
  static constexpr int count = static_cast<int>((sizeof(T) + 3) / 4);
  unsigned int words[count];

  FOLD_DEVICE FOLD_FORCEINLINE void store(const T& value)
  {
    unsigned int buffer[count] = {};
    std::memcpy(buffer, &value, sizeof(T));
#pragma unroll
    for (int i = 0; i < count; ++i)
    {
      __stcg(words + i, buffer[i]);
    }
  }

  FOLD_DEVICE FOLD_FORCEINLINE T load() const
  {
    unsigned int buffer[count];
#pragma unroll
    for (int i = 0; i < count; ++i)
    {
      buffer[i] = __ldcg(words + i);
    }
    T value;
    std::memcpy(&value, buffer, sizeof(T));
    return value;
  }
};

//! What a look-back reads of one tile: `aggregate` (its own pair) or `inclusive` (the pair of tiles `[0, tile]`).
template <typename OffsetT, typename AccumT>
struct TileView
{
  int state;
  OffsetT heads;
  AccumT value;
};

inline constexpr int tile_aggregate = 1;
inline constexpr int tile_inclusive = 2;

//! Whether a tile's pair travels as tagged 64-bit words (one round trip to read it), which needs an accumulator
//! of at most 8 bytes.
template <typename AccumT>
inline constexpr bool packed_run_slot_v = sizeof(AccumT) <= 8;

//! One tile's slot in the temporary storage, for small accumulators: the head count and the value cut into
//! 32-bit pieces, each in a 64-bit word of its own beside the tag `call << 2 | state`. A 64-bit access is
//! single-copy atomic (a 128-bit one is not: a reader could see a fresh status beside a stale value), so every
//! word vouches for itself, and a reader takes a pair only when all its words carry the same valid tag. All the
//! words are read at once: one round trip per look-back window.
template <typename OffsetT, typename AccumT, bool Packed = packed_run_slot_v<AccumT>>
struct RunTileSlot
{
  static constexpr int head_words  = static_cast<int>(sizeof(OffsetT) / 4);
  static constexpr int value_words = static_cast<int>((sizeof(AccumT) + 3) / 4);
  static constexpr int words       = head_words + value_words;
  unsigned long long word[words];

  FOLD_DEVICE FOLD_FORCEINLINE void publish(unsigned int call, int state, const RunPair<OffsetT, AccumT>& pair)
  {
    unsigned int payload[words] = {};
    std::memcpy(payload, &pair.heads, sizeof(OffsetT));
    std::memcpy(payload + head_words, &pair.value, sizeof(AccumT));
    const unsigned long long tag = static_cast<unsigned long long>(call << 2 | static_cast<unsigned int>(state)) << 32;
#pragma unroll
    for (int i = 0; i < words; ++i)
    {
      ::cuda::atomic_ref<unsigned long long, ::cuda::thread_scope_device>(word[i]).store(tag | payload[i],
                                                                                         ::cuda::memory_order_relaxed);
    }
  }

  //! The published pair, once this call's tag is on every word (spins until then).
  FOLD_DEVICE FOLD_FORCEINLINE TileView<OffsetT, AccumT> read(unsigned int call) const
  {
    unsigned long long seen[words];
    unsigned int tag = 0;
    bool whole       = false;
    do
    {
#pragma unroll
      for (int i = 0; i < words; ++i)
      {
        seen[i] = ::cuda::atomic_ref<unsigned long long, ::cuda::thread_scope_device>(
                      const_cast<unsigned long long&>(word[i]))
                      .load(::cuda::memory_order_relaxed);
      }
      tag   = static_cast<unsigned int>(seen[0] >> 32);
      whole = (tag >> 2) == call && ((tag & 3u) == tile_aggregate || (tag & 3u) == tile_inclusive);
#pragma unroll
      for (int i = 1; i < words; ++i)
      {
        whole = whole && static_cast<unsigned int>(seen[i] >> 32) == tag;
      }
    } while (!whole);
    unsigned int payload[words];
#pragma unroll
    for (int i = 0; i < words; ++i)
    {
      payload[i] = static_cast<unsigned int>(seen[i]);
    }
    TileView<OffsetT, AccumT> view{static_cast<int>(tag & 3u), OffsetT{}, AccumT{}};
    std::memcpy(&view.heads, payload, sizeof(OffsetT));
    std::memcpy(&view.value, payload + head_words, sizeof(AccumT));
    return view;
  }
};

//! One tile's slot for larger accumulators: the status released after the data, and apart fields for the two
//! pairs (a reader that saw `aggregate` must not read a later inclusive pair in its place).
template <typename OffsetT, typename AccumT>
struct RunTileSlot<OffsetT, AccumT, false>
{
  unsigned long long status; //!< `call << 2 | state`
  L2Words<OffsetT> heads[2]; //!< [state - 1]
  L2Words<AccumT> value[2];

  FOLD_DEVICE FOLD_FORCEINLINE void publish(unsigned int call, int state, const RunPair<OffsetT, AccumT>& pair)
  {
    heads[state - 1].store(pair.heads);
    value[state - 1].store(pair.value);
    ::cuda::atomic_ref<unsigned long long, ::cuda::thread_scope_device>(status).store(
        static_cast<unsigned long long>(call) << 2 | static_cast<unsigned long long>(state),
        ::cuda::memory_order_release);
  }

  FOLD_DEVICE FOLD_FORCEINLINE TileView<OffsetT, AccumT> read(unsigned int call) const
  {
    unsigned long long seen = 0;
    do
    {
      seen =
          ::cuda::atomic_ref<unsigned long long, ::cuda::thread_scope_device>(const_cast<unsigned long long&>(status))
              .load(::cuda::memory_order_acquire);
    } while ((seen >> 2) != call || ((seen & 3u) != tile_aggregate && (seen & 3u) != tile_inclusive));
    const int state = static_cast<int>(seen & 3u);
    return {state, heads[state - 1].load(), value[state - 1].load()};
  }
};

//! Tiles per group of the two-level look-back.
inline constexpr int run_group_tiles = 32;

//! The look-back slots of `num_tiles` tiles: one per tile, then one per group of `run_group_tiles` tiles.
FOLD_HOST_DEVICE constexpr unsigned long long run_tile_slots(unsigned long long num_tiles)
{
  return num_tiles + (num_tiles + run_group_tiles - 1) / run_group_tiles;
}

//! The slots of one call's tiles and groups. A slot counts as published only when its status carries this call's
//! tag, so the slots need no clearing between calls. Tags have 30 bits: a call made directly gets
//! `1 + id % (2^30 - 2)` from the process-wide sequence of call ids (so two calls in a row never share one), and
//! every call captured into a CUDA graph gets the one tag `graph_call`, which no direct call has; a graph clears
//! its slots before each replay. What remains: a slot left by a direct call exactly a multiple of 2^30 - 2 calls
//! earlier, on the same storage and never overwritten since, would be taken for this call's.
//!
//! Two levels, so that a tile folds at most a group's worth of values plus the groups back to the nearest
//! inclusive group pair, however far behind the look-back runs. Tile `t` is in group `g = t / 32`:
//! - its *in-group* pair `I(t)` is the left fold of the aggregates of tiles `[32g, t)`;
//! - group `g`'s aggregate is `I(32g + 31)` then tile `32g + 31`'s aggregate, published by that tile;
//! - group `g`'s inclusive pair `C(g)` is `C(g - 1)` then group `g`'s aggregate, published by the same tile once
//!   it knows `C(g - 1)`; it finds that by the look-back over the groups, in windows of 32;
//! - tile `t`'s exclusive pair is `C(g - 1)` then `I(t)` (`I(t)` alone in group 0).
//! Every value is a fixed grouping of the tiles' aggregates, whichever predecessors had finished.
template <typename OffsetT, typename AccumT>
class RunTileState
{
public:
  using PairT = RunPair<OffsetT, AccumT>;
  using SlotT = RunTileSlot<OffsetT, AccumT>;

  //! The tag of every call captured into a graph.
  static constexpr unsigned int graph_call = 0x3FFFFFFFu;

  RunTileState() = default;
  //! The state of `num_tiles` tiles in `run_tile_slots(num_tiles)` slots, for a direct call with id `call_id`
  //! (`next_call_id`) or a captured one (`captured`).
  FOLD_HOST_DEVICE RunTileState(SlotT* slots, OffsetT num_tiles, unsigned long long call_id, bool captured)
      : tiles_(slots)
      , groups_(slots + num_tiles)
      , call_(captured ? graph_call : 1u + static_cast<unsigned int>(call_id % (graph_call - 1u)))
  {
  }

  //! Publishes tile `tile`'s own pair. Every tile but the last publishes it before it looks back.
  FOLD_DEVICE FOLD_FORCEINLINE void publish_aggregate(OffsetT tile, const PairT& pair) const
  {
    tiles_[tile].publish(call_, tile_aggregate, pair);
  }

  //! The pair of tiles `[0, tile)` (tile > 0), valid in every lane. Called by all 32 lanes of one warp of tile
  //! `tile`, whose own pair is `own`. Unless it is the call's last tile (`last`), the last tile of a group also
  //! publishes the group's aggregate and inclusive pairs.
  template <typename ReductionOpT>
  FOLD_DEVICE FOLD_FORCEINLINE PairT exclusive_prefix(OffsetT tile, const PairT& own, bool last, ReductionOpT op) const
  {
    const RunPairOp<ReductionOpT> pair_op{op};
    const OffsetT group = tile / run_group_tiles;
    const int position  = static_cast<int>(tile % run_group_tiles);
    const PairT in_group =
        position > 0 ? in_group_prefix(group * run_group_tiles, position, op) : PairT{OffsetT{0}, AccumT{}};
    PairT group_aggregate{};
    const bool closes_group = position == run_group_tiles - 1 && !last;
    if (closes_group)
    {
      group_aggregate = pair_op(in_group, own);
      if (static_cast<int>(threadIdx.x) % 32 == 0)
      {
        groups_[group].publish(call_, group == 0 ? tile_inclusive : tile_aggregate, group_aggregate);
      }
    }
    if (group == 0)
    {
      return in_group;
    }
    const PairT before = look_back(groups_, group, op);
    if (closes_group && static_cast<int>(threadIdx.x) % 32 == 0)
    {
      groups_[group].publish(call_, tile_inclusive, pair_op(before, group_aggregate));
    }
    return position > 0 ? pair_op(before, in_group) : before;
  }

private:
  //! The left fold of the aggregates of tiles `[first, first + count)`, `0 < count < 32`, in every lane.
  template <typename ReductionOpT>
  FOLD_DEVICE FOLD_FORCEINLINE PairT in_group_prefix(OffsetT first, int count, ReductionOpT op) const
  {
    using ViewT      = TileView<OffsetT, AccumT>;
    const int lane   = static_cast<int>(threadIdx.x) % 32;
    const ViewT mine = lane < count ? tiles_[first + static_cast<OffsetT>(lane)].read(call_)
                                    : ViewT{tile_aggregate, OffsetT{0}, AccumT{}};
    // The value starts at the last tile with a head (the first tile if none has one).
    const unsigned starts = __ballot_sync(0xffffffffu, lane < count && mine.heads != 0);
    const int start       = starts != 0 ? 31 - __clz(starts) : 0;
    // Lane i holds tile first + count - 1 - i: folded down from lane count - 2 - start.
    const AccumT reversed = shuffle_idx(mine.value, lane < count ? count - 1 - lane : 0);
    const AccumT value    = fold_lanes(shuffle_idx(mine.value, start), reversed, count - 2 - start, op);
    OffsetT heads         = mine.heads;
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2)
    {
      heads += __shfl_xor_sync(0xffffffffu, heads, offset);
    }
    return {heads, value};
  }

  //! The pair of slots `[0, index)` (index > 0), valid in every lane: slot `i` holds the aggregate or the
  //! inclusive pair of item `i` (a group), and every item publishes one of them without waiting for a later one, so
  //! the spin on each slot ends. Item 0 publishes only its inclusive pair, so the last window always finds one.
  template <typename ReductionOpT>
  FOLD_DEVICE FOLD_FORCEINLINE PairT look_back(const SlotT* slots, OffsetT index, ReductionOpT op) const
  {
    using ViewT    = TileView<OffsetT, AccumT>;
    const int lane = static_cast<int>(threadIdx.x) % 32;
    OffsetT heads  = 0; // this lane's share of the heads before `index`
    AccumT value{};     // once `found`: the left fold from the start through item `index - 1`
    bool found = false;
    // Windows of 32 predecessors, lane i on item `top - i`, until one has published its inclusive pair.
    for (OffsetT top = index - 1;; top -= 32)
    {
      const bool in_range = top >= static_cast<OffsetT>(lane);
      // Lanes past item 0 stand after item 0's inclusive pair: never used.
      const ViewT mine =
          in_range ? slots[top - static_cast<OffsetT>(lane)].read(call_) : ViewT{tile_inclusive, OffsetT{0}, AccumT{}};
      const unsigned inclusive_lanes = __ballot_sync(0xffffffffu, mine.state == tile_inclusive);
      const int last_lane            = inclusive_lanes != 0 ? __ffs(inclusive_lanes) - 1 : 31;
      if (lane <= last_lane)
      {
        heads += mine.heads;
      }
      if (!found)
      {
        const unsigned starts =
            __ballot_sync(0xffffffffu, lane <= last_lane && (mine.state == tile_inclusive || mine.heads != 0));
        if (starts != 0)
        {
          // The start is in this window: its value, then the head-less items after it, lane by lane up the
          // items; then those of the newer windows, read again.
          const int start_lane = __ffs(starts) - 1;
          value                = fold_lanes(shuffle_idx(mine.value, start_lane), mine.value, start_lane - 1, op);
          for (OffsetT first = top + 1; first < index; first += 32)
          {
            const OffsetT other = first + static_cast<OffsetT>(lane);
            const ViewT seen = other < index ? slots[other].read(call_) : ViewT{tile_aggregate, OffsetT{0}, AccumT{}};
            const int count  = index - first < 32 ? static_cast<int>(index - first) : 32;
            // An item published inclusive since holds the same left fold through itself: continue from the last
            // such one. Lane i holds item first + i; reversed, the fold runs down from the highest lane.
            const unsigned reset = __ballot_sync(0xffffffffu, lane < count && seen.state == tile_inclusive);
            int high             = count - 1;
            if (reset != 0)
            {
              const int last = 31 - __clz(reset);
              value          = shuffle_idx(seen.value, last);
              high           = count - 2 - last;
            }
            const AccumT reversed = shuffle_idx(seen.value, lane < count ? count - 1 - lane : 0);
            value                 = fold_lanes(value, reversed, high, op);
          }
          found = true;
        }
      }
      if (inclusive_lanes != 0)
      {
        break;
      }
    }
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2)
    {
      heads += __shfl_xor_sync(0xffffffffu, heads, offset);
    }
    return {heads, value};
  }

  //! `value op v[high] op v[high - 1] op ... op v[0]`, `v[i]` lane i's `lane_value` (nothing when `high < 0`);
  //! the same in every lane. Eight shuffles at a time are issued before the eight operations that use them, so
  //! that a long fold costs about an operation per step, not a shuffle's latency: the folds are on the critical
  //! path of the next tiles.
  template <typename ReductionOpT>
  static FOLD_DEVICE FOLD_FORCEINLINE AccumT
  fold_lanes(AccumT value, const AccumT& lane_value, int high, ReductionOpT op)
  {
    for (int top = high; top >= 0; top -= 8)
    {
      AccumT items[8];
#pragma unroll
      for (int j = 0; j < 8; ++j)
      {
        items[j] = shuffle_idx(lane_value, top - j >= 0 ? top - j : 0);
      }
#pragma unroll
      for (int j = 0; j < 8; ++j)
      {
        if (top - j >= 0)
        {
          value = static_cast<AccumT>(op(value, items[j]));
        }
      }
    }
    return value;
  }

  SlotT* tiles_      = nullptr;
  SlotT* groups_     = nullptr;
  unsigned int call_ = 0;
};

} // namespace detail
FOLD_NAMESPACE_END

// SPDX-License-Identifier: Apache-2.0
//! @file
//! How the tiles of a reduce-by-key pass each other the runs that cross tile edges, in two steps whose
//! floating-point results do not depend on timing.
//!
//! Each tile's summary is a `RunPair`: the number of run heads in it, and the reduction of its items since its
//! last head (all of them if it has none). Pairs combine with `RunPairOp`.
//!
//! 1. While the tiles run (`ReduceByKeyKernel`), a decoupled look-back over the head counts alone
//!    (`RunCountState`): a tile publishes its count as soon as it has it, then the count of tiles `[0, tile]` once
//!    it has the tiles before it. An integer sum is exact in any grouping, so any mix of published counts gives the
//!    same number: each tile learns where its runs go, mostly after one round trip once it has paused (see
//!    `RunCountState::exclusive_prefix`). No value crosses a tile here.
//! 2. Each tile leaves a `RunTileRecord` (its pair, its part of the run entering it, where that run goes), and
//!    `ReduceByKeyFixUpKernel` closes every run that crosses a tile edge: a block scans the pairs of a chunk of
//!    tiles (`AgentRunFixUp`), and a chunk whose first runs began in earlier chunks takes the left fold
//!    `((v[s] op v[s+1]) op ...) op v[c-1]` of the chunks' own values from the last chunk `s` with a head
//!    (`RunChunkState`, which holds only the chunks' own pairs, never a running one).
//!
//! CUB's look-back combines whatever mix of own and running values it finds, in a grouping that depends on which
//! predecessors had finished: its floating-point results change from run to run (NVIDIA/cccl issue 9995). Here
//! every value is a fixed grouping, set by the tile and chunk shapes alone.
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

//! The value of a slot that carries a head count alone (`RunCountState`): no words.
struct NoRunValue
{
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

//! One tile's slot in the temporary storage, for small accumulators: the head count and the value (none for
//! `NoRunValue`) cut into 32-bit pieces, each in a 64-bit word of its own beside the tag `call << 2 | state`. A 64-bit
//! access is single-copy atomic (a 128-bit one is not: a reader could see a fresh status beside a stale value), so
//! every word vouches for itself, and a reader takes a pair only when all its words carry the same valid tag. All the
//! words are read at once: one round trip per look-back window.
template <typename OffsetT, typename AccumT, bool Packed = packed_run_slot_v<AccumT>>
struct RunTileSlot
{
  static constexpr int head_words  = static_cast<int>(sizeof(OffsetT) / 4);
  static constexpr int value_words = std::is_empty_v<AccumT> ? 0 : static_cast<int>((sizeof(AccumT) + 3) / 4);
  static constexpr int words       = head_words + value_words;
  unsigned long long word[words];

  FOLD_DEVICE FOLD_FORCEINLINE void publish(unsigned int call, int state, const RunPair<OffsetT, AccumT>& pair)
  {
    unsigned int payload[words] = {};
    std::memcpy(payload, &pair.heads, sizeof(OffsetT));
    if constexpr (value_words > 0)
    {
      std::memcpy(payload + head_words, &pair.value, sizeof(AccumT));
    }
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
    if constexpr (value_words > 0)
    {
      std::memcpy(&view.value, payload + head_words, sizeof(AccumT));
    }
    return view;
  }
};

//! One slot for larger accumulators: the pair, then the status released after it. Only the fix-up's chunks use
//! it (the counts always fit the packed slot), and a chunk publishes its own pair once, never a running one, so a
//! reader that sees the status sees that pair.
template <typename OffsetT, typename AccumT>
struct RunTileSlot<OffsetT, AccumT, false>
{
  unsigned long long status; //!< `call << 2 | state`
  L2Words<OffsetT> heads;
  L2Words<AccumT> value;

  FOLD_DEVICE FOLD_FORCEINLINE void publish(unsigned int call, int state, const RunPair<OffsetT, AccumT>& pair)
  {
    heads.store(pair.heads);
    value.store(pair.value);
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
    return {static_cast<int>(seen & 3u), heads.load(), value.load()};
  }
};

//! The tag of a call's slots: `1 + call_id % (2^30 - 2)` for a call made directly (`next_call_id`; two calls in a
//! row never share one), and `run_graph_call`, which no direct call has, for every call captured into a CUDA graph;
//! a graph clears its slots before each replay. A slot counts as published only when it carries this call's tag,
//! so the slots need no clearing between direct calls. What remains: a slot left by a direct call exactly a multiple
//! of 2^30 - 2 calls earlier, on the same storage and never overwritten since, would be taken for this call's.
inline constexpr unsigned int run_graph_call = 0x3FFFFFFFu;

FOLD_HOST_DEVICE constexpr unsigned int run_call_tag(unsigned long long call_id, bool captured)
{
  return captured ? run_graph_call : 1u + static_cast<unsigned int>(call_id % (run_graph_call - 1u));
}

//! `value op v[high] op v[high - 1] op ... op v[0]`, `v[i]` lane i's `lane_value` (nothing when `high < 0`); the
//! same in every lane. Eight shuffles at a time are issued before the eight operations that use them, so that a long
//! fold costs about an operation per step, not a shuffle's latency.
template <typename AccumT, typename ReductionOpT>
FOLD_DEVICE FOLD_FORCEINLINE AccumT fold_lanes(AccumT value, const AccumT& lane_value, int high, ReductionOpT op)
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

//! The head counts of one call's tiles (step 1): tile `t` publishes its own count, then (unless it is the call's
//! last) the count of tiles `[0, t]`; tile 0 publishes only the latter.
template <typename OffsetT>
class RunCountState
{
public:
  using SlotT = RunTileSlot<OffsetT, NoRunValue>;

  RunCountState() = default;
  //! The count slots of one call's tiles, tagged `call`; a look-back pauses `pause_ns` before its first read, twice
  //! as long in a tile of at least `dense_heads` heads.
  FOLD_HOST_DEVICE RunCountState(SlotT* slots, unsigned int call, unsigned int pause_ns, OffsetT dense_heads)
      : slots_(slots)
      , call_(call)
      , pause_ns_(pause_ns)
      , dense_heads_(dense_heads)
  {
  }

  FOLD_DEVICE FOLD_FORCEINLINE void publish(OffsetT tile, int state, OffsetT heads) const
  {
    slots_[tile].publish(call_, state, {heads, NoRunValue{}});
  }

  //! The heads of tiles `[0, tile)` (tile > 0, of `tile_heads` heads itself), in every lane of the one warp that
  //! calls it: windows of 32 predecessors, lane i on tile `top - i`, until one has published its running count. The
  //! pause first leaves the predecessors time to publish: a slot read too early is read again and again, and its
  //! window more often holds no running count, which costs another round trip (docs/performance.md, "ReduceByKey:
  //! counts only"). A tile of at least `dense_heads` heads pauses twice as long: on an H100, up to 4 % off calls whose
  //! runs average 1-4 items (1-8 for int64 keys with double values), the others unchanged (docs/performance.md,
  //! "ReduceByKey: twice the pause in tiles dense in heads").
  FOLD_DEVICE FOLD_FORCEINLINE OffsetT exclusive_prefix(OffsetT tile, OffsetT tile_heads) const
  {
    using ViewT    = TileView<OffsetT, NoRunValue>;
    const int lane = static_cast<int>(threadIdx.x) % 32;
    if (pause_ns_ > 0)
    {
      __nanosleep(tile_heads >= dense_heads_ ? 2 * pause_ns_ : pause_ns_);
    }
    OffsetT heads = 0; // this lane's share
    for (OffsetT top = tile - 1;; top -= 32)
    {
      // Lanes past tile 0 stand after tile 0's running count: never used.
      const ViewT mine = top >= static_cast<OffsetT>(lane) ? slots_[top - static_cast<OffsetT>(lane)].read(call_)
                                                           : ViewT{tile_inclusive, OffsetT{0}, NoRunValue{}};
      const unsigned inclusive_lanes = __ballot_sync(0xffffffffu, mine.state == tile_inclusive);
      const int last_lane            = inclusive_lanes != 0 ? __ffs(inclusive_lanes) - 1 : 31;
      if (lane <= last_lane)
      {
        heads += mine.heads;
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
    return heads;
  }

private:
  SlotT* slots_          = nullptr;
  unsigned int call_     = 0;
  unsigned int pause_ns_ = 0;
  OffsetT dense_heads_   = 0;
};

//! What a tile leaves for the fix-up (step 2). Written plainly by `ReduceByKeyKernel`, read by the kernel after it.
template <typename OffsetT, typename AccumT>
struct RunTileRecord
{
  RunPair<OffsetT, AccumT> pair; //!< the tile's heads, and its value since the last (all of it without one)
  AccumT entering;               //!< its items before its first head (all of them without one)
  OffsetT first_run;             //!< the runs before the tile: the run entering it is number `first_run - 1`
  int closes;                    //!< the fix-up writes that run: `run_ends_after` its part `entering`,
                                 //!< `run_ends_before` the tile, or 0 (it goes on past the tile, or none enters)
};

inline constexpr int run_ends_after  = 1;
inline constexpr int run_ends_before = 2;

//! The pairs of one call's chunks of tiles (step 2): each chunk publishes its own, and a chunk whose first runs
//! began before it folds the chunks back to the last one with a head. No running pair is ever published, so
//! nothing waits for a chain and the grouping is a left fold over the chunks' own values.
template <typename OffsetT, typename AccumT>
class RunChunkState
{
public:
  using SlotT = RunTileSlot<OffsetT, AccumT>;

  RunChunkState() = default;
  FOLD_HOST_DEVICE RunChunkState(SlotT* slots, unsigned int call)
      : slots_(slots)
      , call_(call)
  {
  }

  FOLD_DEVICE FOLD_FORCEINLINE void publish(OffsetT chunk, const RunPair<OffsetT, AccumT>& pair) const
  {
    slots_[chunk].publish(call_, tile_aggregate, pair);
  }

  //! The value that enters chunk `chunk` (> 0), in every lane of the one warp that calls it: the left fold of the
  //! chunks' values from the last chunk before it with a head (chunk 0 has one: the call's first item) through chunk
  //! `chunk - 1`. Windows of 32, lane i on chunk `top - i`; the windows after the one that holds the start are read
  //! again, forward.
  template <typename ReductionOpT>
  FOLD_DEVICE FOLD_FORCEINLINE AccumT entering(OffsetT chunk, ReductionOpT op) const
  {
    using ViewT    = TileView<OffsetT, AccumT>;
    const int lane = static_cast<int>(threadIdx.x) % 32;
    OffsetT top    = chunk - 1;
    AccumT value{};
    for (;; top -= 32)
    {
      const bool in_range = top >= static_cast<OffsetT>(lane);
      const ViewT mine =
          in_range ? slots_[top - static_cast<OffsetT>(lane)].read(call_) : ViewT{tile_aggregate, OffsetT{0}, AccumT{}};
      const unsigned starts = __ballot_sync(0xffffffffu, in_range && mine.heads != 0);
      if (starts != 0)
      {
        const int start_lane = __ffs(starts) - 1;
        value                = fold_lanes(shuffle_idx(mine.value, start_lane), mine.value, start_lane - 1, op);
        break;
      }
    }
    for (OffsetT first = top + 1; first < chunk; first += 32)
    {
      const OffsetT other = first + static_cast<OffsetT>(lane);
      const ViewT seen    = other < chunk ? slots_[other].read(call_) : ViewT{tile_aggregate, OffsetT{0}, AccumT{}};
      const int count     = chunk - first < 32 ? static_cast<int>(chunk - first) : 32;
      // Lane i holds chunk first + i; reversed, the fold runs down from the highest lane.
      const AccumT reversed = shuffle_idx(seen.value, lane < count ? count - 1 - lane : 0);
      value                 = fold_lanes(value, reversed, count - 1, op);
    }
    return value;
  }

private:
  SlotT* slots_      = nullptr;
  unsigned int call_ = 0;
};

} // namespace detail
FOLD_NAMESPACE_END

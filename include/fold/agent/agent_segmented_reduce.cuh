// SPDX-License-Identifier: Apache-2.0
//! @file
//! What reduces one segment of a segmented reduction, whichever kernel takes it (the kernels, the state they share
//! and their lists are in dispatch/kernels_segmented_reduce.cuh). A segment's tree depends only on its length:
//! - `SegmentClasses` sorts a length into its class (empty, small, warp, block, large) and gives the class's shape:
//!   the lanes of a small segment, the units of a large one;
//! - a small segment is a group of `lanes(length)` lanes, each folding a run of at most `lane_items` items
//!   (`fold_run`; `small_lanes` and `runs_of` without loops or divisions by a variable), the runs reduced in lane
//!   order; where one thread holds several runs, it merges them along the same tree (`fold_runs_in_tree`, all of a
//!   segment's; `merge_runs_in_tree`, a group's first levels; `fold_own_segment`, the one or two runs a group of
//!   one or two lanes folds);
//! - a warp segment is one warp agent (`AgentReduce` at warp scope);
//! - a block segment is one unit and a large one `units(length)` units of whole tiles, each reduced by a block agent
//!   (`AgentSegmentedReduce::reduce_unit`), and a large segment's unit partials are folded in order
//!   (`AgentSegmentedReduce::fold_partials`).
#pragma once

#include <fold/agent/agent_reduce.cuh>
#include <fold/tuning/tuning_reduce.cuh>
#include <fold/util/macros.cuh>
#include <fold/detail/reduction.cuh>

#include <cstdint>
#include <type_traits>

FOLD_NAMESPACE_BEGIN
namespace detail
{

//! The class of a segment, from its length alone (see `SegmentClasses`): which threads reduce it.
enum class SegmentClass
{
  empty, //!< no items: the initial value (or the empty result) is written
  small, //!< a group of `lanes(length)` lanes, each folding a run of at most `lane_items` items
  warp,  //!< one warp agent
  block, //!< one block agent
  large, //!< units of whole tiles, one partial each, folded by the partials agent
};

//! The size classes of one call (the segmented policy with the tile shapes of the item type), in items.
struct SegmentClasses
{
  std::uint64_t small_max;
  std::uint64_t warp_max;
  std::uint64_t block_max;
  int lane_items;
  int tile_items;
  int min_unit_tiles;
  int max_units;

  FOLD_HOST_DEVICE static constexpr SegmentClasses make(const SegmentedPolicy& policy, const TileShape& shape)
  {
    const int lane_items = segment_lane_items(policy, shape.item_bytes);
    return {32ull * static_cast<std::uint64_t>(lane_items),
            static_cast<std::uint64_t>(policy.warp_tiles) * 32u * static_cast<std::uint64_t>(shape.items_per_thread),
            static_cast<std::uint64_t>(policy.block_tiles) * static_cast<std::uint64_t>(shape.tile_items),
            lane_items,
            shape.tile_items,
            policy.min_unit_tiles,
            policy.max_units};
  }

  FOLD_HOST_DEVICE constexpr SegmentClass of(std::uint64_t length) const
  {
    return length == 0           ? SegmentClass::empty
           : length <= small_max ? SegmentClass::small
           : length <= warp_max  ? SegmentClass::warp
           : length <= block_max ? SegmentClass::block
                                 : SegmentClass::large;
  }

  //! Lanes per small segment: the fewest (a power of two) that leave at most `lane_items` items to each.
  FOLD_HOST_DEVICE constexpr int lanes(std::uint64_t length) const
  {
    int width = 1;
    while (static_cast<std::uint64_t>(width) * static_cast<std::uint64_t>(lane_items) < length)
    {
      width *= 2;
    }
    return width;
  }

  //! Items per unit of a large segment: `K` whole tiles, `K` the smallest power of two from `min_unit_tiles`
  //! giving at most `max_units` units.
  FOLD_HOST_DEVICE constexpr std::uint64_t unit_items(std::uint64_t length) const
  {
    const std::uint64_t tiles = (length + tile_items - 1) / tile_items;
    std::uint64_t k           = static_cast<std::uint64_t>(min_unit_tiles);
    while ((tiles + k - 1) / k > static_cast<std::uint64_t>(max_units))
    {
      k *= 2;
    }
    return k * static_cast<std::uint64_t>(tile_items);
  }

  FOLD_HOST_DEVICE constexpr std::uint64_t units(std::uint64_t length) const
  {
    const std::uint64_t unit = unit_items(length);
    return (length + unit - 1) / unit;
  }
};

//! The words a segment's first item and length take: 32 bits where both offsets' types are integers of at most 32
//! bits (a length, an end minus a begin, then fits in 32 unsigned bits), so the small segments' loops compare, shift
//! and shuffle one word where they did two; otherwise 64 bits. `SegmentedWarpKernel`'s step over one-lane segments is
//! bound by its instructions (about 225 a warp for 64 one-item segments): one-word offsets took one-item segments to
//! 0.94-0.96 of the time on an H200, most other small lengths and mixes to 0.94-0.99 (docs/performance.md, "Small
//! segments through offsets: fewer instructions a step").
template <typename BeginOffsetIteratorT, typename EndOffsetIteratorT>
struct SegmentWords
{
  using Begin = value_t<BeginOffsetIteratorT>;
  using End   = value_t<EndOffsetIteratorT>;
  static constexpr bool narrow =
      std::is_integral_v<Begin> && std::is_integral_v<End> && sizeof(Begin) <= 4 && sizeof(End) <= 4;
  using begin_type = std::
      conditional_t<narrow, std::conditional_t<std::is_signed_v<Begin>, std::int32_t, std::uint32_t>, std::int64_t>;
  using length_type = std::conditional_t<narrow, std::uint32_t, std::uint64_t>;
};

//! A segment's first item and length, read from the offsets (an end at or before the begin is empty), as `BeginT`
//! and `LengthT`: 64 bits, or the words `SegmentWords` gives the offsets.
template <typename BeginOffsetIteratorT, typename EndOffsetIteratorT, typename BeginT, typename LengthT>
FOLD_DEVICE FOLD_FORCEINLINE void
read_segment(BeginOffsetIteratorT begins, EndOffsetIteratorT ends, std::int64_t i, BeginT& begin, LengthT& length)
{
  const auto first       = static_cast<std::int64_t>(begins[i]);
  const std::int64_t end = static_cast<std::int64_t>(ends[i]);
  begin                  = static_cast<BeginT>(first);
  length                 = end > first ? static_cast<LengthT>(end - first) : LengthT{0};
}

//! The reductions of a block or large segment: each unit with a block agent `BlockAgentT` over the items (an
//! `AgentReduce`, indices counted from the segment's first item), and a large segment's unit partials with a block
//! agent `PartialsAgentT` (an `AgentReduce` over `AccumT*` with `std::uint32_t` offsets).
template <typename BlockAgentT,
          typename PartialsAgentT,
          typename InputIteratorT,
          typename AccumT,
          typename OffsetT,
          typename ReductionOpT,
          typename TransformOpT>
struct AgentSegmentedReduce
{
  using Block    = BlockAgentT;
  using Partials = PartialsAgentT;

  //! Unit `k` of the segment of `length` items at `items`, in units of `unit_items` (the last one shorter; a block
  //! segment is one unit): the agent and range every kernel reduces it with, so it has one tree wherever it goes.
  FOLD_DEVICE static AccumT reduce_unit(typename Block::TempStorage& storage,
                                        InputIteratorT items,
                                        std::uint64_t length,
                                        std::uint64_t unit_items,
                                        std::uint64_t k,
                                        ReductionOpT op,
                                        TransformOpT transform)
  {
    const std::uint64_t end = (k + 1) * unit_items < length ? (k + 1) * unit_items : length;
    return Block(storage, items, op, transform)
        .ConsumeRange(static_cast<OffsetT>(k * unit_items), static_cast<OffsetT>(end));
  }

  //! A large segment's `units` unit partials, folded in order: how every kernel finishes one.
  FOLD_DEVICE static AccumT
  fold_partials(typename Partials::TempStorage& storage, const AccumT* partials, std::uint64_t units, ReductionOpT op)
  {
    return Partials(storage, const_cast<AccumT*>(partials), op, CastTo<AccumT>{})
        .ConsumeRange(0u, static_cast<std::uint32_t>(units));
  }
};

//! `SegmentClasses::lanes` of a small segment's `items` (1 to 32 x `LaneItems`), without its loop: the fewest lanes,
//! a power of two, that leave at most `LaneItems` items to each.
template <int LaneItems>
FOLD_DEVICE FOLD_FORCEINLINE int small_lanes(int items)
{
  return items <= LaneItems ? 1 : 1 << (32 - __clz((items - 1) / LaneItems));
}

//! The runs of `run` items that `items` items make (`run` at most `LaneItems`; 1 when there are none): a division
//! by a constant for each possible `run`, not one by a variable.
template <int LaneItems>
FOLD_DEVICE FOLD_FORCEINLINE int runs_of(int items, int run)
{
  int runs = 1;
#pragma unroll
  for (int k = 1; k <= LaneItems; ++k)
  {
    runs = run == k ? (items + k - 1) / k : runs;
  }
  return runs;
}

//! The fold of a lane's whole run of `N` items, loaded (`load_slot`), `[first, last)` of its segment, in index order:
//! `AccumT{}` where the run is empty. `FoldsEmpty` (`folds_dropped_items_v`): an empty run's items (whatever was
//! loaded in its place) are folded too and the result dropped, so that no branch stands between a thread's loads and
//! its folds. With each fold behind a branch of its own, nvcc issued a thread's first load and waited for it before
//! it issued the others where the fold was long (the order keys of Min and Max, 2-byte items' runs of 8:
//! docs/performance.md, "Small fixed-size segments: every vector run loaded before any is folded").
template <typename AccumT,
          typename OffsetT,
          bool FoldsEmpty = false,
          typename T,
          int N,
          typename ThreadOpT,
          typename TransformOpT>
FOLD_DEVICE FOLD_FORCEINLINE AccumT
fold_slot(const ItemSlot<T, N>& run, int first, int last, ThreadOpT thread_op, TransformOpT transform)
{
  if constexpr (!FoldsEmpty)
  {
    if (first >= last)
    {
      return AccumT{};
    }
  }
  AccumT aggregate = transform(run.items[0], static_cast<OffsetT>(first));
#pragma unroll
  for (int k = 1; k < N; ++k)
  {
    aggregate = thread_op(aggregate, transform(run.items[k], static_cast<OffsetT>(first + k)));
  }
  return first < last ? aggregate : AccumT{};
}

//! The fold of a lane's run of at most `MaxItems` items, `[first, last)` of the segment at `in`: loaded together
//! (one memory round trip), then folded in index order. An empty run gives `AccumT{}`. `Vectorized`: the run is
//! whole (`MaxItems` items) or empty, and `in + first` is a raw pointer aligned to `MaxItems` items, so it is loaded
//! whole (`load_slot`: one vector load, two for 8-byte items in runs of 4), folded without a check per item (which
//! kept registers: as a branch with the checks, half took 54 where it has 48 and 40 without); the same fold.
//! Otherwise an item past the run is never left unset (nvcc gave an unset item the register of a loaded one: a copy
//! that waited for that load before the next run's loads could issue). `LoadsFirst`: every item is loaded (past the
//! run, a value-initialised one) before the run's items are transformed; otherwise each item is loaded and
//! transformed under its own check, `AccumT{}` past the run. Which keeps more loads in flight depends on the code
//! around it (docs/performance.md, "Small segments: no item left unset").
template <int MaxItems,
          typename AccumT,
          typename OffsetT,
          bool Vectorized = false,
          bool LoadsFirst = true,
          typename InputIteratorT,
          typename ThreadOpT,
          typename TransformOpT>
FOLD_DEVICE FOLD_FORCEINLINE AccumT
fold_run(InputIteratorT in, int first, int last, ThreadOpT thread_op, TransformOpT transform)
{
  if constexpr (Vectorized)
  {
    if (first >= last)
    {
      return AccumT{};
    }
    return fold_slot<AccumT, OffsetT, true>(load_slot<true, MaxItems>(in, first, 0), first, last, thread_op, transform);
  }
  else
  {
    if constexpr (LoadsFirst)
    {
      using ValueT = value_t<InputIteratorT>;
      ValueT items[MaxItems];
#pragma unroll
      for (int k = 0; k < MaxItems; ++k)
      {
        items[k] = first + k < last ? static_cast<ValueT>(in[first + k]) : ValueT{};
      }
      AccumT aggregate = first < last ? transform(items[0], static_cast<OffsetT>(first)) : AccumT{};
#pragma unroll
      for (int k = 1; k < MaxItems; ++k)
      {
        if (first + k < last)
        {
          aggregate = thread_op(aggregate, transform(items[k], static_cast<OffsetT>(first + k)));
        }
      }
      return aggregate;
    }
    else
    {
      AccumT items[MaxItems];
#pragma unroll
      for (int k = 0; k < MaxItems; ++k)
      {
        items[k] = first + k < last ? transform(in[first + k], static_cast<OffsetT>(first + k)) : AccumT{};
      }
      AccumT aggregate = items[0];
#pragma unroll
      for (int k = 1; k < MaxItems; ++k)
      {
        if (first + k < last)
        {
          aggregate = thread_op(aggregate, items[k]);
        }
      }
      return aggregate;
    }
  }
}

//! The whole segment of `items` items at `in`, in one thread: its `valid` lane runs of `Run` items (the last one
//! shorter, 1 to `Run`; `valid` at most `MaxRuns`), each folded by `fold_run`, merged along the tree
//! `reduce_lane_groups` gives a group of lanes (runs `2k` and `2k + 1`, then pairs of those, ...; the last run alone
//! where it has no partner), so the same value as the group's, without its lanes and shuffles. The run's length is a
//! constant (`with_segment_runs`), so the whole runs, all but the last, are folded without a check per item: with
//! the length a variable, each of a run's `lane_items` slots was loaded and folded under checks of its own (half
//! over 33 items: about 7 instructions a slot, 8 slots a run of 5 items; docs/performance.md, "Small fixed-size
//! segments: the tile kernel's runs of a constant length"). `pending[l]` holds the finished subtree of `2^l` runs
//! waiting for its right partner: after `n` runs, those `l` whose bit is set in `n`, so every index is known at
//! compile time once the loop over runs is unrolled (unbounded, that took up to 128 registers: bound its kernel's).
//! The last run, `n = valid - 1`, then takes the subtrees of the bits of `n` in order, lowest first: the subtrees it
//! completes, then those it is merged with at the end.
template <int Run,
          int MaxRuns,
          typename AccumT,
          typename OffsetT,
          typename InputIteratorT,
          typename ThreadOpT,
          typename ReductionOpT,
          typename TransformOpT>
FOLD_DEVICE FOLD_FORCEINLINE AccumT
fold_runs_in_tree(InputIteratorT in, int items, int valid, ThreadOpT thread_op, ReductionOpT op, TransformOpT transform)
{
  static_assert(MaxRuns >= 1 && MaxRuns <= 32, "fold_runs_in_tree: a group of at most 32 lanes");
  // Runs of more than 4 items each item loaded under its own check: every load first, the 2-byte items' runs of 8
  // spilled 256 bytes in SegmentedFixedTileKernel.
  constexpr bool loads_first = Run <= 4;
  const int whole            = valid - 1; // the runs before the last, `Run` items each
  AccumT pending[5];                      // subtrees of 1, 2, 4, 8 and 16 runs
#pragma unroll
  for (int r = 0; r < MaxRuns - 1; ++r)
  {
    if (r >= whole)
    {
      break;
    }
    // `from + k < from + Run` for every `k` of the fold: no check is left.
    const int from = r * Run;
    AccumT carry   = fold_run<Run, AccumT, OffsetT, false, loads_first>(in, from, from + Run, thread_op, transform);
    int level      = 0; // r's trailing ones: the subtrees it completes
#pragma unroll
    for (; level < 4 && ((r >> level) & 1) != 0; ++level)
    {
      carry = op(pending[level], carry);
    }
    pending[level] = carry;
  }
  AccumT total = fold_run<Run, AccumT, OffsetT, false, loads_first>(in, whole * Run, items, thread_op, transform);
#pragma unroll
  for (int l = 0; l < 5 && (1 << l) < MaxRuns; ++l)
  {
    if (((whole >> l) & 1) != 0)
    {
      total = op(pending[l], total);
    }
  }
  return total;
}

//! `f(std::integral_constant<int, Run>{}, std::integral_constant<int, MaxRuns>{})` for the lane runs of a small
//! segment of `items` items (2 to 32 x `LaneItems`) in a group of `lanes` lanes (`SegmentClasses::lanes`): one run of
//! `items` items where one lane holds it (`MaxRuns` 1), and otherwise runs of `ceil(items / lanes)` items, which is
//! more than `LaneItems / 2` (`lanes` is the least power of two that leaves each at most `LaneItems`), up to 32 of
//! them. So `LaneItems` lengths of one run and `LaneItems / 2` of several, each a `fold_runs_in_tree` of its own. It
//! takes `items`, not the run's length, so that inside the one-run branch nvcc knows `items == Run` and folds the
//! single run's checks away too (taking the run's length instead changed the same kernels' SASS by up to 27 %).
template <int LaneItems, int Run = 1, typename F>
FOLD_HOST_DEVICE FOLD_FORCEINLINE void with_segment_runs(int items, int lanes, F&& f)
{
  if constexpr (Run <= LaneItems)
  {
    if (lanes == 1 && items == Run)
    {
      f(std::integral_constant<int, Run>{}, std::integral_constant<int, 1>{});
    }
    else if (Run > LaneItems / 2 && lanes > 1 && (items + lanes - 1) / lanes == Run)
    {
      f(std::integral_constant<int, Run>{}, std::integral_constant<int, 32>{});
    }
    else
    {
      with_segment_runs<LaneItems, Run + 1>(items, lanes, static_cast<F&&>(f));
    }
  }
}

//! `Runs` consecutive lane runs of a small segment, from run `first_run`, merged in place along the first levels of
//! the tree `reduce_lane_groups` gives a group (run `q` takes run `q + step` where that is one of the `valid` runs):
//! `runs[0]` is then what lane `first_run / Runs` would hold after those levels, for a thread that takes `Runs` runs
//! of the group, so a group of `lanes / Runs` threads finishes the same tree with `reduce_lane_groups` over
//! `ceil(valid / Runs)` partials.
template <int Runs, typename AccumT, typename ReductionOpT>
FOLD_DEVICE FOLD_FORCEINLINE void merge_runs_in_tree(AccumT (&runs)[Runs], int first_run, int valid, ReductionOpT op)
{
  static_assert(Runs > 0 && (Runs & (Runs - 1)) == 0, "merge_runs_in_tree: a power of two of runs");
#pragma unroll
  for (int step = 1; step < Runs; step *= 2)
  {
#pragma unroll
    for (int r = 0; r + step < Runs; r += 2 * step)
    {
      if (first_run + r + step < valid)
      {
        runs[r] = op(runs[r], runs[r + step]);
      }
    }
  }
}

//! A small segment of `items` items at `in` (at most `OwnRuns` x `LaneItems`) in one thread: one lane run, or two
//! where `OwnRuns` is 2 (runs of ceil(items / 2) items, the two a group of two lanes folds), the second merged after
//! the first as the group's shuffle would (`merge_runs_in_tree`), so the same bits. Each item is loaded and
//! transformed under its own check (`fold_run`'s `LoadsFirst` off: in `SegmentedWarpKernel`'s two-group step that
//! kept both groups' loads in flight for Min too). The second run is read only where a thread of the warp has one (a
//! vote: every lane of the warp calls it), so a warp of one-run segments pays nearly nothing for it. Not the general
//! fold (`small_lanes` and `runs_of` for the runs, every run read, as `fold_runs_in_tree` does): that took one-item
//! segments to 1.47x the time there (m2 in docs/performance.md, "Small segments through offsets: two lane runs in one
//! lane").
template <int LaneItems,
          int OwnRuns,
          typename AccumT,
          typename OffsetT,
          typename InputIteratorT,
          typename ThreadOpT,
          typename ReductionOpT,
          typename TransformOpT>
FOLD_DEVICE FOLD_FORCEINLINE AccumT
fold_own_segment(InputIteratorT in, int items, ThreadOpT thread_op, ReductionOpT op, TransformOpT transform)
{
  static_assert(OwnRuns == 1 || OwnRuns == 2, "fold_own_segment: one or two lane runs");
  const int run  = OwnRuns > 1 && items > LaneItems ? (items + 1) >> 1 : items;
  AccumT runs[2] = {fold_run<LaneItems, AccumT, OffsetT, false, false>(in, 0, run, thread_op, transform), AccumT{}};
  if (OwnRuns > 1 && __any_sync(~0u, items > run))
  {
    runs[1] = fold_run<LaneItems, AccumT, OffsetT, false, false>(in, run, items, thread_op, transform);
    merge_runs_in_tree(runs, 0, items > run ? 2 : 1, op);
  }
  return runs[0];
}

//! `shuffle_down` over the whole warp of a partial of a small segment. `IndicesInSegment`: an index-value pair's
//! 64-bit index counts from the segment's first item (the arg-reductions' pairs, `pairs_with_index_v`), so it is
//! under `small_max` and goes as one 32-bit word: the pair takes 2 shuffles, not 3. Indices the items carry may
//! be any 64-bit value, and go whole.
template <bool IndicesInSegment, typename AccumT>
FOLD_DEVICE FOLD_FORCEINLINE AccumT shuffle_down_in_small(const AccumT& value, int offset)
{
  if constexpr (IndicesInSegment)
  {
    static_assert(std::is_same_v<decltype(AccumT::key), std::int64_t>, "shuffle_down_in_small: 64-bit indices");
    const int key = __shfl_down_sync(~0u, static_cast<int>(value.key), offset);
    return {static_cast<std::int64_t>(key), shuffle_down(value.value, offset, 32)};
  }
  else
  {
    return shuffle_down(value, offset, 32);
  }
}

} // namespace detail
FOLD_NAMESPACE_END

// SPDX-License-Identifier: Apache-2.0
//! @file
//! The segmented reduction kernels, the state they share and their lists. Each segment's tree depends only on its
//! length (its size class, see `SegmentClasses`), never on which kernel, warp or block reduces it, so every result is
//! the same run to run. What reduces a segment of each class (the classes, the small segments' lane runs, the units
//! and partials of block and large segments) is in agent/agent_segmented_reduce.cuh; `SegmentedAgents` picks the
//! agents for the architecture.
//!
//! - `SegmentedWarpKernel` looks at every segment, 32 per warp (one per lane, offsets read coalesced). It
//!   reduces the small ones with groups of lanes and the short warp-sized ones with a warp each, and records the
//!   rest: a list of the longer warp-sized ones (those past its end it reduces too), the index range of block and
//!   large segments, and a list of the large ones with where their units start.
//! - `SegmentedFixedKernel` takes fixed-size segments of at most `warp_max` items instead: the same trees,
//!   without offsets or classes (each lane run one vector load where the runs are whole and aligned). Small ones
//!   whose runs are not, from a raw pointer, take `SegmentedFixedTileKernel`: a tile of whole segments staged in
//!   shared memory with vector loads, then each segment's runs folded and merged along the same tree by one thread.
//!   Longer fixed-size segments take `SegmentedFixedUnitsKernel` (a block per block segment or per unit of a large
//!   one) and, for large ones, `SegmentedFixedPartialsKernel`: the same trees again.
//! - `SegmentedBlockKernel`, a grid as large as the device holds at once, then deals the listed warp segments out
//!   over all its warps, spreads the units of the listed large segments over all its blocks (the block finishing
//!   a segment's last unit reduces its partials), then gives each listed block segment a block (a block's first
//!   three by index, the rest from a shared counter); or, where the lists overflowed, takes the recorded range in
//!   groups of segments, giving each block and large segment one block.
//!
//! The classification happens on the device, so nothing is read back to the host: the host launches both
//! kernels every call, and each finds its work in the state the first one leaves.
#pragma once

#include <fold/agent/agent_segmented_reduce.cuh>
#include <fold/block/block_stage.cuh>
#include <fold/dispatch/kernels_reduce.cuh>
#include <fold/grid/grid_clear.cuh>
#include <fold/tuning/tuning_reduce.cuh>
#include <fold/util/arch.cuh>
#include <fold/util/macros.cuh>
#include <fold/detail/output.cuh>
#include <fold/detail/reduction.cuh>
#include <fold/util/operators.cuh>
#include <fold/util/type_traits.cuh>
#include <fold/warp/warp_reduce.cuh>

#include <cuda/atomic>

#include <cstdint>
#include <type_traits>

FOLD_NAMESPACE_BEGIN
FOLD_KERNELS_BEGIN
namespace detail
{

//! What `SegmentedWarpKernel` leaves for `SegmentedBlockKernel`, in the temporary storage, zeroed each call before
//! its first atomic (see `GridClear`).
struct SegmentedState
{
  static constexpr int count_shift               = 40;
  static constexpr unsigned long long units_mask = (1ull << count_shift) - 1;

  //! Large segments found (upper 24 bits) and their units so far (lower 40): one atomic gives a large segment its
  //! place in the list and where its units start, so the list is sorted by unit.
  unsigned long long large;
  unsigned long long blocks;           //!< block segments found (the first of them listed)
  unsigned long long warps;            //!< warp segments found (the first of them listed, the rest reduced at once)
  unsigned long long first_complement; //!< `~first` of the block and large segments' range (0: none)
  unsigned long long end;              //!< one past its last
  unsigned long long next;             //!< the block kernel's work counter over the range
  unsigned tickets;                    //!< and over the block list, past each block's first three
};

//! A large segment in the list: which it is, and the index of its first unit among all listed units.
struct LargeSegment
{
  std::int64_t segment;
  std::uint64_t first_unit;
};

//! The agents of the segmented kernels compiled for `Arch`: a block agent and a warp agent over the items (with
//! indices counted from the segment's first item), and a block agent over the partials; `Segment` reduces a block or
//! large segment with them.
template <typename TuningT,
          int Arch,
          typename InputIteratorT,
          typename AccumT,
          typename OffsetT,
          typename ReductionOpT,
          typename TransformOpT>
struct SegmentedAgents
{
  using Block =
      typename AgentReduceFor<TuningT, Arch, InputIteratorT, AccumT, OffsetT, ReductionOpT, TransformOpT, void>::type;
  static constexpr TileShape shape = reduce_tile_shape<InputIteratorT, AccumT, TuningT>(Arch);
  using Warp                       = typename Block::WarpAgent;
  using Partials =
      typename AgentReduceFor<TuningT, Arch, AccumT*, AccumT, std::uint32_t, ReductionOpT, CastTo<AccumT>, void>::type;
  static constexpr SegmentClasses classes = SegmentClasses::make(segmented_policy(), shape);
  using Segment = AgentSegmentedReduce<Block, Partials, InputIteratorT, AccumT, OffsetT, ReductionOpT, TransformOpT>;
};

//! A short warp segment of `SegmentedWarpKernel`, the `items` items at `in`, by its warp agent `WarpAgentT`, not
//! inlined. The kernel calls it for accumulators of more than 8 bytes (the arg-reductions' pairs), whose warp agent
//! (the winner-first tile folds) inlined into the kernel left its small segments' loops spilling: ArgMax over one-item
//! segments took 0.69 of the time on an H100 this way, but half Sum over one item 1.36 (docs/performance.md, "Small
//! segments: the warp agent apart for pairs").
template <typename WarpAgentT,
          typename AccumT,
          typename OffsetT,
          typename InputIteratorT,
          typename ReductionOpT,
          typename TransformOpT>
FOLD_DEVICE __noinline__ AccumT reduce_warp_segment_apart(typename WarpAgentT::TempStorage& storage,
                                                          InputIteratorT in,
                                                          OffsetT items,
                                                          ReductionOpT op,
                                                          TransformOpT transform)
{
  return WarpAgentT(storage, in, op, transform).ConsumeRange(OffsetT{0}, items);
}

//! A place in a list for each lane that asks for one, with one atomic on `counter` per warp: the places are
//! consecutive in lane order. Every lane of the warp calls it.
FOLD_DEVICE FOLD_FORCEINLINE unsigned long long warp_append(unsigned long long* counter, bool asks)
{
  const unsigned mask       = __ballot_sync(~0u, asks);
  const int lane            = static_cast<int>(threadIdx.x) % 32;
  unsigned long long before = 0;
  if (mask != 0 && lane == 0)
  {
    before = atomicAdd(counter, static_cast<unsigned long long>(__popc(mask)));
  }
  return __shfl_sync(~0u, before, 0) + static_cast<unsigned long long>(__popc(mask & ((1u << lane) - 1u)));
}

//! The longest segments whose items `SegmentedWarpKernel` asks L2 for a group ahead of their loads (`prefetch_items`,
//! their first line): 1-16 items took 0.91-0.95 of the time on an H100, 32 items 1.05 when they were asked for too
//! (docs/performance.md, "Small segments: items asked of L2 a step ahead").
inline constexpr std::uint64_t prefetch_ahead_items = 16;

//! The longest segments whose items `SegmentedWarpKernel` asks L2 for as their group starts (from
//! `prefetch_ahead_items` up, at most 3 lines): their groups take several rounds, whose loads then meet L2. On an H100,
//! 32-64 items took 0.88-0.97 of the time, uniform 1-64 0.91-0.97; 100-128 items (32 lanes, 4-5 lines) 1.11-1.24
//! when they were asked for too, 1.11-1.15 with their first 2 lines. Measured again with two lane runs a thread
//! (`offset_thread_runs`, an H200): without it 1.03-1.07, up to 128 items (5 lines) 1.10-1.23 for 100-128.
inline constexpr std::uint64_t prefetch_group_items = 64;

//! Lane runs a thread of `SegmentedWarpKernel` takes of a small segment through offsets whose group is 2 lanes or
//! more: consecutive ones, merged along the tree's first level (`merge_runs_in_tree`), so a group of `width` lanes
//! is `width / 2` threads (a 2-lane group one), and its threads finish the same tree with shuffles. Against one run
//! a thread, on an H100: Sum over float of 7-128 items took 0.71-0.96 of the time, the random mixes 0.76-0.98, Min
//! and ArgMax over 128 items 0.73-0.74. 4 runs a thread took 33 and 100 items further (0.59-0.69) but full runs of
//! 16-128 items to 1.15-1.24 (docs/performance.md, "Small segments through offsets: two lane runs a thread").
inline constexpr int offset_thread_runs = 2;

//! Rounds of 32 tasks `SegmentedWarpKernel`'s wider groups load together (3 spilled 40-112 bytes); a round left
//! over is taken alone, since an empty round's instructions cost 6-15 % where groups of 2 lanes fill one round.
inline constexpr int offset_rounds = 2;

//! Whether `SegmentedWarpKernel` loads the lane runs of a warp's wider groups one vector load each where every one
//! of them is whole and aligned: for 1- and 2-byte items of a raw pointer, whose item-by-item loads bound the kernel
//! at L1 (ncu, half over 128 items: L1 at 95 % of its throughput, DRAM at 53 %). On an H100, half over 64-256 items
//! took 0.67-0.69 of the time (50-53 -> 75-77 % of peak), and the warps that keep item-by-item loads 1.03-1.07
//! (docs/performance.md, "Small segments through offsets: 2-byte runs as words or vectors").
template <typename InputIteratorT>
inline constexpr bool offset_vector_runs = is_vectorizable_input_v<InputIteratorT> &&
                                           sizeof(value_t<InputIteratorT>) <= 2;

//! Segments a thread of `SegmentedFixedKernel` takes at a time (their loads in flight together): up to 16 words
//! of accumulators, so wide pairs keep their registers (8 for 4-byte ones was 4% slower than 4 on an H200). Where a
//! thread folds `LaneRuns` lane runs of each segment, as many fewer (at least one).
template <typename AccumT, int LaneRuns = 1>
FOLD_HOST_DEVICE constexpr int fixed_segment_tasks()
{
  constexpr int tasks = sizeof(AccumT) <= 4 ? 4 : sizeof(AccumT) <= 8 ? 2 : 1;
  return tasks > LaneRuns ? tasks / LaneRuns : 1;
}

//! Lane runs a thread of `SegmentedFixedKernel` folds, where it folds more than one (`fixed_lane_runs`).
inline constexpr int fixed_thread_runs = 4;

//! The lane runs a thread of `SegmentedFixedKernel` folds of each small segment of `length` items whose runs are
//! whole vectors of `vector_run` items: `fixed_thread_runs` (4) where its lane group is 4 lanes or more (the group's
//! first two levels of the tree in the thread, so a quarter of the shuffles; at 4 lanes, 16 items, a thread the
//! segment), 2 where it is 2 lanes (a thread the segment, no shuffle), otherwise 1. Starting at 4 lanes rather than 8
//! took ArgMax over 16 items to 0.88 of the time on an H100 (the other 16-item cases 0.97-0.99); 2 runs a thread at 2
//! lanes took 0.83-0.97 of the time for float segments of 8 items and half ones of 16 on an H200 (docs/performance.md,
//! "Small fixed-size segments: two lane runs a thread").
FOLD_HOST_DEVICE constexpr int fixed_lane_runs(const SegmentClasses& classes, std::uint64_t length, int vector_run)
{
  const int lanes = classes.lanes(length);
  return vector_run != classes.lane_items ? 1 : lanes >= fixed_thread_runs ? fixed_thread_runs : lanes == 2 ? 2 : 1;
}

//! One-item segments a thread of `SegmentedFixedKernel` takes per task: consecutive ones, loaded like a lane run.
//! 3, not 4: the kernel keeps its registers (40 for a float sum, 6 blocks to a multiprocessor; 4 took 42, 5 blocks).
//! 16 single segments per thread instead took 64 registers, and slowed every other size by 4-7% (H200).
inline constexpr int one_item_run = 3;

//! Segments of `length` items one block of `SegmentedFixedKernel` (`block_threads` threads) takes per step of its
//! loop: the kernel's grid stride is this times the blocks, and the host sizes the grid from it. A warp each in
//! the warp class (and for empty segments); `group_tasks` tasks of `block_threads / (lanes / LaneRuns)` segments
//! each for small ones, one-item segments `one_item_run` at a time.
template <typename AccumT, int LaneRuns = 1>
FOLD_HOST_DEVICE constexpr std::int64_t
fixed_block_segments(const SegmentClasses& classes, int block_threads, std::uint64_t length)
{
  if (length == 0 || length > classes.small_max)
  {
    return block_threads / 32;
  }
  return static_cast<std::int64_t>(block_threads / (classes.lanes(length) / LaneRuns)) *
         fixed_segment_tasks<AccumT, LaneRuns>() * (length == 1 ? one_item_run : 1);
}

//! Whether a small segment of `length` items at `in`, in `width` lanes (so `length <= run * width`), is whole lane
//! runs of `run` items each (`ceil(length / width)` is `run`, and `run` divides `length`), every run aligned to its
//! bytes: what one vector load a run needs.
template <typename InputIteratorT>
FOLD_HOST_DEVICE bool whole_vector_runs(InputIteratorT in, std::uint64_t length, std::uint64_t width, std::uint64_t run)
{
  return length % run == 0 && length > (run - 1) * width &&
         reinterpret_cast<std::uintptr_t>(in) % (sizeof(value_t<InputIteratorT>) * run) == 0;
}

//! The items of each lane run `SegmentedFixedKernel` reads with one vector load from the small segments of `length`
//! items at `in` (its `VectorRun` instantiation), or 0: a raw pointer to a primitive type, every run 2 or
//! `lane_items` items (none shorter; 2 only where a segment is 2 items) and every run aligned to its size. The runs
//! and their folds are the same either way, so are the bits.
template <typename InputIteratorT>
FOLD_HOST_DEVICE int fixed_vector_run(const SegmentClasses& classes, InputIteratorT in, std::uint64_t length)
{
  if constexpr (is_vectorizable_input_v<InputIteratorT>)
  {
    if (length == 0 || length > classes.small_max)
    {
      return 0;
    }
    const auto width = static_cast<std::uint64_t>(classes.lanes(length));
    const auto run   = (length + width - 1) / width;
    return (run == 2 || run == static_cast<std::uint64_t>(classes.lane_items)) &&
                   whole_vector_runs(in, length, width, run)
               ? static_cast<int>(run)
               : 0;
  }
  else
  {
    return 0;
  }
}

//! Clears the `count` words of a `GridClear` with one block, under graph capture (the segmented kernels' shared state,
//! a column tree's tail). A kernel rather than `cudaMemsetAsync`, so that a call's launches all overlap the kernel
//! before them (programmatic dependent launch chains kernels only: a memset between two kernels puts their whole
//! launch latency back between them).
template <typename WordT>
FOLD_KERNEL void GridClearKernel(WordT* words, int count)
{
  begin_dependent_kernel();
  for (int i = static_cast<int>(threadIdx.x); i < count; i += static_cast<int>(blockDim.x))
  {
    words[i] = WordT{};
  }
}

template <typename InputIteratorT,
          typename OutputIteratorT,
          typename BeginOffsetIteratorT,
          typename EndOffsetIteratorT,
          typename OffsetT,
          typename ReductionOpT,
          typename InitT,
          typename AccumT,
          typename TransformOpT,
          typename TuningT>
FOLD_KERNEL __launch_bounds__(kernel_policy<TuningT, FOLD_ARCH>.block_threads,
                              4) void SegmentedWarpKernel(InputIteratorT in,
                                                          OutputIteratorT out,
                                                          BeginOffsetIteratorT begins,
                                                          EndOffsetIteratorT ends,
                                                          std::int64_t num_segments,
                                                          ReductionOpT op,
                                                          InitT init,
                                                          TransformOpT transform,
                                                          SegmentedState* state,
                                                          LargeSegment* large_list,
                                                          unsigned* unit_counts,
                                                          std::int64_t* block_list,
                                                          std::int64_t* warp_list,
                                                          int large_cap,
                                                          int block_cap,
                                                          GridClear clear)
{
  begin_dependent_kernel();
  using Agents = SegmentedAgents<TuningT, FOLD_ARCH, InputIteratorT, AccumT, OffsetT, ReductionOpT, TransformOpT>;
  constexpr SegmentClasses sizes = Agents::classes;
  constexpr int warps            = kernel_policy<TuningT, FOLD_ARCH>.block_threads / 32;
  // The state and the unit counters: cleared by block 0 as it starts (one launch less a call); a warp waits for that
  // before its first atomic on the state, which most warps reach after their first group's loads, or never.
  clear.clear_from_block0();
  bool cleared = clear.call == 0; // the same in every lane of a warp
  __shared__ typename Agents::Warp::TempStorage storage[warps];
  __shared__ unsigned char owners[warps][32]; // the lane of each wider small group, in the order of their tasks

  const int lane                                       = static_cast<int>(threadIdx.x) % 32;
  const int warp                                       = static_cast<int>(threadIdx.x) / 32;
  const typename InOrder<ReductionOpT>::type thread_op = InOrder<ReductionOpT>::make(op);
  // A segment's first item and length as the offsets allow (`SegmentWords`).
  using BeginT  = typename SegmentWords<BeginOffsetIteratorT, EndOffsetIteratorT>::begin_type;
  using LengthT = typename SegmentWords<BeginOffsetIteratorT, EndOffsetIteratorT>::length_type;

  // A group of 32 segments, one per lane (`length` 0 for a lane past the last segment): every class but the
  // one-lane segments of groups that have only those, which the loop below takes two groups at a time.
  auto reduce_group = [&](std::int64_t group, BeginT begin, LengthT length)
  {
    const std::int64_t segment = group * 32 + lane;
    const bool present         = segment < num_segments;
    const SegmentClass kind    = present ? sizes.of(length) : SegmentClass::empty;
    if (present && kind == SegmentClass::empty)
    {
      store_segment(out, segment, init.empty());
    }

    // Small segments. A lane folds a run of at most `lane_items` items in index order, and the runs of a group of
    // `lanes(length)` lanes are reduced in lane order: the tree depends only on the length. Segments of one lane
    // fold their own items in place.
    const int width_of_mine = kind == SegmentClass::small ? small_lanes<sizes.lane_items>(static_cast<int>(length)) : 0;
    if (width_of_mine == 1)
    {
      const AccumT aggregate =
          fold_run<sizes.lane_items, AccumT, OffsetT>(in + begin, 0, static_cast<int>(length), thread_op, transform);
      store_segment(out, segment, init.finalize(op, aggregate));
    }
    if (length > prefetch_ahead_items && length <= prefetch_group_items) // a small segment of 8 or 16 lanes
    {
      prefetch_items<3>(in, begin, length);
    }
    const unsigned wide = __ballot_sync(~0u, width_of_mine > 1);
    const unsigned rest = __ballot_sync(~0u, kind > SegmentClass::small);
    // Wider groups: a group of `width` lanes is `width / offset_thread_runs` threads (at least one), each taking
    // `offset_thread_runs` consecutive lane runs and merging them along the tree's first levels
    // (`merge_runs_in_tree`), so the threads finish the same tree with shuffles. Laid out by decreasing width, each
    // group is an aligned run of threads in one round of 32 tasks, so every round reduces its groups with one shuffle
    // tree. Rounds are taken `offset_rounds` at a time, all their loads issued before any is folded.
    if (wide != 0)
    {
      constexpr int runs      = offset_thread_runs;
      constexpr int run_shift = runs == 4 ? 2 : runs == 2 ? 1 : 0; // runs a thread, as a shift
      static_assert(runs == 1 || runs == 2 || runs == 4, "SegmentedWarpKernel: 1, 2 or 4 lane runs a thread");
      // The threads of a group of `2^width_shift` lanes, as a shift: a thread per `runs` lanes, at least one.
      auto threads_shift = [](int width_shift) { return width_shift > run_shift ? width_shift - run_shift : 0; };
      int starts[5];       // the first task of each width 32, 16, 8, 4, 2
      int first_groups[5]; // and the place of its first group
      int my_group = 0, tasks = 0, groups = 0;
#pragma unroll
      for (int c = 0; c < 5; ++c)
      {
        const unsigned mask = __ballot_sync(~0u, width_of_mine == (32 >> c));
        starts[c]           = tasks;
        first_groups[c]     = groups;
        if (width_of_mine == (32 >> c))
        {
          my_group = groups + __popc(mask & ((1u << lane) - 1u));
        }
        groups += __popc(mask);
        tasks += __popc(mask) << threads_shift(5 - c);
      }
      if (width_of_mine > 1)
      {
        owners[warp][my_group] = static_cast<unsigned char>(lane);
      }
      __syncwarp();
      // Rounds `round` to `round + Rounds - 1`: each task's group and segment first, then all their runs' loads
      // together (`vector_loads`: every run whole or empty, and aligned, so one vector load each), then the shuffles.
      auto reduce_rounds = [&](int round, auto rounds, bool vector_loads)
      {
        constexpr int Rounds = decltype(rounds)::value;
        AccumT aggregate[Rounds][runs];
        int rank[Rounds], valid[Rounds], owner[Rounds], widest[Rounds], items[Rounds], run[Rounds];
        BeginT s_begin[Rounds];
        bool active[Rounds];
#pragma unroll
        for (int r = 0; r < Rounds; ++r)
        {
          const int task = (round + r) * 32 + lane;
          int shift = 5, start = 0, first_group = 0; // this task's width (as a shift), and where it starts
#pragma unroll
          for (int c = 0; c < 5; ++c)
          {
            if (task >= starts[c])
            {
              shift       = 5 - c;
              start       = starts[c];
              first_group = first_groups[c];
            }
          }
          const int thread_shift = threads_shift(shift);
          active[r]              = task < tasks;
          widest[r]  = __shfl_sync(~0u, active[r] ? 1 << thread_shift : 1, 0); // lane 0's group is the widest
          rank[r]    = (task - start) & ((1 << thread_shift) - 1);
          owner[r]   = active[r] ? owners[warp][first_group + ((task - start) >> thread_shift)] : 0;
          s_begin[r] = __shfl_sync(~0u, begin, owner[r]);
          const LengthT s_items = __shfl_sync(~0u, length, owner[r]);
          items[r]              = active[r] ? static_cast<int>(s_items) : 0;
          run[r]                = (items[r] + (1 << shift) - 1) >> shift;
          valid[r]              = runs_of<sizes.lane_items>(items[r], run[r]);
        }
        auto load_runs = [&](auto vector_runs)
        {
#pragma unroll
          for (int r = 0; r < Rounds; ++r)
          {
#pragma unroll
            for (int q = 0; q < runs; ++q)
            {
              const int first = (rank[r] * runs + q) * run[r];
              const int last  = first + run[r] < items[r] ? first + run[r] : items[r];
              aggregate[r][q] = fold_run<sizes.lane_items, AccumT, OffsetT, decltype(vector_runs)::value>(
                  in + s_begin[r], first, last, thread_op, transform);
            }
          }
        };
        if constexpr (offset_vector_runs<InputIteratorT>)
        {
          if (vector_loads)
          {
            load_runs(std::true_type{});
          }
          else
          {
            load_runs(std::false_type{});
          }
        }
        else
        {
          load_runs(std::false_type{});
        }
#pragma unroll
        for (int r = 0; r < Rounds; ++r)
        {
          merge_runs_in_tree(aggregate[r], rank[r] * runs, valid[r], op);
          // Threads reach only threads of their own group: `rank + offset < valid threads <= group threads`.
          const int valid_threads = (valid[r] + runs - 1) / runs;
          for (int offset = 1; offset < widest[r]; offset *= 2)
          {
            const AccumT other = shuffle_down_in_small<pairs_with_index_v<TransformOpT>>(aggregate[r][0], offset);
            if (rank[r] + offset < valid_threads)
            {
              aggregate[r][0] = op(aggregate[r][0], other);
            }
          }
          if (active[r] && rank[r] == 0)
          {
            store_segment(out, group * 32 + owner[r], init.finalize(op, aggregate[r][0]));
          }
        }
      };
      // Every wider group of the warp's segments in whole runs of `lane_items` from an aligned first item: each run
      // one vector load, not `lane_items` (one test for the warp).
      bool vectors = false;
      if constexpr (offset_vector_runs<InputIteratorT>)
      {
        const bool whole = width_of_mine <= 1 || whole_vector_runs(in + begin,
                                                                   length,
                                                                   static_cast<std::uint64_t>(width_of_mine),
                                                                   static_cast<std::uint64_t>(sizes.lane_items));
        vectors          = __all_sync(~0u, whole);
      }
      // `offset_rounds` at a time, then any left one by one (an empty round would cost its instructions).
      const int all_rounds = (tasks + 31) / 32;
      int round            = 0;
      for (; round + offset_rounds <= all_rounds; round += offset_rounds)
      {
        reduce_rounds(round, std::integral_constant<int, offset_rounds>{}, vectors);
      }
      for (; round < all_rounds; ++round)
      {
        reduce_rounds(round, std::integral_constant<int, 1>{}, vectors);
      }
      __syncwarp(); // `owners` is rewritten by the next group
    }

    if (rest == 0)
    {
      return; // only small and empty segments in this group
    }
    while (!cleared) // the state's atomics below wait for block 0's clear (see `GridClear`)
    {
      cleared = clear.cleared();
    }
    // Warp segments longer than one warp tile are listed for the block kernel, whose warps share them out over
    // the whole grid (a group's long warp segments reduced by its own warp leave most of the GPU idle). The rest,
    // and those past the list's end, are reduced here, one at a time.
    const unsigned warp_mask            = __ballot_sync(~0u, kind == SegmentClass::warp);
    const bool long_warp                = kind == SegmentClass::warp && length > 32u * Agents::shape.items_per_thread;
    const unsigned long long warp_place = warp_append(&state->warps, long_warp);
    const bool listed                   = long_warp && warp_place < static_cast<unsigned long long>(block_cap);
    if (listed)
    {
      warp_list[warp_place] = segment;
    }
    for (unsigned mask = warp_mask & ~__ballot_sync(~0u, listed); mask != 0; mask &= mask - 1)
    {
      const int owner       = __ffs(mask) - 1;
      const BeginT s_begin  = __shfl_sync(~0u, begin, owner);
      const LengthT s_items = __shfl_sync(~0u, length, owner);
      AccumT aggregate;
      if constexpr (sizeof(AccumT) > 8)
      {
        aggregate = reduce_warp_segment_apart<typename Agents::Warp, AccumT>(
            storage[warp], in + s_begin, static_cast<OffsetT>(s_items), op, transform);
      }
      else
      {
        aggregate = typename Agents::Warp(storage[warp], in + s_begin, op, transform)
                        .ConsumeRange(OffsetT{0}, static_cast<OffsetT>(s_items));
      }
      if (lane == 0)
      {
        store_segment(out, group * 32 + owner, init.finalize(op, aggregate));
      }
      __syncwarp(); // the warp's storage is reused by the next segment
    }

    // Block and large segments are left to the block kernel: listed, and their range recorded (one atomic per warp
    // for each).
    const unsigned later = __ballot_sync(~0u, kind == SegmentClass::block || kind == SegmentClass::large);
    if (later != 0 && lane == __ffs(later) - 1)
    {
      atomicMax(&state->first_complement, ~static_cast<unsigned long long>(segment));
    }
    if (later != 0 && lane == 31 - __clz(later))
    {
      atomicMax(&state->end, static_cast<unsigned long long>(segment) + 1);
    }
    const unsigned long long block_place = warp_append(&state->blocks, kind == SegmentClass::block);
    if (kind == SegmentClass::block && block_place < static_cast<unsigned long long>(block_cap))
    {
      block_list[block_place] = segment;
    }
    if (kind == SegmentClass::large)
    {
      const unsigned long long before =
          atomicAdd(&state->large, (1ull << SegmentedState::count_shift) | sizes.units(length));
      const unsigned long long position = before >> SegmentedState::count_shift;
      if (position < static_cast<unsigned long long>(large_cap))
      {
        large_list[position]  = {segment, before & SegmentedState::units_mask};
        unit_counts[position] = 0; // its units counted by the block kernel, which starts after this kernel ends
      }
    }
  };

  // Each warp holds the offsets of two groups, `group` and `group + stride`, read one step ahead. When both have only
  // segments a lane can take whole (at most `own_max` items each, or none: `fold_own`), their runs are loaded together
  // and both groups are done in one step: twice the loads in flight, for the segments whose cost is the round trip.
  // Otherwise the first group is reduced alone (one copy of its code).
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * warps;
  std::int64_t group        = static_cast<std::int64_t>(blockIdx.x) * warps + warp;
  auto read_group           = [&](std::int64_t g, BeginT& begin, LengthT& length)
  {
    begin  = 0;
    length = 0; // past the last segment
    if (g * 32 + lane < num_segments)
    {
      read_segment(begins, ends, g * 32 + lane, begin, length);
    }
  };
  // The items of a short segment read ahead are asked of L2 before its turn (see `prefetch_ahead_items`).
  auto prefetch_small = [&](BeginT begin, LengthT length)
  {
    if (length <= prefetch_ahead_items)
    {
      prefetch_items<1>(in, begin, length);
    }
  };
  // A segment of at most `own_max` items in its own lane (`fold_own_segment`): one lane run, or for items of 4 bytes
  // or more two, merged as a group of two lanes would. On an H200, segments of 7 and 8 floats or int32 took 0.66-0.74
  // of the time (48 -> 72 % of peak), Min and ArgMax over 7 floats 0.74 and 0.71, one-item segments 1.02-1.03; such
  // groups in a branch of their own slowed every other case through offsets by 2-8 %, and the second run read
  // unconditionally one-item segments by 10-31 %. 2-byte items keep one run: two, each a vector load where the
  // warp's runs were whole, took 16 halves to 0.65-0.68 of the time, but in three forms the one-lane half groups to
  // 1.03-1.18, the cost of a second copy of this step in the loop (docs/performance.md, "Small segments through
  // offsets: two lane runs in one lane", "... two vector runs in a lane for 2-byte items").
  constexpr int own_runs = sizeof(value_t<InputIteratorT>) >= 4 ? 2 : 1;
  constexpr auto own_max = static_cast<std::uint64_t>(own_runs * sizes.lane_items);
  auto fold_own          = [&](BeginT begin, int items) -> AccumT {
    return fold_own_segment<sizes.lane_items, own_runs, AccumT, OffsetT>(in + begin, items, thread_op, op, transform);
  };
  // A lane's own segment's result, or the empty result: one store, chosen by a select where both have one type (the
  // two stores in branches it replaced took one-item segments 0.95-0.99 of the time on an H200, half ones 0.89). Only
  // the one chosen is evaluated, as in the branches.
  auto store_own = [&](std::int64_t segment, LengthT length, const AccumT& aggregate)
  {
    if (segment >= num_segments)
    {
      return;
    }
    using EmptyT = std::decay_t<decltype(init.empty())>;
    if constexpr (std::is_same_v<EmptyT, std::decay_t<decltype(init.finalize(op, aggregate))>>)
    {
      store_segment(out, segment, length == 0 ? EmptyT(init.empty()) : EmptyT(init.finalize(op, aggregate)));
    }
    else if (length == 0)
    {
      store_segment(out, segment, init.empty());
    }
    else
    {
      store_segment(out, segment, init.finalize(op, aggregate));
    }
  };
  BeginT begin0, begin1;
  LengthT length0, length1;
  read_group(group, begin0, length0);
  read_group(group + stride, begin1, length1);
  while (group * 32 < num_segments)
  {
    BeginT begin2;
    LengthT length2;
    read_group(group + 2 * stride, begin2, length2);
    if (__all_sync(~0u, length0 <= own_max && length1 <= own_max))
    {
      BeginT begin3;
      LengthT length3;
      read_group(group + 3 * stride, begin3, length3);
      const AccumT first         = fold_own(begin0, static_cast<int>(length0));
      const AccumT second        = fold_own(begin1, static_cast<int>(length1));
      const std::int64_t segment = group * 32 + lane;
      store_own(segment, length0, first);
      store_own(segment + stride * 32, length1, second);
      prefetch_small(begin2, length2);
      prefetch_small(begin3, length3);
      group += 2 * stride;
      begin0 = begin2, length0 = length2, begin1 = begin3, length1 = length3;
      continue;
    }
    prefetch_small(begin1, length1);
    reduce_group(group, begin0, length0);
    group += stride;
    begin0 = begin1, length0 = length1, begin1 = begin2, length1 = length2;
  }
}

//! Segments of one fixed size, at most `warp_max` items (the fixed-size overloads, and the rows of an array
//! reduced over its last axis): one class for all and no offsets to read, so nothing is classified. Each segment
//! gets the tree `SegmentedWarpKernel` gives its length, so the bits are the same: a small one a group of
//! `lanes(size)` lanes, a warp one a warp agent. A small segment's lanes are consecutive threads, and a thread
//! takes `group_tasks` segments at a time, all their loads issued before any is folded. `VectorRun` (small segments
//! only, the runs of that many items that `fixed_vector_run` names): each lane run is loaded whole (one vector load;
//! two for 8-byte items in runs of 4) and folded without a check per item; an instantiation of its own, with 40
//! registers for float, half and int8 sums (6 blocks to a multiprocessor; the other: 40, 48, 48). As a branch of this
//! one it read float no faster and took half to 54 registers (docs/performance.md, "Small fixed-size segments: a vector
//! load per lane run"). `LaneRuns` (4, with vector runs of `lane_items` in lane groups of 4 lanes or more; 2 in
//! groups of 2, as `fixed_lane_runs` says): a thread loads 4 (2) consecutive runs and merges them along the tree's
//! first two levels (its first), and a quarter as many threads shuffle the rest (none); the same tree. On an H100 4
//! runs took ArgMax over 128 items from 43 to 76 % of peak and half from 64 to 80 % (docs/performance.md, "Small
//! fixed-size segments: four lane runs a thread").
template <typename InputIteratorT,
          typename OutputIteratorT,
          typename OffsetT,
          typename ReductionOpT,
          typename InitT,
          typename AccumT,
          typename TransformOpT,
          typename TuningT,
          int VectorRun,
          int LaneRuns = 1>
FOLD_KERNEL
__launch_bounds__(kernel_policy<TuningT, FOLD_ARCH>.block_threads) void SegmentedFixedKernel(InputIteratorT in,
                                                                                             OutputIteratorT out,
                                                                                             std::int64_t num_segments,
                                                                                             std::int64_t size,
                                                                                             ReductionOpT op,
                                                                                             InitT init,
                                                                                             TransformOpT transform)
{
  begin_dependent_kernel();
  using Agents = SegmentedAgents<TuningT, FOLD_ARCH, InputIteratorT, AccumT, OffsetT, ReductionOpT, TransformOpT>;
  constexpr SegmentClasses sizes = Agents::classes;
  constexpr int block_threads    = kernel_policy<TuningT, FOLD_ARCH>.block_threads;
  constexpr int warps            = block_threads / 32;
  constexpr int group_tasks      = fixed_segment_tasks<AccumT, LaneRuns>();
  static_assert(LaneRuns == 1 || VectorRun > 0, "SegmentedFixedKernel: several lane runs a thread are whole vectors");
  __shared__ typename Agents::Warp::TempStorage storage[warps];

  const int tid                                        = static_cast<int>(threadIdx.x);
  const typename InOrder<ReductionOpT>::type thread_op = InOrder<ReductionOpT>::make(op);
  const auto length                                    = static_cast<std::uint64_t>(size);
  // Items of 1 or 2 bytes: the block's `segments` segments from `first` on (its next step), asked of L2 a step ahead,
  // thread `t` its `t`-th 128-byte line (`prefetch_items`; a step is contiguous items, at most 64 lines of them).
  // Measured on an H100: half sums of 1-128 items in runs of 4 took 0.77-0.94 of the time; float sums 1.02-1.04 and
  // float ArgMax 1.10-1.12 (48 registers, not 40), so wider items do without. Since half's runs hold 8 items (16
  // bytes), a thread taking one vector run a segment does without too: rows of 16 half took 1.11 of the time with it,
  // 1.03 without, and 2 runs a thread do without as well (rows of 16 half: 0.86 of one run's time without, 0.91
  // with, on an H200); 4 runs a thread keep it (128 items: 1.02-1.04 with, 1.10 without), and so does the instantiation
  // without vector runs (without, nvcc gave it 56 registers, not 48). docs/performance.md, "Small segments: lane runs
  // of 16 bytes for 2-byte items".
  auto prefetch_step = [&](std::int64_t first, std::int64_t segments)
  {
    if constexpr (sizeof(value_t<InputIteratorT>) <= 2)
    {
      constexpr int line_items = 128 / static_cast<int>(sizeof(value_t<InputIteratorT>));
      const std::int64_t from  = first * size + tid * line_items;
      const std::int64_t end   = (first + segments < num_segments ? first + segments : num_segments) * size;
      if (from < end)
      {
        prefetch_items<1>(in, from, 1);
      }
    }
  };

  if (VectorRun == 0 && (length == 0 || length > sizes.small_max)) // the warp class (and empty segments), a warp each
  {
    const int lane              = tid % 32;
    const std::int64_t per_step = fixed_block_segments<AccumT>(sizes, block_threads, length); // a block's segments
    for (std::int64_t segment = static_cast<std::int64_t>(blockIdx.x) * per_step + tid / 32; segment < num_segments;
         segment += static_cast<std::int64_t>(gridDim.x) * per_step)
    {
      if (length == 0)
      {
        if (lane == 0)
        {
          store_segment(out, segment, init.empty());
        }
        continue;
      }
      const AccumT aggregate = typename Agents::Warp(storage[tid / 32], in + segment * size, op, transform)
                                   .ConsumeRange(OffsetT{0}, static_cast<OffsetT>(length));
      if (lane == 0)
      {
        store_segment(out, segment, init.finalize(op, aggregate));
      }
      __syncwarp(); // the warp's storage is reused by the next segment
    }
    return;
  }

  if (VectorRun == 0 && length == 1)
  {
    // One-item segments, each its item transformed and finalised: a thread takes `group_tasks` runs of
    // `one_item_run` consecutive ones, loaded as a lane loads a run. One segment per task left 4 loads in flight
    // and read at 53% of peak on an H200.
    constexpr int run           = one_item_run;
    constexpr int task_stride   = block_threads * run; // from one task's first segment to the next one's
    const std::int64_t per_step = fixed_block_segments<AccumT>(sizes, block_threads, length); // a block's segments
    for (std::int64_t origin = static_cast<std::int64_t>(blockIdx.x) * per_step + tid * run; origin < num_segments;
         origin += static_cast<std::int64_t>(gridDim.x) * per_step)
    {
      prefetch_step(origin - tid * run + static_cast<std::int64_t>(gridDim.x) * per_step, per_step);
      const std::int64_t left       = num_segments - origin; // segments from `origin` on
      const InputIteratorT items_in = in + origin;
      AccumT aggregate[group_tasks][run];
#pragma unroll
      for (int j = 0; j < group_tasks; ++j)
      {
#pragma unroll
        for (int k = 0; k < run; ++k)
        {
          if (j * task_stride + k < left)
          {
            aggregate[j][k] = transform(items_in[j * task_stride + k], OffsetT{0});
          }
        }
      }
#pragma unroll
      for (int j = 0; j < group_tasks; ++j)
      {
#pragma unroll
        for (int k = 0; k < run; ++k)
        {
          if (j * task_stride + k < left)
          {
            store_segment(out, origin + j * task_stride + k, init.finalize(op, aggregate[j][k]));
          }
        }
      }
    }
    return;
  }

  // Small: `width` lane runs per segment, each of at most `lane_items` items, `LaneRuns` of them to each of
  // `width / LaneRuns` consecutive threads.
  const int width             = sizes.lanes(length);
  const int lanes             = width / LaneRuns; // threads per segment
  const int items             = static_cast<int>(length);
  const int run               = (items + width - 1) / width;
  const int valid             = (items + run - 1) / run;
  const int rank              = tid % lanes;
  const int per_task          = block_threads / lanes; // segments per task
  const std::int64_t per_step = fixed_block_segments<AccumT, LaneRuns>(sizes, block_threads, length); // a block's
  // The loop is block-uniform, as the lane groups' shuffles need every lane.
  constexpr int run_items = VectorRun > 0 ? VectorRun : sizes.lane_items; // the most a lane run folds
  // Vector runs of 8 bytes or more: every run a thread takes loaded before any is folded. Runs of 4 bytes (2-byte
  // items in pairs, 1-byte ones in fours) keep a fold a run: there nvcc predicated the loads already, and half sums
  // over 2 items took 1.02 of the time loading first (docs/performance.md, "Small fixed-size segments: every vector
  // run loaded before any is folded").
  constexpr bool loads_runs_first = VectorRun > 0 && VectorRun * sizeof(value_t<InputIteratorT>) >= 8;
  for (std::int64_t origin = static_cast<std::int64_t>(blockIdx.x) * per_step + tid / lanes;
       origin - tid / lanes < num_segments;
       origin += static_cast<std::int64_t>(gridDim.x) * per_step)
  {
    if constexpr (VectorRun == 0 || LaneRuns > 2 || run_items * sizeof(value_t<InputIteratorT>) < 16)
    {
      prefetch_step(origin - tid / lanes + static_cast<std::int64_t>(gridDim.x) * per_step, per_step);
    }
    AccumT aggregate[group_tasks][LaneRuns];
    if constexpr (loads_runs_first)
    {
      // Every run loaded before any is folded, each load unconditional (see `fold_slot`): a run past its segment's
      // last reads that last one, a task past the last segment segment 0's (lines already being read).
      ItemSlot<value_t<InputIteratorT>, VectorRun> loaded[group_tasks][LaneRuns];
#pragma unroll
      for (int j = 0; j < group_tasks; ++j)
      {
        const std::int64_t segment = origin + static_cast<std::int64_t>(j) * per_task;
#pragma unroll
        for (int r = 0; r < LaneRuns; ++r)
        {
          const int q  = rank * LaneRuns + r; // the lane run
          loaded[j][r] = load_slot<true, VectorRun>(
              in + (segment < num_segments ? segment : 0) * size, q * run < items ? q * run : items - run, 0);
        }
      }
#pragma unroll
      for (int j = 0; j < group_tasks; ++j)
      {
        const bool present = origin + static_cast<std::int64_t>(j) * per_task < num_segments;
#pragma unroll
        for (int r = 0; r < LaneRuns; ++r)
        {
          const int q     = rank * LaneRuns + r;
          const int first = q * run < items ? q * run : items;
          const int last  = first + run < items ? first + run : items;
          aggregate[j][r] = fold_slot<AccumT, OffsetT, folds_dropped_items_v<ReductionOpT, AccumT>>(
              loaded[j][r], present ? first : 0, present ? last : 0, thread_op, transform);
        }
      }
    }
    else
    {
#pragma unroll
      for (int j = 0; j < group_tasks; ++j)
      {
        const std::int64_t segment = origin + static_cast<std::int64_t>(j) * per_task;
        const bool present         = segment < num_segments;
#pragma unroll
        for (int r = 0; r < LaneRuns; ++r)
        {
          const int q     = rank * LaneRuns + r; // the lane run
          const int first = q * run < items ? q * run : items;
          const int last  = first + run < items ? first + run : items;
          aggregate[j][r] = fold_run<run_items, AccumT, OffsetT, (VectorRun > 0)>(
              in + (present ? segment : 0) * size, present ? first : 0, present ? last : 0, thread_op, transform);
        }
      }
    }
#pragma unroll
    for (int j = 0; j < group_tasks; ++j)
    {
      // The thread's runs along the first levels of the lane groups' tree, then its threads' partials along the rest.
      merge_runs_in_tree(aggregate[j], rank * LaneRuns, valid, op);
      const std::int64_t segment = origin + static_cast<std::int64_t>(j) * per_task;
      const AccumT total         = reduce_lane_groups(aggregate[j][0], op, lanes, (valid + LaneRuns - 1) / LaneRuns);
      if (segment < num_segments && rank == 0)
      {
        store_segment(out, segment, init.finalize(op, total));
      }
    }
  }
}

//! Bytes of shared memory `SegmentedFixedTileKernel` stages a tile in: 16 KB, 4 vectors of 16 bytes a thread of
//! 256 (two a block for ArgMin/ArgMax pairs: this tile and the next). A tile's items fill it less one vector, the
//! most its first item can lie past a 16-byte boundary.
inline constexpr int fixed_tile_bytes = 16384;

//! Segments of `length` items (1 to `small_max`) one tile of `SegmentedFixedTileKernel` holds: as many as fit in
//! a tile of `T`s less a vector; where that is 512 or more, a multiple of 64, so that each tile's results start on a
//! 128-byte line (results of 2 bytes or more) and a warp's stores fill whole lines: at one item a segment, tiles of
//! 4092 floats wrote across lines and took 1.00-1.07x the time of 3840.
template <typename T>
FOLD_HOST_DEVICE constexpr std::int64_t fixed_tile_segments(std::uint64_t length)
{
  const std::int64_t fit = (fixed_tile_bytes / static_cast<std::int64_t>(sizeof(T)) - stage_vector_items<T>) /
                           static_cast<std::int64_t>(length);
  return fit >= 512 ? fit / 64 * 64 : fit;
}

//! Tiles of shared memory a block of `SegmentedFixedTileKernel` stages into: two where a thread's fold of a segment
//! is long enough to hide the next tile's copies behind (accumulators of 8 bytes or more wider than the items:
//! ArgMin/ArgMax's pairs), one otherwise, where `block_stage_items` was faster.
template <typename T, typename AccumT, bool OneItem>
inline constexpr int fixed_tile_buffers = !OneItem && sizeof(AccumT) > 4 && sizeof(AccumT) > sizeof(T) ? 2 : 1;

//! Small fixed-size segments (1 to `small_max` items) from a raw pointer to a primitive type, where the lane runs
//! are not whole and aligned (`fixed_vector_run` is 0: a run of 1 or 3 items, or of 4 that do not divide the
//! length, as at 1, 3, 5-7, 9-15 or 33 items; or an input off the run's alignment). A block stages a tile of
//! consecutive whole segments in shared memory (`block_stage_items`: 16-byte vector loads, whatever the length and
//! the alignment), then a thread takes each segment: it folds the segment's lane runs from there one after another
//! and merges them along the tree `reduce_lane_groups` gives a group of `lanes(size)` lanes, so
//! `SegmentedFixedKernel`'s trees (`SegmentedWarpKernel`'s) and the same bits, without the group's idle lanes and
//! shuffles. The run's length is a constant of the loop over the tiles (`with_segment_runs`: one loop for each
//! length), so that a run is folded without a check per item (docs/performance.md, "Small fixed-size segments: the
//! tile kernel's runs of a constant length"). With 8-byte accumulators wider than the items (ArgMin/ArgMax pairs),
//! whose folds are longest, the next tile is copied into a second buffer while this one is folded
//! (`block_stage_items_async`); elsewhere that was slower (docs/performance.md, "Small fixed-size segments: the next
//! tile staged while one is folded"). At most 48 registers (64 for other accumulators of 8 bytes or more; 48 with two
//! buffers, 5 blocks a multiprocessor, where 64 held 4): unbounded, the unrolled runs took up to 128. `OneItem` (an
//! instantiation of its own, at its own registers): each segment is its item, transformed and finalised. Where the runs
//! are whole and aligned, `SegmentedFixedKernel`'s vector loads straight to registers were faster (docs/performance.md,
//! "Small fixed-size segments: staged where no vector runs apply").
template <typename InputIteratorT,
          typename OutputIteratorT,
          typename OffsetT,
          typename ReductionOpT,
          typename InitT,
          typename AccumT,
          typename TransformOpT,
          typename TuningT,
          bool OneItem>
FOLD_KERNEL __launch_bounds__(kernel_policy<TuningT, FOLD_ARCH>.block_threads,
                              OneItem ? 1
                              : sizeof(AccumT) <= 4 || fixed_tile_buffers<value_t<InputIteratorT>, AccumT, OneItem> == 2
                                  ? 5
                                  : 4) void SegmentedFixedTileKernel(InputIteratorT in,
                                                                     OutputIteratorT out,
                                                                     std::int64_t num_segments,
                                                                     std::int64_t size,
                                                                     ReductionOpT op,
                                                                     InitT init,
                                                                     TransformOpT transform)
{
  begin_dependent_kernel();
  using T      = value_t<InputIteratorT>;
  using Agents = SegmentedAgents<TuningT, FOLD_ARCH, InputIteratorT, AccumT, OffsetT, ReductionOpT, TransformOpT>;
  constexpr SegmentClasses sizes = Agents::classes;
  constexpr int block_threads    = kernel_policy<TuningT, FOLD_ARCH>.block_threads;
  constexpr int tile_vectors     = fixed_tile_bytes / 16;
  static_assert(tile_vectors % block_threads == 0, "SegmentedFixedTileKernel: a tile is whole vectors per thread");
  constexpr int thread_vectors = tile_vectors / block_threads;
  constexpr int buffers        = fixed_tile_buffers<T, AccumT, OneItem>;
  __shared__ ItemSlot<T, stage_vector_items<T>> tiles[buffers][tile_vectors];

  const int tid                                        = static_cast<int>(threadIdx.x);
  const typename InOrder<ReductionOpT>::type thread_op = InOrder<ReductionOpT>::make(op);
  const int items                                      = static_cast<int>(size);
  const int width                                      = sizes.lanes(static_cast<std::uint64_t>(size));
  const int run                                        = (items + width - 1) / width; // items a lane run
  const int valid                                      = (items + run - 1) / run;     // lane runs
  const std::int64_t per_tile                          = fixed_tile_segments<T>(static_cast<std::uint64_t>(size));
  const std::int64_t stride                            = static_cast<std::int64_t>(gridDim.x) * per_tile;
  const auto tile_segments = [&](std::int64_t origin) { // the segments of the tile at `origin`
    return static_cast<int>(num_segments - origin < per_tile ? num_segments - origin : per_tile);
  };
  // The tiles of the block, `fold_tile(tile, origin)` folding each staged one's segments.
  const auto stream_tiles = [&](auto&& fold_tile)
  {
    std::int64_t origin = static_cast<std::int64_t>(blockIdx.x) * per_tile;
    if constexpr (buffers == 1)
    {
      for (; origin < num_segments; origin += stride)
      {
        block_stage_items<block_threads, thread_vectors>(
            tiles[0][0].items, in + origin * size, tile_segments(origin) * items);
        __syncthreads();
        fold_tile(tiles[0][0].items, origin);
        __syncthreads(); // the tile is staged again
      }
    }
    else
    {
      StagedItem<T> single{};
      if (origin < num_segments)
      {
        single = block_stage_items_async<block_threads, thread_vectors>(
            tiles[0][0].items, in + origin * size, tile_segments(origin) * items);
      }
      __pipeline_commit();
      for (int at = 0; origin < num_segments; origin += stride, at ^= 1)
      {
        // The next tile's copies are issued before this one is folded, so they arrive meanwhile.
        const std::int64_t next = origin + stride;
        StagedItem<T> next_single{};
        if (next < num_segments)
        {
          next_single = block_stage_items_async<block_threads, thread_vectors>(
              tiles[at ^ 1][0].items, in + next * size, tile_segments(next) * items);
        }
        __pipeline_commit();
        single.store(tiles[at][0].items);
        __pipeline_wait_prior(1); // this tile's copies, not the next one's
        __syncthreads();
        fold_tile(tiles[at][0].items, origin);
        single = next_single;
        __syncthreads(); // this tile is staged again, two tiles on
      }
    }
  };
  if constexpr (OneItem) // each segment its item, transformed and finalised
  {
    stream_tiles(
        [&](const T* tile, std::int64_t origin)
        {
          const int segments = tile_segments(origin);
          const T* staged    = tile + stage_lead(in + origin * size);
          for (int local = tid; local < segments; local += block_threads)
          {
            store_segment(
                out, origin + local, init.finalize(op, static_cast<AccumT>(transform(staged[local], OffsetT{0}))));
          }
        });
  }
  else
  {
    // A thread per segment, its lane runs along the lane groups' tree (`fold_runs_in_tree`), the run's length a
    // constant: a loop over the tiles for each length, so that each holds only its own values across the tiles (with
    // every length's loop inside one loop over the tiles, float sums spilled 32 bytes and took 1.19-1.27x the time).
    with_segment_runs<sizes.lane_items>(
        items,
        width,
        [&](auto run_items, auto max_runs)
        {
          stream_tiles(
              [&](const T* tile, std::int64_t origin)
              {
                const int segments = tile_segments(origin);
                const T* staged    = tile + stage_lead(in + origin * size);
                for (int local = tid; local < segments; local += block_threads)
                {
                  const AccumT total =
                      fold_runs_in_tree<decltype(run_items)::value, decltype(max_runs)::value, AccumT, OffsetT>(
                          staged + local * items, items, valid, thread_op, op, transform);
                  store_segment(out, origin + local, init.finalize(op, total));
                }
              });
        });
  }
}

//! Fixed-size segments longer than `warp_max` items (block and large ones): nothing to classify or list. Work item
//! `w` is unit `w % units` of segment `w / units`, a block each, reduced by `AgentSegmentedReduce::reduce_unit` as in
//! `SegmentedBlockKernel`, so the bits are the same. With one unit per segment (a block segment) the result
//! is written at once; otherwise the unit's partial goes to `partials[w]`, for `SegmentedFixedPartialsKernel`.
template <typename InputIteratorT,
          typename OutputIteratorT,
          typename OffsetT,
          typename ReductionOpT,
          typename InitT,
          typename AccumT,
          typename TransformOpT,
          typename TuningT>
FOLD_KERNEL __launch_bounds__(kernel_policy<TuningT, FOLD_ARCH>.block_threads) void SegmentedFixedUnitsKernel(
    InputIteratorT in,
    OutputIteratorT out,
    std::int64_t num_segments,
    std::int64_t size,
    std::int64_t units,
    std::int64_t unit_items,
    ReductionOpT op,
    InitT init,
    TransformOpT transform,
    AccumT* partials)
{
  wait_for_previous_grid(); // the next kernel is let in at the end (see `wait_for_previous_grid`)
  using Agents = SegmentedAgents<TuningT, FOLD_ARCH, InputIteratorT, AccumT, OffsetT, ReductionOpT, TransformOpT>;
  __shared__ typename Agents::Block::TempStorage storage;
  const std::int64_t work = num_segments * units;
  for (std::int64_t w = blockIdx.x; w < work; w += gridDim.x)
  {
    const std::int64_t segment = w / units;
    const AccumT aggregate     = Agents::Segment::reduce_unit(storage,
                                                          in + segment * size,
                                                          static_cast<std::uint64_t>(size),
                                                          static_cast<std::uint64_t>(unit_items),
                                                          static_cast<std::uint64_t>(w - segment * units),
                                                          op,
                                                          transform);
    if (threadIdx.x == 0 && units == 1)
    {
      store_segment(out, segment, init.finalize(op, aggregate));
    }
    else if (threadIdx.x == 0)
    {
      construct_at(partials + w, aggregate);
    }
    __syncthreads(); // the agent's storage is reused by the next unit
  }
  end_dependent_block();
}

//! The `units` partials of each fixed-size large segment, folded by `AgentSegmentedReduce::fold_partials` as in
//! `SegmentedBlockKernel`, finalised and written: a block per segment.
template <typename InputIteratorT,
          typename OutputIteratorT,
          typename OffsetT,
          typename ReductionOpT,
          typename InitT,
          typename AccumT,
          typename TransformOpT,
          typename TuningT>
FOLD_KERNEL __launch_bounds__(kernel_policy<TuningT, FOLD_ARCH>.block_threads) void SegmentedFixedPartialsKernel(
    OutputIteratorT out, std::int64_t num_segments, std::int64_t units, ReductionOpT op, InitT init, AccumT* partials)
{
  begin_dependent_kernel();
  using Agents = SegmentedAgents<TuningT, FOLD_ARCH, InputIteratorT, AccumT, OffsetT, ReductionOpT, TransformOpT>;
  __shared__ typename Agents::Partials::TempStorage storage;
  for (std::int64_t segment = blockIdx.x; segment < num_segments; segment += gridDim.x)
  {
    const AccumT total =
        Agents::Segment::fold_partials(storage, partials + segment * units, static_cast<std::uint64_t>(units), op);
    if (threadIdx.x == 0)
    {
      store_segment(out, segment, init.finalize(op, total));
    }
    __syncthreads(); // the agent's storage is reused by the next segment
  }
}

//! The last of the `count` entries of `list` (sorted by first unit, the first at unit 0) whose first unit is at most
//! `unit`: its index, and the entry in `found`. A 32-way search, every lane of the warp probing one entry a round, so
//! that 512 entries take 2 dependent reads and 2^17 take 4 (a binary search took 9 and 17). Every lane of the warp
//! calls it and gets the same answer.
FOLD_DEVICE FOLD_FORCEINLINE int
find_large_segment(const LargeSegment* list, int count, std::uint64_t unit, LargeSegment& found)
{
  const int lane = static_cast<int>(threadIdx.x % 32);
  int low = 0, span = count; // the answer is in [low, low + span), and list[low] is at most `unit`
  while (true)
  {
    const int step  = (span + 31) / 32;
    const int probe = low + lane * step;
    LargeSegment entry{};
    bool at_most = false;
    if (probe < low + span)
    {
      entry   = list[probe];
      at_most = entry.first_unit <= unit;
    }
    const int last = 31 - __clz(__ballot_sync(~0u, at_most)); // lane 0 probes `low`: never empty
    if (step == 1)
    {
      found.segment    = __shfl_sync(~0u, entry.segment, last);
      found.first_unit = __shfl_sync(~0u, entry.first_unit, last);
      return low + last;
    }
    const int end = low + span;
    low += last * step;
    span = end - low < step ? end - low : step;
  }
}

//! A listed block segment of `SegmentedBlockKernel` ahead of its turn: its index (-1: none) and raw offsets.
template <typename BeginT, typename EndT>
struct ListedJob
{
  std::int64_t segment;
  BeginT begin;
  EndT end;
};

template <typename InputIteratorT,
          typename OutputIteratorT,
          typename BeginOffsetIteratorT,
          typename EndOffsetIteratorT,
          typename OffsetT,
          typename ReductionOpT,
          typename InitT,
          typename AccumT,
          typename TransformOpT,
          typename TuningT>
FOLD_KERNEL
__launch_bounds__(kernel_policy<TuningT, FOLD_ARCH>.block_threads,
                  segmented_policy().min_blocks_per_sm) void SegmentedBlockKernel(InputIteratorT in,
                                                                                  OutputIteratorT out,
                                                                                  BeginOffsetIteratorT begins,
                                                                                  EndOffsetIteratorT ends,
                                                                                  ReductionOpT op,
                                                                                  InitT init,
                                                                                  TransformOpT transform,
                                                                                  SegmentedState* state,
                                                                                  const LargeSegment* large_list,
                                                                                  const std::int64_t* block_list,
                                                                                  const std::int64_t* warp_list,
                                                                                  int large_cap,
                                                                                  std::uint64_t unit_cap,
                                                                                  int block_cap,
                                                                                  unsigned* unit_counts,
                                                                                  AccumT* partials,
                                                                                  AccumT* scratch)
{
  begin_dependent_kernel();
  using Agents = SegmentedAgents<TuningT, FOLD_ARCH, InputIteratorT, AccumT, OffsetT, ReductionOpT, TransformOpT>;
  constexpr SegmentClasses sizes = Agents::classes;
  constexpr int block_threads    = kernel_policy<TuningT, FOLD_ARCH>.block_threads;
  __shared__ union
  {
    typename Agents::Block::TempStorage items;
    typename Agents::Partials::TempStorage partials;
    typename Agents::Warp::TempStorage warps[block_threads / 32];
  } storage;
  __shared__ std::int64_t picked[block_threads];
  __shared__ int warp_counts[block_threads / 32];
  __shared__ unsigned long long taken;
  __shared__ bool last;

  const int tid                   = static_cast<int>(threadIdx.x);
  const unsigned long long large  = state->large;
  const std::uint64_t large_count = large >> SegmentedState::count_shift;
  const std::uint64_t block_count = state->blocks;
  const bool listed               = large_count <= static_cast<std::uint64_t>(large_cap) &&
                      (large & SegmentedState::units_mask) <= unit_cap &&
                      block_count <= static_cast<std::uint64_t>(block_cap);

  // Units `[0, units)` of the segment at `begin`, of `unit_items` items each (the last one shorter).
  auto reduce_unit = [&](std::int64_t begin, std::uint64_t length, std::uint64_t unit_items, std::uint64_t k)
  { return Agents::Segment::reduce_unit(storage.items, in + begin, length, unit_items, k, op, transform); };
  // The `units` partials at `unit_partials`, folded, finalised and written as segment `segment`'s result.
  auto finish = [&](std::int64_t segment, const AccumT* unit_partials, std::uint64_t units)
  {
    const AccumT total = Agents::Segment::fold_partials(storage.partials, unit_partials, units, op);
    if (tid == 0)
    {
      store_segment(out, segment, init.finalize(op, total));
    }
  };
  // Segment `segment` by this block alone: one unit for a block segment; every unit for a large one, with the
  // partials in the block's own scratch (the same tree as when they are spread).
  auto reduce_alone = [&](std::int64_t segment, std::int64_t begin, std::uint64_t length)
  {
    const bool whole               = length <= sizes.block_max;
    const std::uint64_t unit_items = whole ? length : sizes.unit_items(length);
    const std::uint64_t units      = whole ? 1 : sizes.units(length);
    AccumT* own                    = scratch + static_cast<std::size_t>(blockIdx.x) * sizes.max_units;
    for (std::uint64_t k = 0; k < units; ++k)
    {
      const AccumT aggregate = reduce_unit(begin, length, unit_items, k);
      if (tid == 0)
      {
        if (whole)
        {
          store_segment(out, segment, init.finalize(op, aggregate));
        }
        else
        {
          construct_at(own + k, aggregate);
        }
      }
      __syncthreads();
    }
    if (!whole)
    {
      finish(segment, own, units);
      __syncthreads();
    }
  };
  // The next item of the shared work counter, in every thread.
  auto take = [&]()
  {
    if (tid == 0)
    {
      taken = atomicAdd(&state->next, 1ull);
    }
    __syncthreads();
    const unsigned long long item = taken;
    __syncthreads(); // `taken` may be overwritten by the next call
    return item;
  };

  // The listed warp segments first, dealt out round-robin over every warp of the grid; a warp reads the list entry
  // and the offsets of its next segment while it reduces the current one.
  const unsigned long long warp_count =
      state->warps < static_cast<unsigned long long>(block_cap) ? state->warps : block_cap;
  const unsigned long long warp_stride = static_cast<unsigned long long>(gridDim.x) * (block_threads / 32);
  {
    unsigned long long item = static_cast<unsigned long long>(blockIdx.x) * (block_threads / 32) + tid / 32;
    std::int64_t segment = 0, begin = 0;
    std::uint64_t length = 0;
    if (item < warp_count)
    {
      segment = warp_list[item];
      read_segment(begins, ends, segment, begin, length);
    }
    for (; item < warp_count; item += warp_stride)
    {
      const std::int64_t current = segment, current_begin = begin;
      const std::uint64_t current_length = length;
      if (item + warp_stride < warp_count)
      {
        segment = warp_list[item + warp_stride];
        read_segment(begins, ends, segment, begin, length);
      }
      const AccumT aggregate = typename Agents::Warp(storage.warps[tid / 32], in + current_begin, op, transform)
                                   .ConsumeRange(OffsetT{0}, static_cast<OffsetT>(current_length));
      if (tid % 32 == 0)
      {
        store_segment(out, current, init.finalize(op, aggregate));
      }
      __syncwarp(); // the warp's storage is reused by the next segment
    }
  }
  __syncthreads(); // the agents below share the storage

  if (listed)
  {
    // Every unit of the listed large segments, spread over the grid; the block finishing a segment's last unit
    // folds its partials.
    const std::uint64_t total_units = large & SegmentedState::units_mask;
    for (std::uint64_t unit = blockIdx.x; unit < total_units; unit += gridDim.x)
    {
      LargeSegment entry;
      const int low        = find_large_segment(large_list, static_cast<int>(large_count), unit, entry);
      std::int64_t begin   = 0;
      std::uint64_t length = 0;
      read_segment(begins, ends, entry.segment, begin, length);
      const std::uint64_t units = sizes.units(length);
      const AccumT aggregate    = reduce_unit(begin, length, sizes.unit_items(length), unit - entry.first_unit);
      if (tid == 0)
      {
        // The partial is released with the unit's count, and the block counting the last unit acquires them all
        // (its other threads after the barrier): one acq_rel add, where two full fences around the add took the
        // large segments through offsets 1.01-1.05x the time on an H200 (docs/performance.md).
        construct_at(partials + unit, aggregate);
        const unsigned counted = ::cuda::atomic_ref<unsigned, ::cuda::thread_scope_device>(unit_counts[low])
                                     .fetch_add(1u, ::cuda::memory_order_acq_rel);
        last = counted + 1 == units;
      }
      __syncthreads();
      if (last)
      {
        finish(entry.segment, partials + entry.first_unit, units);
      }
      __syncthreads();
    }
    // The listed block segments: each block's first three by index, the rest from a shared counter, so the blocks
    // that stream faster or finished their units sooner take more. A job's list entry is asked two jobs ahead and
    // its offsets one job ahead, both into shared memory by `copy_to_shared`, and its ticket a job before its entry,
    // so what a block holds through the block agent is that ticket alone (the entry and offsets held in registers,
    // as when the deal was by index alone, took 6 of the kernel's 64), and the blocks' first atomics are spread
    // over their first jobs.
    __shared__ ListedJob<value_t<BeginOffsetIteratorT>, value_t<EndOffsetIteratorT>> jobs[3];
    constexpr unsigned by_index = 3;
    const std::uint64_t grid    = gridDim.x;
    unsigned ticket             = 0; // the ticket of job `n + 2` (jobs past `by_index` a block)
    // Job `j`'s list entry into `job`, and its offsets once the entry is there: thread 0 only.
    auto entry = [&](auto& job, std::uint64_t j)
    {
      if (j < block_count)
      {
        copy_to_shared(&job.segment, block_list, static_cast<std::int64_t>(j));
      }
      else
      {
        job.segment = -1;
      }
    };
    auto offsets = [&](auto& job)
    {
      if (job.segment >= 0)
      {
        copy_to_shared(&job.begin, begins, job.segment);
        copy_to_shared(&job.end, ends, job.segment);
      }
    };
    if (tid == 0)
    {
      entry(jobs[0], blockIdx.x);
      entry(jobs[1], blockIdx.x + grid);
      wait_for_copies();
      offsets(jobs[0]);
      wait_for_copies();
    }
    __syncthreads();
    for (unsigned n = 0, k = 0;; ++n, k = k == 2 ? 0 : k + 1) // job `n` of this block, in `jobs[k]`
    {
      const std::int64_t segment = jobs[k].segment;
      if (segment < 0)
      {
        break;
      }
      const std::int64_t begin = static_cast<std::int64_t>(jobs[k].begin);
      const std::int64_t end   = static_cast<std::int64_t>(jobs[k].end);
      if (tid == 0) // job n + 1's offsets, job n + 2's entry, and the ticket of job n + 3
      {
        const unsigned next   = k == 2 ? 0 : k + 1;
        const std::uint64_t j = n + 2 < by_index ? blockIdx.x + (n + 2) * grid : by_index * grid + ticket;
        offsets(jobs[next]);
        entry(jobs[next == 2 ? 0 : next + 1], j);
        if (n + 3 >= by_index && j < block_count)
        {
          ticket = atomicAdd(&state->tickets, 1u);
        }
      }
      reduce_alone(segment, begin, end > begin ? static_cast<std::uint64_t>(end - begin) : 0);
      if (tid == 0)
      {
        wait_for_copies();
      }
      __syncthreads();
    }
    return;
  }

  // Too many to list: the recorded range, `block_threads` segments at a time from the shared counter.
  const unsigned long long first  = ~state->first_complement;
  const unsigned long long stop   = state->end;
  const unsigned long long groups = first < stop ? (stop - first + block_threads - 1) / block_threads : 0;
  for (unsigned long long group = take(); group < groups; group = take())
  {
    const std::int64_t segment = static_cast<std::int64_t>(first + group * block_threads) + tid;
    std::int64_t begin         = 0;
    std::uint64_t length       = 0;
    if (segment < static_cast<std::int64_t>(stop))
    {
      read_segment(begins, ends, segment, begin, length);
    }
    const SegmentClass kind = segment < static_cast<std::int64_t>(stop) ? sizes.of(length) : SegmentClass::empty;
    const bool mine         = kind == SegmentClass::block || kind == SegmentClass::large;
    const unsigned mask     = __ballot_sync(~0u, mine);
    if (tid % 32 == 0)
    {
      warp_counts[tid / 32] = __popc(mask);
    }
    __syncthreads();
    int before = 0, count = 0;
    for (int w = 0; w < block_threads / 32; ++w)
    {
      before += w < tid / 32 ? warp_counts[w] : 0;
      count += warp_counts[w];
    }
    if (mine)
    {
      picked[before + __popc(mask & ((1u << (tid % 32)) - 1u))] = segment;
    }
    __syncthreads();
    for (int j = 0; j < count; ++j)
    {
      std::int64_t begin   = 0;
      std::uint64_t length = 0;
      read_segment(begins, ends, picked[j], begin, length);
      reduce_alone(picked[j], begin, length);
    }
  }
}

} // namespace detail
FOLD_KERNELS_END
FOLD_NAMESPACE_END

// SPDX-License-Identifier: Apache-2.0
//! @file
//! The segmented dispatch: validates the arguments, lays out the temporary storage and launches the kernels on the
//! caller's stream (under graph capture, first a kernel that clears the state they share; otherwise the first of
//! them clears it). Which segment goes where is decided on the device (see kernels_segmented_reduce.cuh), so
//! nothing waits for the host.
#pragma once

#include <fold/util/macros.cuh>

#include <fold/detail/one_call.cuh>
#include <fold/detail/output.cuh>
#include <fold/dispatch/kernels_segmented_reduce.cuh>
#include <fold/dispatch/launch.cuh>
#include <fold/tuning/tuning_reduce.cuh>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

FOLD_NAMESPACE_BEGIN
namespace detail
{

//! Offsets of fixed-size segments: `i * size + shift` (the begins with shift 0, the ends with shift `size`).
struct FixedOffsets
{
  using value_type        = std::int64_t;
  using difference_type   = std::int64_t;
  using pointer           = void;
  using reference         = std::int64_t;
  using iterator_category = ::cuda::std::random_access_iterator_tag;

  std::int64_t size;
  std::int64_t shift;

  FOLD_HOST_DEVICE constexpr std::int64_t operator[](std::int64_t i) const { return i * size + shift; }
};

//! Whether segments with these offsets can hold an item, so that the input is read: always where the offsets are
//! read on the device; not for fixed-size segments of no items (an empty reduced axis, `segment_size` 0), whose
//! input may then be null, as `DeviceReduce`'s may for no items.
template <typename BeginOffsetIteratorT, typename EndOffsetIteratorT>
FOLD_HOST_DEVICE constexpr bool may_hold_items(const BeginOffsetIteratorT&, const EndOffsetIteratorT&)
{
  return true;
}
FOLD_HOST_DEVICE constexpr bool may_hold_items(const FixedOffsets& begins, const FixedOffsets& ends)
{
  return !(begins.size == ends.size && ends.shift <= begins.shift);
}

//! Where each part of the temporary storage starts, from an aligned base.
struct SegmentedLayout
{
  std::size_t align;
  std::size_t unit_counts; //!< `large_cap` counters, each cleared as its segment is listed
  std::size_t clear_bytes; //!< the state
  std::size_t ready;       //!< the call that cleared it (`GridClear`)
  std::size_t large_list;  //!< `large_cap` large segments
  std::size_t block_list;  //!< `block_cap` block segments
  std::size_t warp_list;   //!< `block_cap` warp segments
  std::size_t partials;    //!< `unit_cap` unit partials
  std::size_t scratch;     //!< `grid * max_units` partials, a block's own when it takes a large segment alone
  std::size_t bytes;       //!< all of it, with room to align the base

  //! The partials' room for the units of `large_cap` listed large segments of at most `max_units` units each: all
  //! of them, up to `most_units` (the policy's `max_split_units`; beyond, the block kernel takes the range fallback).
  static constexpr std::uint64_t unit_room(int large_cap, int max_units, int most_units)
  {
    const std::uint64_t all = static_cast<std::uint64_t>(large_cap) * static_cast<std::uint64_t>(max_units);
    return all < static_cast<std::uint64_t>(most_units) ? all : static_cast<std::uint64_t>(most_units);
  }

  //! The layout for lists of `large_cap` and `block_cap` segments, `unit_cap` partials of listed units and a block
  //! kernel of `grid` blocks; a pure function of the sizes, so that it can be tested without a GPU.
  static constexpr SegmentedLayout make(int large_cap,
                                        std::uint64_t unit_cap,
                                        int block_cap,
                                        int grid,
                                        int max_units,
                                        std::size_t partial_bytes,
                                        std::size_t partial_align)
  {
    auto round                      = [](std::size_t x, std::size_t a) { return (x + a - 1) / a * a; };
    const std::size_t unit_partials = static_cast<std::size_t>(max_units) * partial_bytes;
    SegmentedLayout l{};
    l.align       = partial_align > 16 ? partial_align : 16;
    l.clear_bytes = sizeof(SegmentedState);
    l.unit_counts = round(l.clear_bytes, sizeof(unsigned long long));
    l.ready = round(l.unit_counts + static_cast<std::size_t>(large_cap) * sizeof(unsigned), sizeof(unsigned long long));
    l.large_list = round(l.ready + sizeof(unsigned long long), alignof(LargeSegment));
    l.block_list = l.large_list + static_cast<std::size_t>(large_cap) * sizeof(LargeSegment);
    l.warp_list  = l.block_list + static_cast<std::size_t>(block_cap) * sizeof(std::int64_t);
    l.partials   = round(l.warp_list + static_cast<std::size_t>(block_cap) * sizeof(std::int64_t), l.align);
    l.scratch    = round(l.partials + static_cast<std::size_t>(unit_cap) * partial_bytes, l.align);
    l.bytes      = l.align - 1 + l.scratch + static_cast<std::size_t>(grid) * unit_partials;
    return l;
  }
};

//! The offset type the segmented kernels index a segment's items with (see `offset_t`): `std::uint32_t` for offsets
//! of up to 32 bits, so that every index within a segment fits 32 bits there.
template <typename BeginOffsetIteratorT, typename EndOffsetIteratorT>
using segment_offset_t = offset_t<std::common_type_t<value_t<BeginOffsetIteratorT>, value_t<EndOffsetIteratorT>>>;

template <typename InputIteratorT,
          typename OutputIteratorT,
          typename BeginOffsetIteratorT,
          typename EndOffsetIteratorT,
          typename ReductionOpT,
          typename InitT,
          typename AccumT,
          typename TransformOpT,
          typename TuningT>
struct DispatchSegmentedReduce
{
  using OffsetT = segment_offset_t<BeginOffsetIteratorT, EndOffsetIteratorT>;

  static constexpr auto warp_kernel  = SegmentedWarpKernel<InputIteratorT,
                                                          OutputIteratorT,
                                                          BeginOffsetIteratorT,
                                                          EndOffsetIteratorT,
                                                          OffsetT,
                                                          ReductionOpT,
                                                          InitT,
                                                          AccumT,
                                                          TransformOpT,
                                                          TuningT>;
  static constexpr auto block_kernel = SegmentedBlockKernel<InputIteratorT,
                                                            OutputIteratorT,
                                                            BeginOffsetIteratorT,
                                                            EndOffsetIteratorT,
                                                            OffsetT,
                                                            ReductionOpT,
                                                            InitT,
                                                            AccumT,
                                                            TransformOpT,
                                                            TuningT>;

  //! Fixed-size segments: nothing to classify or list, so neither the warp kernel nor the state it shares with the
  //! block kernel. Up to `warp_max` items `SegmentedFixedKernel` alone, a grid of at most 32 blocks per SM (a few
  //! waves; its `VectorRun` instantiations where `fixed_vector_run` names one), except small segments from a raw
  //! pointer whose runs are not whole and aligned, which `SegmentedFixedTileKernel` stages in tiles; longer ones
  //! `SegmentedFixedUnitsKernel`, a block per block segment or per unit of a large one, then for large ones
  //! `SegmentedFixedPartialsKernel`. The temporary storage holds the large segments' unit partials, and is otherwise
  //! the one byte every size query gets.
  static cudaError_t fixed(void* d_temp_storage,
                           std::size_t& temp_storage_bytes,
                           InputIteratorT in,
                           OutputIteratorT out,
                           std::int64_t num_segments,
                           std::int64_t size,
                           ReductionOpT op,
                           InitT init,
                           TransformOpT transform,
                           const SegmentClasses& classes,
                           const TileShape& shape,
                           const DeviceFacts& facts,
                           const DispatchHooks& hooks,
                           cudaStream_t stream)
  {
    const auto length           = static_cast<std::uint64_t>(size);
    const bool large            = length > classes.block_max;
    constexpr std::size_t align = alignof(AccumT) > 16 ? alignof(AccumT) : 16;
    const auto units            = static_cast<std::int64_t>(large ? classes.units(length) : 1);
    const std::size_t bytes = large ? align - 1 + static_cast<std::size_t>(num_segments * units) * sizeof(AccumT) : 1;
    if (d_temp_storage == nullptr)
    {
      temp_storage_bytes = bytes;
      return cudaSuccess;
    }
    if (temp_storage_bytes < bytes)
    {
      return cudaErrorInvalidValue;
    }
    if (length > classes.warp_max)
    {
      return fixed_long(in,
                        out,
                        num_segments,
                        size,
                        units,
                        large ? static_cast<std::int64_t>(classes.unit_items(length)) : size,
                        op,
                        init,
                        transform,
                        static_cast<AccumT*>(align_up(d_temp_storage, align)),
                        shape,
                        facts,
                        hooks,
                        stream);
    }
    const std::int64_t max_blocks = static_cast<std::int64_t>(facts.sms) * 32;
    auto go                       = [&](auto kernel, std::int64_t blocks)
    {
      return launch(kernel,
                    static_cast<int>(blocks < max_blocks ? blocks : max_blocks),
                    shape.block_threads,
                    stream,
                    may_overlap(facts.arch, hooks),
                    in,
                    out,
                    num_segments,
                    size,
                    op,
                    init,
                    transform);
    };
    if constexpr (is_vectorizable_input_v<InputIteratorT>)
    {
      if (length > 0 && length <= classes.small_max && fixed_vector_run(classes, in, length) == 0)
      {
        const std::int64_t per_tile = fixed_tile_segments<value_t<InputIteratorT>>(length);
        const std::int64_t tiles    = num_segments / per_tile + (num_segments % per_tile != 0);
        auto tile_kernel            = [](auto one_item)
        {
          return SegmentedFixedTileKernel<InputIteratorT,
                                          OutputIteratorT,
                                          OffsetT,
                                          ReductionOpT,
                                          InitT,
                                          AccumT,
                                          TransformOpT,
                                          TuningT,
                                          decltype(one_item)::value>;
        };
        return length == 1 ? go(tile_kernel(std::true_type{}), tiles) : go(tile_kernel(std::false_type{}), tiles);
      }
    }
    // `SegmentedFixedKernel` with vector runs of `VectorRun` items, `LaneRuns` of them a thread: its grid from the
    // segments a block takes per step.
    auto fixed_kernel = [&](auto vector_run, auto lane_runs)
    {
      constexpr int runs           = decltype(lane_runs)::value;
      const std::int64_t per_block = fixed_block_segments<AccumT, runs>(classes, shape.block_threads, length);
      return go(SegmentedFixedKernel<InputIteratorT,
                                     OutputIteratorT,
                                     OffsetT,
                                     ReductionOpT,
                                     InitT,
                                     AccumT,
                                     TransformOpT,
                                     TuningT,
                                     decltype(vector_run)::value,
                                     runs>,
                num_segments / per_block + (num_segments % per_block != 0));
    };
    using one_run = std::integral_constant<int, 1>;
    if constexpr (is_vectorizable_input_v<InputIteratorT>)
    {
      constexpr int lane_items =
          segment_lane_items(segmented_policy(), static_cast<int>(sizeof(value_t<InputIteratorT>)));
      static_assert(lane_items > 2 && (lane_items & (lane_items - 1)) == 0,
                    "fixed: the vector runs need lane_items a power of two above 2 (runs of 2 are the other case)");
      switch (fixed_vector_run(classes, in, length))
      {
      case lane_items:
        switch (fixed_lane_runs(classes, length, lane_items))
        {
        case fixed_thread_runs:
          return fixed_kernel(std::integral_constant<int, lane_items>{},
                              std::integral_constant<int, fixed_thread_runs>{});
        case 2:
          return fixed_kernel(std::integral_constant<int, lane_items>{}, std::integral_constant<int, 2>{});
        default:
          return fixed_kernel(std::integral_constant<int, lane_items>{}, one_run{});
        }
      case 2:
        return fixed_kernel(std::integral_constant<int, 2>{}, one_run{});
      default:
        break;
      }
    }
    return fixed_kernel(std::integral_constant<int, 0>{}, one_run{});
  }

  //! `fixed`'s segments longer than `warp_max` items, in `units` units of `unit_items` each (one for a block segment).
  static cudaError_t fixed_long(InputIteratorT in,
                                OutputIteratorT out,
                                std::int64_t num_segments,
                                std::int64_t size,
                                std::int64_t units,
                                std::int64_t unit_items,
                                ReductionOpT op,
                                InitT init,
                                TransformOpT transform,
                                AccumT* partials,
                                const TileShape& shape,
                                const DeviceFacts& facts,
                                const DispatchHooks& hooks,
                                cudaStream_t stream)
  {
    const std::int64_t work = num_segments * units;
    const std::int64_t most = 0x7fffffff;
    if (const cudaError_t error = launch(SegmentedFixedUnitsKernel<InputIteratorT,
                                                                   OutputIteratorT,
                                                                   OffsetT,
                                                                   ReductionOpT,
                                                                   InitT,
                                                                   AccumT,
                                                                   TransformOpT,
                                                                   TuningT>,
                                         static_cast<int>(work < most ? work : most),
                                         shape.block_threads,
                                         stream,
                                         may_overlap(facts.arch, hooks),
                                         in,
                                         out,
                                         num_segments,
                                         size,
                                         units,
                                         unit_items,
                                         op,
                                         init,
                                         transform,
                                         partials);
        error != cudaSuccess || units == 1)
    {
      return error;
    }
    const std::int64_t max_blocks = static_cast<std::int64_t>(facts.sms) * 32;
    return launch(SegmentedFixedPartialsKernel<InputIteratorT,
                                               OutputIteratorT,
                                               OffsetT,
                                               ReductionOpT,
                                               InitT,
                                               AccumT,
                                               TransformOpT,
                                               TuningT>,
                  static_cast<int>(num_segments < max_blocks ? num_segments : max_blocks),
                  shape.block_threads,
                  stream,
                  may_overlap(facts.arch, hooks),
                  out,
                  num_segments,
                  units,
                  op,
                  init,
                  partials);
  }

  static cudaError_t Dispatch(void* d_temp_storage,
                              std::size_t& temp_storage_bytes,
                              InputIteratorT in,
                              OutputIteratorT out,
                              std::int64_t num_segments,
                              BeginOffsetIteratorT begins,
                              EndOffsetIteratorT ends,
                              ReductionOpT op,
                              InitT init,
                              TransformOpT transform,
                              cudaStream_t stream)
  {
    const DispatchHooks hooks = hooks_of<TuningT>();
    if (num_segments < 0)
    {
      return cudaErrorInvalidValue;
    }
    if (d_temp_storage != nullptr && num_segments > 0 &&
        ((may_hold_items(begins, ends) && is_null(in)) || is_null(out) || is_null(begins) || is_null(ends)))
    {
      return cudaErrorInvalidValue;
    }
    if (d_temp_storage == arguments_only())
    {
      return cudaSuccess; // a one-call form's check of the pointers, before it allocates
    }
    if (num_segments == 0)
    {
      // Nothing to do, but the size is still written (cub leaves it unwritten), and never 0.
      if (d_temp_storage == nullptr)
      {
        temp_storage_bytes = 1;
      }
      return cudaSuccess;
    }
    DeviceFacts facts;
    if (const cudaError_t error = device_facts(facts); error != cudaSuccess)
    {
      return error;
    }
    const TileShape shape = reduce_tile_shape<InputIteratorT, AccumT, TuningT>(facts.arch);
    if constexpr (std::is_same_v<BeginOffsetIteratorT, FixedOffsets> &&
                  std::is_same_v<EndOffsetIteratorT, FixedOffsets>)
    {
      // Fixed-size segments: their own kernels.
      const SegmentClasses classes = SegmentClasses::make(segmented_policy(), shape);
      if (begins.shift == 0 && ends.size == begins.size && ends.shift == begins.size)
      {
        return fixed(d_temp_storage,
                     temp_storage_bytes,
                     in,
                     out,
                     num_segments,
                     begins.size,
                     op,
                     init,
                     transform,
                     classes,
                     shape,
                     facts,
                     hooks,
                     stream);
      }
    }
    int blocks_per_sm = 0;
    if (const cudaError_t error = occupancy<block_kernel>(facts.device, shape.block_threads, blocks_per_sm);
        error != cudaSuccess)
    {
      return error;
    }
    const SegmentedPolicy policy = segmented_policy();
    const int forced             = hooks.max_listed_segments;
    auto cap             = [&](int limit) { return num_segments < limit ? static_cast<int>(num_segments) : limit; };
    const int large_cap  = cap(forced > 0 ? forced : policy.max_split_segments);
    const int block_cap  = cap(forced > 0 ? forced : policy.max_listed_segments);
    const int block_grid = facts.sms * blocks_per_sm;
    const std::uint64_t unit_cap = SegmentedLayout::unit_room(
        large_cap, policy.max_units, hooks.max_split_units > 0 ? hooks.max_split_units : policy.max_split_units);
    const SegmentedLayout layout = SegmentedLayout::make(
        large_cap, unit_cap, block_cap, block_grid, policy.max_units, sizeof(AccumT), alignof(AccumT));

    if (d_temp_storage == nullptr)
    {
      temp_storage_bytes = layout.bytes;
      return cudaSuccess;
    }
    if (temp_storage_bytes < layout.bytes)
    {
      return cudaErrorInvalidValue;
    }
    char* base  = static_cast<char*>(align_up(d_temp_storage, layout.align));
    auto* state = reinterpret_cast<SegmentedState*>(base);
    // The state is cleared by the warp kernel's block 0 under this call's id; a graph's replays all carry the same
    // arguments, so there a kernel of its own clears it first.
    const GridClear clear{reinterpret_cast<unsigned*>(base),
                          static_cast<int>(layout.clear_bytes / sizeof(unsigned)),
                          reinterpret_cast<unsigned long long*>(base + layout.ready),
                          is_capturing(stream) ? 0 : next_call_id()};
    if (clear.call == 0)
    {
      if (const cudaError_t error = launch(GridClearKernel<unsigned>,
                                           1,
                                           shape.block_threads,
                                           stream,
                                           may_overlap(facts.arch, hooks),
                                           clear.words,
                                           clear.count);
          error != cudaSuccess)
      {
        return error;
      }
    }
    // The warp kernel: a group of 32 segments per warp, grid-stride beyond 32 blocks per SM (a few waves).
    const std::int64_t groups     = num_segments / 32 + (num_segments % 32 != 0); // no overflow at 2^63 - 1
    const std::int64_t warps      = shape.block_threads / 32;
    const std::int64_t max_blocks = static_cast<std::int64_t>(facts.sms) * 32;
    const std::int64_t needed     = (groups + warps - 1) / warps;
    const int warp_grid           = static_cast<int>(needed < max_blocks ? needed : max_blocks);
    auto* large_list              = reinterpret_cast<LargeSegment*>(base + layout.large_list);
    auto* block_list              = reinterpret_cast<std::int64_t*>(base + layout.block_list);
    auto* warp_list               = reinterpret_cast<std::int64_t*>(base + layout.warp_list);
    if (const cudaError_t error = launch(warp_kernel,
                                         warp_grid,
                                         shape.block_threads,
                                         stream,
                                         may_overlap(facts.arch, hooks),
                                         in,
                                         out,
                                         begins,
                                         ends,
                                         num_segments,
                                         op,
                                         init,
                                         transform,
                                         state,
                                         large_list,
                                         reinterpret_cast<unsigned*>(base + layout.unit_counts),
                                         block_list,
                                         warp_list,
                                         large_cap,
                                         block_cap,
                                         clear);
        error != cudaSuccess)
    {
      return error;
    }
    return launch(block_kernel,
                  block_grid,
                  shape.block_threads,
                  stream,
                  may_overlap(facts.arch, hooks),
                  in,
                  out,
                  begins,
                  ends,
                  op,
                  init,
                  transform,
                  state,
                  large_list,
                  block_list,
                  warp_list,
                  large_cap,
                  unit_cap,
                  block_cap,
                  reinterpret_cast<unsigned*>(base + layout.unit_counts),
                  reinterpret_cast<AccumT*>(base + layout.partials),
                  reinterpret_cast<AccumT*>(base + layout.scratch));
  }
};

//! The common entry of every DeviceSegmentedReduce algorithm: checks the types and dispatches.
template <typename AccumT,
          typename TuningT,
          typename InputIteratorT,
          typename OutputIteratorT,
          typename BeginOffsetIteratorT,
          typename EndOffsetIteratorT,
          typename ReductionOpT,
          typename InitT,
          typename TransformOpT>
cudaError_t segmented_reduce(void* d_temp_storage,
                             std::size_t& temp_storage_bytes,
                             InputIteratorT in,
                             OutputIteratorT out,
                             std::int64_t num_segments,
                             BeginOffsetIteratorT begins,
                             EndOffsetIteratorT ends,
                             ReductionOpT op,
                             InitT init,
                             TransformOpT transform,
                             cudaStream_t stream)
{
  using BeginT = value_t<BeginOffsetIteratorT>;
  using EndT   = value_t<EndOffsetIteratorT>;
  static_assert(std::is_integral_v<BeginT> && std::is_integral_v<EndT>,
                "fold::DeviceSegmentedReduce: the offset iterators' value types must be integers");
  static_assert(
      std::is_trivially_copyable_v<AccumT> && std::is_default_constructible_v<AccumT>,
      "fold::DeviceSegmentedReduce: the accumulator type must be trivially copyable and default-constructible");
  return DispatchSegmentedReduce<InputIteratorT,
                                 OutputIteratorT,
                                 BeginOffsetIteratorT,
                                 EndOffsetIteratorT,
                                 ReductionOpT,
                                 InitT,
                                 AccumT,
                                 TransformOpT,
                                 TuningT>::Dispatch(d_temp_storage,
                                                    temp_storage_bytes,
                                                    in,
                                                    out,
                                                    num_segments,
                                                    begins,
                                                    ends,
                                                    op,
                                                    init,
                                                    transform,
                                                    stream);
}

} // namespace detail
FOLD_NAMESPACE_END

// SPDX-License-Identifier: Apache-2.0
//! @file
//! The dispatch: validates the arguments, picks the policy for the device, makes the plan (the kernel path, the
//! grid, the temporary storage) and launches on the caller's stream. It never synchronises, allocates, prints
//! or throws.
#pragma once

#include <fold/util/macros.cuh>

#include <fold/detail/one_call.cuh>
#include <fold/detail/output.cuh>
#include <fold/detail/reduction.cuh>
#include <fold/dispatch/kernels_reduce.cuh>
#include <fold/dispatch/launch.cuh>
#include <fold/grid/grid_even_share.cuh>
#include <fold/tuning/tuning_reduce.cuh>
#include <fold/util/macros.cuh>
#include <fold/util/type_traits.cuh>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

FOLD_NAMESPACE_BEGIN
namespace detail
{

//! What one call will do; a pure function of the sizes, so that it can be tested without a GPU.
template <typename OffsetT>
struct ReducePlan
{
  ReducePath path;
  GridEvenShare<OffsetT> share;   //!< the grid of pass 1 (single-pass and two-pass)
  int partials;                   //!< how many partials pass 1 writes
  std::size_t storage_align;      //!< the temporary storage is used from this alignment on
  std::size_t partials_offset;    //!< where the partials start, after the ticket
  std::size_t temp_storage_bytes; //!< never 0: a zero-byte allocation could come back null, which means "query"
};

//! The plan for `num_items` items with tiles of `tile_items`, and partials of `partial_bytes` aligned to
//! `partial_align`.
//!
//! `automatic`: a single tile up to one tile; beyond it, pass 1 over at most `max_grid_size` blocks, in one
//! launch (single-pass) while that is at most `single_pass_max_blocks` blocks, in two launches beyond. Any
//! other `path` is taken as it is (a forced single tile over more than one unit is the one tree that differs),
//! except for empty input, always a single tile.
//!
//! Pass 1's grid depends on it:
//! - `max_units == 0` (an exact reduction, see `is_exact_v`): any tree gives the same bits, so the blocks' ranges
//!   are balanced in grains of `grain_items`, never less than one whole tile per block, one partial per block.
//! - otherwise the input is cut into units of `K` whole tiles from item 0, `K` the smallest power of two that
//!   makes at most `max_units` units: a function of `num_items` and the tile only. Each block takes whole units
//!   and writes one partial per unit, so the result is the same for every grid.
//!
//! The temporary storage holds the ticket, then the partials; it grows with `num_items` and never shrinks.
template <typename OffsetT>
constexpr ReducePlan<OffsetT> make_reduce_plan(OffsetT num_items,
                                               int tile_items,
                                               int grain_items,
                                               int max_units,
                                               int max_grid_size,
                                               int single_pass_max_blocks,
                                               std::size_t partial_bytes,
                                               std::size_t partial_align,
                                               ReducePath path = ReducePath::automatic)
{
  const OffsetT tile = static_cast<OffsetT>(tile_items);
  // Empty input is one block writing the initial value, whatever path is forced.
  if (num_items == 0 || path == ReducePath::single_tile || (path == ReducePath::automatic && num_items <= tile))
  {
    return {ReducePath::single_tile, {}, 0, 1, 0, 1};
  }
  const OffsetT tiles = num_items / tile + (num_items % tile != 0);
  GridEvenShare<OffsetT> share{};
  std::size_t partials_capacity = 0;
  if (max_units == 0)
  {
    // At least one whole tile per block: more, smaller blocks only add block lifetimes and partials.
    const OffsetT whole_tiles = num_items / tile;
    if (whole_tiles < static_cast<OffsetT>(max_grid_size))
    {
      max_grid_size = whole_tiles > 0 ? static_cast<int>(whole_tiles) : 1;
    }
    share             = GridEvenShare<OffsetT>::make(num_items, static_cast<OffsetT>(grain_items), max_grid_size);
    partials_capacity = static_cast<std::size_t>(share.grid_size);
  }
  else
  {
    const auto tiles_per_unit = static_cast<OffsetT>(unit_tiles(static_cast<std::uint64_t>(tiles), max_units));
    share                     = GridEvenShare<OffsetT>::make(num_items, tiles_per_unit * tile, max_grid_size);
    // Sized for the most units any `num_items` up to this one can have, so that it never shrinks.
    partials_capacity =
        tiles < static_cast<OffsetT>(max_units) ? static_cast<std::size_t>(tiles) : static_cast<std::size_t>(max_units);
  }
  const int partials = static_cast<int>(partial_count(share, max_units == 0));
  if (path == ReducePath::automatic)
  {
    path = share.grid_size <= single_pass_max_blocks ? ReducePath::single_pass : ReducePath::two_pass;
  }
  // Vector-aligned partials, so that pass 2 loads them whole.
  std::size_t align       = partial_align > alignof(Ticket) ? partial_align : alignof(Ticket);
  align                   = align > 16 ? align : 16;
  const std::size_t start = (sizeof(Ticket) + align - 1) / align * align;
  // The storage is aligned inside the caller's allocation, which may itself be less aligned.
  return {path, share, partials, align, start, align - 1 + start + partials_capacity * partial_bytes};
}

template <typename InputIteratorT,
          typename OutputIteratorT,
          typename OffsetT,
          typename ReductionOpT,
          typename InitT,
          typename AccumT,
          typename TransformOpT,
          typename TuningT>
struct DispatchReduce
{
  using PartialsTransformT = CastTo<AccumT>;

  //! The single-tile kernel under the tuning `T`: `TuningT`, or `ShortTuningT` (see `has_short_tile`).
  template <typename T>
  static constexpr auto single_tile_kernel =
      SingleTileKernel<InputIteratorT, OutputIteratorT, OffsetT, ReductionOpT, InitT, AccumT, TransformOpT, T>;
  using ShortTuningT = short_tile_tuning_t<InputIteratorT, TuningT>;
  //! Whether a single-tile call of an exact reduction (any tree gives its bits) that fits in `ShortTuningT`'s tile
  //! (sm_90: 4096 items of up to 4 bytes) runs in that tile, where it is shorter than the policy's on some
  //! architecture (sm_90: 1-, 2- and 4-byte items, whose tiles hold 16384, 8192 and 8192). One block's call is its
  //! fixed costs, and they grow with the tile: on an H200 under graph replay, Sum and Min over 2^12 items took
  //! 1.08-1.26 us in the short tile against 1.24-1.58 in the policy's (cub, whose tile it is: 1.16-1.37 us); at
  //! 2^13 a call keeps the policy's tile, where two short tiles in one block took float Min from 1.35 to 1.66 us
  //! (docs/performance.md, "One-tile calls in a short tile").
  static constexpr bool has_short_tile =
      is_exact_v<ReductionOpT, AccumT> && short_tile_is_shorter<InputIteratorT, AccumT, ReductionOpT, TuningT>();
  //! Pass 1 of both paths and pass 2, `Rows` as `AgentReduce`'s `OrderedRows` (see `with_tree`).
  template <bool Rows>
  static constexpr auto reduce_kernel =
      ReduceKernel<InputIteratorT, AccumT, OffsetT, ReductionOpT, TransformOpT, TuningT, Rows>;
  template <bool Rows>
  static constexpr auto single_pass_kernel = SinglePassKernel<InputIteratorT,
                                                              OutputIteratorT,
                                                              OffsetT,
                                                              ReductionOpT,
                                                              InitT,
                                                              AccumT,
                                                              TransformOpT,
                                                              TuningT,
                                                              Rows>;
  //! Pass 2's tuning: an exact reduction's in a shorter tile (see `PartialsTuning`); the others' tile sets their bits.
  using PartialsTuningT = std::conditional_t<is_exact_v<ReductionOpT, AccumT>, PartialsTuning<TuningT>, TuningT>;
  template <bool Rows>
  static constexpr auto partials_kernel = SingleTileKernel<AccumT*,
                                                           OutputIteratorT,
                                                           std::uint32_t,
                                                           ReductionOpT,
                                                           InitT,
                                                           AccumT,
                                                           PartialsTransformT,
                                                           PartialsTuningT,
                                                           Rows>;
  //! Whether a thread's first tile costs more than its others (see `TileFold::searches_first_tile`): pass 1 then
  //! runs in one wave at every size. ArgMinMax over int8 at 2^28 items on an H100: 98.5 us in one wave, 124.1 in
  //! four (the policy's above 128 MiB); at 2^30 357.7 against 358.2. With the index left for the end of a block's
  //! range (1- and 2-byte items), four waves still took 1.02-1.26x the time on an H200 from 128 MiB
  //! (docs/performance.md, "the one-wave rule under the deferred index").
  static constexpr bool searches_first_tile =
      is_vectorizable_input_v<InputIteratorT> &&
      TileFold<ReductionOpT, TransformOpT, value_t<InputIteratorT>>::searches_first_tile;

  //! How many times the policy's `one_wave_max_mib` pass 1 stays in one wave: for an exact reduction, a 4-byte word
  //! of its partial's size each (at least one). Its pass 2 folds one partial a pass-1 block, so more waves multiply
  //! pass 2's loads and folds, and the wider the partial the more that costs against the balance they buy. On an
  //! H200, back to back: ArgMax over double (12-byte packed pairs) took 0.93 of the time at 2^24 in one wave
  //! against four, 0.97 at 2^25, 0.99-1.00 at 2^26-2^29; Min over double (8-byte keys) 0.98 at 2^24-2^25; Sum over
  //! double, whose partials are fixed units whatever the grid, 1.02-1.03 (docs/performance.md, "Min and Max over
  //! float and double, extreme first; exact reductions in one wave for wide partials").
  static constexpr int one_wave_scale = is_exact_v<ReductionOpT, AccumT> && sizeof(AccumT) > 4
                                            ? static_cast<int>(sizeof(AccumT) / 4)
                                            : 1;

  //! `f(std::bool_constant<Rows>)` with the tree of a call's kernels (`rows`, from `reads_rows`): full tiles in rows,
  //! or, for an order-preserving operator in a call of more than `ordered_rows_max_tiles` tiles, in runs, the kernels
  //! as they were before rows (instantiated for such operators only).
  template <typename F>
  static cudaError_t with_tree(bool rows, F&& f)
  {
    if constexpr (!is_commutative_v<ReductionOpT>)
    {
      if (!rows)
      {
        return f(std::false_type{});
      }
    }
    return f(std::true_type{});
  }

  //! Whether a call of `num_items` items reads full tiles in rows (see `with_tree`): a function of the count and the
  //! tile alone, as the tree must be.
  static bool reads_rows(std::uint64_t num_items, const TileShape& shape)
  {
    return num_items <= ordered_rows_max_tiles * static_cast<std::uint64_t>(shape.tile_items);
  }

  //! Pass 2: the `count` partials folded in unit order and written, with `init`, to `out`; one block.
  static cudaError_t launch_partials(bool rows,
                                     AccumT* partials,
                                     OutputIteratorT out,
                                     std::uint32_t count,
                                     ReductionOpT op,
                                     InitT init,
                                     int block_threads, // every tile shape of a policy has its block size
                                     cudaStream_t stream,
                                     bool overlap)
  {
    return with_tree(rows,
                     [&](auto in_rows)
                     {
                       return launch(partials_kernel<decltype(in_rows)::value>,
                                     1,
                                     block_threads,
                                     stream,
                                     overlap,
                                     partials,
                                     out,
                                     count,
                                     op,
                                     init,
                                     PartialsTransformT{});
                     });
  }

  //! Whether a call of `num_items` items is an order-preserving reduction read in runs (see `with_tree`) in at least
  //! `ordered_runs_min_units` units, which pass 1 runs in `ordered_runs_waves` waves.
  static bool many_ordered_units(bool rows, std::uint64_t num_items, const ReducePolicy& policy, const TileShape& shape)
  {
    if constexpr (is_commutative_v<ReductionOpT> || is_exact_v<ReductionOpT, AccumT>)
    {
      return false;
    }
    else
    {
      const std::uint64_t tiles = tiles_of(num_items, shape.tile_items);
      const std::uint64_t k     = unit_tiles(tiles, max_units_of<ReductionOpT, AccumT>(policy, tiles));
      return !rows && tiles / k + (tiles % k != 0) >= static_cast<std::uint64_t>(ordered_runs_min_units);
    }
  }

  //! The most blocks pass 1 may launch over `num_items` items: waves of the blocks a multiprocessor holds of the
  //! kernel that runs it (the single-pass kernel, or with `TwoPass` the two-pass path's `reduce_kernel`), at most the
  //! forced grid. One wave below `policy.one_wave_max_mib` (times `one_wave_scale`) or where a thread's first tile
  //! costs more than its others (`searches_first_tile`), above it `ordered_runs_waves` for an order-preserving operator
  //! read in runs in many units (`many_ordered_units`) and the policy's `oversubscription` otherwise, unless waves are
  //! forced.
  template <bool TwoPass>
  static cudaError_t pass1_grid(bool rows,
                                std::uint64_t num_items,
                                const DeviceFacts& facts,
                                const ReducePolicy& policy,
                                const TileShape& shape,
                                const DispatchHooks& forced,
                                int& grid)
  {
    const double input_mib = static_cast<double>(num_items) * sizeof(value_t<InputIteratorT>) / (1 << 20);
    const bool one_wave =
        input_mib < static_cast<double>(policy.one_wave_max_mib) * one_wave_scale || searches_first_tile;
    const int waves   = forced.waves > 0                                     ? forced.waves
                        : one_wave                                           ? 1
                        : many_ordered_units(rows, num_items, policy, shape) ? ordered_runs_waves
                                                                             : policy.oversubscription;
    int blocks_per_sm = 0;
    const cudaError_t error =
        with_tree(rows,
                  [&](auto in_rows)
                  {
                    constexpr bool in_rows_v = decltype(in_rows)::value;
                    if constexpr (TwoPass)
                    {
                      return occupancy<reduce_kernel<in_rows_v>>(facts.device, shape.block_threads, blocks_per_sm);
                    }
                    else
                    {
                      return occupancy<single_pass_kernel<in_rows_v>>(facts.device, shape.block_threads, blocks_per_sm);
                    }
                  });
    grid = blocks_per_sm * facts.sms * waves;
    if (forced.max_grid_size > 0 && forced.max_grid_size < grid)
    {
      grid = forced.max_grid_size;
    }
    return error;
  }

  static cudaError_t Dispatch(void* d_temp_storage,
                              std::size_t& temp_storage_bytes,
                              InputIteratorT in,
                              OutputIteratorT out,
                              OffsetT num_items,
                              ReductionOpT op,
                              InitT init,
                              TransformOpT transform,
                              cudaStream_t stream)
  {
    const DispatchHooks forced = hooks_of<TuningT>();
    if (d_temp_storage != nullptr && ((num_items > 0 && is_null(in)) || is_null(out)))
    {
      return cudaErrorInvalidValue;
    }
    if (d_temp_storage == arguments_only())
    {
      return cudaSuccess; // a one-call form's check of the pointers, before it allocates
    }
    DeviceFacts facts;
    if (const cudaError_t error = device_facts(facts); error != cudaSuccess)
    {
      return error;
    }
    const ReducePolicy policy  = TuningT::policy(facts.arch);
    const TileShape shape      = reduce_tile_shape<InputIteratorT, AccumT, TuningT, ReductionOpT>(facts.arch);
    int max_grid_size          = 0;
    int single_pass_max_blocks = 0;
    const bool rows            = reads_rows(static_cast<std::uint64_t>(num_items), shape);
    const bool needs_grid      = forced.path == ReducePath::automatic
                                     ? num_items > static_cast<OffsetT>(shape.tile_items)
                                     : forced.path != ReducePath::single_tile && num_items > 0;
    if (needs_grid)
    {
      if (const cudaError_t error = pass1_grid<false>(
              rows, static_cast<std::uint64_t>(num_items), facts, policy, shape, forced, max_grid_size);
          error != cudaSuccess)
      {
        return error;
      }
      single_pass_max_blocks = facts.sms * policy.single_pass_blocks_per_sm;
      if (d_temp_storage != nullptr && forced.path == ReducePath::automatic && is_capturing(stream))
      {
        single_pass_max_blocks = 0; // see `is_capturing`
      }
    }
    auto plan_for = [&](int max_grid, ReducePath path)
    {
      return make_reduce_plan(num_items,
                              shape.tile_items,
                              shape.grain_items,
                              is_exact_v<ReductionOpT, AccumT>
                                  ? 0
                                  : max_units_of<ReductionOpT, AccumT>(
                                        policy, tiles_of(static_cast<std::uint64_t>(num_items), shape.tile_items)),
                              max_grid,
                              single_pass_max_blocks,
                              sizeof(AccumT),
                              alignof(AccumT),
                              path);
    };
    ReducePlan<OffsetT> plan = plan_for(max_grid_size, forced.path);
    if (plan.path == ReducePath::two_pass)
    {
      // Pass 1 is then `reduce_kernel`, whose blocks a multiprocessor may hold more of than the single-pass kernel's
      // (MinMax over double: 5 against 4): its grid in whole waves of them.
      if (const cudaError_t error = pass1_grid<true>(
              rows, static_cast<std::uint64_t>(num_items), facts, policy, shape, forced, max_grid_size);
          error != cudaSuccess)
      {
        return error;
      }
      plan = plan_for(max_grid_size, ReducePath::two_pass);
    }

    if (d_temp_storage == nullptr)
    {
      temp_storage_bytes = plan.temp_storage_bytes;
      return cudaSuccess;
    }
    if (temp_storage_bytes < plan.temp_storage_bytes)
    {
      return cudaErrorInvalidValue;
    }

    const bool overlap = may_overlap(facts.arch, forced);
    if (plan.path == ReducePath::single_tile)
    {
      auto run = [&](auto kernel)
      { return launch(kernel, 1, shape.block_threads, stream, overlap, in, out, num_items, op, init, transform); };
      if constexpr (has_short_tile)
      {
        if (num_items <=
            static_cast<OffsetT>(
                reduce_tile_shape<InputIteratorT, AccumT, ShortTuningT, ReductionOpT>(facts.arch).tile_items))
        {
          return run(single_tile_kernel<ShortTuningT>);
        }
      }
      return run(single_tile_kernel<TuningT>);
    }
    void* base       = align_up(d_temp_storage, plan.storage_align);
    auto* ticket     = static_cast<Ticket*>(base);
    AccumT* partials = reinterpret_cast<AccumT*>(static_cast<char*>(base) + plan.partials_offset);
    if (plan.path == ReducePath::single_pass)
    {
      return with_tree(rows,
                       [&](auto in_rows)
                       {
                         return launch(single_pass_kernel<decltype(in_rows)::value>,
                                       plan.share.grid_size,
                                       shape.block_threads,
                                       stream,
                                       overlap,
                                       in,
                                       out,
                                       partials,
                                       ticket,
                                       next_call_id(),
                                       plan.share,
                                       op,
                                       init,
                                       transform);
                       });
    }
    if (const cudaError_t error = with_tree(rows,
                                            [&](auto in_rows)
                                            {
                                              return launch(reduce_kernel<decltype(in_rows)::value>,
                                                            plan.share.grid_size,
                                                            shape.block_threads,
                                                            stream,
                                                            overlap,
                                                            in,
                                                            partials,
                                                            plan.share,
                                                            op,
                                                            transform);
                                            });
        error != cudaSuccess)
    {
      return error;
    }
    return launch_partials(
        rows, partials, out, static_cast<std::uint32_t>(plan.partials), op, init, shape.block_threads, stream, overlap);
  }
};

//! Whether `num_items` is a count the algorithms take: not negative, at most `max_num_items` (2^63 - 1).
template <typename NumItemsT>
constexpr bool valid_num_items(NumItemsT num_items)
{
  if constexpr (std::is_signed_v<NumItemsT>)
  {
    return num_items >= 0;
  }
  else if constexpr (sizeof(NumItemsT) == 8)
  {
    return num_items <= static_cast<NumItemsT>(max_num_items);
  }
  else
  {
    return true;
  }
}

//! The common entry of every DeviceReduce algorithm: checks `num_items`, picks the offset type, dispatches.
template <typename AccumT,
          typename TuningT,
          typename InputIteratorT,
          typename OutputIteratorT,
          typename NumItemsT,
          typename ReductionOpT,
          typename InitT,
          typename TransformOpT>
cudaError_t reduce(void* d_temp_storage,
                   std::size_t& temp_storage_bytes,
                   InputIteratorT in,
                   OutputIteratorT out,
                   NumItemsT num_items,
                   ReductionOpT op,
                   InitT init,
                   TransformOpT transform,
                   cudaStream_t stream)
{
  static_assert(std::is_integral_v<NumItemsT> && !std::is_same_v<NumItemsT, bool> && sizeof(NumItemsT) <= 8,
                "fold::DeviceReduce: num_items must be of an integer type of at most 64 bits");
  static_assert(std::is_default_constructible_v<AccumT> && std::is_copy_constructible_v<AccumT>,
                "fold::DeviceReduce: the accumulator type must be default-constructible and copyable");
  if (!valid_num_items(num_items))
  {
    return cudaErrorInvalidValue;
  }
  using OffsetT = offset_t<NumItemsT>;
  return DispatchReduce<InputIteratorT, OutputIteratorT, OffsetT, ReductionOpT, InitT, AccumT, TransformOpT, TuningT>::
      Dispatch(
          d_temp_storage, temp_storage_bytes, in, out, static_cast<OffsetT>(num_items), op, init, transform, stream);
}

} // namespace detail
FOLD_NAMESPACE_END

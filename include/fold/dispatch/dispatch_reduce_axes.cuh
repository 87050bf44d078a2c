// SPDX-License-Identifier: Apache-2.0
//! @file
//! The reduction over axes of a row-major array. The plan (a pure host function) drops extents of 1, merges
//! adjacent reduced and adjacent kept dimensions, and then removes the reduced groups innermost first, one step
//! each:
//! - the last dimension reduced, `[batch, rows]` -> `[batch]`: the segmented reduction with fixed-size segments;
//! - a higher dimension reduced, `[batch, rows, cols]` -> `[batch, cols]`: for a commutative operator (an exact one
//!   over items of 4 bytes or more), each column whole along a tree of its own (`ColumnTreeKernel`, see `expand`);
//!   otherwise `HigherDimKernel`, in which each thread owns a column and folds a contiguous run of rows (Paddle's
//!   reduce over the highest dimension). There long columns are cut into units of `rows_per_unit` rows (but for the
//!   wide rows of an exact commutative operator, `wide_rows_per_unit`), one partial row each, `[batch, units, cols]`,
//!   which the next step reduces the same way.
//! Steps hand their results on in the accumulator type through the temporary storage; only the last applies the
//! initial value. The nested reductions keep the row-major order of the reduced items (outer before inner), so an
//! operator need only be associative, and every step's tree depends only on the shape.
#pragma once

#include <fold/detail/one_call.cuh>
#include <fold/detail/output.cuh>
#include <fold/detail/reduction.cuh>
#include <fold/dispatch/dispatch_segmented_reduce.cuh>
#include <fold/dispatch/kernels_reduce_axes.cuh>
#include <fold/dispatch/launch.cuh>
#include <fold/tuning/tuning_reduce.cuh>
#include <fold/util/extents.cuh>
#include <fold/util/macros.cuh>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

FOLD_NAMESPACE_BEGIN
namespace detail
{

//! Rows per unit of a higher-dimension step: all of them up to `unit_min_rows` rows or `unit_items` items, else a
//! power of two from there (at most 1/128 of the input comes back as partials).
inline constexpr std::int64_t unit_min_rows = 128;
inline constexpr std::int64_t unit_items    = 1 << 15;

constexpr std::int64_t rows_per_unit(std::int64_t rows, std::int64_t cols)
{
  std::int64_t target = unit_items / cols > unit_min_rows ? unit_items / cols : unit_min_rows;
  if (rows <= target)
  {
    return rows;
  }
  return pow2_at_least(target);
}

//! Rows per unit of a step over rows of `cols` columns, for an exact commutative operator whose items are read
//! `vector_items` columns to a thread (0: any other operator, `rows_per_unit`). Rows of so many column groups that
//! `wide_block_groups` of them a block give `min_higher_dim_blocks` blocks are one unit: the step is one launch,
//! where 128-row units left 1/128 of the input to a second one. Such an operator gives the same result along any
//! tree, so the units are the dispatch's choice. On an H200 int32 sums over axis 0 took 0.96-0.97 of the time for
//! [4096, 65536] and 0.89 for [1024, 65536], float Max 0.98 for [4096, 65536]; the fewest units for narrower rows
//! (four for [16384, 16384]) took 0.98-1.02 for int32 sums and 1.01-1.03 for float Max, and are not taken
//! (docs/performance.md, "Axes: exact sums over wide rows"; float Max then ran `fold::Max` item by item, before Min
//! and Max reduced order keys).
inline constexpr std::int64_t wide_block_groups = 16;

constexpr std::int64_t wide_rows_per_unit(std::int64_t rows, std::int64_t cols, std::int64_t vector_items)
{
  const std::int64_t groups = vector_items > 0 ? (cols + vector_items - 1) / vector_items : 0;
  return groups >= min_higher_dim_blocks * wide_block_groups ? rows : rows_per_unit(rows, cols);
}

//! The steps of a reduction of `shape` over `axes`, and what the call produces.
struct AxesPlan
{
  static constexpr int max_steps = max_rank + 8;
  bool valid                     = false; //!< the arguments make sense
  std::int64_t inputs            = 0;
  std::int64_t outputs           = 0; //!< the kept shape's size (0: nothing to write)
  int steps                      = 0;
  AxesStep step[max_steps]{};
};

//! With `whole_columns`, a higher-dimension step is never cut into units (`ColumnTreeKernel` then reduces each
//! column along a tree of its own, see `DispatchReduceAxes::expand`). With `wide_vector_items` (an exact commutative
//! operator's columns a thread, see `wide_rows_per_unit`), wide rows are one unit.
inline AxesPlan
make_axes_plan(const Extents& shape, const Axes& axes, bool whole_columns = false, std::int64_t wide_vector_items = 0)
{
  AxesPlan plan;
  if (shape.rank < 0 || shape.rank > max_rank || axes.repeated || axes.too_large || (axes.mask >> shape.rank) != 0)
  {
    return plan;
  }
  // The product of the nonzero extents must fit in int64_t: the item count, and with a zero extent the output count
  // and every merged extent, which would overflow otherwise (a zero extent makes the item count 0, not the others).
  std::int64_t product = 1;
  for (int d = 0; d < shape.rank; ++d)
  {
    if (shape.dims[d] > 0 && product > INT64_MAX / shape.dims[d])
    {
      return plan;
    }
    product *= shape.dims[d] > 0 ? shape.dims[d] : 1;
  }
  std::int64_t extent[max_rank];
  bool reduced[max_rank];
  int groups           = 0;
  bool empty_reduction = false;
  plan.inputs          = 1;
  plan.outputs         = 1;
  for (int d = 0; d < shape.rank; ++d)
  {
    if (shape.dims[d] < 0)
    {
      return plan;
    }
    const bool r = (axes.mask >> d) & 1u;
    plan.inputs *= shape.dims[d];
    plan.outputs *= r ? 1 : shape.dims[d];
    empty_reduction = empty_reduction || (r && shape.dims[d] == 0);
    if (shape.dims[d] == 1)
    {
      continue; // nothing to reduce or keep
    }
    if (groups > 0 && reduced[groups - 1] == r)
    {
      extent[groups - 1] *= shape.dims[d];
    }
    else
    {
      extent[groups]  = shape.dims[d];
      reduced[groups] = r;
      ++groups;
    }
  }
  plan.valid = true;
  if (plan.outputs == 0)
  {
    return plan; // nothing to write
  }
  if (empty_reduction || groups == 0 || !reduced[groups - 1])
  {
    bool any = false;
    for (int g = 0; g < groups; ++g)
    {
      any = any || reduced[g];
    }
    if (empty_reduction || !any)
    {
      // Every output is `init op` (no item, or its one item): segments of 0 or 1 item.
      plan.step[plan.steps++] = {true, plan.outputs, empty_reduction ? 0 : 1, 1, 1, 1};
      return plan;
    }
  }
  if (reduced[groups - 1])
  {
    // The last dimension: segments.
    plan.step[plan.steps++] = {true, plan.inputs / extent[groups - 1], extent[groups - 1], 1, 1, 1};
    --groups;
    // What remains ends with a kept group (or is empty, the whole reduction done).
  }
  while (true)
  {
    int inner = -1; // the innermost reduced group
    for (int g = 0; g < groups; ++g)
    {
      inner = reduced[g] ? g : inner;
    }
    if (inner < 0)
    {
      return plan;
    }
    std::int64_t batch = 1, cols = 1;
    for (int g = 0; g < inner; ++g)
    {
      batch *= extent[g];
    }
    for (int g = inner + 1; g < groups; ++g)
    {
      cols *= extent[g];
    }
    const std::int64_t rows  = extent[inner];
    const std::int64_t per   = whole_columns ? rows : wide_rows_per_unit(rows, cols, wide_vector_items);
    const std::int64_t units = (rows + per - 1) / per;
    plan.step[plan.steps++]  = {false, batch, rows, cols, per, units};
    if (units > 1)
    {
      extent[inner] = units; // partial rows, reduced by the next step
      continue;
    }
    // The group is gone: its neighbours (both kept, or the end) merge.
    for (int g = inner; g + 1 < groups; ++g)
    {
      extent[g]  = extent[g + 1];
      reduced[g] = reduced[g + 1];
    }
    --groups;
    if (inner > 0 && inner < groups && !reduced[inner - 1] && !reduced[inner])
    {
      extent[inner - 1] *= extent[inner];
      for (int g = inner; g + 1 < groups; ++g)
      {
        extent[g]  = extent[g + 1];
        reduced[g] = reduced[g + 1];
      }
      --groups;
    }
  }
}

//! The tree the segmented reductions give a segment of `rows` items (its class, see `SegmentClasses`, and the
//! agents' slots of `shape`), as a column rule: a small segment's lane runs; a warp or block agent's slots dealt over
//! 32 or `block_threads` leaves; a large segment's units of `unit_items`, each a block agent's (whose partials
//! `partials_column_rule` reduces).
inline ColumnRule segment_column_rule(const SegmentClasses& classes, const TileShape& shape, std::int64_t rows)
{
  const auto length = static_cast<std::uint64_t>(rows);
  switch (classes.of(length))
  {
  case SegmentClass::small:
    return {rows, rows, 1, classes.lanes(length), 0};
  case SegmentClass::warp:
    return {rows, rows, 1, 32, shape.vector_items};
  case SegmentClass::block:
    return {rows, rows, 1, shape.block_threads, shape.vector_items};
  default:
  {
    const auto unit = static_cast<std::int64_t>(classes.unit_items(length));
    return {rows, unit, (rows + unit - 1) / unit, shape.block_threads, shape.vector_items};
  }
  }
}

//! The tree of a large segment's `units` partials (`AgentSegmentedReduce::fold_partials`: a block agent of `shape`
//! over them), as a column rule.
inline ColumnRule partials_column_rule(const TileShape& shape, std::int64_t units)
{
  return {units, units, 1, shape.block_threads, shape.vector_items};
}

//! Threads over a row of a launch whose units need `leaves` leaves (a power of two): `row_threads`, halved down to
//! `least` while a block holds fewer leaves than that (more leaves to a block, fewer leaf groups).
constexpr int tree_column_threads(std::int64_t cols, int vector_items, std::int64_t leaves, int least)
{
  int c = row_threads(cols, vector_items);
  while (c > least && higher_dim_threads / c < leaves)
  {
    c /= 2;
  }
  return c;
}

template <typename InputIteratorT,
          typename OutputIteratorT,
          typename ReductionOpT,
          typename InitT,
          typename AccumT,
          typename TuningT,
          typename TransformT = CastTo<AccumT>>
struct DispatchReduceAxes
{
  //! What the steps after the first read: the accumulators the step before wrote.
  using Cast = CastTo<AccumT>;

  //! One segmented step: `[batch, rows]` -> `[batch]`; only ever the first, so its items go through `TransformT`.
  template <typename InT, typename OutT, typename StepInitT>
  static cudaError_t last_dim(void* temp,
                              std::size_t& bytes,
                              InT in,
                              OutT out,
                              const AxesStep& s,
                              ReductionOpT op,
                              StepInitT init,
                              cudaStream_t stream)
  {
    return DispatchSegmentedReduce<InT,
                                   OutT,
                                   FixedOffsets,
                                   FixedOffsets,
                                   ReductionOpT,
                                   StepInitT,
                                   AccumT,
                                   TransformT,
                                   TuningT>::Dispatch(temp,
                                                      bytes,
                                                      in,
                                                      out,
                                                      s.batch,
                                                      FixedOffsets{s.rows, 0},
                                                      FixedOffsets{s.rows, s.rows},
                                                      op,
                                                      init,
                                                      TransformT{},
                                                      stream);
  }

  //! One `HigherDimKernel` launch, its items turned into accumulators by `transform` (`TransformT` for the first
  //! step, `Cast` after).
  template <typename InT, typename OutT, typename StepInitT, typename StepTransformT>
  static cudaError_t higher_dim(InT in,
                                OutT out,
                                const AxesStep& s,
                                ReductionOpT op,
                                StepInitT init,
                                StepTransformT transform,
                                int sms,
                                bool overlap,
                                cudaStream_t stream)
  {
    constexpr int V             = column_vector_items<InT>();
    const int col_threads       = column_threads(s.cols, V, s.units * s.batch);
    const std::int64_t per_tile = static_cast<std::int64_t>(col_threads) * V;
    const std::int64_t blocks   = (s.cols + per_tile - 1) / per_tile * s.units * s.batch;
    const std::int64_t max_grid = static_cast<std::int64_t>(sms) * 64;
    const int grid              = static_cast<int>(blocks < max_grid ? blocks : max_grid);
    // A commutative operator over rows narrower than a warp's threads takes the rows round-robin, so that a warp
    // reads consecutive rows (contiguous bytes) rather than one piece of as many runs.
    const bool interleave = is_commutative_v<ReductionOpT> && col_threads < 32;
    auto go               = [&](auto kernel)
    { return launch(kernel, grid, higher_dim_threads, stream, overlap, in, out, s, col_threads, op, init, transform); };
    auto launch_with = [&](auto packed_cols)
    {
      constexpr int packed = decltype(packed_cols)::value;
      if constexpr (packed > 0)
      {
        return go(HigherDimKernel<InT, OutT, ReductionOpT, StepInitT, AccumT, StepTransformT, packed, true>);
      }
      else if constexpr (is_commutative_v<ReductionOpT>)
      {
        return interleave ? go(HigherDimKernel<InT, OutT, ReductionOpT, StepInitT, AccumT, StepTransformT, 0, true>)
                          : go(HigherDimKernel<InT, OutT, ReductionOpT, StepInitT, AccumT, StepTransformT, 0, false>);
      }
      else
      {
        return go(HigherDimKernel<InT, OutT, ReductionOpT, StepInitT, AccumT, StepTransformT, 0, false>);
      }
    };
    // Rows narrower than a vector, reduced by a commutative operator, get an instantiation that reads several to a
    // vector (its own, so that the common one keeps its registers).
    const int packed_cols = packed_higher_dim_cols<InT, ReductionOpT>(s.cols);
    if constexpr (V >= 4)
    {
      if (packed_cols == 2)
      {
        return launch_with(std::integral_constant<int, 2>{});
      }
    }
    if constexpr (V >= 8)
    {
      if (packed_cols == 4)
      {
        return launch_with(std::integral_constant<int, 4>{});
      }
    }
    if constexpr (V >= 16)
    {
      if (packed_cols == 8)
      {
        return launch_with(std::integral_constant<int, 8>{});
      }
    }
    return launch_with(std::integral_constant<int, 0>{});
  }

  //! One `ColumnTreeKernel` launch (`transform` as for `higher_dim`).
  template <typename InT, typename OutT, typename StepInitT, typename StepTransformT>
  static cudaError_t along_tree(InT in,
                                OutT out,
                                const AxesLaunch& l,
                                ReductionOpT op,
                                StepInitT init,
                                StepTransformT transform,
                                const ColumnTail<AccumT>& tail,
                                int sms,
                                bool overlap,
                                cudaStream_t stream)
  {
    constexpr int V       = column_vector_items<InT>();
    constexpr int N       = narrow_tree_cols<InT>();
    const ColumnTree& t   = l.tree;
    const int packed_cols = packed_tree_cols<InT>(l.step.cols, t.rule.slot_rows);
    // Whole columns: a thread a column group of a batch entry; slots: a block a column tile of a leaf group of a unit.
    const std::int64_t blocks =
        t.whole ? ((l.step.cols + V - 1) / V * l.step.batch + higher_dim_threads - 1) / higher_dim_threads
                : t.slot_blocks(l.step.batch, l.step.cols);
    const std::int64_t max_grid = static_cast<std::int64_t>(sms) * 64;
    const int grid              = static_cast<int>(blocks < max_grid ? blocks : max_grid);
    auto go                     = [&](auto slot_rows, auto packed, auto thread_cols, auto whole, auto aligned)
    {
      auto with = [&](auto has_tail)
      {
        return launch(ColumnTreeKernel<InT,
                                       OutT,
                                       ReductionOpT,
                                       StepInitT,
                                       AccumT,
                                       StepTransformT,
                                       decltype(slot_rows)::value,
                                       decltype(packed)::value,
                                       decltype(thread_cols)::value,
                                       decltype(whole)::value,
                                       decltype(aligned)::value != 0,
                                       decltype(aligned)::value == 2,
                                       decltype(has_tail)::value>,
                      grid,
                      higher_dim_threads,
                      stream,
                      overlap,
                      in,
                      out,
                      l.step.batch,
                      l.step.cols,
                      t,
                      op,
                      init,
                      transform,
                      tail);
      };
      // A tail only ever follows slots of a vector's rows a leaf a thread (`takes_tail`; the one-row slots are the
      // trailing launches themselves).
      if constexpr (!decltype(whole)::value && decltype(slot_rows)::value > 1)
      {
        if (tail.partials != nullptr)
        {
          return with(std::true_type{});
        }
      }
      return with(std::false_type{});
    };
    // Each slot size its own instantiation (nvcc kept every branch's addresses live at once: 204 registers for
    // a float sum with runs and slots in one kernel, 80 for slots alone), and rows narrower than a vector, dealt in
    // slots of whole vectors, one that loads a slot's rows as vectors. The slots `expand` makes: runs (a small
    // segment's lanes), slots of a vector's rows (the agents', and a large segment's partials), one-row slots (the
    // leaf groups' partials, and vectors of one item); and the slots of a vector's rows over narrow columns, over
    // whole columns, and (eight items a vector or more) over aligned rows, one each, and over aligned rows of 2-byte
    // items at most two vectors wide staged by warps.
    using Zero      = std::integral_constant<int, 0>;
    using Unchecked = std::integral_constant<int, 0>; // the kernel checks
    using Aligned   = std::integral_constant<int, 1>; // every row's column groups aligned vectors
    using Staged    = std::integral_constant<int, 2>; // aligned, a warp's rows loaded whole and staged
    using Whole     = std::true_type;                 // a thread a whole column group
    using Leaf      = std::false_type;                // a thread a leaf
    using Vec       = std::integral_constant<int, V>; // a vector's rows to a slot, or its columns to a thread
    if (t.rule.slot_rows == 0)
    {
      return go(Zero{}, Zero{}, Vec{}, Whole{}, Unchecked{});
    }
    if (t.rule.slot_rows == 1)
    {
      return go(std::integral_constant<int, 1>{}, Zero{}, Vec{}, Leaf{}, Unchecked{});
    }
    if constexpr (V > 1)
    {
      if (t.rule.slot_rows == V)
      {
        if constexpr (V >= 4)
        {
          if (packed_cols == 2)
          {
            return go(Vec{}, std::integral_constant<int, 2>{}, Vec{}, Leaf{}, Unchecked{});
          }
        }
        if constexpr (V >= 8)
        {
          if (packed_cols == 4)
          {
            return go(Vec{}, std::integral_constant<int, 4>{}, Vec{}, Leaf{}, Unchecked{});
          }
        }
        if constexpr (V >= 16)
        {
          if (packed_cols == 8)
          {
            return go(Vec{}, std::integral_constant<int, 8>{}, Vec{}, Leaf{}, Unchecked{});
          }
        }
        if constexpr (N < V)
        {
          if (t.thread_cols == N)
          {
            return go(Vec{}, Zero{}, std::integral_constant<int, N>{}, Leaf{}, Unchecked{});
          }
        }
        if constexpr (whole_slot_columns<InT>())
        {
          if (t.whole)
          {
            return go(Vec{}, Zero{}, Vec{}, Whole{}, Unchecked{});
          }
        }
        [[maybe_unused]] const bool aligned =
            l.step.cols % V == 0 && reinterpret_cast<std::uintptr_t>(in) % (sizeof(value_t<InT>) * V) == 0;
        if constexpr (staged_tree_rows<InT>())
        {
          if (aligned && t.col_threads <= max_staged_col_threads &&
              static_cast<std::int64_t>(t.col_threads) * V == l.step.cols)
          {
            return go(Vec{}, Zero{}, Vec{}, Leaf{}, Staged{});
          }
        }
        if constexpr (aligned_tree_rows<InT>())
        {
          if (aligned)
          {
            return go(Vec{}, Zero{}, Vec{}, Leaf{}, Aligned{});
          }
        }
        return go(Vec{}, Zero{}, Vec{}, Leaf{}, Unchecked{});
      }
    }
    return cudaErrorInvalidValue; // no such tree (`expand` makes none)
  }

  //! Whether a higher-dimension step reduces each column along the tree the segmented reduction gives a row of the
  //! same length (`segment_column_rule`), so that an output's bits depend on its own items and the reduced extent
  //! alone: an inexact commutative operator (an exact one gives the same bits along any tree; an order-preserving
  //! one keeps runs of rows, see `expand`), where the segmented agents' block tree is warp reductions (`BlockReduce`'s
  //! others combine threads differently) and their slots are a column vector's rows (a tuning's other vector width
  //! is not emulated).
  static constexpr bool emulates_rows = is_commutative_v<ReductionOpT> && !is_exact_v<ReductionOpT, AccumT>;

  //! Whether higher-dimension steps go along column trees (`ColumnTreeKernel`), never `HigherDimKernel`:
  //! `emulates_rows`, and an exact commutative operator over items of 4 bytes or more too (any tree gives its bits).
  //! On an H200 the trees took 0.86 of `HigherDimKernel`'s time (its 128-row units, then their partials) for int32
  //! sums over the middle axis of [64, 4096, 256], and 0.91-0.96 for float Max over it, over axes {0, 1, 2} of
  //! [64, 56, 56, 256] and over axis 0 of [2^24, 16]; over the wide rows of [4096, 65536] (`wide_rows_per_unit`'s one
  //! launch) float Max took 1.02, within the lease's spread, and one kernel family less to compile. More rows in flight
  //! in `HigherDimKernel` (8 or 16, not 4) were slower (docs/performance.md, "Axes: exact operators along the column
  //! trees"). Narrower items keep `HigherDimKernel` (not measured; Min and Max over 16-bit floats fold two columns a
  //! word there, `PackedColumnExtremes`).
  static constexpr bool tree_steps =
      emulates_rows || (is_commutative_v<ReductionOpT> && sizeof(value_t<InputIteratorT>) >= 4);

  //! The launches of plan step `s`, read from the call's input (`InT`, the first step) or from the accumulators of
  //! the step before, appended to `launches` from `count`:
  //! - along the rows' tree (`emulates_rows`): the unit's leaves in groups of a block's (`[batch, units, groups,
  //!   cols]`); the groups' partials combined by a second launch along the same tree; a large segment's unit partials
  //!   by a third, along `AgentSegmentedReduce::fold_partials`' tree;
  //! - otherwise the step as the plan made it, one `HigherDimKernel` launch.
  //! A tuning whose tree is not emulated gets a block agent's tree over the whole column; an exact operator (any tree
  //! gives its bits) the rows' tree all the same.
  template <typename InT>
  static void expand(const AxesStep& s, int arch, AxesLaunch* launches, int& count)
  {
    constexpr int V       = column_vector_items<InT>();
    constexpr int V_accum = column_vector_items<AccumT*>();
    auto column           = [](std::int64_t batch, std::int64_t rows, std::int64_t cols) {
      return AxesStep{false, batch, rows, cols, rows, 1};
    };
    const TileShape shape    = reduce_tile_shape<InT, AccumT, TuningT>(arch);
    const TileShape partials = reduce_tile_shape<AccumT*, AccumT, TuningT>(arch);
    if constexpr (tree_steps)
    {
      // A tuning whose rows' tree is not emulated gets a block agent's tree over the whole column.
      const bool emulated = shape.block_algorithm == BlockReduceAlgorithm::warp_reductions &&
                            partials.block_algorithm == BlockReduceAlgorithm::warp_reductions &&
                            shape.vector_items == V && partials.vector_items == V_accum;
      const ColumnRule rule   = emulated
                                    ? segment_column_rule(SegmentClasses::make(segmented_policy(), shape), shape, s.rows)
                                    : ColumnRule{s.rows, s.rows, 1, higher_dim_threads, V};
      const std::int64_t need = pow2_at_least(rule.valid_leaves(rule.unit_length(0)));
      const int packed        = packed_tree_cols<InT>(s.cols, rule.slot_rows);
      // Runs (a small segment's at most 32 leaves), and slots of at most 32 leaves (a warp segment's) over column
      // groups enough for `min_tree_slot_blocks` blocks: a thread a whole column group, one unit, one group. Other
      // slots: a leaf a thread, as many of a row's column groups side by side as leave a block enough leaves, each a
      // vector's columns, or narrower ones where those would give fewer than `min_tree_slot_blocks` blocks.
      const std::int64_t column_groups = (s.cols + V - 1) / V * s.batch;
      const bool whole =
          rule.slot_rows == 0 || (whole_slot_columns<InT>() && packed == 0 && rule.units == 1 && rule.leaves <= 32 &&
                                  column_groups >= min_tree_slot_blocks * higher_dim_threads);
      auto slots = [&](int thread_cols)
      {
        // At least 128 bytes of a row side by side (eight vectors), so that the groups' blocks read whole lines.
        const int col_threads = packed > 0 ? 1 : tree_column_threads(s.cols, thread_cols, need, 8 * V / thread_cols);
        const int per_group   = higher_dim_threads / col_threads;
        return ColumnTree{
            rule, static_cast<int>(need > per_group ? need / per_group : 1), col_threads, thread_cols, false, {}, 0};
      };
      ColumnTree first = whole ? ColumnTree{rule, 1, higher_dim_threads, V, true, {}, 0} : slots(V);
      if (!whole && packed == 0 && narrow_tree_cols<InT>() < V &&
          first.slot_blocks(s.batch, s.cols) < min_tree_slot_blocks)
      {
        first = slots(narrow_tree_cols<InT>());
      }
      const int main    = count;
      launches[count++] = {column(s.batch, s.rows, s.cols), first};
      if (first.groups > 1)
      {
        const ColumnRule combine = {first.groups, first.groups, 1, first.groups, 1};
        launches[count++]        = {column(s.batch * rule.units, first.groups, s.cols),
                                    {combine,
                                     1,
                                     tree_column_threads(s.cols, V_accum, first.groups, 1),
                                     V_accum,
                                     false,
                                     rule,
                                     higher_dim_threads / first.col_threads}};
      }
      if (rule.units > 1)
      {
        const ColumnRule fold  = partials_column_rule(partials, rule.units);
        const int packed_fold  = packed_tree_cols<AccumT*>(s.cols, fold.slot_rows);
        const std::int64_t top = pow2_at_least(fold.valid_leaves(rule.units));
        const int col_threads  = packed_fold > 0 ? 1 : tree_column_threads(s.cols, V_accum, top, 1);
        launches[count++]      = {column(s.batch, rule.units, s.cols), {fold, 1, col_threads, V_accum, false, {}, 0}};
      }
      launches[main].trailing = count - main - 1;
    }
    else
    {
      launches[count++] = {s, {}};
    }
  }

  //! The most blocks a multiprocessor a main launch with a tail has (four waves of two): each block waits an atomic's
  //! round trip to learn whether it is the last, which a launch of many waves pays more often than it saves.
  static constexpr int max_tail_blocks_per_sm = 8;

  //! The most passes over a column tile each of a tail's folds takes (`fold_tail`: a column a thread, each pass a
  //! load's round trip and a tree), where a trailing launch would spread the tile's columns over a block's threads.
  static constexpr int max_tail_passes = 2;

  //! Whether main launch `launches[i]` finishes its columns' trees itself (`ColumnTail`), taking in both its trailing
  //! launches (the groups' combine and the units' fold): at most `max_tail_blocks_per_sm` blocks a multiprocessor, a
  //! leaf a thread over slots of two rows or more (the kernels with a `Tail`), and each trailing tree's leaves with
  //! rows at most a block's threads in at most `max_tail_passes` passes, the units' partials in slots of a vector's
  //! rows of the accumulator (only a tuning's other tiles differ). On an H200, half [2^24, 16] over axis 0 took 0.96
  //! of the time (0.93 back to back) and float [2^20, 64] 0.99 (0.97); taking in one trailing launch gained nothing one
  //! call (float [2^24, 4] and [2^25, 2], 1.00; docs/performance.md, "Axes: the trailing launches taken in by the last
  //! blocks"). The bits are the same either way, so the choice may depend on the device.
  static bool takes_tail(const AxesLaunch* launches, int i, int sms)
  {
    const AxesLaunch& l = launches[i];
    const ColumnTree& t = l.tree;
    if (l.trailing < 2 || t.whole || t.rule.slot_rows < 2 || tail_words(l) > INT32_MAX ||
        t.slot_blocks(l.step.batch, l.step.cols) > max_tail_blocks_per_sm * static_cast<std::int64_t>(sms))
    {
      return false;
    }
    const std::int64_t per  = static_cast<std::int64_t>(t.col_threads) * t.thread_cols;
    const std::int64_t tile = l.step.cols < per ? l.step.cols : per;
    auto fits               = [&](std::int64_t span)
    {
      return span <= higher_dim_threads &&
             (tile * span + higher_dim_threads - 1) / higher_dim_threads <= max_tail_passes;
    };
    const ColumnRule& fold = launches[i + 2].tree.rule;
    return fits(t.groups) && fold.slot_rows == column_vector_items<AccumT*>() &&
           fits(tail_span(fold.rows, fold.leaves, fold.slot_rows));
  }

  //! The words a main launch's tail counts its blocks in with (`ColumnTail`).
  static std::int64_t tail_words(const AxesLaunch& l)
  {
    const std::int64_t per       = static_cast<std::int64_t>(l.tree.col_threads) * l.tree.thread_cols;
    const std::int64_t col_tiles = (l.step.cols + per - 1) / per;
    return l.step.batch * (l.tree.rule.units + 1) * col_tiles;
  }

  static cudaError_t Dispatch(void* d_temp_storage,
                              std::size_t& temp_storage_bytes,
                              InputIteratorT in,
                              OutputIteratorT out,
                              const Extents& shape,
                              const Axes& axes,
                              ReductionOpT op,
                              InitT init,
                              cudaStream_t stream)
  {
    const DispatchHooks hooks = hooks_of<TuningT>();
    // Columns along trees are whole; for `HigherDimKernel`, an exact commutative operator's wide rows are one unit.
    const AxesPlan plan = make_axes_plan(
        shape, axes, tree_steps, is_commutative_v<ReductionOpT> ? column_vector_items<InputIteratorT>() : 0);
    if (!plan.valid)
    {
      return cudaErrorInvalidValue;
    }
    if (d_temp_storage != nullptr && plan.outputs > 0 && (is_null(out) || (plan.inputs > 0 && is_null(in))))
    {
      return cudaErrorInvalidValue;
    }
    if (d_temp_storage == arguments_only())
    {
      return cudaSuccess; // a one-call form's check of the pointers, before it allocates
    }
    constexpr std::size_t align = alignof(AccumT) > 16 ? alignof(AccumT) : 16;
    if (plan.outputs == 0)
    {
      // Nothing to write: the size of an empty layout, checked as any other.
      if (d_temp_storage == nullptr)
      {
        temp_storage_bytes = align;
        return cudaSuccess;
      }
      return temp_storage_bytes < align ? cudaErrorInvalidValue : cudaSuccess;
    }
    // The architecture's tiles decide the rows' tree, so its launches and their storage (the size query needs the
    // device then, as the segmented reduction's does); the other steps are sized by the shape alone.
    DeviceFacts facts;
    if (tree_steps || d_temp_storage != nullptr)
    {
      if (const cudaError_t error = device_facts(facts); error != cudaSuccess)
      {
        return error;
      }
    }
    // The launches: each plan step's, in order.
    constexpr int max_launches = 3 * AxesPlan::max_steps;
    AxesLaunch launches[max_launches];
    int count = 0;
    for (int i = 0; i < plan.steps; ++i)
    {
      if (plan.step[i].last_dim)
      {
        launches[count++] = {plan.step[i], {}};
      }
      else if (count == 0)
      {
        expand<InputIteratorT>(plan.step[i], facts.arch, launches, count);
      }
      else
      {
        expand<AccumT*>(plan.step[i], facts.arch, launches, count);
      }
    }
    // The launches that run: each, or a main launch with its trailing ones taken in as its tail (`takes_tail`).
    int run[max_launches];
    bool tail[max_launches];
    int runs                  = 0;
    std::size_t partial_items = 0; // the largest tail's partials
    std::size_t words         = 0; // and words
    for (int i = 0; i < count; i += tail[runs - 1] ? launches[i].trailing + 1 : 1)
    {
      run[runs]    = i;
      tail[runs++] = !launches[i].step.last_dim && takes_tail(launches, i, facts.sms);
      if (tail[runs - 1])
      {
        const auto items = static_cast<std::size_t>(launches[i].outputs());
        const auto w     = static_cast<std::size_t>(tail_words(launches[i]));
        partial_items    = partial_items > items ? partial_items : items;
        words            = words > w ? words : w;
      }
    }
    // The layout: two buffers for the results of the launches that run (run k writes buffer k % 2, the last `out`),
    // the tails' partials, their call word and counting words, then the segmented step's own storage.
    std::size_t buffer_items[2] = {0, 0};
    for (int k = 0; k + 1 < runs; ++k)
    {
      const AxesLaunch& l = launches[run[k] + (tail[k] ? launches[run[k]].trailing : 0)]; // the one that writes
      const auto items    = static_cast<std::size_t>(l.outputs());
      buffer_items[k % 2] = buffer_items[k % 2] > items ? buffer_items[k % 2] : items;
    }
    std::size_t segmented_bytes = 0;
    if (launches[0].step.last_dim)
    {
      const cudaError_t error = count == 1
                                    ? last_dim(nullptr, segmented_bytes, in, out, launches[0].step, op, init, stream)
                                    : last_dim(nullptr,
                                               segmented_bytes,
                                               in,
                                               static_cast<AccumT*>(nullptr),
                                               launches[0].step,
                                               op,
                                               NoInit<AccumT>{},
                                               stream);
      if (error != cudaSuccess)
      {
        return error;
      }
    }
    // Each part's bytes, rounded up to `align`. A part beyond 2^61 bytes is refused (with an iterator's input the
    // intermediate results can number 2^61 and more, whose bytes would wrap around to a small size), so that the sum
    // of the parts cannot wrap either.
    bool too_large = false;
    auto part      = [&](std::size_t items, std::size_t size)
    {
      too_large = too_large || items > (SIZE_MAX / 8) / size;
      return too_large ? std::size_t{0} : (items * size + align - 1) / align * align;
    };
    const std::size_t second    = part(buffer_items[0], sizeof(AccumT));
    const std::size_t partials  = second + part(buffer_items[1], sizeof(AccumT));
    const std::size_t ready     = partials + part(partial_items, sizeof(AccumT));
    const std::size_t counting  = ready + (words > 0 ? part(1, sizeof(unsigned long long)) : 0);
    const std::size_t segmented = counting + part(words, sizeof(unsigned));
    if (too_large || segmented_bytes > SIZE_MAX / 8)
    {
      return cudaErrorInvalidValue;
    }
    const std::size_t bytes = align - 1 + segmented + segmented_bytes + 1;
    if (d_temp_storage == nullptr)
    {
      temp_storage_bytes = bytes;
      return cudaSuccess;
    }
    if (temp_storage_bytes < bytes)
    {
      return cudaErrorInvalidValue;
    }
    const int sms         = facts.sms;
    const bool overlap    = may_overlap(facts.arch, hooks);
    char* base            = static_cast<char*>(align_up(d_temp_storage, align));
    AccumT* buffer[2]     = {reinterpret_cast<AccumT*>(base), reinterpret_cast<AccumT*>(base + second)};
    std::size_t seg_bytes = segmented_bytes;
    const bool captured   = words > 0 && is_capturing(stream);
    for (int k = 0; k < runs; ++k)
    {
      const AxesLaunch& l = launches[run[k]];
      const bool first    = k == 0;
      const bool final    = k + 1 == runs;
      AccumT* const from  = first ? nullptr : buffer[(k - 1) % 2];
      AccumT* const to    = buffer[k % 2];
      cudaError_t error   = cudaSuccess;
      ColumnTail<AccumT> t{};
      if (tail[k])
      {
        // Cleared by the launch's block 0 under a call id of its own; under graph capture by a kernel before it.
        t = {reinterpret_cast<AccumT*>(base + partials),
             {reinterpret_cast<unsigned*>(base + counting),
              static_cast<int>(tail_words(l)),
              reinterpret_cast<unsigned long long*>(base + ready),
              captured ? 0 : next_call_id()},
             launches[run[k] + 2].tree.rule.leaves};
        if (captured)
        {
          error =
              launch(GridClearKernel<unsigned>, 1, higher_dim_threads, stream, overlap, t.clear.words, t.clear.count);
          if (error != cudaSuccess)
          {
            return error;
          }
        }
      }
      if (l.step.last_dim) // only ever the first launch
      {
        error = final ? last_dim(base + segmented, seg_bytes, in, out, l.step, op, init, stream)
                      : last_dim(base + segmented, seg_bytes, in, to, l.step, op, NoInit<AccumT>{}, stream);
      }
      else if constexpr (tree_steps)
      {
        if (first)
        {
          error = final ? along_tree(in, out, l, op, init, TransformT{}, t, sms, overlap, stream)
                        : along_tree(in, to, l, op, NoInit<AccumT>{}, TransformT{}, t, sms, overlap, stream);
        }
        else
        {
          error = final ? along_tree(from, out, l, op, init, Cast{}, t, sms, overlap, stream)
                        : along_tree(from, to, l, op, NoInit<AccumT>{}, Cast{}, t, sms, overlap, stream);
        }
      }
      else if (first)
      {
        error = final ? higher_dim(in, out, l.step, op, init, TransformT{}, sms, overlap, stream)
                      : higher_dim(in, to, l.step, op, NoInit<AccumT>{}, TransformT{}, sms, overlap, stream);
      }
      else
      {
        error = final ? higher_dim(from, out, l.step, op, init, Cast{}, sms, overlap, stream)
                      : higher_dim(from, to, l.step, op, NoInit<AccumT>{}, Cast{}, sms, overlap, stream);
      }
      if (error != cudaSuccess)
      {
        return error;
      }
    }
    return cudaSuccess;
  }
};

} // namespace detail
FOLD_NAMESPACE_END

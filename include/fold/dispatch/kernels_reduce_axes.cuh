// SPDX-License-Identifier: Apache-2.0
//! @file
//! The kernels of the axis reductions' higher-dimension steps, `HigherDimKernel` and `ColumnTreeKernel`, and the
//! shapes they are launched with (their last-dimension steps are segmented reductions, see
//! kernels_segmented_reduce.cuh). A block's fold of its columns over its rows is `AgentReduceColumns`
//! (agent/agent_reduce_columns.cuh), or along a segment's tree `AgentReduceColumnTree`
//! (agent/agent_reduce_column_tree.cuh).
#pragma once

#include <fold/agent/agent_reduce_column_tree.cuh>
#include <fold/agent/agent_reduce_columns.cuh>
#include <fold/dispatch/kernels_reduce.cuh>
#include <fold/util/arch.cuh>
#include <fold/util/macros.cuh>
#include <fold/detail/output.cuh>
#include <fold/detail/reduction.cuh>
#include <fold/util/operators.cuh>

#include <cstdint>

FOLD_NAMESPACE_BEGIN
FOLD_KERNELS_BEGIN
namespace detail
{

//! One step of an axis reduction.
struct AxesStep
{
  bool last_dim; //!< `[batch, rows]` -> `[batch]`; otherwise `[batch, rows, cols]` -> `[batch, units, cols]`
  std::int64_t batch;
  std::int64_t rows;
  std::int64_t cols;
  std::int64_t rows_per_unit;
  std::int64_t units;

  constexpr std::int64_t outputs() const { return last_dim ? batch : batch * units * cols; }
};

//! One launch of an axis reduction: a last-dimension step (`step.last_dim`), `HigherDimKernel` over a step
//! (`tree.rule.leaves == 0`), or `ColumnTreeKernel` over `[batch, rows, cols]` along `tree`, `[batch, units, groups,
//! cols]` out.
struct AxesLaunch
{
  AxesStep step;
  ColumnTree tree;
  int trailing = 0; //!< the launches after it that finish its columns' trees (a tail may take them in)

  constexpr bool along_tree() const { return !step.last_dim && tree.rule.leaves > 0; }
  constexpr std::int64_t outputs() const
  {
    return along_tree() ? step.batch * tree.rule.units * tree.groups * step.cols : step.outputs();
  }
};

//! Threads per block of `HigherDimKernel`.
inline constexpr int higher_dim_threads = 256;

//! The columns of a step's rows when `HigherDimKernel` reads several rows to a 16-byte vector and deals the vectors
//! round-robin (its `PackedCols` instantiation): 2 to `V / 2` columns (a power of two) of items read through a raw
//! pointer, reduced by a commutative operator (the vectors a thread folds are not contiguous); 0 otherwise. Other
//! narrow rows take contiguous runs of rows, one row at a time.
template <typename InputIteratorT, typename ReductionOpT>
FOLD_HOST_DEVICE constexpr int packed_higher_dim_cols(std::int64_t cols)
{
  constexpr int V = column_vector_items<InputIteratorT>();
  return V > 2 && is_commutative_v<ReductionOpT> && cols >= 2 && cols < V && V % cols == 0 ? static_cast<int>(cols) : 0;
}

//! The fewest blocks a higher-dimension step is given while its column groups can be split further (a constant, so
//! that the tree depends only on the shape, never on the device).
inline constexpr std::int64_t min_higher_dim_blocks = 1024;

//! Threads that cover a row of `cols` columns, `vector_items` to a thread: the column groups rounded up to a power of
//! two, at most a block's.
FOLD_HOST_DEVICE constexpr int row_threads(std::int64_t cols, int vector_items)
{
  const std::int64_t groups = (cols + vector_items - 1) / vector_items;
  return static_cast<int>(pow2_at_least(groups < higher_dim_threads ? groups : higher_dim_threads));
}

//! Threads of a block that share a row: `row_threads`, halved (down to 8 groups) while the step's `row_blocks`
//! (units times batch) would give fewer than `min_higher_dim_blocks` blocks, so that a short step (the last of a long
//! column's, say) still spreads over the GPU. The others split the rows.
FOLD_HOST_DEVICE constexpr int column_threads(std::int64_t cols, int vector_items, std::int64_t row_blocks)
{
  const std::int64_t groups = (cols + vector_items - 1) / vector_items;
  int c                     = row_threads(cols, vector_items);
  while (c > 8 && (groups + c - 1) / c * row_blocks < min_higher_dim_blocks)
  {
    c /= 2;
  }
  return c;
}

//! Blocks of `HigherDimKernel` a multiprocessor must hold at once: 4 for the ordered runs over eight columns a thread
//! (2-byte items), which nvcc would otherwise give 80 registers and three blocks, too few loads in flight (an H200,
//! 16384 x 16384 half over axis 0: 50 % of DRAM bandwidth against 91 % for float); 0, no minimum, for the others
//! (any minimum, even 1, changes their registers).
template <typename InputIteratorT, int PackedCols, bool Interleaved>
FOLD_HOST_DEVICE constexpr int higher_dim_min_blocks()
{
  return column_vector_items<InputIteratorT>() == 8 && PackedCols == 0 && !Interleaved ? 4 : 0;
}

//! `[batch, rows, cols]` -> `[batch, units, cols]`. Block `(tile, unit, b)` (a grid stride apart) is an
//! `AgentReduceColumns` over `col_threads` column groups of `V` columns and the unit's rows: thread `(x, y)` folds
//! its group's columns over the `y`-th contiguous run of those rows, in order, and the runs are combined in order by
//! a tree over `y`. With `Interleaved` (a commutative operator, fewer than 32 threads over a row) thread `(x, y)` takes
//! rows `y`, `y + 256 / col_threads`, ... instead; with `PackedCols` (rows of 2 to `V / 2` columns, interleaved too)
//! vectors of `V / PackedCols` rows. Each result is finalised with `init` and written to `out`.
template <typename InputIteratorT,
          typename OutputIteratorT,
          typename ReductionOpT,
          typename InitT,
          typename AccumT,
          typename TransformOpT,
          int PackedCols,
          bool Interleaved>
FOLD_KERNEL __launch_bounds__(
    higher_dim_threads,
    higher_dim_min_blocks<InputIteratorT, PackedCols, Interleaved>()) void HigherDimKernel(InputIteratorT in,
                                                                                           OutputIteratorT out,
                                                                                           AxesStep step,
                                                                                           int col_threads,
                                                                                           ReductionOpT op,
                                                                                           InitT init,
                                                                                           TransformOpT transform)
{
  begin_dependent_kernel();
  using AgentT = AgentReduceColumns<higher_dim_threads,
                                    PackedCols,
                                    Interleaved,
                                    InputIteratorT,
                                    AccumT,
                                    ReductionOpT,
                                    TransformOpT>;
  __shared__ typename AgentT::TempStorage shared;
  AgentT(shared, in, step.batch, step.rows, step.cols, step.rows_per_unit, step.units, col_threads, op, transform)
      .ConsumeTiles(out, init);
}

//! The columns of a `ColumnTreeKernel` launch's rows when a slot's rows are loaded as whole 16-byte vectors (its
//! `PackedCols` instantiation): 2 to `V / 2` columns (a power of two) of items read through a raw pointer, in slots
//! (`slot_rows > 0`) of whole vectors; 0 otherwise (a row at a time).
template <typename InputIteratorT>
FOLD_HOST_DEVICE constexpr int packed_tree_cols(std::int64_t cols, int slot_rows)
{
  constexpr int V = column_vector_items<InputIteratorT>();
  return V > 2 && cols >= 2 && cols < V && V % cols == 0 && slot_rows > 0 && slot_rows * cols % V == 0
             ? static_cast<int>(cols)
             : 0;
}

//! The fewest blocks a `ColumnTreeKernel` launch of slots is given while narrower columns a thread give more (about
//! two a multiprocessor on an H100 or H200: fewer leave multiprocessors idle and too few loads in flight; a constant,
//! so that the launches depend only on the shape).
inline constexpr std::int64_t min_tree_slot_blocks = 256;

//! The columns a thread of a `ColumnTreeKernel` launch of slots folds when a 16-byte vector's would leave the GPU
//! short of threads (its leaves are fixed by the tree, so only narrower columns give more): one 32-bit word of items,
//! or one item if wider. Its `ThreadCols` instantiation, where it is below `V`.
template <typename InputIteratorT>
FOLD_HOST_DEVICE constexpr int narrow_tree_cols()
{
  constexpr int V    = column_vector_items<InputIteratorT>();
  constexpr int size = static_cast<int>(sizeof(value_t<InputIteratorT>));
  constexpr int word = size < 4 ? 4 / size : 1;
  return word < V ? word : V;
}

//! Whether a `ColumnTreeKernel` launch of a leaf a thread over a vector's columns takes its `AlignedRows`
//! instantiation where every row's column groups are aligned vectors: eight or more items a vector (item-by-item
//! loads of eight 2-byte items a row cost the common kernel 128 registers, two blocks a multiprocessor, against 64
//! without them; an H200 read 16384 x 16384 half over axis 0 at 65 % of DRAM bandwidth against 77 %). Its registers
//! then go to sixteen rows in flight instead of eight (124 registers).
template <typename InputIteratorT>
FOLD_HOST_DEVICE constexpr bool aligned_tree_rows()
{
  return column_vector_items<InputIteratorT>() >= 8;
}

//! Whether a `ColumnTreeKernel` launch of a leaf a thread over whole vectors may stage its rows (its `StagedRows`
//! instantiation: a warp loads its leaves' slots whole and hands each thread its rows through shared memory), where
//! a row is at most `max_staged_col_threads` vectors and the rows are aligned: 2-byte items. On an H200 half over
//! axis 0 of [2^25, 8] (one thread a row) took 0.79 of the time so and [2^24, 16] (two) 0.91, where a warp's own
//! loads touch 32 and 16 lines each; four threads a row ([2^23, 32] in half, [2^24, 16] in float) 1.02-1.04, and
//! float [2^24, 4] (one) 1.00-1.02 (docs/performance.md, "Axes: a warp's rows loaded whole").
template <typename InputIteratorT>
FOLD_HOST_DEVICE constexpr bool staged_tree_rows()
{
  return column_vector_items<InputIteratorT>() == 8;
}

//! The most threads side by side over a row for which a `ColumnTreeKernel` launch stages its rows
//! (`staged_tree_rows`).
inline constexpr int max_staged_col_threads = 2;

//! Whether a `ColumnTreeKernel` launch of slots may take whole columns (its `WholeColumns` instantiation): items of 4
//! bytes or more, four or fewer a vector (nvcc gives the eight columns of 2-byte items 206 registers there, a block a
//! multiprocessor).
template <typename InputIteratorT>
FOLD_HOST_DEVICE constexpr bool whole_slot_columns()
{
  return column_vector_items<InputIteratorT>() <= 4;
}

//! `[batch, rows, cols]` -> `[batch, units, groups, cols]` along `tree` (`AgentReduceColumnTree`): with
//! `WholeColumns` (runs, and slots of at most 32 leaves over many columns), a thread each column group's whole column;
//! otherwise block `(tile, group, unit, b)` (a grid stride apart) holds the group's leaves, a thread each over
//! `ThreadCols` columns, combined in shared memory, and with a `tail` finishes the columns' trees where it is the last
//! of them (`[batch, cols]` out). Each result is finalised with `init` and written to `out`.
//! `SlotRows` is the tree's `slot_rows` (0: runs); with `PackedCols`, a slot's rows are loaded as whole vectors.
//! With `StagedRows` (`staged_tree_rows`) each warp loads its leaves' rows whole and stages them in shared memory;
//! nvcc is asked for two blocks a multiprocessor there (128 registers), and with `Tail` (`tail` then names the
//! partials and the words), whose code alone took the kernel of half rows item by item from 128 registers to 178.
template <typename InputIteratorT,
          typename OutputIteratorT,
          typename ReductionOpT,
          typename InitT,
          typename AccumT,
          typename TransformOpT,
          int SlotRows,
          int PackedCols,
          int ThreadCols,
          bool WholeColumns,
          bool AlignedRows,
          bool StagedRows,
          bool Tail>
FOLD_KERNEL __launch_bounds__(higher_dim_threads,
                              StagedRows || Tail ? 2 : 0) void ColumnTreeKernel(InputIteratorT in,
                                                                                OutputIteratorT out,
                                                                                std::int64_t batch,
                                                                                std::int64_t cols,
                                                                                ColumnTree tree,
                                                                                ReductionOpT op,
                                                                                InitT init,
                                                                                TransformOpT transform,
                                                                                ColumnTail<AccumT> tail)
{
  // A launch with a tail is at most a few waves (`DispatchReduceAxes::takes_tail`): the next kernel is let in as its
  // blocks end, as a grid of equal shares lets it in (`wait_for_previous_grid`; an H200 took 1.29x the time for 10
  // calls over [2^25, 2] back to back when it was let in at the start, 256 blocks of three a multiprocessor).
  if constexpr (Tail)
  {
    wait_for_previous_grid();
  }
  else
  {
    begin_dependent_kernel();
  }
  using AgentT = AgentReduceColumnTree<higher_dim_threads,
                                       SlotRows,
                                       PackedCols,
                                       ThreadCols,
                                       WholeColumns,
                                       AlignedRows,
                                       StagedRows,
                                       InputIteratorT,
                                       AccumT,
                                       ReductionOpT,
                                       TransformOpT>;
  __shared__ typename AgentT::TempStorage shared;
  if constexpr (Tail)
  {
    tail.clear.clear_from_block0();
  }
  AgentT(shared, in, batch, cols, tree, op, transform).template ConsumeTiles<Tail>(out, init, tail);
}

} // namespace detail
FOLD_KERNELS_END
FOLD_NAMESPACE_END

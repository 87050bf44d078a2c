// SPDX-License-Identifier: Apache-2.0
//! @file
//! AgentReduceColumnTree: one thread block reduces columns of a row-major `[batch, rows, cols]` array along a tree of
//! its rows that a `ColumnTree` names, and writes the results: the higher-dimension steps of the axis reductions with
//! an inexact commutative operator, whose columns take the tree the segmented reduction gives a row of the same length
//! (`segment_column_rule`, dispatch/dispatch_reduce_axes.cuh), so that an output's bits depend on its own items and
//! the reduced extent alone, never on the kept extents. Its kernel is `ColumnTreeKernel`
//! (dispatch/kernels_reduce_axes.cuh); the other operators' steps are `AgentReduceColumns`'.
//!
//! The tree: the rows are cut into units of `unit_rows` (the last one shorter); a unit's rows go to `leaves` leaves,
//! each leaf's rows are folded in index order, and the leaves that hold any rows (a prefix) are combined in leaf order
//! by the tree in which leaf `i` takes in leaf `i + s` for `s = 1, 2, 4, ...` (`WarpReduce`'s and `BlockReduce`'s).
//! Which rows a leaf holds:
//! - runs (`slot_rows == 0`, at most 32 leaves): leaf `t` the `t`-th run of `ceil(n / leaves)` rows of a unit of `n`,
//!   as a lane group's lanes split a small segment; a thread takes a whole column group, its leaves in order, joined
//!   as the tree joins them by a binary counter in registers (`WholeColumns`);
//! - slots of `S = slot_rows` rows dealt round-robin: leaf `t` slots `t`, `t + leaves`, ... (the whole ones), then, if
//!   `t < n % S`, row `n - n % S + t`, as `AgentReduce` deals its vector slots and the items after the last whole one
//!   (commutative path). A column's rows may be read in any order without losing coalescing (a warp reads a row's
//!   columns together), so thread `(x, y)` of a block holds leaf `g * Y + y` of the block's leaf group `g`
//!   (`Y = BlockThreads / col_threads` leaves a block) over the `thread_cols` columns of column group `x`, and the
//!   block combines its leaves in shared memory; a unit of more leaves than a block's goes to `groups` blocks, whose
//!   partials a later launch combines (the same tree: leaf groups are aligned runs of leaves). A thread's columns are
//!   a 16-byte vector's `V`, or fewer where that would leave the GPU short of threads (`narrow_tree_cols`): a
//!   column's tree is the same either way. With `WholeColumns` (at most 32 leaves, and column groups enough to fill
//!   the GPU) a thread takes a whole column group instead, its leaves in order joined as the runs' are.
//!
//! Rows are loaded as vectors of a thread's columns where they are aligned and item by item otherwise, the same items
//! in the same order, so the tree depends only on the shape, never on the input's alignment. With `PackedCols` (rows of
//! 2 to `V / 2` columns, slots only) a slot's rows are contiguous and loaded as whole vectors.
//!
//! The tail (`ColumnTail`): where a column's tree goes on past the block (leaf groups over several blocks, a large
//! segment's units), the blocks write their partials and count themselves in, and the last block of a column tile's
//! leaf groups combines them, then the last of its units folds the units' partials, along the trees later launches of
//! those rules would take (`fold_tail`). Where the main launch has both trailing launches and few blocks
//! (`DispatchReduceAxes::takes_tail`), that saves their latency, about 4 us each on an H200.
#pragma once

#include <fold/agent/agent_reduce_columns.cuh>
#include <fold/grid/grid_clear.cuh>
#include <fold/tuning/tuning_reduce.cuh>
#include <fold/util/macros.cuh>
#include <fold/detail/output.cuh>
#include <fold/detail/reduction.cuh>
#include <fold/util/operators.cuh>
#include <fold/util/type_traits.cuh>
#include <fold/util/uninitialized.cuh>

#include <cuda/atomic>

#include <cstdint>
#include <type_traits>

FOLD_NAMESPACE_BEGIN
namespace detail
{

//! `log2(x)` of a power of two.
FOLD_HOST_DEVICE constexpr int log2_of(std::int64_t x)
{
  int shift = 0;
  while ((std::int64_t{1} << shift) < x)
  {
    ++shift;
  }
  return shift;
}

//! The smallest power of two at least `x`.
FOLD_HOST_DEVICE constexpr std::int64_t pow2_at_least(std::int64_t x)
{
  std::int64_t p = 1;
  while (p < x)
  {
    p *= 2;
  }
  return p;
}

//! How the rows of a column are cut into units and leaves (see the file comment).
struct ColumnRule
{
  std::int64_t rows;      //!< per batch entry
  std::int64_t unit_rows; //!< rows per unit, the last unit shorter
  std::int64_t units;
  int leaves;    //!< per unit, a power of two
  int slot_rows; //!< `S`, a power of two: slots of `S` rows dealt round-robin; 0: runs

  //! The rows of unit `u`.
  FOLD_HOST_DEVICE constexpr std::int64_t unit_length(std::int64_t u) const
  {
    return rows - u * unit_rows < unit_rows ? rows - u * unit_rows : unit_rows;
  }

  //! The leaves that hold any of a unit's `n` rows (`n > 0`): leaves `[0, valid)`.
  FOLD_HOST_DEVICE constexpr std::int64_t valid_leaves(std::int64_t n) const
  {
    if (slot_rows == 0)
    {
      const std::int64_t run = (n + leaves - 1) / leaves;
      return (n + run - 1) / run;
    }
    const std::int64_t most = n / slot_rows > n % slot_rows ? n / slot_rows : n % slot_rows;
    return most < leaves ? most : static_cast<std::int64_t>(leaves);
  }
};

//! One launch of `ColumnTreeKernel`: `[batch, rows, cols]` -> `[batch, units, groups, cols]`, the unit's leaves in
//! `groups` groups of `BlockThreads / col_threads` (a group's partial, or with one group the unit's).
struct ColumnTree
{
  ColumnRule rule;
  int groups;      //!< blocks per unit and column tile
  int col_threads; //!< threads side by side over a row (a power of two); the others hold the block's leaves
  int thread_cols; //!< columns a thread folds: `V`, or with slots fewer (`narrow_tree_cols`); the tree is the same
  bool whole;      //!< a thread takes a whole column group of a batch entry, every leaf (runs; slots of few leaves)
  //! With `parent.leaves > 0`, the rows are the leaf groups' partials of a launch of `parent` with `parent_group`
  //! leaves a group (batch entry `b` is that launch's `(b / parent.units, b % parent.units)`): the unit has as many
  //! rows as that unit had groups with leaves, not `rule.rows`.
  ColumnRule parent;
  int parent_group;

  //! The rows of unit `u` of batch entry `b`.
  FOLD_HOST_DEVICE constexpr std::int64_t unit_length(std::int64_t b, std::int64_t u) const
  {
    if (parent.leaves > 0)
    {
      const std::int64_t leaves = parent.valid_leaves(parent.unit_length(b % parent.units));
      return (leaves + parent_group - 1) / parent_group;
    }
    return rule.unit_length(u);
  }

  //! The blocks of a launch of slots over `[batch, rows, cols]`: a column tile of a leaf group of a unit each.
  FOLD_HOST_DEVICE constexpr std::int64_t slot_blocks(std::int64_t batch, std::int64_t cols) const
  {
    const std::int64_t per_tile = static_cast<std::int64_t>(col_threads) * thread_cols;
    return (cols + per_tile - 1) / per_tile * groups * rule.units * batch;
  }
};

//! Where a `ColumnTreeKernel` launch of leaves a thread finishes its columns' trees itself (its `Tail` instantiation,
//! see the file comment): its blocks' partials, `[batch, units, groups, cols]`, and the words they count themselves
//! in with (`clear`, cleared by block 0 under the call's id), first a unit's leaf groups' (`batch x units x col_tiles`
//! of them), then a batch entry's units' (`batch x col_tiles`). A block counts itself in only once its work item is
//! folded.
template <typename AccumT>
struct ColumnTail
{
  AccumT* partials = nullptr;
  GridClear clear  = {};
  int fold_leaves  = 0; //!< the units' partials' tree's leaves (`partials_column_rule`), slots of `V` rows
};

//! The leaves with rows of `ColumnRule{n, n, 1, leaves, slot_rows}`, rounded up to a power of two: the threads a
//! column of the tail's folds takes (`AgentReduceColumnTree::fold_tail`).
FOLD_HOST_DEVICE constexpr int tail_span(std::int64_t n, int leaves, int slot_rows)
{
  return static_cast<int>(pow2_at_least(ColumnRule{n, n, 1, leaves, slot_rows}.valid_leaves(n)));
}

//! @tparam BlockThreads  the threads of the block
//! @tparam SlotRows  the tree's `slot_rows` (0: runs)
//! @tparam PackedCols  0, or the columns of the rows (2 to `V / 2`) when a slot's rows are loaded as whole vectors
//!   (slots of rows only, `slot_rows * PackedCols` a multiple of `V`, one column group)
//! @tparam ThreadCols  the columns a thread folds (`tree.thread_cols`): `V`, or with slots of rows a power of two
//!   below it
//! @tparam WholeColumns  `tree.whole`: a thread takes whole column groups (always with runs)
//! @tparam AlignedRows  every row's column groups are aligned vectors (the caller checked): no item-by-item loads,
//!   whose registers would be the kernel's (eight 2-byte items a row: 128 registers against 64)
//! @tparam StagedRows  with `AlignedRows`, a warp's threads cover whole rows (`col_threads * V == cols`): each warp
//!   loads its leaves' slots 512 contiguous bytes an instruction and hands each thread its rows through shared
//!   memory (`fold_slots_staged`; the kernel takes it for rows of at most two vectors of 2-byte items)
//! @tparam AccumT  the accumulator: default-constructible, copyable
//! @tparam TransformOpT  `(item, std::int64_t row) -> AccumT`, the row counted from the unit's first
template <int BlockThreads,
          int SlotRows,
          int PackedCols,
          int ThreadCols,
          bool WholeColumns,
          bool AlignedRows,
          bool StagedRows,
          typename InputIteratorT,
          typename AccumT,
          typename ReductionOpT,
          typename TransformOpT>
class AgentReduceColumnTree
{
public:
  //! Columns each thread owns (`column_vector_items`).
  static constexpr int vector_items = column_vector_items<InputIteratorT>();

private:
  static constexpr int V = vector_items;
  static constexpr int W = ThreadCols;
  static constexpr int C = PackedCols > 0 ? PackedCols : W; //!< the columns a thread folds
  using InputT           = value_t<InputIteratorT>;
  using Vector           = ItemSlot<InputT, V>; //!< a packed slot's loads
  using Cols             = ItemSlot<InputT, W>; //!< a row's columns of a thread
  static_assert(W == V || (SlotRows > 0 && PackedCols == 0 && W < V && !WholeColumns),
                "AgentReduceColumnTree: narrow columns are slots, a leaf a thread");
  static_assert(WholeColumns || SlotRows > 0, "AgentReduceColumnTree: runs take whole columns");
  static_assert(!WholeColumns || PackedCols == 0, "AgentReduceColumnTree: packed slots take a leaf a thread");
  static_assert(!StagedRows || (AlignedRows && W == V && SlotRows == V && PackedCols == 0 && !WholeColumns),
                "AgentReduceColumnTree: staged rows are a leaf's aligned vectors in slots of a vector's rows");

  //! A block's folds of its columns, and with `StagedRows` each warp's slot of rows on its way to the threads.
  struct StagedStorage : Uninitialized<AccumT, BlockThreads * C>
  {
    Uninitialized<Vector, BlockThreads * V> stage; //!< each warp its slot of `32 * V` vectors (`SlotRows == V`)
  };

public:
  //! The threads' folds of their columns: column `j` of thread `t` at `j * BlockThreads + t` (and with `StagedRows`
  //! the warps' staged slots).
  using TempStorage = std::conditional_t<StagedRows, StagedStorage, Uninitialized<AccumT, BlockThreads * C>>;

  //! An agent over `[batch, rows, cols]` at `in`, reduced along `tree`.
  FOLD_DEVICE FOLD_FORCEINLINE AgentReduceColumnTree(TempStorage& storage,
                                                     InputIteratorT in,
                                                     std::int64_t batch,
                                                     std::int64_t cols,
                                                     const ColumnTree& tree,
                                                     ReductionOpT op,
                                                     TransformOpT transform)
      : storage_(storage)
      , in_(in)
      , batch_(batch)
      , cols_(cols)
      , tree_(tree)
      , op_(op)
      , thread_op_(InOrder<ReductionOpT>::make(op))
      , transform_(transform)
      , leaves_(BlockThreads / tree.col_threads)
      , x_(static_cast<int>(threadIdx.x) % tree.col_threads)
      , y_(static_cast<int>(threadIdx.x) / tree.col_threads)
      , leaf_shift_(log2_of(tree.rule.leaves))
      , group_shift_(log2_of(tree.groups))
  {
    if constexpr (W > 1)
    {
      vectors_ = cols % W == 0 && reinterpret_cast<std::uintptr_t>(in) % sizeof(Cols) == 0;
    }
  }

  //! Reduces the block's work items, `blockIdx.x`, `blockIdx.x + gridDim.x`, ... of the
  //! `col_tiles x groups x units x batch` (column tile fastest), and writes each column's result, finalised with
  //! `init`, to its place in `out`, a `[batch, units, groups, cols]` array; with a `tail` (leaves a thread only) each
  //! column's whole tree's result to `[batch, cols]` (`Tail`, whose code the other kernels leave out: inlined beside
  //! the rows' loops it costs them registers). Every thread of the block calls it.
  template <bool Tail, typename OutputIteratorT, typename InitT>
  FOLD_DEVICE FOLD_FORCEINLINE void ConsumeTiles(OutputIteratorT out, InitT init, const ColumnTail<AccumT>& tail)
  {
    static_assert(!Tail || !WholeColumns, "AgentReduceColumnTree: a tail is a leaf a thread's");
    if constexpr (WholeColumns)
    {
      ConsumeWholeColumns(out, init);
    }
    else
    {
      ConsumeLeaves<Tail>(out, init, tail);
    }
  }

private:
  //! Whole columns (one unit of at most 32 leaves: a small segment's runs of at most `lane_items` rows, or a warp
  //! segment's slots): a thread takes a whole column group, its leaves in order, and joins them as the tree does with
  //! a binary counter (level `l` holds the fold of an aligned block of `2^l` leaves, joined to its left neighbour
  //! when the next one is done; the blocks left at the end joined from the smallest): leaves `0..6` make
  //! `((0 1)(2 3))((4 5) 6)`.
  template <typename OutputIteratorT, typename InitT>
  FOLD_DEVICE FOLD_FORCEINLINE void ConsumeWholeColumns(OutputIteratorT out, InitT init)
  {
    constexpr int levels     = 6; // up to 32 leaves
    constexpr int lane_items = segment_lane_items(segmented_policy(), static_cast<int>(sizeof(InputT)));
    constexpr int in_flight  = segmented_policy().lane_items; // rows loaded together
    static_assert(lane_items % in_flight == 0, "ConsumeWholeColumns: a leaf's rows in whole batches");
    const ColumnRule& rule    = tree_.rule;
    const std::int64_t n      = rule.rows;
    const int valid           = static_cast<int>(rule.valid_leaves(n));
    const std::int64_t groups = (cols_ + V - 1) / V; // column groups of a row
    const std::int64_t items  = groups * batch_;
    for (std::int64_t item = static_cast<std::int64_t>(blockIdx.x) * BlockThreads + threadIdx.x; item < items;
         item += static_cast<std::int64_t>(gridDim.x) * BlockThreads)
    {
      const std::int64_t b      = item / groups;
      const std::int64_t col    = (item - b * groups) * V;
      const InputIteratorT base = in_ + b * n * cols_;
      AccumT stack[levels][C];
      const std::int64_t run = (n + rule.leaves - 1) >> leaf_shift_; // at most `lane_items`
      std::int64_t at        = col;                                  // the leaf's first row's item
      for (int k = 0; k < valid; ++k, at += run * cols_)
      {
        AccumT p[C];
        if constexpr (SlotRows == 0)
        {
          // The leaf's rows, `in_flight` loaded together, then folded in order (all 8 rows of 2-byte items at once
          // took the kernel from 126 registers to 168).
          const int rows = static_cast<int>(n - k * run < run ? n - k * run : run);
#pragma unroll
          for (int from = 0; from < lane_items; from += in_flight)
          {
            Cols loaded[in_flight];
#pragma unroll
            for (int i = 0; i < in_flight; ++i)
            {
              if (from + i < rows)
              {
                load_at(base, at + (from + i) * cols_, col, loaded[i]);
              }
            }
#pragma unroll
            for (int i = 0; i < in_flight; ++i)
            {
              if (from + i < rows)
              {
                fold_row(k * run + from + i, loaded[i], from + i == 0, p);
              }
            }
          }
        }
        else
        {
          fold_slots(base, col, n, k, p);
        }
        const int joins = __ffs(~k) - 1; // the trailing ones of k: the left neighbours this leaf completes
#pragma unroll
        for (int l = 0; l < levels; ++l)
        {
#pragma unroll
          for (int j = 0; j < C; ++j)
          {
            p[j]        = l < joins ? op_(stack[l][j], p[j]) : p[j];
            stack[l][j] = l == joins ? p[j] : stack[l][j];
          }
        }
      }
      AccumT total[C];
      bool any = false;
#pragma unroll
      for (int l = 0; l < levels; ++l)
      {
        if ((valid >> l) & 1)
        {
#pragma unroll
          for (int j = 0; j < C; ++j)
          {
            total[j] = any ? op_(stack[l][j], total[j]) : stack[l][j];
          }
          any = true;
        }
      }
#pragma unroll
      for (int j = 0; j < C; ++j)
      {
        if (col + j < cols_)
        {
          store_segment(out, b * cols_ + col + j, init.finalize(op_, total[j]));
        }
      }
    }
  }

  //! Slots: thread `(x, y)` holds leaf `g * Y + y` of the work item's leaf group `g`, over column group `x`; the
  //! block combines its leaves in shared memory.
  template <bool Tail, typename OutputIteratorT, typename InitT>
  FOLD_DEVICE FOLD_FORCEINLINE void ConsumeLeaves(OutputIteratorT out, InitT init, const ColumnTail<AccumT>& tail)
  {
    const ColumnRule& rule       = tree_.rule;
    const std::int64_t per_tile  = static_cast<std::int64_t>(tree_.col_threads) * W;
    const std::int64_t col_tiles = PackedCols > 0 ? 1 : (cols_ + per_tile - 1) / per_tile;
    const std::int64_t groups    = tree_.groups;
    const std::int64_t blocks    = col_tiles * groups * rule.units * batch_;

    for (std::int64_t block = blockIdx.x; block < blocks; block += gridDim.x)
    {
      // Two divisions, not six (each a 64-bit division's registers): `groups` is a power of two.
      const std::int64_t q      = block / col_tiles;
      const std::int64_t tile   = block - q * col_tiles;
      const std::int64_t g      = q & (groups - 1);
      const std::int64_t w      = q >> group_shift_;
      const std::int64_t b      = w / rule.units;
      const std::int64_t unit   = w - b * rule.units;
      const std::int64_t col    = PackedCols > 0 ? 0 : (tile * tree_.col_threads + x_) * W; // the thread's first
      const std::int64_t n      = tree_.unit_length(b, unit);
      const std::int64_t valid  = rule.valid_leaves(n) - g * leaves_; // the block's leaves with rows: [0, valid)
      const std::int64_t leaf   = g * leaves_ + y_;
      const InputIteratorT base = in_ + (b * rule.rows + unit * rule.unit_rows) * cols_;

      AccumT aggregate[C];
      if (y_ < valid && col < cols_ && (PackedCols == 0 || x_ == 0))
      {
        if constexpr (StagedRows)
        {
          // Staged where every leaf of the warp holds rows (the same for the whole warp).
          const int warp_leaves = 32 / tree_.col_threads;
          const bool staged     = y_ - (static_cast<int>(threadIdx.x) % 32) / tree_.col_threads + warp_leaves <= valid;
          fold_slots_staged(base, col, n, leaf, staged, aggregate);
        }
        else
        {
          fold_slots(base, col, n, leaf, aggregate);
        }
      }
      combine_row_groups<BlockThreads>(storage_.data(), aggregate, op_, y_, tree_.col_threads, leaves_, valid);
      if (y_ == 0 && valid > 0 && (PackedCols == 0 || x_ == 0))
      {
#pragma unroll
        for (int j = 0; j < C; ++j)
        {
          if (col + j < cols_)
          {
            if constexpr (Tail)
            {
              tail.partials[((b * rule.units + unit) * groups + g) * cols_ + col + j] =
                  storage_[j * BlockThreads + threadIdx.x];
            }
            else
            {
              store_segment(out,
                            ((b * rule.units + unit) * groups + g) * cols_ + col + j,
                            init.finalize(op_, storage_[j * BlockThreads + threadIdx.x]));
            }
          }
        }
      }
      if constexpr (Tail)
      {
        finish_tile(out, init, tail, b, unit, tile, col_tiles, PackedCols > 0 ? 0 : tile * per_tile, n);
      }
      __syncthreads(); // the shared folds are reused by the next block's work
    }
  }

  //! The tail of work item `(tile, g, unit, b)`, whose partials the block has written: the last of the unit's leaf
  //! groups over the tile (the launch's `groups` blocks) combines them as a launch of
  //! `ColumnRule{groups, groups, 1, groups, 1}` would, into the unit's first group's place; then the last of the batch
  //! entry's units over the tile folds their partials along `tail.fold_leaves` leaves and slots of a vector's rows
  //! (`AgentSegmentedReduce::fold_partials`' tree, as the units' launch would). A tail's launch has both
  //! (`DispatchReduceAxes::takes_tail`); the branches for one alone stay, as measured: without them nvcc spilled
  //! 8-16 bytes in the half kernels with a tail, and half [2^24, 16] over axis 0 lost the gain.
  template <typename OutputIteratorT, typename InitT>
  FOLD_DEVICE FOLD_FORCEINLINE void finish_tile(OutputIteratorT out,
                                                InitT init,
                                                const ColumnTail<AccumT>& tail,
                                                std::int64_t b,
                                                std::int64_t unit,
                                                std::int64_t tile,
                                                std::int64_t col_tiles,
                                                std::int64_t tile_col,
                                                std::int64_t n)
  {
    const ColumnRule& rule  = tree_.rule;
    const int groups        = tree_.groups;
    const std::int64_t per  = PackedCols > 0 ? cols_ : static_cast<std::int64_t>(tree_.col_threads) * W;
    const int tile_cols     = static_cast<int>(cols_ - tile_col < per ? cols_ - tile_col : per);
    AccumT* const unit_rows = tail.partials + b * rule.units * groups * cols_ + tile_col; // unit u at u * groups
    auto result             = [&](int c, const AccumT& value)
    { store_segment(out, b * cols_ + tile_col + c, init.finalize(op_, value)); };
    __syncthreads(); // the block's partials written, its shared folds free
    if (groups > 1)
    {
      if (!arrive(tail, tail.clear.words + (b * rule.units + unit) * col_tiles + tile, groups))
      {
        return;
      }
      const std::int64_t filled = (rule.valid_leaves(n) + leaves_ - 1) / leaves_; // the groups with leaves
      AccumT* const partials    = unit_rows + unit * groups * cols_;
      if (rule.units == 1)
      {
        fold_tail<1>(partials, cols_, filled, groups, tile_cols, result);
        return;
      }
      fold_tail<1>(
          partials, cols_, filled, groups, tile_cols, [&](int c, const AccumT& value) { partials[c] = value; });
    }
    if (rule.units > 1)
    {
      const std::int64_t first = groups > 1 ? batch_ * rule.units * col_tiles : 0; // the units' words
      if (!arrive(tail, tail.clear.words + first + b * col_tiles + tile, rule.units))
      {
        return;
      }
      fold_tail<column_vector_items<AccumT*>()>(
          unit_rows, groups * cols_, rule.units, tail.fold_leaves, tile_cols, result);
    }
  }

  //! Counts the block in at `word`; true in every thread for the block that completes the count of `count`. Every
  //! thread calls it, once the block's writes are done (a release, which the block's barrier before it extends to
  //! every thread's; the last block's acquire, to every thread's reads after it).
  FOLD_DEVICE FOLD_FORCEINLINE static bool arrive(const ColumnTail<AccumT>& tail, unsigned* word, std::int64_t count)
  {
    bool last = false;
    if (threadIdx.x == 0)
    {
      while (!tail.clear.cleared())
      {
      }
      last = ::cuda::atomic_ref<unsigned, ::cuda::thread_scope_device>(*word).fetch_add(
                 1u, ::cuda::memory_order_acq_rel) == static_cast<unsigned>(count - 1);
    }
    return __syncthreads_or(last) != 0;
  }

  //! Folds `n` rows, `rows[r * stride + c]` for the tile's columns `c < tile_cols`, along the tree of
  //! `ColumnRule{n, n, 1, leaves, S}` (the same operators in the same order as a launch of that rule, a leaf a thread),
  //! and hands column `c`'s result to `write(c, result)`: a pass of `BlockThreads / span` columns at a time, `span` the
  //! leaves with rows rounded up to a power of two (at most `BlockThreads`, which the dispatch checks). Every thread
  //! calls it.
  template <int S, typename WriteT>
  FOLD_DEVICE FOLD_FORCEINLINE void
  fold_tail(const AccumT* rows, std::int64_t stride, std::int64_t n, int leaves, int tile_cols, WriteT write)
  {
    const int span           = tail_span(n, leaves, S);
    const int lanes          = BlockThreads / span; // columns a pass
    const int x              = static_cast<int>(threadIdx.x) % lanes;
    const int y              = static_cast<int>(threadIdx.x) / lanes; // the thread's leaf
    const int valid          = static_cast<int>(ColumnRule{n, n, 1, leaves, S}.valid_leaves(n));
    const std::int64_t whole = n / S;
    const std::int64_t slots = whole > y ? (whole - 1 - y) / leaves + 1 : 0; // dealt round-robin
#pragma unroll 1
    for (int c = x; c - x < tile_cols; c += lanes)
    {
      AccumT aggregate[1];
      if (y < valid && c < tile_cols)
      {
#pragma unroll 1
        for (std::int64_t j = 0; j < slots; ++j)
        {
          AccumT items[S];
#pragma unroll
          for (int k = 0; k < S; ++k)
          {
            items[k] = rows[((y + j * leaves) * S + k) * stride + c];
          }
#pragma unroll
          for (int k = 0; k < S; ++k)
          {
            aggregate[0] = j == 0 && k == 0 ? items[k] : thread_op_(aggregate[0], items[k]);
          }
        }
        if (y < n % S)
        {
          const AccumT item = rows[(whole * S + y) * stride + c];
          aggregate[0]      = slots == 0 ? item : thread_op_(aggregate[0], item);
        }
      }
      combine_row_groups<BlockThreads>(storage_.data(), aggregate, op_, y, lanes, span, valid);
      if (y == 0 && c < tile_cols)
      {
        write(c, storage_[threadIdx.x]);
      }
      __syncthreads(); // the shared folds are reused by the next pass
    }
  }

  //! The items of the thread's columns at `index` (a row's first column, `col` from the row's start; those past the
  //! end of the row are never folded).
  FOLD_DEVICE FOLD_FORCEINLINE void load_at(InputIteratorT base, std::int64_t index, std::int64_t col, Cols& v) const
  {
    if (AlignedRows || vectors_)
    {
      v = *reinterpret_cast<const Cols*>(&base[index]);
    }
    else
    {
#pragma unroll
      for (int j = 0; j < C; ++j)
      {
        if (col + j < cols_)
        {
          v.items[j] = base[index + j];
        }
      }
    }
  }

  FOLD_DEVICE FOLD_FORCEINLINE void fold_row(std::int64_t r, const Cols& v, bool start, AccumT (&aggregate)[C]) const
  {
#pragma unroll
    for (int j = 0; j < C; ++j)
    {
      const AccumT item = transform_(v.items[j], r);
      aggregate[j]      = start ? item : thread_op_(aggregate[j], item);
    }
  }

  //! Slots: leaf `leaf` folds slots `leaf`, `leaf + leaves`, ... of `SlotRows` rows (the whole ones), then row
  //! `n - n % SlotRows + leaf` if `leaf < n % SlotRows`. 128 bytes of loads (eight rows of 16-byte vectors, 32 of
  //! 4-byte columns; 256 with `AlignedRows` or a vector of four 4-byte columns; or a slot's, if more) are issued
  //! before any is folded (the last batch's too, under a predicate).
  FOLD_DEVICE FOLD_FORCEINLINE void
  fold_slots(InputIteratorT base, std::int64_t col, std::int64_t n, std::int64_t leaf, AccumT (&aggregate)[C]) const
  {
    constexpr int S             = SlotRows;
    const std::int64_t stride   = static_cast<std::int64_t>(tree_.rule.leaves) * S; // rows between its slots
    const std::int64_t whole    = n / S;                                            // whole slots of the unit
    const std::int64_t slots    = slots_of(whole, leaf);
    const bool rest             = leaf < n % S;
    const std::int64_t first    = leaf * S;
    const std::int64_t rest_row = whole * S + leaf;
    if constexpr (PackedCols > 0)
    {
      // A slot's `S` rows of `C` columns are contiguous: `P = S * C / V` vectors, each `V / C` rows.
      constexpr int R     = V / C;
      constexpr int P     = S / R;
      constexpr int Slots = P < 8 ? 8 / P : 1;
      static_assert(S % R == 0, "AgentReduceColumnTree: a packed slot is whole vectors");
      const bool aligned = reinterpret_cast<std::uintptr_t>(&base[0]) % sizeof(Vector) == 0;
      for (std::int64_t j = 0; j < slots; j += Slots)
      {
        Vector loaded[Slots][P];
#pragma unroll
        for (int s = 0; s < Slots; ++s)
        {
          if (j + s < slots)
          {
#pragma unroll
            for (int p = 0; p < P; ++p)
            {
              const std::int64_t index = (first + (j + s) * stride + p * R) * C;
              loaded[s][p] =
                  aligned ? *reinterpret_cast<const Vector*>(&base[index]) : load_slot<false, V>(base, index, 0);
            }
          }
        }
#pragma unroll
        for (int s = 0; s < Slots; ++s)
        {
          if (j + s < slots)
          {
#pragma unroll
            for (int p = 0; p < P; ++p)
            {
#pragma unroll
              for (int i = 0; i < V; ++i)
              {
                const AccumT item = transform_(loaded[s][p].items[i], first + (j + s) * stride + p * R + i / C);
                aggregate[i % C]  = j + s == 0 && p == 0 && i < C ? item : thread_op_(aggregate[i % C], item);
              }
            }
          }
        }
      }
      if (rest)
      {
#pragma unroll
        for (int i = 0; i < C; ++i)
        {
          const AccumT item = transform_(base[rest_row * C + i], rest_row);
          aggregate[i]      = slots == 0 ? item : thread_op_(aggregate[i], item);
        }
      }
    }
    else
    {
      // The rows in flight: as many bytes as eight rows of 16-byte vectors, or sixteen where the registers allow:
      // `AlignedRows` (124 registers instead of 64), and a vector of four 4-byte columns in slots of a vector's rows
      // (128 instead of 80; docs/performance.md, "Axes: sixteen rows in flight").
      constexpr bool deep = AlignedRows || (V == 4 && W == V && S == V);
      constexpr int Rows  = (deep ? 16 : 8) * V / W;
      constexpr int Slots = S < Rows ? Rows / S : 1;
      for (std::int64_t j = 0; j < slots; j += Slots)
      {
        Cols rows[Slots][S];
#pragma unroll
        for (int s = 0; s < Slots; ++s)
        {
          if (j + s < slots)
          {
#pragma unroll
            for (int k = 0; k < S; ++k)
            {
              load_at(base, (first + (j + s) * stride + k) * cols_ + col, col, rows[s][k]);
            }
          }
        }
#pragma unroll
        for (int s = 0; s < Slots; ++s)
        {
          if (j + s < slots)
          {
#pragma unroll
            for (int k = 0; k < S; ++k)
            {
              fold_row(first + (j + s) * stride + k, rows[s][k], j + s == 0 && k == 0, aggregate);
            }
          }
        }
      }
      if (rest)
      {
        Cols last;
        load_at(base, rest_row * cols_ + col, col, last);
        fold_row(rest_row, last, slots == 0, aggregate);
      }
    }
  }

  //! The whole slots of `SlotRows` rows leaf `leaf` holds of a unit with `whole` of them, dealt round-robin.
  FOLD_DEVICE FOLD_FORCEINLINE std::int64_t slots_of(std::int64_t whole, std::int64_t leaf) const
  {
    return whole > leaf ? (whole - 1 - leaf) / tree_.rule.leaves + 1 : 0;
  }

  //! `fold_slots` with `StagedRows`: the same rows folded in the same order. Where every leaf of the warp holds rows
  //! (`staged`, the same for the whole warp, every lane of which then calls it), its `32 / col_threads` leaves are
  //! consecutive, so their slot `j` is `32 * S` contiguous 16-byte vectors: the warp loads it 512 bytes an
  //! instruction (a thread its own leaf's rows would touch a line for each leaf), writes it to its part of shared
  //! memory, and each thread reads back its own leaf's rows of its columns. A vector `c` of the slot sits at
  //! `c ^ (c / 8 % 8)`, so that the writes and reads of each quarter warp meet eight different banks. Whole batches of
  //! sixteen rows that every leaf of the warp has go so; the slots after them, and the other warps' slots, a slot at
  //! a time from each thread (not through `fold_slots`, whose sixteen rows beside the staged ones cost the kernel
  //! 5 KB of spills at 128 registers).
  FOLD_DEVICE FOLD_FORCEINLINE void fold_slots_staged(InputIteratorT base,
                                                      std::int64_t col,
                                                      std::int64_t n,
                                                      std::int64_t leaf,
                                                      bool staged,
                                                      AccumT (&aggregate)[C]) const
  {
    constexpr int S              = SlotRows;
    constexpr int Slots          = S < 16 ? 16 / S : 1; // sixteen rows in flight, as `fold_slots`' deep kernels
    const int lane               = static_cast<int>(threadIdx.x) % 32;
    const int col_threads        = tree_.col_threads;
    const int own                = lane / col_threads; // the thread's leaf among the warp's
    const std::int64_t leaves    = tree_.rule.leaves;
    const std::int64_t stride    = leaves * S;
    const std::int64_t whole     = n / S;
    const std::int64_t slots     = slots_of(whole, leaf);
    const std::int64_t last_leaf = leaf - own + 32 / col_threads - 1; // the warp's last leaf: the fewest slots
    const std::int64_t shared    = staged ? slots_of(whole, last_leaf) : 0;
    const std::int64_t warp_row  = (leaf - own) * S; // the first row of the warp's first slot
    Vector* stage                = storage_.stage.data() + (static_cast<int>(threadIdx.x) - lane) * S;
    auto at                      = [](int c) { return c ^ (c / 8 % 8); };
    std::int64_t j               = 0;
    for (; j + Slots <= shared; j += Slots)
    {
      Vector lines[Slots][S];
#pragma unroll
      for (int s = 0; s < Slots; ++s)
      {
        const InputIteratorT slot = base + (warp_row + (j + s) * stride) * cols_;
#pragma unroll
        for (int i = 0; i < S; ++i)
        {
          lines[s][i] = *reinterpret_cast<const Vector*>(&slot[static_cast<std::int64_t>(i * 32 + lane) * V]);
        }
      }
#pragma unroll
      for (int s = 0; s < Slots; ++s)
      {
#pragma unroll
        for (int i = 0; i < S; ++i)
        {
          stage[at(i * 32 + lane)] = lines[s][i];
        }
        __syncwarp();
        Cols rows[S];
#pragma unroll
        for (int k = 0; k < S; ++k)
        {
          rows[k] = stage[at((own * S + k) * col_threads + x_)];
        }
        __syncwarp(); // the stage is written again by the next slot
#pragma unroll
        for (int k = 0; k < S; ++k)
        {
          fold_row(leaf * S + (j + s) * stride + k, rows[k], j + s == 0 && k == 0, aggregate);
        }
      }
    }
    for (; j < slots; ++j)
    {
      Cols rows[S];
#pragma unroll
      for (int k = 0; k < S; ++k)
      {
        load_at(base, (leaf * S + j * stride + k) * cols_ + col, col, rows[k]);
      }
#pragma unroll
      for (int k = 0; k < S; ++k)
      {
        fold_row(leaf * S + j * stride + k, rows[k], j == 0 && k == 0, aggregate);
      }
    }
    if (leaf < n % S)
    {
      Cols last;
      load_at(base, (whole * S + leaf) * cols_ + col, col, last);
      fold_row(whole * S + leaf, last, slots == 0, aggregate);
    }
  }

  TempStorage& storage_;
  InputIteratorT in_;
  std::int64_t batch_;
  std::int64_t cols_;
  const ColumnTree& tree_;
  ReductionOpT op_;
  typename InOrder<ReductionOpT>::type thread_op_; //!< folds a thread's own items, met in index order
  TransformOpT transform_;
  int leaves_;           //!< the block's leaves: `BlockThreads / col_threads`
  int x_;                //!< the thread's column group
  int y_;                //!< the thread's leaf in the block's group
  int leaf_shift_;       //!< `log2(rule.leaves)`
  int group_shift_;      //!< `log2(groups)`
  bool vectors_ = false; //!< whether the rows are read as 16-byte vectors (every row's groups aligned)
};

} // namespace detail
FOLD_NAMESPACE_END

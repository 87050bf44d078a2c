// SPDX-License-Identifier: Apache-2.0
//! @file
//! AgentReduceColumns: one thread block reduces columns of a row-major `[batch, rows, cols]` array over units of
//! its rows, `[batch, rows, cols]` -> `[batch, units, cols]`, and writes the results (the higher-dimension steps of
//! the axis reductions; its kernel is `HigherDimKernel`, dispatch/kernels_reduce_axes.cuh).
//!
//! The block takes `(tile, unit, b)` work items a grid stride apart: `col_threads` column groups of `V` columns
//! (`column_vector_items`) and the unit's rows. Its threads are `col_threads` wide and `BlockThreads / col_threads`
//! (the row groups) tall: thread `(x, y)` folds its group's columns over the `y`-th contiguous run of the rows, in
//! order, and the runs are combined in order by a tree over `y` in shared memory. With `Interleaved` (a commutative
//! operator, fewer than 32 threads over a row) thread `(x, y)` takes rows `y`, `y + BlockThreads / col_threads`, ...
//! instead; with `PackedCols` (rows of 2 to `V / 2` columns, interleaved too) vectors of `V / PackedCols` rows. Rows
//! are loaded as 16-byte vectors where they are aligned and item by item otherwise: the same items in the same order,
//! so the tree depends only on the shape, never on the input's alignment.
//!
//! The agent runs the loop over the block's work items and writes the results as well as folding: with only the folds
//! in the agent, called from the kernel's loop, nvcc compiled other code (up to 48 more registers per thread,
//! 78 -> 124 for an `int` sum), and the results handed back through a callback changed some kernels' PTX.
#pragma once

#include <fold/util/macros.cuh>
#include <fold/detail/output.cuh>
#include <fold/detail/reduction.cuh>
#include <fold/detail/tile_fold.cuh>
#include <fold/util/operators.cuh>
#include <fold/util/type_traits.cuh>
#include <fold/util/uninitialized.cuh>

#include <cstdint>
#include <cstring>
#include <type_traits>

FOLD_NAMESPACE_BEGIN
namespace detail
{

//! Columns each thread of `AgentReduceColumns` (`HigherDimKernel`) owns: one 16-byte vector of a primitive type
//! read through a raw pointer, one column otherwise. The same whether the loads are vectors or not (they are when the
//! rows are 16-byte aligned), so the tree does not depend on the input's alignment.
template <typename InputIteratorT>
FOLD_HOST_DEVICE constexpr int column_vector_items()
{
  if constexpr (is_vectorizable_input_v<InputIteratorT>)
  {
    constexpr int items = 16 / static_cast<int>(sizeof(value_t<InputIteratorT>));
    return items > 1 ? items : 1;
  }
  else
  {
    return 1;
  }
}

//! Combines the folds of a block's threads `(x, y)` (`x` the column group, `col_threads` of them side by side; `y` the
//! row group, `groups` of them) over `y` in `storage`, where thread `t` puts its column `j` at `j * BlockThreads + t`:
//! group `y` takes in group `y + s` for `s = 1, 2, 4, ...` (`WarpReduce`'s tree; groups `[0, valid)` hold any). After
//! it thread `(x, 0)`'s combined column `j` is at `storage[j * BlockThreads + threadIdx.x]`. Every thread calls it.
template <int BlockThreads, int N, typename AccumT, typename ReductionOpT, typename ValidT>
FOLD_DEVICE FOLD_FORCEINLINE void combine_row_groups(
    AccumT* storage, const AccumT (&aggregate)[N], ReductionOpT op, int y, int col_threads, int groups, ValidT valid)
{
#pragma unroll
  for (int j = 0; j < N; ++j)
  {
    construct_at(storage + j * BlockThreads + threadIdx.x, aggregate[j]);
  }
  for (int stride = 1; stride < groups; stride *= 2)
  {
    __syncthreads();
    if (y % (2 * stride) == 0 && y + stride < valid)
    {
#pragma unroll
      for (int j = 0; j < N; ++j)
      {
        AccumT* mine = storage + j * BlockThreads + threadIdx.x;
        *mine        = op(*mine, mine[stride * col_threads]);
      }
    }
  }
  __syncthreads();
}

//! @tparam BlockThreads  the threads of the block
//! @tparam PackedCols  0, or the columns of the rows (2 to `V / 2`, see `packed_higher_dim_cols`) when several rows
//!   are read to a vector; only with `Interleaved`
//! @tparam Interleaved  rows (or vectors of rows) dealt round-robin over the row groups: a commutative operator only
//! @tparam AccumT  the accumulator: default-constructible, copyable
//! @tparam TransformOpT  `(item, std::int64_t row) -> AccumT`, the row counted from the unit's first
template <int BlockThreads,
          int PackedCols,
          bool Interleaved,
          typename InputIteratorT,
          typename AccumT,
          typename ReductionOpT,
          typename TransformOpT>
class AgentReduceColumns
{
public:
  //! Columns each thread owns (`column_vector_items`).
  static constexpr int vector_items = column_vector_items<InputIteratorT>();

private:
  static constexpr int V = vector_items;
  using InputT           = value_t<InputIteratorT>;
  using Vector           = ItemSlot<InputT, V>;
  //! Min and Max over 16-bit floats: two columns a word (`PackedColumnExtremes`).
  static constexpr bool packed_extremes = packs_column_extremes_v<InputT, ReductionOpT, TransformOpT> && V % 2 == 0;
  using Extremes =
      std::conditional_t<packed_extremes, PackedColumnExtremes<InputT, std::is_same_v<ReductionOpT, Max>>, int>;

public:
  //! The threads' folds of their columns: column `j` of thread `t` at `j * BlockThreads + t`.
  using TempStorage = Uninitialized<AccumT, BlockThreads * V>;

  //! An agent over `[batch, rows, cols]` at `in`, the rows cut into `units` units of `rows_per_unit` (the last one
  //! shorter), with `col_threads` threads (a power of two, at most `BlockThreads`) side by side over a row.
  FOLD_DEVICE FOLD_FORCEINLINE AgentReduceColumns(TempStorage& storage,
                                                  InputIteratorT in,
                                                  std::int64_t batch,
                                                  std::int64_t rows,
                                                  std::int64_t cols,
                                                  std::int64_t rows_per_unit,
                                                  std::int64_t units,
                                                  int col_threads,
                                                  ReductionOpT op,
                                                  TransformOpT transform)
      : storage_(storage)
      , in_(in)
      , batch_(batch)
      , rows_(rows)
      , cols_(cols)
      , rows_per_unit_(rows_per_unit)
      , units_(units)
      , col_threads_(col_threads)
      , op_(op)
      , thread_op_(InOrder<ReductionOpT>::make(op))
      , transform_(transform)
      , run_groups_(BlockThreads / col_threads)
      , x_(static_cast<int>(threadIdx.x) % col_threads)
      , y_(static_cast<int>(threadIdx.x) / col_threads)
  {
    if constexpr (V > 1)
    {
      vectors_ = cols % V == 0 && reinterpret_cast<std::uintptr_t>(in) % sizeof(Vector) == 0;
    }
  }

  //! Reduces the block's work items, `blockIdx.x`, `blockIdx.x + gridDim.x`, ... of the `col_tiles x units x batch`
  //! (column tile fastest), and writes each column's result, finalised with `init`, to its place in `out`, a
  //! `[batch, units, cols]` array. Every thread of the block calls it.
  template <typename OutputIteratorT, typename InitT>
  FOLD_DEVICE FOLD_FORCEINLINE void ConsumeTiles(OutputIteratorT out, InitT init)
  {
    const std::int64_t col_tiles =
        (cols_ + static_cast<std::int64_t>(col_threads_) * V - 1) / (static_cast<std::int64_t>(col_threads_) * V);
    const std::int64_t blocks = col_tiles * units_ * batch_;

    for (std::int64_t block = blockIdx.x; block < blocks; block += gridDim.x)
    {
      const std::int64_t tile      = block % col_tiles;
      const std::int64_t unit      = block / col_tiles % units_;
      const std::int64_t b         = block / col_tiles / units_;
      const std::int64_t col       = (tile * col_threads_ + x_) * V; // the first of the thread's columns
      const std::int64_t row0      = unit * rows_per_unit_;
      const std::int64_t unit_rows = rows_ - row0 < rows_per_unit_ ? rows_ - row0 : rows_per_unit_;
      const std::int64_t run       = (unit_rows + run_groups_ - 1) / run_groups_;
      // Thread `y`'s rows: the `y`-th run, or with `Interleaved` rows `y`, `y + run_groups`, ...
      const std::int64_t first     = Interleaved ? y_ : (y_ * run < unit_rows ? y_ * run : unit_rows);
      const std::int64_t last      = Interleaved ? unit_rows : (first + run < unit_rows ? first + run : unit_rows);
      const std::int64_t step_rows = Interleaved ? run_groups_ : 1;
      // What is dealt round-robin with `Interleaved`: rows, or with `PackedCols` vectors of `R` rows.
      constexpr int R          = PackedCols > 0 ? V / PackedCols : 1;
      const std::int64_t dealt = (unit_rows + R - 1) / R;
      // The threads (row groups) whose rows hold items: the tree's leaves.
      const int valid = Interleaved ? (dealt < run_groups_ ? static_cast<int>(dealt) : run_groups_)
                                    : static_cast<int>((unit_rows + run - 1) / run);

      AccumT aggregate[V];
      if constexpr (PackedCols > 0)
      {
        // Rows of `PackedCols` columns (a commutative operator; `packed_higher_dim_cols`), `R` rows to a 16-byte
        // vector: thread `y` takes vectors `y`, `y + run_groups`, ... of the unit (a warp reads 512 contiguous bytes,
        // where runs of rows gave each lane its own 16 bytes, one L1 wavefront each), folding each column. A vector is
        // loaded whole where it lies in the unit and the unit starts aligned, item by item otherwise: the same
        // items in the same order, so the tree does not depend on the alignment.
        static_assert(Interleaved, "packed rows are dealt round-robin");
        constexpr int C           = PackedCols;
        const InputIteratorT base = in_ + (b * rows_ + row0) * C;
        const bool aligned        = reinterpret_cast<std::uintptr_t>(&base[0]) % sizeof(Vector) == 0;
        constexpr int unroll      = 8;
        for (std::int64_t v0 = y_; v0 < dealt; v0 += unroll * run_groups_)
        {
          Vector rows[unroll];
#pragma unroll
          for (int k = 0; k < unroll; ++k)
          {
            const std::int64_t r = (v0 + k * run_groups_) * R; // the vector's first row
            if (r < unit_rows)
            {
              if (aligned && r + R <= unit_rows)
              {
                rows[k] = *reinterpret_cast<const Vector*>(&base[r * C]);
              }
              else
              {
#pragma unroll
                for (int i = 0; i < V; ++i)
                {
                  if (r + i / C < unit_rows)
                  {
                    rows[k].items[i] = base[r * C + i];
                  }
                }
              }
            }
          }
#pragma unroll
          for (int k = 0; k < unroll; ++k)
          {
            const std::int64_t r = (v0 + k * run_groups_) * R;
#pragma unroll
            for (int i = 0; i < V; ++i)
            {
              if (r + i / C < unit_rows)
              {
                const AccumT item = transform_(rows[k].items[i], r + i / C);
                aggregate[i % C]  = r == y_ * R && i < C ? item : thread_op_(aggregate[i % C], item);
              }
            }
          }
        }
      }
      else if (col < cols_ && first < last)
      {
        const InputIteratorT base = in_ + ((b * rows_ + row0) * cols_ + col);
        // Row `r`'s items of the thread's columns (those past the end of the row are never folded).
        auto load = [&](std::int64_t r, Vector& v)
        {
          if (vectors_)
          {
            v = *reinterpret_cast<const Vector*>(&base[r * cols_]);
          }
          else
          {
#pragma unroll
            for (int j = 0; j < V; ++j)
            {
              if (col + j < cols_)
              {
                v.items[j] = base[r * cols_ + j];
              }
            }
          }
        };
        Extremes extremes[packed_extremes ? V / 2 : 1]; // a word of two columns each
        auto fold_row = [&](std::int64_t r, const Vector& v, bool start)
        {
          if constexpr (packed_extremes)
          {
#pragma unroll
            for (int w = 0; w < V / 2; ++w)
            {
              std::uint32_t word;
              ::memcpy(&word, &v.items[2 * w], sizeof(word));
              if (start)
              {
                extremes[w].start(word);
              }
              else
              {
                extremes[w].fold(word);
              }
            }
          }
          else
          {
#pragma unroll
            for (int j = 0; j < V; ++j)
            {
              const AccumT item = transform_(v.items[j], r);
              aggregate[j]      = start ? item : thread_op_(aggregate[j], item);
            }
          }
        };
        // `unroll` of the thread's rows at a time, all their loads issued before any is folded (the last batch's too,
        // under a predicate), then folded in order from the first, so the fold is the same whatever the batches.
        constexpr int unroll = Interleaved ? 8 : 4;
        for (std::int64_t r = first; r < last; r += unroll * step_rows)
        {
          Vector rows[unroll];
#pragma unroll
          for (int k = 0; k < unroll; ++k)
          {
            if (r + k * step_rows < last)
            {
              load(r + k * step_rows, rows[k]);
            }
          }
#pragma unroll
          for (int k = 0; k < unroll; ++k)
          {
            if (r + k * step_rows < last)
            {
              fold_row(r + k * step_rows, rows[k], r + k * step_rows == first);
            }
          }
        }
        if constexpr (packed_extremes)
        {
#pragma unroll
          for (int j = 0; j < V; ++j)
          {
            aggregate[j] = transform_(extremes[j / 2].extreme(j % 2), first);
          }
        }
      }
      combine_row_groups<BlockThreads>(storage_.data(), aggregate, op_, y_, col_threads_, run_groups_, valid);
      if (y_ == 0)
      {
#pragma unroll
        for (int j = 0; j < V; ++j)
        {
          if (col + j < cols_)
          {
            store_segment(out,
                          (b * units_ + unit) * cols_ + col + j,
                          init.finalize(op_, storage_[j * BlockThreads + threadIdx.x]));
          }
        }
      }
      __syncthreads(); // the shared rows are reused by the next block's work
    }
  }

private:
  TempStorage& storage_;
  InputIteratorT in_;
  std::int64_t batch_;
  std::int64_t rows_;
  std::int64_t cols_;
  std::int64_t rows_per_unit_;
  std::int64_t units_;
  int col_threads_;
  ReductionOpT op_;
  typename InOrder<ReductionOpT>::type thread_op_; //!< folds a thread's own items, met in index order
  TransformOpT transform_;
  int run_groups_;       //!< the row groups: `BlockThreads / col_threads`
  int x_;                //!< the thread's column group
  int y_;                //!< the thread's row group
  bool vectors_ = false; //!< whether the rows are read as 16-byte vectors (every row's groups aligned)
};

} // namespace detail
FOLD_NAMESPACE_END

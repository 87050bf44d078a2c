// SPDX-License-Identifier: Apache-2.0
//! @file
//! The kernel of the axis reductions' higher-dimension steps (their last-dimension steps are segmented
//! reductions, see kernels_segmented_reduce.cuh).
#pragma once

#include <fold/agent/agent_reduce.cuh>
#include <fold/dispatch/kernels_reduce.cuh>
#include <fold/util/arch.cuh>
#include <fold/util/macros.cuh>
#include <fold/detail/output.cuh>
#include <fold/detail/reduction.cuh>
#include <fold/util/operators.cuh>
#include <fold/util/type_traits.cuh>
#include <fold/util/uninitialized.cuh>

#include <cstdint>
#include <type_traits>

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

//! Threads per block of `HigherDimKernel`.
inline constexpr int higher_dim_threads = 256;

//! Columns each thread of `HigherDimKernel` owns: one 16-byte vector of a primitive type read through a raw
//! pointer, one column otherwise. The same whether the loads are vectors or not (they are when the rows are
//! 16-byte aligned), so the tree does not depend on the input's alignment.
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

//! Threads of a block that share a row: the column groups of `vector_items` rounded up to a power of two, at most
//! all of them; halved (down to 8 groups) while the step's `row_blocks` (units times batch) would give
//! fewer than `min_higher_dim_blocks` blocks, so that a short step (the last of a long column's, say) still spreads
//! over the GPU. The others split the rows.
FOLD_HOST_DEVICE constexpr int column_threads(std::int64_t cols, int vector_items, std::int64_t row_blocks)
{
  const std::int64_t groups = (cols + vector_items - 1) / vector_items;
  int c                     = 1;
  while (c < groups && c < higher_dim_threads)
  {
    c *= 2;
  }
  while (c > 8 && (groups + c - 1) / c * row_blocks < min_higher_dim_blocks)
  {
    c /= 2;
  }
  return c;
}

//! `[batch, rows, cols]` -> `[batch, units, cols]`. Block `(tile, unit, b)` takes `col_threads` column groups
//! of `V` columns and the unit's rows; thread `(x, y)` folds its group's columns over the `y`-th contiguous run
//! of those rows, in order, and the runs are combined in order by a tree over `y`. With `Interleaved` (a
//! commutative operator, fewer than 32 threads over a row) thread `(x, y)` takes rows `y`, `y + 256 / col_threads`,
//! ... instead; with `PackedCols` (rows of 2 to `V / 2` columns, interleaved too) vectors of `V / PackedCols` rows.
template <typename InputIteratorT,
          typename OutputIteratorT,
          typename ReductionOpT,
          typename InitT,
          typename AccumT,
          typename TransformOpT,
          int PackedCols,
          bool Interleaved>
FOLD_KERNEL __launch_bounds__(higher_dim_threads) void HigherDimKernel(InputIteratorT in,
                                                                       OutputIteratorT out,
                                                                       AxesStep step,
                                                                       int col_threads,
                                                                       ReductionOpT op,
                                                                       InitT init,
                                                                       TransformOpT transform)
{
  begin_dependent_kernel();
  constexpr int V = column_vector_items<InputIteratorT>();
  using InputT    = value_t<InputIteratorT>;
  struct alignas(V > 1 ? sizeof(InputT) * V : alignof(InputT)) Vector
  {
    InputT items[V];
  };
  __shared__ Uninitialized<AccumT, higher_dim_threads * V> shared;
  const typename InOrder<ReductionOpT>::type thread_op = InOrder<ReductionOpT>::make(op);
  const int run_groups                                 = higher_dim_threads / col_threads;
  const int x                                          = static_cast<int>(threadIdx.x) % col_threads;
  const int y                                          = static_cast<int>(threadIdx.x) / col_threads;
  const std::int64_t col_tiles =
      (step.cols + static_cast<std::int64_t>(col_threads) * V - 1) / (static_cast<std::int64_t>(col_threads) * V);
  const std::int64_t blocks = col_tiles * step.units * step.batch;
  bool vectors              = false;
  if constexpr (V > 1)
  {
    vectors = step.cols % V == 0 && reinterpret_cast<std::uintptr_t>(in) % sizeof(Vector) == 0;
  }

  for (std::int64_t block = blockIdx.x; block < blocks; block += gridDim.x)
  {
    const std::int64_t tile      = block % col_tiles;
    const std::int64_t unit      = block / col_tiles % step.units;
    const std::int64_t b         = block / col_tiles / step.units;
    const std::int64_t col       = (tile * col_threads + x) * V; // the first of the thread's columns
    const std::int64_t row0      = unit * step.rows_per_unit;
    const std::int64_t unit_rows = step.rows - row0 < step.rows_per_unit ? step.rows - row0 : step.rows_per_unit;
    const std::int64_t run       = (unit_rows + run_groups - 1) / run_groups;
    // Thread `y`'s rows: the `y`-th run, or with `Interleaved` rows `y`, `y + run_groups`, ...
    const std::int64_t first     = Interleaved ? y : (y * run < unit_rows ? y * run : unit_rows);
    const std::int64_t last      = Interleaved ? unit_rows : (first + run < unit_rows ? first + run : unit_rows);
    const std::int64_t step_rows = Interleaved ? run_groups : 1;
    // What is dealt round-robin with `Interleaved`: rows, or with `PackedCols` vectors of `R` rows.
    constexpr int R          = PackedCols > 0 ? V / PackedCols : 1;
    const std::int64_t dealt = (unit_rows + R - 1) / R;
    // The threads (row groups) whose rows hold items: the tree's leaves.
    const int valid = Interleaved ? (dealt < run_groups ? static_cast<int>(dealt) : run_groups)
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
      const InputIteratorT base = in + (b * step.rows + row0) * C;
      const bool aligned        = reinterpret_cast<std::uintptr_t>(&base[0]) % sizeof(Vector) == 0;
      constexpr int unroll      = 8;
      for (std::int64_t v0 = y; v0 < dealt; v0 += unroll * run_groups)
      {
        Vector rows[unroll];
#pragma unroll
        for (int k = 0; k < unroll; ++k)
        {
          const std::int64_t r = (v0 + k * run_groups) * R; // the vector's first row
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
          const std::int64_t r = (v0 + k * run_groups) * R;
#pragma unroll
          for (int i = 0; i < V; ++i)
          {
            if (r + i / C < unit_rows)
            {
              const AccumT item = transform(rows[k].items[i], r + i / C);
              aggregate[i % C]  = r == y * R && i < C ? item : thread_op(aggregate[i % C], item);
            }
          }
        }
      }
    }
    else if (col < step.cols && first < last)
    {
      const InputIteratorT base = in + ((b * step.rows + row0) * step.cols + col);
      // Row `r`'s items of the thread's columns (those past the end of the row are never folded).
      auto load = [&](std::int64_t r, Vector& v)
      {
        if (vectors)
        {
          v = *reinterpret_cast<const Vector*>(&base[r * step.cols]);
        }
        else
        {
#pragma unroll
          for (int j = 0; j < V; ++j)
          {
            if (col + j < step.cols)
            {
              v.items[j] = base[r * step.cols + j];
            }
          }
        }
      };
      auto fold_row = [&](std::int64_t r, const Vector& v, bool start)
      {
#pragma unroll
        for (int j = 0; j < V; ++j)
        {
          const AccumT item = transform(v.items[j], r);
          aggregate[j]      = start ? item : thread_op(aggregate[j], item);
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
    }
#pragma unroll
    for (int j = 0; j < V; ++j)
    {
      construct_at(shared.data() + j * higher_dim_threads + threadIdx.x, aggregate[j]);
    }
    for (int stride = 1; stride < run_groups; stride *= 2)
    {
      __syncthreads();
      if (y % (2 * stride) == 0 && y + stride < valid)
      {
#pragma unroll
        for (int j = 0; j < V; ++j)
        {
          AccumT* mine = shared.data() + j * higher_dim_threads + threadIdx.x;
          *mine        = op(*mine, mine[stride * col_threads]);
        }
      }
    }
    __syncthreads();
    if (y == 0)
    {
#pragma unroll
      for (int j = 0; j < V; ++j)
      {
        if (col + j < step.cols)
        {
          store_result(out + ((b * step.units + unit) * step.cols + col + j),
                       init.finalize(op, shared[j * higher_dim_threads + threadIdx.x]));
        }
      }
    }
    __syncthreads(); // the shared rows are reused by the next block's work
  }
}

} // namespace detail
FOLD_KERNELS_END
FOLD_NAMESPACE_END

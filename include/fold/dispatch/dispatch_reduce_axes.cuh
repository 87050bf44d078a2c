// SPDX-License-Identifier: Apache-2.0
//! @file
//! The reduction over axes of a row-major array. The plan (a pure host function) drops extents of 1, merges
//! adjacent reduced and adjacent kept dimensions, and then removes the reduced groups innermost first, one step
//! each:
//! - the last dimension reduced, `[batch, rows]` -> `[batch]`: the segmented reduction with fixed-size segments;
//! - a higher dimension reduced, `[batch, rows, cols]` -> `[batch, cols]`: `HigherDimKernel`, in which each thread
//!   owns a column and folds a contiguous run of rows (Paddle's reduce over the highest dimension). Long columns
//!   are cut into units of `rows_per_unit` rows, one partial row each, `[batch, units, cols]`, which the next step
//!   reduces the same way.
//! Steps hand their results on in the accumulator type through the temporary storage; only the last applies the
//! initial value. The nested reductions keep the row-major order of the reduced items (outer before inner), so an
//! operator need only be associative, and every step's tree depends only on the shape.
#pragma once

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
  std::int64_t r = 1;
  while (r < target)
  {
    r *= 2;
  }
  return r;
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

inline AxesPlan make_axes_plan(const Extents& shape, const Axes& axes)
{
  AxesPlan plan;
  if (shape.rank < 0 || shape.rank > max_rank || axes.repeated || axes.too_large || (axes.mask >> shape.rank) != 0)
  {
    return plan;
  }
  // The item count must fit in int64_t (a zero extent makes it 0 whatever the others are).
  bool any_zero = false;
  for (int d = 0; d < shape.rank; ++d)
  {
    any_zero = any_zero || shape.dims[d] == 0;
  }
  std::int64_t product = 1;
  for (int d = 0; d < shape.rank && !any_zero; ++d)
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
    const std::int64_t per   = rows_per_unit(rows, cols);
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

template <typename InputIteratorT,
          typename OutputIteratorT,
          typename ReductionOpT,
          typename InitT,
          typename AccumT,
          typename TuningT>
struct DispatchReduceAxes
{
  using Cast = CastTo<AccumT>;

  //! One segmented step: `[batch, rows]` -> `[batch]`.
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
                                   Cast,
                                   TuningT>::Dispatch(temp,
                                                      bytes,
                                                      in,
                                                      out,
                                                      s.batch,
                                                      FixedOffsets{s.rows, 0},
                                                      FixedOffsets{s.rows, s.rows},
                                                      op,
                                                      init,
                                                      Cast{},
                                                      stream);
  }

  template <typename InT, typename OutT, typename StepInitT>
  static cudaError_t higher_dim(
      InT in, OutT out, const AxesStep& s, ReductionOpT op, StepInitT init, int sms, bool overlap, cudaStream_t stream)
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
    { return launch(kernel, grid, higher_dim_threads, stream, overlap, in, out, s, col_threads, op, init, Cast{}); };
    auto launch_with = [&](auto packed_cols)
    {
      constexpr int packed = decltype(packed_cols)::value;
      if constexpr (packed > 0)
      {
        return go(HigherDimKernel<InT, OutT, ReductionOpT, StepInitT, AccumT, Cast, packed, true>);
      }
      else if constexpr (is_commutative_v<ReductionOpT>)
      {
        return interleave ? go(HigherDimKernel<InT, OutT, ReductionOpT, StepInitT, AccumT, Cast, 0, true>)
                          : go(HigherDimKernel<InT, OutT, ReductionOpT, StepInitT, AccumT, Cast, 0, false>);
      }
      else
      {
        return go(HigherDimKernel<InT, OutT, ReductionOpT, StepInitT, AccumT, Cast, 0, false>);
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
    const AxesPlan plan       = make_axes_plan(shape, axes);
    if (!plan.valid)
    {
      return cudaErrorInvalidValue;
    }
    if (d_temp_storage != nullptr && plan.outputs > 0 && (is_null(out) || (plan.inputs > 0 && is_null(in))))
    {
      return cudaErrorInvalidValue;
    }
    // The layout: two buffers for the steps' results (step i writes buffer i % 2), then the segmented step's
    // own storage.
    std::size_t buffer_items[2] = {0, 0};
    for (int i = 0; i + 1 < plan.steps; ++i)
    {
      const auto items    = static_cast<std::size_t>(plan.step[i].outputs());
      buffer_items[i % 2] = buffer_items[i % 2] > items ? buffer_items[i % 2] : items;
    }
    std::size_t segmented_bytes = 0;
    if (plan.steps > 0 && plan.step[0].last_dim)
    {
      const cudaError_t error = plan.steps == 1
                                    ? last_dim(nullptr, segmented_bytes, in, out, plan.step[0], op, init, stream)
                                    : last_dim(nullptr,
                                               segmented_bytes,
                                               in,
                                               static_cast<AccumT*>(nullptr),
                                               plan.step[0],
                                               op,
                                               NoInit<AccumT>{},
                                               stream);
      if (error != cudaSuccess)
      {
        return error;
      }
    }
    constexpr std::size_t align = alignof(AccumT) > 16 ? alignof(AccumT) : 16;
    auto round                  = [](std::size_t x) { return (x + align - 1) / align * align; };
    const std::size_t second    = round(buffer_items[0] * sizeof(AccumT));
    const std::size_t segmented = second + round(buffer_items[1] * sizeof(AccumT));
    const std::size_t bytes     = align - 1 + segmented + segmented_bytes + 1;
    if (d_temp_storage == nullptr)
    {
      temp_storage_bytes = bytes;
      return cudaSuccess;
    }
    if (temp_storage_bytes < bytes)
    {
      return cudaErrorInvalidValue;
    }
    if (plan.outputs == 0)
    {
      return cudaSuccess;
    }
    DeviceFacts facts;
    if (const cudaError_t error = device_facts(facts); error != cudaSuccess)
    {
      return error;
    }
    const int sms         = facts.sms;
    const bool overlap    = may_overlap(facts.arch, hooks);
    char* base            = static_cast<char*>(align_up(d_temp_storage, align));
    AccumT* buffer[2]     = {reinterpret_cast<AccumT*>(base), reinterpret_cast<AccumT*>(base + second)};
    std::size_t seg_bytes = segmented_bytes;
    for (int i = 0; i < plan.steps; ++i)
    {
      const AxesStep& s  = plan.step[i];
      const bool first   = i == 0;
      const bool final   = i + 1 == plan.steps;
      AccumT* const from = first ? nullptr : buffer[(i - 1) % 2];
      AccumT* const to   = buffer[i % 2];
      cudaError_t error  = cudaSuccess;
      if (s.last_dim) // only ever the first step
      {
        error = final ? last_dim(base + segmented, seg_bytes, in, out, s, op, init, stream)
                      : last_dim(base + segmented, seg_bytes, in, to, s, op, NoInit<AccumT>{}, stream);
      }
      else if (first)
      {
        error = final ? higher_dim(in, out, s, op, init, sms, overlap, stream)
                      : higher_dim(in, to, s, op, NoInit<AccumT>{}, sms, overlap, stream);
      }
      else
      {
        error = final ? higher_dim(from, out, s, op, init, sms, overlap, stream)
                      : higher_dim(from, to, s, op, NoInit<AccumT>{}, sms, overlap, stream);
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

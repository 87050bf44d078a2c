// SPDX-License-Identifier: Apache-2.0
//! @file
//! The dispatch: validates the arguments, picks the policy for the device, sizes the temporary storage, picks
//! the kernel path (single tile, or two passes over an even share of tiles) and launches on the caller's
//! stream. It never synchronises, allocates, prints or throws.
#pragma once

#include <fold/dispatch/kernels_reduce.cuh>
#include <fold/grid/grid_even_share.cuh>
#include <fold/tuning/tuning_reduce.cuh>
#include <fold/util/arch.cuh>
#include <fold/util/type_traits.cuh>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace fold::detail
{

//! What one call will do; a pure function of the sizes, so that it can be tested without a GPU.
template <typename OffsetT>
struct ReducePlan
{
  bool single_tile;
  GridEvenShare<OffsetT> share; //!< pass 1's grid (two-pass only)
  std::size_t temp_storage_bytes; //!< never 0: a zero-byte allocation could come back null, which means "query"
};

//! The plan for `num_items` items in tiles of `tile_items`, pass 1 over at most `max_grid_size` blocks, with
//! partials of `partial_bytes`/`partial_align`. The temporary storage grows with `num_items` and never shrinks.
template <typename OffsetT>
constexpr ReducePlan<OffsetT>
make_reduce_plan(OffsetT num_items, int tile_items, int max_grid_size, std::size_t partial_bytes, std::size_t partial_align)
{
  if (num_items <= static_cast<OffsetT>(tile_items))
  {
    return {true, {}, 1};
  }
  const auto share = GridEvenShare<OffsetT>::make(num_items, tile_items, max_grid_size);
  // The partials are aligned inside the caller's storage, which may itself be less aligned.
  return {false, share, static_cast<std::size_t>(share.grid_size) * partial_bytes + partial_align - 1};
}

//! `ptr` rounded up to a multiple of `alignment` (a power of two).
inline void* align_up(void* ptr, std::size_t alignment)
{
  const auto address = reinterpret_cast<std::uintptr_t>(ptr);
  return reinterpret_cast<void*>((address + alignment - 1) & ~(static_cast<std::uintptr_t>(alignment) - 1));
}

//! Launches `kernel` on `stream` and returns the launch's own error (a bad configuration, a missing image).
template <typename... ParamsT, typename... ArgsT>
cudaError_t launch(void (*kernel)(ParamsT...), int grid, int block, cudaStream_t stream, ArgsT&&... args)
{
  cudaLaunchConfig_t config{};
  config.gridDim  = dim3(static_cast<unsigned>(grid));
  config.blockDim = dim3(static_cast<unsigned>(block));
  config.stream   = stream;
  return cudaLaunchKernelEx(&config, kernel, std::forward<ArgsT>(args)...);
}

template <typename IteratorT>
bool is_null(const IteratorT& it)
{
  if constexpr (std::is_pointer_v<IteratorT>)
  {
    return it == nullptr;
  }
  else
  {
    return false;
  }
}
template <typename V, typename K>
bool is_null(const ArgOutput<V, K>& out)
{
  return is_null(out.values) || is_null(out.keys);
}

template <typename InputIteratorT,
          typename OutputIteratorT,
          typename OffsetT,
          typename ReductionOpT,
          typename InitT,
          typename AccumT,
          typename TransformOpT>
struct DispatchReduce
{
  using PartialsTransformT = CastTo<AccumT>;

  static constexpr auto single_tile_kernel =
    SingleTileKernel<InputIteratorT, OutputIteratorT, OffsetT, ReductionOpT, InitT, AccumT, TransformOpT>;
  static constexpr auto reduce_kernel = ReduceKernel<InputIteratorT, AccumT, OffsetT, ReductionOpT, TransformOpT>;
  static constexpr auto partials_kernel =
    SingleTileKernel<AccumT*, OutputIteratorT, std::uint32_t, ReductionOpT, InitT, AccumT, PartialsTransformT>;

  //! Resident blocks of pass 1 per multiprocessor of `device`, read once per device.
  static cudaError_t occupancy(int device, int block_threads, int& blocks)
  {
    static DeviceCache cache;
    return cached_per_device(cache, device, blocks, [block_threads](int& v) {
      const cudaError_t error = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&v, reduce_kernel, block_threads, 0);
      v                       = v < 1 ? 1 : v; // a kernel that cannot be resident fails at launch, with its error
      return error;
    });
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
    if (d_temp_storage != nullptr && ((num_items > 0 && is_null(in)) || is_null(out)))
    {
      return cudaErrorInvalidValue;
    }
    int device = 0;
    if (const cudaError_t error = cudaGetDevice(&device); error != cudaSuccess)
    {
      return error;
    }
    int arch = 0;
    if (const cudaError_t error = ptx_version(device, arch); error != cudaSuccess)
    {
      return error;
    }
    const ReducePolicy policy = select_reduce_policy(arch);
    const TileShape shape     = reduce_tile_shape<InputIteratorT>(arch);

    int max_grid_size = 0;
    if (num_items > static_cast<OffsetT>(shape.tile_items))
    {
      int sms = 0, blocks_per_sm = 0;
      if (const cudaError_t error = sm_count(device, sms); error != cudaSuccess)
      {
        return error;
      }
      if (const cudaError_t error = occupancy(device, shape.block_threads, blocks_per_sm); error != cudaSuccess)
      {
        return error;
      }
      max_grid_size = blocks_per_sm * sms * policy.oversubscription;
    }
    const ReducePlan<OffsetT> plan =
      make_reduce_plan(num_items, shape.tile_items, max_grid_size, sizeof(AccumT), alignof(AccumT));

    if (d_temp_storage == nullptr)
    {
      temp_storage_bytes = plan.temp_storage_bytes;
      return cudaSuccess;
    }
    if (temp_storage_bytes < plan.temp_storage_bytes)
    {
      return cudaErrorInvalidValue;
    }

    if (plan.single_tile)
    {
      return launch(single_tile_kernel, 1, shape.block_threads, stream, in, out, num_items, op, init, transform);
    }
    AccumT* partials = static_cast<AccumT*>(align_up(d_temp_storage, alignof(AccumT)));
    if (const cudaError_t error = launch(
          reduce_kernel, plan.share.grid_size, shape.block_threads, stream, in, partials, plan.share, op, transform);
        error != cudaSuccess)
    {
      return error;
    }
    return launch(partials_kernel,
                  1,
                  reduce_tile_shape<AccumT*>(arch).block_threads,
                  stream,
                  partials,
                  out,
                  static_cast<std::uint32_t>(plan.share.grid_size),
                  op,
                  init,
                  PartialsTransformT{});
  }
};

//! The common entry of every DeviceReduce algorithm: checks `num_items`, picks the offset type, dispatches.
template <typename AccumT,
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
  static_assert(std::is_integral_v<NumItemsT> && !std::is_same_v<NumItemsT, bool>,
                "fold::DeviceReduce: num_items must be of an integer type");
  static_assert(std::is_default_constructible_v<AccumT> && std::is_copy_constructible_v<AccumT>,
                "fold::DeviceReduce: the accumulator type must be default-constructible and copyable");
  if constexpr (std::is_signed_v<NumItemsT>)
  {
    if (num_items < 0)
    {
      return cudaErrorInvalidValue;
    }
  }
  using OffsetT = offset_t<NumItemsT>;
  return DispatchReduce<InputIteratorT, OutputIteratorT, OffsetT, ReductionOpT, InitT, AccumT, TransformOpT>::Dispatch(
    d_temp_storage,
    temp_storage_bytes,
    in,
    out,
    static_cast<OffsetT>(num_items),
    op,
    init,
    transform,
    stream);
}

} // namespace fold::detail

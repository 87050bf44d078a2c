// SPDX-License-Identifier: Apache-2.0
// Helpers for the DeviceReduce tests: the tile of a type on this device, the error bound of a float sum, and the
// node types of a captured graph.
#pragma once

#include <fold/device/device_reduce.cuh>

#include "test_util.cuh"

#include <cmath>
#include <cstdint>
#include <vector>

namespace fold_test
{

//! The types of the nodes of `graph` (a captured call: fold's calls capture as kernels only, no memset node).
inline std::vector<cudaGraphNodeType> graph_node_types(cudaGraph_t graph)
{
  std::size_t count = 0;
  CUDA_REQUIRE(cudaGraphGetNodes(graph, nullptr, &count));
  std::vector<cudaGraphNode_t> nodes(count);
  CUDA_REQUIRE(cudaGraphGetNodes(graph, nodes.data(), &count));
  std::vector<cudaGraphNodeType> types(count);
  for (std::size_t i = 0; i < count; ++i)
  {
    CUDA_REQUIRE(cudaGraphNodeGetType(nodes[i], &types[i]));
  }
  return types;
}

//! The tile (items) the dispatch uses for input `T*` reduced by `ReductionOpT` in `AccumT` on this device: the
//! boundary between the single-tile and the multi-block paths. Commutative operators get the longer tile.
template <typename ReductionOpT, typename T, typename AccumT = T>
int tile_items()
{
  return fold::detail::reduce_tile_shape<const T*, AccumT, fold::DefaultTuning, ReductionOpT>(current_ptx_version())
      .tile_items;
}

inline int sm_count()
{
  int device = 0, sms = 0;
  CUDA_REQUIRE(cudaGetDevice(&device));
  CUDA_REQUIRE(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;
}

//! What `ForceDispatch` forces on this host thread, and how many dispatches have read it since.
struct ForcedState
{
  fold::detail::DispatchHooks hooks{};
  int reads = 0;
};
inline thread_local ForcedState forced_state{};

//! A tuning with `BaseT`'s policy whose dispatch hooks are what `ForceDispatch` set on this host thread: how a
//! test forces a path, a grid or a list cap, through the call's trailing argument (`fold_test::forced`), as cub's
//! tests pass a custom policy. The library itself holds no such state.
template <typename BaseT = fold::DefaultTuning>
struct Forced
{
  __host__ __device__ static constexpr fold::ReducePolicy policy(int arch) { return BaseT::policy(arch); }
  static fold::detail::DispatchHooks hooks()
  {
    ++forced_state.reads;
    return forced_state.hooks;
  }
};

//! The trailing argument of a call that `ForceDispatch` forces.
inline constexpr fold::tuned_t<Forced<>> forced{};

//! Forces the dispatches of this host thread that run under `Forced` for the lifetime of the object, and checks
//! at the end that at least one did (a call without `fold_test::forced` would silently run unforced).
struct ForceDispatch
{
  explicit ForceDispatch(fold::detail::DispatchHooks hooks) { forced_state = {hooks, 0}; }
  explicit ForceDispatch(fold::detail::ReducePath path, int max_grid = 0, int waves = 0)
      : ForceDispatch(fold::detail::DispatchHooks{path, max_grid, waves})
  {
  }
  ~ForceDispatch()
  {
    const int reads = forced_state.reads;
    forced_state    = {};
    CHECK(reads > 0);
  }
  ForceDispatch(const ForceDispatch&)            = delete;
  ForceDispatch& operator=(const ForceDispatch&) = delete;
};

//! A path and a grid cap to force, for tests that run a call down every path.
struct PathCase
{
  fold::detail::ReducePath path;
  int max_grid;
};

//! Random numbers in (-1, 1), none of them zero, `n` of them.
template <typename T>
std::vector<T> nonzero_numbers(std::size_t n, std::uint64_t seed)
{
  auto values = random_values<T>(n, seed, Values::full_range);
  for (auto& v : values)
  {
    if (to_double(v) == 0)
    {
      v = from_double<T>(0.5);
    }
  }
  return values;
}

//! Unit roundoff of `T`.
template <typename T>
double unit_roundoff()
{
  if constexpr (std::is_same_v<T, __half>)
  {
    return 0x1.0p-11;
  }
  else if constexpr (std::is_same_v<T, __nv_bfloat16>)
  {
    return 0x1.0p-8;
  }
  else
  {
    return std::numeric_limits<T>::epsilon() / 2;
  }
}

//! Host reference of a sum: the exact-enough value (in double) and the sum of magnitudes.
struct SumReference
{
  double sum       = 0;
  double magnitude = 0;
};

template <typename T>
SumReference sum_reference(const std::vector<T>& values)
{
  SumReference r;
  for (const T& v : values)
  {
    const double x = to_double(v);
    r.sum += x;
    r.magnitude += std::fabs(x);
  }
  return r;
}

//! A worst-case bound on the error of a float sum of `n` items computed by fold in `AccumT` and written as
//! `OutputT`: a summation tree of depth d errs by at most d * u * sum|x| (Higham, 4.3). fold's tree is at most
//! (items each thread accumulates) + (log2 of block and grid) + (the partials each thread of pass 2 takes) deep;
//! items per thread are at most one tile's share plus n / (SMs x threads), since pass 1 has at least one block
//! per SM. Converting to a 16-bit output adds half an ulp of the result.
template <typename AccumT, typename OutputT, typename InputT>
double sum_error_bound(std::size_t n, const SumReference& reference)
{
  const auto shape =
      fold::detail::reduce_tile_shape<const InputT*, AccumT, fold::DefaultTuning, fold::Sum>(current_ptx_version());
  const double depth = shape.items_per_thread + static_cast<double>(n) / (sm_count() * shape.block_threads) +
                       2 * std::log2(static_cast<double>(n) + 2) + 64;
  double bound = depth * unit_roundoff<AccumT>() * reference.magnitude;
  if constexpr (!std::is_same_v<AccumT, OutputT>)
  {
    bound += unit_roundoff<OutputT>() * std::fabs(reference.sum) * 1.01;
  }
  return bound;
}

} // namespace fold_test

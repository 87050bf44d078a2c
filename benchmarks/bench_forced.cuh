// SPDX-License-Identifier: Apache-2.0
// How the launch and tile sweeps force a path, a grid or the waves: a tuning whose dispatch hooks are a
// benchmark-side global, passed as the call's trailing argument (fold's own dispatch holds no such state).
#pragma once

#include <fold/tuning/tuning_reduce.cuh>

namespace bench
{

//! What the sweeps force; read by `Forced` on every call under it.
inline fold::detail::DispatchHooks forced_hooks{};

//! `BaseT`'s policy, with `forced_hooks` as its dispatch hooks.
template <typename BaseT = fold::DefaultTuning>
struct Forced
{
  __host__ __device__ static constexpr fold::ReducePolicy policy(int arch) { return BaseT::policy(arch); }
  static fold::detail::DispatchHooks hooks() { return forced_hooks; }
};

//! The trailing argument of a call the sweeps force.
inline constexpr fold::tuned_t<Forced<>> forced{};

} // namespace bench

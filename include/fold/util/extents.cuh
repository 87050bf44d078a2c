// SPDX-License-Identifier: Apache-2.0
//! @file
//! The shape of a row-major array and a set of its axes: what `DeviceReduceAxes` takes.
#pragma once

#include <fold/util/macros.cuh>

#include <cstdint>
#include <initializer_list>

FOLD_NAMESPACE_BEGIN

//! The most dimensions `DeviceReduceAxes` takes.
inline constexpr int max_rank = 8;

//! The extents of a row-major array of up to `max_rank` dimensions: `{64, 56, 56, 256}`.
struct Extents
{
  int rank = 0;
  std::int64_t dims[max_rank]{};

  Extents() = default;
  Extents(std::initializer_list<std::int64_t> extents)
      : Extents(extents.begin(), static_cast<int>(extents.size()))
  {
  }
  //! `count` extents from `extents`; a `count` outside `[0, max_rank]` makes the call fail with
  //! `cudaErrorInvalidValue`.
  Extents(const std::int64_t* extents, int count)
      : rank(count)
  {
    for (int i = 0; i < count && i < max_rank; ++i)
    {
      dims[i] = extents[i];
    }
  }
};

//! A set of axes, each in `[0, rank)`: `{0, 1, 2}`.
struct Axes
{
  unsigned mask  = 0;
  bool repeated  = false; //!< an axis named twice (the call fails)
  bool too_large = false; //!< an axis outside `[0, max_rank)` (the call fails)

  Axes() = default;
  Axes(std::initializer_list<int> axes)
      : Axes(axes.begin(), static_cast<int>(axes.size()))
  {
  }
  Axes(const int* axes, int count)
  {
    for (int i = 0; i < count; ++i)
    {
      if (axes[i] < 0 || axes[i] >= max_rank)
      {
        too_large = true;
        continue;
      }
      repeated = repeated || (mask >> axes[i] & 1u);
      mask |= 1u << axes[i];
    }
  }
};

FOLD_NAMESPACE_END

// SPDX-License-Identifier: Apache-2.0
//! @file
//! `fold::nccl::Shards`: how an array sharded across ranks is laid out, rank `r` holding items
//! `[offset(r), offset(r) + count(r))` of the whole, in rank order. Plain C++; it needs neither NCCL nor a GPU, so
//! that every rank can build the same value from what it knows (an even split, a list of counts) without talking to
//! the others. `fold::nccl::exchange_counts` (device/device_reduce_nccl.cuh) builds it from each rank's own count.
#pragma once

#include <fold/util/macros.cuh>

#include <cstdint>
#include <utility>
#include <vector>

FOLD_NAMESPACE_BEGIN
namespace nccl
{

//! How many items each rank of a sharded array holds. Every rank of one reduction must pass an equal `Shards`.
class Shards
{
public:
  //! No ranks: not `valid()`.
  Shards() = default;

  //! Rank `r` holds `counts[r]` items. Not `valid()` if a count is negative, there are no ranks, or the total does
  //! not fit in an `int64_t`.
  explicit Shards(const std::vector<std::int64_t>& counts)
      : offsets_(counts.size() + 1, 0)
  {
    valid_ = !counts.empty();
    for (std::size_t r = 0; r < counts.size(); ++r)
    {
      valid_          = valid_ && counts[r] >= 0 && offsets_[r] <= INT64_MAX - counts[r];
      offsets_[r + 1] = valid_ ? offsets_[r] + counts[r] : 0;
    }
  }

  //! `total` items over `ranks` ranks as evenly as whole multiples of `granule` allow: every rank but the last
  //! holds the same multiple of `granule` while enough items are left (then none), the last the rest. With the granule
  //! of a reduction (`fold::nccl::DeviceReduce::Granule`), its result has the same bits as on one GPU.
  static Shards even(std::int64_t total, int ranks, std::int64_t granule = 1)
  {
    if (ranks < 1 || total < 0 || granule < 1)
    {
      return Shards{};
    }
    const std::int64_t per_rank = total / ranks + (total % ranks != 0);
    const std::int64_t share    = (per_rank / granule + (per_rank % granule != 0)) * granule;
    std::vector<std::int64_t> counts(static_cast<std::size_t>(ranks), 0);
    std::int64_t left = total;
    for (int r = 0; r + 1 < ranks; ++r)
    {
      counts[static_cast<std::size_t>(r)] = share <= left ? share : 0; // a multiple of the granule, or none
      left -= counts[static_cast<std::size_t>(r)];
    }
    counts.back() = left;
    return Shards{counts};
  }

  bool valid() const { return valid_; }
  int ranks() const { return valid_ ? static_cast<int>(offsets_.size()) - 1 : 0; }
  //! The items rank `rank` holds.
  std::int64_t count(int rank) const { return offset(rank + 1) - offset(rank); }
  //! The index in the whole array of rank `rank`'s first item: the items of the ranks before it.
  std::int64_t offset(int rank) const { return offsets_[static_cast<std::size_t>(rank)]; }
  std::int64_t total() const { return valid_ ? offsets_.back() : 0; }

  friend bool operator==(const Shards& a, const Shards& b)
  {
    return a.valid_ == b.valid_ && (!a.valid_ || a.offsets_ == b.offsets_);
  }
  friend bool operator!=(const Shards& a, const Shards& b) { return !(a == b); }

private:
  std::vector<std::int64_t> offsets_; //!< `ranks() + 1` prefix sums of the counts
  bool valid_ = false;
};

} // namespace nccl
FOLD_NAMESPACE_END

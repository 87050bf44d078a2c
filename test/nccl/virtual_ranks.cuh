// SPDX-License-Identifier: Apache-2.0
// Virtual ranks: P ranks of a sharded reduction on one GPU, one host thread and one stream each, so that the
// sharded dispatch runs unchanged except for its exchange, which copies between the ranks' buffers on the device
// where NCCL would send them between GPUs.
#pragma once

#include <fold/dispatch/dispatch_reduce_distributed.cuh>

#include "nccl/sharded_test_util.cuh"

#include <cuda_runtime_api.h>

#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <vector>

namespace fold_test
{

//! What the virtual ranks of one run share: a barrier, each rank's buffer and an event recorded after its pass 1.
class VirtualWorld
{
public:
  explicit VirtualWorld(int ranks)
      : ranks_(ranks)
      , buffers_(static_cast<std::size_t>(ranks), nullptr)
      , events_(static_cast<std::size_t>(ranks), nullptr)
  {
    for (auto& event : events_)
    {
      cudaEventCreateWithFlags(&event, cudaEventDisableTiming);
    }
  }
  VirtualWorld(const VirtualWorld&)            = delete;
  VirtualWorld& operator=(const VirtualWorld&) = delete;
  ~VirtualWorld()
  {
    for (auto event : events_)
    {
      cudaEventDestroy(event);
    }
  }

  int ranks() const { return ranks_; }

  //! Waits until every rank has arrived.
  void barrier()
  {
    std::unique_lock<std::mutex> lock(mutex_);
    const long generation = generation_;
    if (++arrived_ == ranks_)
    {
      arrived_ = 0;
      ++generation_;
      arrived_all_.notify_all();
      return;
    }
    arrived_all_.wait(lock, [&] { return generation_ != generation; });
  }

  std::vector<void*>& buffers() { return buffers_; }
  std::vector<cudaEvent_t>& events() { return events_; }

private:
  int ranks_;
  std::vector<void*> buffers_;
  std::vector<cudaEvent_t> events_;
  std::mutex mutex_;
  std::condition_variable arrived_all_;
  int arrived_     = 0;
  long generation_ = 0;
};

//! The exchange of one virtual rank (see dispatch/dispatch_reduce_distributed.cuh): device-to-device copies from
//! the other ranks' buffers, ordered after their pass 1 by events.
class VirtualExchange
{
public:
  VirtualExchange(VirtualWorld& world, int rank)
      : world_(world)
      , rank_(rank)
  {
  }

  int rank() const { return rank_; }
  int ranks() const { return world_.ranks(); }
  int all_gathers = 0; //!< collectives this rank took part in
  int gathers     = 0;

  cudaError_t all_gather(void* buffer, std::size_t bytes, cudaStream_t stream)
  {
    ++all_gathers;
    return exchange(buffer, true, stream, [bytes](int r) { return Span{r * bytes, bytes}; });
  }

  cudaError_t gather(void* buffer, const fold::detail::ShardedSpans& spans, int root, cudaStream_t stream)
  {
    ++gathers;
    return exchange(buffer, rank_ == root, stream, [&spans](int r) { return Span{spans.offset(r), spans.bytes(r)}; });
  }

private:
  struct Span
  {
    std::size_t offset;
    std::size_t bytes;
  };

  // Every rank publishes its buffer and an event after its pass 1; a receiving rank then copies every other
  // rank's span into the same place of its own buffer. Errors are kept, never returned early: a rank that left
  // would leave the others waiting at the barrier.
  template <typename SpanOfT>
  cudaError_t exchange(void* buffer, bool receives, cudaStream_t stream, SpanOfT span_of)
  {
    cudaError_t error                                 = cudaEventRecord(world_.events()[rank_], stream);
    world_.buffers()[static_cast<std::size_t>(rank_)] = buffer;
    world_.barrier();
    for (int r = 0; r < ranks() && receives; ++r)
    {
      const Span span = span_of(r);
      if (r == rank_ || span.bytes == 0)
      {
        continue;
      }
      const cudaError_t waited = cudaStreamWaitEvent(stream, world_.events()[static_cast<std::size_t>(r)], 0);
      const cudaError_t copied = cudaMemcpyAsync(static_cast<char*>(buffer) + span.offset,
                                                 static_cast<const char*>(world_.buffers()[r]) + span.offset,
                                                 span.bytes,
                                                 cudaMemcpyDeviceToDevice,
                                                 stream);
      error                    = error != cudaSuccess ? error : waited != cudaSuccess ? waited : copied;
    }
    world_.barrier(); // no rank records its event again before every rank has waited for it
    return error;
  }

  VirtualWorld& world_;
  int rank_;
};

//! Runs `call(exchange, stream)` on `ranks` virtual ranks of the current device, one thread and one stream each,
//! waits for every stream, and returns each rank's error (the call's, or the stream's).
template <typename CallT>
std::vector<cudaError_t> run_virtual_ranks(int ranks, CallT call)
{
  int device = 0;
  cudaGetDevice(&device);
  VirtualWorld world(ranks);
  return run_rank_threads(
      ranks,
      [device](int) { return device; },
      [&](int r, cudaStream_t stream)
      {
        VirtualExchange exchange(world, r);
        return call(exchange, stream);
      });
}

} // namespace fold_test

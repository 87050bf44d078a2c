// SPDX-License-Identifier: Apache-2.0
//! @file
//! NVTX ranges: every algorithm's run (not its size query) shows in a profiler's timeline (Nsight Systems) as a
//! range named after the call, e.g. `fold::DeviceReduce::Sum`, in the NVTX domain `fold`. Without a profiler
//! attached a range costs two calls through a null function pointer. Define `FOLD_DISABLE_NVTX` (or NVTX's own
//! `NVTX_DISABLE`) before including fold to compile them out.
#pragma once

#include <fold/util/macros.cuh>

#if !defined(FOLD_DISABLE_NVTX) && !defined(NVTX_DISABLE) && __has_include(<nvtx3/nvToolsExt.h>)
#define FOLD_HAS_NVTX 1
#include <nvtx3/nvToolsExt.h>
#else
#define FOLD_HAS_NVTX 0
#endif

FOLD_NAMESPACE_BEGIN
namespace detail
{

//! A range of the `fold` domain, open from construction to destruction when `active`.
class NvtxRange
{
public:
  NvtxRange(bool active, const char* name)
      : active_(FOLD_HAS_NVTX && active)
  {
#if FOLD_HAS_NVTX
    if (active_)
    {
      nvtxEventAttributes_t attributes{};
      attributes.version       = NVTX_VERSION;
      attributes.size          = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
      attributes.messageType   = NVTX_MESSAGE_TYPE_ASCII;
      attributes.message.ascii = name;
      nvtxDomainRangePushEx(domain(), &attributes);
    }
#else
    (void)name;
#endif
  }
  ~NvtxRange()
  {
#if FOLD_HAS_NVTX
    if (active_)
    {
      nvtxDomainRangePop(domain());
    }
#endif
  }
  NvtxRange(const NvtxRange&)            = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;

private:
#if FOLD_HAS_NVTX
  static nvtxDomainHandle_t domain()
  {
    static const nvtxDomainHandle_t handle = nvtxDomainCreateA("fold");
    return handle;
  }
#endif
  bool active_;
};

} // namespace detail
FOLD_NAMESPACE_END

//! Opens a range named `name` for the rest of the enclosing scope if `condition` holds (the facades pass
//! `d_temp_storage != nullptr`: a run, not a size query).
#define FOLD_NVTX_RANGE_IF(condition, name) const ::fold::detail::NvtxRange fold_nvtx_range_(condition, name)

// SPDX-License-Identifier: Apache-2.0
// What the ported cub tests (test/cub_port/, from CCCL v3.0.1) need of c2h, CCCL's Catch2 helper library, and of
// cub's catch2_test_launch_helper.h, written for fold on Catch2 2.13 and thrust: nothing here is copied from c2h.
// The names and behaviour follow c2h's, so that the test cases read as in cub:
// - C2H_TEST / C2H_TEST_LIST: a Catch2 TEMPLATE_LIST_TEST_CASE over the cartesian product of type lists (the
//   name ends in "(0)", c2h's variant index); c2h::type_list / get / cartesian_product (libcu++'s type lists).
// - c2h::device_vector / host_vector (thrust's), c2h::device_policy.
// - c2h::gen(C2H_SEED(n), vec[, min, max]): random data, uniform over [min, max] (the whole range by default), from
//   a counter-based hash of the seed and the index, so never all zeros; C2H_SEED(n) draws n seeds (Catch2 GENERATE,
//   CCCL_SEED_COUNT_OVERRIDE as in c2h).
// - c2h::gen_uniform_offsets and c2h::init_key_segments, as c2h defines them (segment sizes drawn as c2h draws them,
//   `(max - min) * r + min` in float with r in (0, 1], so that {0, 1} gives empty segments and one last long one).
// - c2h::custom_type_t and its policies; cuda::std::numeric_limits of it and of the vector types used.
// - half_t / bfloat16_t: host-usable wrappers of __half / __nv_bfloat16 with a public `__x`, `raw()`, comparisons
//   and arithmetic in float.
// - Comparison, `+` and printing of uchar3 and ulonglong4_16a (CUDA 13's aligned 4-vector).
// - DECLARE_LAUNCH_WRAPPER(API, name): `name(args...)` queries the temporary storage, allocates it and runs
//   `API(d_temp, bytes, args...)`, checking the return codes, as cub's launch helper does with TEST_LAUNCH 0 (host
//   launch). With the environment variable FOLD_PORT_LAUNCH=graph it does what cub's TEST_LAUNCH 2 does instead:
//   the run is captured into a CUDA graph on a new stream (the stream passed as one more argument) and launched.
//   cub's TEST_LAUNCH 1 (the algorithm called from a kernel) has no fold counterpart: fold's entry points are host
//   functions.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <thrust/binary_search.h>
#include <thrust/device_vector.h>
#include <thrust/equal.h>
#include <thrust/execution_policy.h>
#include <thrust/fill.h>
#include <thrust/find.h>
#include <thrust/host_vector.h>
#include <thrust/iterator/constant_iterator.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/discard_iterator.h>
#include <thrust/iterator/reverse_iterator.h>
#include <thrust/iterator/tabulate_output_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/scan.h>
#include <thrust/tabulate.h>
#include <thrust/transform.h>
#include <thrust/zip_function.h>

#include <cuda/std/__type_traits/type_list.h>
#include <cuda/std/functional>
#include <cuda/std/limits>
#include <cuda/std/utility>
#include <cuda/functional>

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <ostream>
#include <string>
#include <tuple>
#include <type_traits>
#include <typeinfo>

#ifndef VAR_IDX
#define VAR_IDX 0
#endif

// c2h's switches for the 16-bit float types (both available with CUDA 13).
#ifndef TEST_HALF_T
#define TEST_HALF_T() 1
#endif
#ifndef TEST_BF_T
#define TEST_BF_T() 1
#endif

// The variant macros of cub's %PARAM% lines: TEST_TYPES is set per executable by CMakeLists.txt; the launch variant
// is chosen at run time (FOLD_PORT_LAUNCH), so the code compiled is TEST_LAUNCH 0's.
#ifndef TEST_LAUNCH
#define TEST_LAUNCH 0
#endif

/******************************************************************************
 * Type lists, vectors
 ******************************************************************************/

namespace c2h
{
template <typename... Ts>
using type_list = ::cuda::std::__type_list<Ts...>;

template <std::size_t Index, typename TypeList>
using get = ::cuda::std::__type_at_c<Index, TypeList>;

template <class... TypeLists>
using cartesian_product = ::cuda::std::__type_cartesian_product<TypeLists...>;

template <typename T>
using device_vector = thrust::device_vector<T>;

template <typename T>
using host_vector = thrust::host_vector<T>;

static const auto device_policy = thrust::device;

template <typename T>
std::string type_name()
{
  if constexpr (std::is_same_v<T, std::int8_t>)
    return "int8_t";
  else if constexpr (std::is_same_v<T, std::uint8_t>)
    return "uint8_t";
  else if constexpr (std::is_same_v<T, std::int16_t>)
    return "int16_t";
  else if constexpr (std::is_same_v<T, std::uint16_t>)
    return "uint16_t";
  else if constexpr (std::is_same_v<T, std::int32_t>)
    return "int32_t";
  else if constexpr (std::is_same_v<T, std::uint32_t>)
    return "uint32_t";
  else if constexpr (std::is_same_v<T, std::int64_t>)
    return "int64_t";
  else if constexpr (std::is_same_v<T, std::uint64_t>)
    return "uint64_t";
  else
    return typeid(T).name();
}
} // namespace c2h

/******************************************************************************
 * Test case macros
 ******************************************************************************/

#define C2H_TEST_STR(a) #a
#define C2H_TEST_NAME_IMPL(NAME, PARAM) C2H_TEST_STR(NAME) "(" C2H_TEST_STR(PARAM) ")"
#define C2H_TEST_NAME(NAME) C2H_TEST_NAME_IMPL(NAME, VAR_IDX)
#define C2H_TEST_CONCAT(A, B) C2H_TEST_CONCAT_INNER(A, B)
#define C2H_TEST_CONCAT_INNER(A, B) A##B

#define C2H_TEST_IMPL(ID, NAME, TAG, ...)                                                                              \
  using C2H_TEST_CONCAT(types_, ID) = c2h::cartesian_product<__VA_ARGS__>;                                             \
  TEMPLATE_LIST_TEST_CASE(C2H_TEST_NAME(NAME), TAG, C2H_TEST_CONCAT(types_, ID))

#define C2H_TEST(NAME, TAG, ...) C2H_TEST_IMPL(__LINE__, NAME, TAG, __VA_ARGS__)

#define C2H_TEST_LIST_IMPL(ID, NAME, TAG, ...)                                                                         \
  using C2H_TEST_CONCAT(types_, ID) = c2h::type_list<__VA_ARGS__>;                                                     \
  TEMPLATE_LIST_TEST_CASE(C2H_TEST_NAME(NAME), TAG, C2H_TEST_CONCAT(types_, ID))

#define C2H_TEST_LIST(NAME, TAG, ...) C2H_TEST_LIST_IMPL(__LINE__, NAME, TAG, __VA_ARGS__)

namespace c2h
{
namespace detail
{
inline std::size_t adjust_seed_count(std::size_t requested)
{
  // As in c2h: CCCL_SEED_COUNT_OVERRIDE forces the number of seeds.
  static const char* override_str = std::getenv("CCCL_SEED_COUNT_OVERRIDE");
  return override_str ? static_cast<std::size_t>(std::atoi(override_str)) : requested;
}
} // namespace detail

class seed_t
{
  unsigned long long m_val{};

public:
  explicit seed_t(unsigned long long val)
      : m_val(val)
  {
  }
  unsigned long long get() const { return m_val; }
};
} // namespace c2h

#define C2H_SEED(N)                                                                                                    \
  c2h::seed_t                                                                                                          \
  {                                                                                                                    \
    GENERATE_COPY(take(c2h::detail::adjust_seed_count(N),                                                              \
                       random(::cuda::std::numeric_limits<unsigned long long int>::min(),                              \
                              ::cuda::std::numeric_limits<unsigned long long int>::max())))                            \
  }

namespace Catch
{
template <>
struct StringMaker<cudaError>
{
  static std::string convert(cudaError e)
  {
    return std::to_string(static_cast<int>(e)) + " (" + cudaGetErrorString(e) + ")";
  }
};
} // namespace Catch

/******************************************************************************
 * custom_type_t
 ******************************************************************************/

namespace c2h
{
struct custom_type_state_t
{
  std::size_t key{};
  std::size_t val{};
};

template <template <typename> class... Policies>
class custom_type_t : public custom_type_state_t, public Policies<custom_type_t<Policies...>>...
{
public:
  friend __host__ std::ostream& operator<<(std::ostream& os, const custom_type_t& self)
  {
    return os << "{ " << self.key << ", " << self.val << " }";
  }
};

template <class CustomType>
class lexicographical_less_comparable_t
{
  char workaround_msvc; // as in c2h: keeps the layout of c2h's type

public:
  friend __host__ __device__ bool operator<(const CustomType& lhs, const CustomType& rhs)
  {
    return lhs.key == rhs.key ? lhs.val < rhs.val : lhs.key < rhs.key;
  }
};

template <class CustomType>
class lexicographical_greater_comparable_t
{
  char workaround_msvc;

public:
  friend __host__ __device__ bool operator>(const CustomType& lhs, const CustomType& rhs)
  {
    return lhs.key == rhs.key ? lhs.val > rhs.val : lhs.key > rhs.key;
  }
};

template <class CustomType>
class equal_comparable_t
{
  char workaround_msvc;

public:
  friend __host__ __device__ bool operator==(const CustomType& lhs, const CustomType& rhs)
  {
    return lhs.key == rhs.key && lhs.val == rhs.val;
  }
  friend __host__ __device__ bool operator!=(const CustomType& lhs, const CustomType& rhs) { return !(lhs == rhs); }
};

template <class CustomType>
class accumulateable_t
{
  char workaround_msvc;

public:
  friend __host__ __device__ CustomType operator+(const CustomType& lhs, const CustomType& rhs)
  {
    CustomType result{};
    result.key = lhs.key + rhs.key;
    result.val = lhs.val + rhs.val;
    return result;
  }
};
} // namespace c2h

template <template <typename> class... Policies>
class cuda::std::numeric_limits<c2h::custom_type_t<Policies...>>
{
public:
  static constexpr bool is_specialized = true;

  static __host__ __device__ c2h::custom_type_t<Policies...> max()
  {
    c2h::custom_type_t<Policies...> val;
    val.key = numeric_limits<std::size_t>::max();
    val.val = numeric_limits<std::size_t>::max();
    return val;
  }
  static __host__ __device__ c2h::custom_type_t<Policies...> min()
  {
    c2h::custom_type_t<Policies...> val;
    val.key = numeric_limits<std::size_t>::min();
    val.val = numeric_limits<std::size_t>::min();
    return val;
  }
  static __host__ __device__ c2h::custom_type_t<Policies...> lowest()
  {
    c2h::custom_type_t<Policies...> val;
    val.key = numeric_limits<std::size_t>::lowest();
    val.val = numeric_limits<std::size_t>::lowest();
    return val;
  }
};

/******************************************************************************
 * half_t, bfloat16_t
 ******************************************************************************/

//! A 16-bit float of storage `StorageT` (__half or __nv_bfloat16), comparable and summable on the host (in float).
#define C2H_SHIM_FLOAT16(NAME, STORAGE, TO_FLOAT, FROM_FLOAT)                                                          \
  struct NAME                                                                                                          \
  {                                                                                                                    \
    std::uint16_t __x;                                                                                                 \
                                                                                                                       \
    NAME() = default;                                                                                                  \
    __host__ __device__ explicit NAME(const STORAGE& other) { std::memcpy(&__x, &other, sizeof(__x)); }                \
    __host__ __device__ explicit NAME(float a)                                                                         \
        : NAME(FROM_FLOAT(a))                                                                                          \
    {                                                                                                                  \
    }                                                                                                                  \
    __host__ __device__ explicit NAME(double a)                                                                        \
        : NAME(static_cast<float>(a))                                                                                  \
    {                                                                                                                  \
    }                                                                                                                  \
    __host__ __device__ explicit NAME(int a)                                                                           \
        : NAME(static_cast<float>(a))                                                                                  \
    {                                                                                                                  \
    }                                                                                                                  \
    __host__ __device__ operator STORAGE() const                                                                       \
    {                                                                                                                  \
      STORAGE h;                                                                                                       \
      std::memcpy(&h, &__x, sizeof(__x));                                                                              \
      return h;                                                                                                        \
    }                                                                                                                  \
    __host__ __device__ operator float() const { return TO_FLOAT(static_cast<STORAGE>(*this)); }                       \
    __host__ __device__ std::uint16_t raw() const { return __x; }                                                      \
    __host__ __device__ friend bool operator==(const NAME& a, const NAME& b) { return a.__x == b.__x; }                \
    __host__ __device__ friend bool operator!=(const NAME& a, const NAME& b) { return a.__x != b.__x; }                \
    __host__ __device__ friend bool operator<(const NAME& a, const NAME& b) { return float(a) < float(b); }            \
    __host__ __device__ friend bool operator>(const NAME& a, const NAME& b) { return float(a) > float(b); }            \
    __host__ __device__ friend NAME operator+(const NAME& a, const NAME& b) { return NAME(float(a) + float(b)); }      \
    __host__ __device__ NAME& operator+=(const NAME& rhs) { return *this = *this + rhs; }                              \
    friend std::ostream& operator<<(std::ostream& os, const NAME& x) { return os << float(x); }                        \
  };                                                                                                                   \
  template <>                                                                                                          \
  class cuda::std::numeric_limits<NAME>                                                                                \
  {                                                                                                                    \
  public:                                                                                                              \
    static constexpr bool is_specialized = true;                                                                       \
    static __host__ __device__ NAME max() { return NAME(numeric_limits<STORAGE>::max()); }                             \
    static __host__ __device__ NAME min() { return NAME(numeric_limits<STORAGE>::min()); }                             \
    static __host__ __device__ NAME lowest() { return NAME(numeric_limits<STORAGE>::lowest()); }                       \
  }

C2H_SHIM_FLOAT16(half_t, __half, __half2float, __float2half);
C2H_SHIM_FLOAT16(bfloat16_t, __nv_bfloat16, __bfloat162float, __float2bfloat16);
#undef C2H_SHIM_FLOAT16

inline std::ostream& operator<<(std::ostream& out, const __half& x)
{
  return out << __half2float(x);
}

inline std::ostream& operator<<(std::ostream& out, const __nv_bfloat16& x)
{
  return out << __bfloat162float(x);
}

/******************************************************************************
 * Vector types: comparison (lexicographic), +, printing, numeric_limits
 ******************************************************************************/

inline __host__ __device__ bool operator==(const uchar3& a, const uchar3& b)
{
  return a.x == b.x && a.y == b.y && a.z == b.z;
}
inline __host__ __device__ bool operator!=(const uchar3& a, const uchar3& b)
{
  return !(a == b);
}
inline __host__ __device__ bool operator<(const uchar3& a, const uchar3& b)
{
  return a.x != b.x ? a.x < b.x : a.y != b.y ? a.y < b.y : a.z < b.z;
}
inline __host__ __device__ bool operator>(const uchar3& a, const uchar3& b)
{
  return b < a;
}
inline __host__ __device__ uchar3 operator+(uchar3 a, uchar3 b)
{
  return make_uchar3(a.x + b.x, a.y + b.y, a.z + b.z);
}
inline std::ostream& operator<<(std::ostream& os, const uchar3& v)
{
  return os << '(' << int{v.x} << ',' << int{v.y} << ',' << int{v.z} << ')';
}

inline __host__ __device__ bool operator==(const ulonglong4_16a& a, const ulonglong4_16a& b)
{
  return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w;
}
inline __host__ __device__ bool operator!=(const ulonglong4_16a& a, const ulonglong4_16a& b)
{
  return !(a == b);
}
inline __host__ __device__ bool operator<(const ulonglong4_16a& a, const ulonglong4_16a& b)
{
  return a.x != b.x ? a.x < b.x : a.y != b.y ? a.y < b.y : a.z != b.z ? a.z < b.z : a.w < b.w;
}
inline __host__ __device__ bool operator>(const ulonglong4_16a& a, const ulonglong4_16a& b)
{
  return b < a;
}
inline __host__ __device__ ulonglong4_16a operator+(ulonglong4_16a a, ulonglong4_16a b)
{
  return ulonglong4_16a{a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w};
}
inline std::ostream& operator<<(std::ostream& os, const ulonglong4_16a& v)
{
  return os << '(' << v.x << ',' << v.y << ',' << v.z << ',' << v.w << ')';
}

template <>
class cuda::std::numeric_limits<uchar3>
{
public:
  static constexpr bool is_specialized = true;
  static __host__ __device__ uchar3 max() { return {255, 255, 255}; }
  static __host__ __device__ uchar3 min() { return {0, 0, 0}; }
  static __host__ __device__ uchar3 lowest() { return {0, 0, 0}; }
};

template <>
class cuda::std::numeric_limits<ulonglong4_16a>
{
public:
  static constexpr bool is_specialized = true;
  static __host__ __device__ ulonglong4_16a max()
  {
    constexpr auto m = ::cuda::std::numeric_limits<unsigned long long>::max();
    return {m, m, m, m};
  }
  static __host__ __device__ ulonglong4_16a min() { return {0, 0, 0, 0}; }
  static __host__ __device__ ulonglong4_16a lowest() { return {0, 0, 0, 0}; }
};

/******************************************************************************
 * Generators
 ******************************************************************************/

namespace c2h
{
namespace detail
{
//! A 64-bit hash of (seed, index, stream): splitmix64 of their combination.
__host__ __device__ inline std::uint64_t random_bits(std::uint64_t seed, std::uint64_t index, std::uint64_t stream)
{
  std::uint64_t z = seed ^ (index * 0x9E3779B97F4A7C15ull) ^ (stream * 0xD1B54A32D192ED03ull);
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

//! A uniform float in (0, 1], as curand's uniform distribution (which c2h uses).
__host__ __device__ inline float random_unit(std::uint64_t bits)
{
  return static_cast<float>((bits >> 40) + 1) * 0x1.0p-24f;
}

//! A uniform value of `T` in [lo, hi]: integers exactly, floating-point values as c2h draws them.
template <typename T>
__host__ __device__ T random_scalar(std::uint64_t bits, T lo, T hi)
{
  if constexpr (std::is_integral_v<T>)
  {
    using U                   = std::make_unsigned_t<T>;
    const std::uint64_t range = static_cast<std::uint64_t>(static_cast<U>(static_cast<U>(hi) - static_cast<U>(lo)));
    const std::uint64_t draw  = range == ~std::uint64_t{0} ? bits : bits % (range + 1);
    return static_cast<T>(static_cast<U>(static_cast<U>(lo) + static_cast<U>(draw)));
  }
  else
  {
    using storage_t = std::conditional_t<(sizeof(T) > 4), double, float>;
    const float r   = random_unit(bits);
    return static_cast<T>(static_cast<storage_t>(hi) * r + static_cast<storage_t>(lo) * (1.0f - r));
  }
}

template <typename T>
struct random_item_op
{
  std::uint64_t seed;
  T lo;
  T hi;

  __host__ __device__ T operator()(std::uint64_t i) const { return random_scalar<T>(random_bits(seed, i, 0), lo, hi); }
};

template <typename T>
struct random_float16_op
{
  std::uint64_t seed;
  float lo;
  float hi;

  __host__ __device__ T operator()(std::uint64_t i) const
  {
    return T(random_scalar<float>(random_bits(seed, i, 0), lo, hi));
  }
};

template <typename T>
struct random_custom_op
{
  std::uint64_t seed;

  __host__ __device__ T operator()(std::uint64_t i) const
  {
    T item{};
    item.key = random_bits(seed, i, 1);
    item.val = random_bits(seed, i, 2);
    return item;
  }
};

struct random_uchar3_op
{
  std::uint64_t seed;
  uchar3 lo;
  uchar3 hi;

  __host__ __device__ uchar3 operator()(std::uint64_t i) const
  {
    return make_uchar3(random_scalar<unsigned char>(random_bits(seed, i, 1), lo.x, hi.x),
                       random_scalar<unsigned char>(random_bits(seed, i, 2), lo.y, hi.y),
                       random_scalar<unsigned char>(random_bits(seed, i, 3), lo.z, hi.z));
  }
};

struct random_ulonglong4_op
{
  std::uint64_t seed;
  ulonglong4_16a lo;
  ulonglong4_16a hi;

  __host__ __device__ ulonglong4_16a operator()(std::uint64_t i) const
  {
    using ull = unsigned long long;
    return ulonglong4_16a{random_scalar<ull>(random_bits(seed, i, 1), lo.x, hi.x),
                          random_scalar<ull>(random_bits(seed, i, 2), lo.y, hi.y),
                          random_scalar<ull>(random_bits(seed, i, 3), lo.z, hi.z),
                          random_scalar<ull>(random_bits(seed, i, 4), lo.w, hi.w)};
  }
};

//! c2h's draw of a segment size: `(max - min) * r + min` in float, r in (0, 1].
template <typename T>
struct random_segment_size_op
{
  std::uint64_t seed;
  float lo;
  float hi;

  __host__ __device__ T operator()(std::uint64_t i) const
  {
    return static_cast<T>((hi - lo) * random_unit(random_bits(seed, i, 0)) + lo);
  }
};

template <typename T>
struct greater_equal_op
{
  T val;
  __host__ __device__ bool operator()(T x) const { return x >= val; }
};

template <typename KeyT>
struct segment_key_op
{
  template <typename IndexT>
  __host__ __device__ KeyT operator()(IndexT i) const
  {
    if constexpr (std::is_base_of_v<custom_type_state_t, KeyT>)
    {
      KeyT key{};
      key.key = static_cast<std::size_t>(i);
      key.val = static_cast<std::size_t>(i);
      return key;
    }
    else
    {
      return static_cast<KeyT>(i);
    }
  }
};

//! The key of the segment whose upper bound (one past the last offset at or before the item) is `upper`.
template <typename KeyT>
struct key_from_upper_bound_op
{
  template <typename OffsetT>
  __host__ __device__ KeyT operator()(OffsetT upper) const
  {
    return segment_key_op<KeyT>{}(upper - 1);
  }
};
} // namespace detail

//! Random items uniform over [min, max] (default: the whole range of `T`).
template <typename T>
void gen(seed_t seed,
         c2h::device_vector<T>& data,
         T min = ::cuda::std::numeric_limits<T>::lowest(),
         T max = ::cuda::std::numeric_limits<T>::max())
{
  const auto first = thrust::counting_iterator<std::uint64_t>(0);
  if constexpr (std::is_base_of_v<custom_type_state_t, T>)
  {
    thrust::transform(device_policy, first, first + data.size(), data.begin(), detail::random_custom_op<T>{seed.get()});
  }
  else if constexpr (std::is_same_v<T, half_t> || std::is_same_v<T, bfloat16_t>)
  {
    thrust::transform(device_policy,
                      first,
                      first + data.size(),
                      data.begin(),
                      detail::random_float16_op<T>{seed.get(), float(min), float(max)});
  }
  else if constexpr (std::is_same_v<T, uchar3>)
  {
    thrust::transform(
        device_policy, first, first + data.size(), data.begin(), detail::random_uchar3_op{seed.get(), min, max});
  }
  else if constexpr (std::is_same_v<T, ulonglong4_16a>)
  {
    thrust::transform(
        device_policy, first, first + data.size(), data.begin(), detail::random_ulonglong4_op{seed.get(), min, max});
  }
  else
  {
    thrust::transform(
        device_policy, first, first + data.size(), data.begin(), detail::random_item_op<T>{seed.get(), min, max});
  }
}

//! Offsets of segments whose sizes are drawn from [min_segment_size, max_segment_size], ending at
//! `total_elements` (the last segment takes what is left, so it may be longer), as c2h's function of that name.
template <typename T>
c2h::device_vector<T> gen_uniform_offsets(seed_t seed, T total_elements, T min_segment_size, T max_segment_size)
{
  c2h::device_vector<T> segment_offsets(static_cast<std::size_t>(total_elements) + 2);
  const auto first = thrust::counting_iterator<std::uint64_t>(0);
  thrust::transform(device_policy,
                    first,
                    first + segment_offsets.size(),
                    segment_offsets.begin(),
                    detail::random_segment_size_op<T>{
                        seed.get(), static_cast<float>(min_segment_size), static_cast<float>(max_segment_size)});
  segment_offsets[total_elements] = total_elements + 1;
  thrust::exclusive_scan(device_policy, segment_offsets.begin(), segment_offsets.end(), segment_offsets.begin());
  auto iter = thrust::find_if(
      device_policy, segment_offsets.begin(), segment_offsets.end(), detail::greater_equal_op<T>{total_elements});
  *iter = total_elements;
  segment_offsets.erase(iter + 1, segment_offsets.end());
  return segment_offsets;
}

//! The keys of the segments of `segment_offsets`: segment i's items get key i.
template <typename OffsetT, typename KeyT>
void init_key_segments(const c2h::device_vector<OffsetT>& segment_offsets, c2h::device_vector<KeyT>& keys_out)
{
  // The segment of item j is the last offset at or before j: upper_bound(j) - 1 (empty segments are skipped).
  c2h::device_vector<OffsetT> segment_of(keys_out.size());
  const auto items = thrust::counting_iterator<OffsetT>(0);
  thrust::upper_bound(device_policy,
                      segment_offsets.begin(),
                      segment_offsets.end(),
                      items,
                      items + keys_out.size(),
                      segment_of.begin());
  thrust::transform(
      device_policy, segment_of.begin(), segment_of.end(), keys_out.begin(), detail::key_from_upper_bound_op<KeyT>{});
}
} // namespace c2h

/******************************************************************************
 * Launch helper
 ******************************************************************************/

namespace c2h
{
namespace detail
{
//! Whether FOLD_PORT_LAUNCH=graph asks for cub's TEST_LAUNCH 2 (graph capture) instead of the plain host launch.
inline bool launch_as_graph()
{
  static const bool graph = []
  {
    const char* mode = std::getenv("FOLD_PORT_LAUNCH");
    return mode != nullptr && std::string(mode) == "graph";
  }();
  return graph;
}
} // namespace detail
} // namespace c2h

template <class ActionT, class... Args>
void launch(ActionT action, Args... args)
{
  if (c2h::detail::launch_as_graph())
  {
    // cub's TEST_LAUNCH 2.
    cudaStream_t stream{};
    REQUIRE(cudaSuccess == cudaStreamCreate(&stream));

    std::size_t temp_storage_bytes{};
    cudaError_t error = action(nullptr, temp_storage_bytes, args..., stream);
    REQUIRE(cudaSuccess == cudaPeekAtLastError());
    REQUIRE(cudaSuccess == error);

    c2h::device_vector<std::uint8_t> temp_storage(temp_storage_bytes);

    cudaGraph_t graph{};
    REQUIRE(cudaSuccess == cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    error = action(thrust::raw_pointer_cast(temp_storage.data()), temp_storage_bytes, args..., stream);
    REQUIRE(cudaSuccess == cudaStreamEndCapture(stream, &graph));
    REQUIRE(cudaSuccess == error);

    cudaGraphExec_t exec{};
    REQUIRE(cudaSuccess == cudaGraphInstantiate(&exec, graph, nullptr, nullptr, 0));

    REQUIRE(cudaSuccess == cudaGraphLaunch(exec, stream));
    REQUIRE(cudaSuccess == cudaStreamSynchronize(stream));

    REQUIRE(cudaSuccess == cudaGraphExecDestroy(exec));
    REQUIRE(cudaSuccess == cudaGraphDestroy(graph));
    REQUIRE(cudaSuccess == cudaStreamDestroy(stream));
  }
  else
  {
    // cub's TEST_LAUNCH 0.
    std::size_t temp_storage_bytes{};
    cudaError_t error = action(nullptr, temp_storage_bytes, args...);
    REQUIRE(cudaSuccess == cudaPeekAtLastError());
    REQUIRE(cudaSuccess == cudaDeviceSynchronize());
    REQUIRE(cudaSuccess == error);

    REQUIRE(temp_storage_bytes > 0); // required by API contract

    c2h::device_vector<std::uint8_t> temp_storage(temp_storage_bytes);

    error = action(thrust::raw_pointer_cast(temp_storage.data()), temp_storage_bytes, args...);
    REQUIRE(cudaSuccess == cudaPeekAtLastError());
    REQUIRE(cudaSuccess == cudaDeviceSynchronize());
    REQUIRE(cudaSuccess == error);
  }
}

#define DECLARE_LAUNCH_WRAPPER(API, WRAPPED_API_NAME)                                                                  \
  struct WRAPPED_API_NAME##_invocable_t                                                                                \
  {                                                                                                                    \
    template <class... Ts>                                                                                             \
    cudaError_t operator()(std::uint8_t* d_temp_storage, std::size_t& temp_storage_bytes, Ts... args) const            \
    {                                                                                                                  \
      return API(d_temp_storage, temp_storage_bytes, args...);                                                         \
    }                                                                                                                  \
  };                                                                                                                   \
  [[maybe_unused]] inline constexpr struct WRAPPED_API_NAME##_t                                                        \
  {                                                                                                                    \
    template <class... As>                                                                                             \
    void operator()(As... args) const                                                                                  \
    {                                                                                                                  \
      launch(WRAPPED_API_NAME##_invocable_t{}, args...);                                                               \
    }                                                                                                                  \
  } WRAPPED_API_NAME

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <functional>
#include <type_traits>
#include <unordered_set>
#include <vector>

#include "gpusim/core/id.hpp"
#include "gpusim/sim/cluster.hpp"

using namespace gpusim;

namespace {

using RackId = Id<struct RackTag, uint32_t>;
using RowId = Id<struct RowTag, uint32_t>;
using HallId = Id<struct HallTag, uint16_t>;

template <class A, class B>
constexpr bool comparable = std::is_invocable_v<std::equal_to<>, A, B> || std::is_invocable_v<std::not_equal_to<>, A, B> ||
                            std::is_invocable_v<std::less<>, A, B>;
// No id of one kind becomes an id of another, implicitly or explicitly, nor compares with one.
template <class A, class B>
constexpr bool kinds_kept_apart = !std::is_convertible_v<A, B> && !std::is_convertible_v<B, A> &&
                                  !std::is_constructible_v<A, B> && !std::is_constructible_v<B, A> && !comparable<A, B> &&
                                  !comparable<B, A>;
static_assert(kinds_kept_apart<RackId, RowId>);  // even with the same integer type
static_assert(kinds_kept_apart<RackId, HallId>);
static_assert(!std::is_convertible_v<NodeId, GpuId>);  // gpusim's own kinds:
static_assert(kinds_kept_apart<NodeId, GpuId> && kinds_kept_apart<NodeId, JobId> && kinds_kept_apart<NodeId, PoolId>);
static_assert(kinds_kept_apart<NodeId, BucketId> && kinds_kept_apart<GpuId, JobId> && kinds_kept_apart<GpuId, PoolId>);
static_assert(kinds_kept_apart<GpuId, BucketId> && kinds_kept_apart<JobId, PoolId> && kinds_kept_apart<JobId, BucketId>);
static_assert(kinds_kept_apart<PoolId, BucketId>);
// An integer becomes an id only explicitly; an id reads as its integer, and compares with integers.
static_assert(!std::is_convertible_v<uint32_t, RackId> && std::is_constructible_v<RackId, uint32_t>);
static_assert(std::is_convertible_v<RackId, uint32_t> && std::is_convertible_v<HallId, uint16_t>);
static_assert(comparable<RackId, RackId> && comparable<RackId, std::size_t>);
// Free at run time: the size of its integer, copied as one.
static_assert(sizeof(RackId) == sizeof(uint32_t) && sizeof(HallId) == sizeof(uint16_t));
static_assert(std::is_trivially_copyable_v<RackId> && std::is_trivially_copyable_v<HallId>);

}  // namespace

TEST(Id, ReadsAsItsIntegerForIndexingComparingAndCounting) {
  std::vector<int> per_rack{10, 11, 12};
  RackId r{1};
  EXPECT_EQ(per_rack[r], 11);
  EXPECT_EQ(r.value(), 1u);
  EXPECT_TRUE(r < per_rack.size());
  EXPECT_EQ(r, RackId{1});
  EXPECT_LT(RackId{0}, r);
  EXPECT_EQ(++r, RackId{2});
  EXPECT_EQ(r++, RackId{2});
  EXPECT_EQ(r, RackId{3});
  EXPECT_EQ(--r, RackId{2});
  EXPECT_EQ(r--, RackId{2});
  EXPECT_EQ(r, RackId{1});
  EXPECT_EQ(RackId{}, RackId{0});
  EXPECT_EQ(static_cast<RackId>(std::size_t{7}), RackId{7});  // a count made an id, as static_cast<uint32_t> did
}

TEST(Id, HashesAsItsInteger) {
  EXPECT_EQ(std::hash<RackId>{}(RackId{42}), std::hash<uint32_t>{}(42));
  const std::unordered_set<RackId> seen{RackId{1}, RackId{2}, RackId{1}};
  EXPECT_EQ(seen.size(), 2u);
  EXPECT_TRUE(seen.contains(RackId{2}));
}

TEST(Id, FormatsAndWritesAsItsInteger) {
  EXPECT_EQ(fmt::format("{}", RackId{42}), "42");
  EXPECT_EQ(fmt::format("{}", HallId{65535}), "65535");
  EXPECT_EQ(fmt::format("{:>4}|{:x}", RackId{7}, RowId{255}), "   7|ff");
  EXPECT_EQ(fmt::format("{}", fmt::join(std::vector<RackId>{RackId{1}, RackId{2}}, ",")), "1,2");
  nlohmann::json j;
  j["hall"] = HallId{3};
  j["racks"] = std::vector<RackId>{RackId{1}, RackId{2}};
  EXPECT_EQ(j.dump(), R"({"hall":3,"racks":[1,2]})");
}

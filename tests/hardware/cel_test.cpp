// The CEL subset of DRA selectors (hardware/cel.hpp) and the devices the vendors' DRA drivers publish
// (hardware/dra_devices.hpp): each operator on a device worked by hand.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "gpusim/hardware/cel.hpp"
#include "gpusim/hardware/dra_devices.hpp"

using namespace gpusim;
using cel::Expression;

namespace {

const GpuModel& model(const char* name) { return *Catalog::builtin().find_gpu(name); }

// An A100-SXM4-80GB whole GPU: 81920 MiB = 80Gi, 108 SMs in the catalog, compute capability 8.0.
const cel::Device& a100() {
  static const cel::Device d = whole_gpu_device(model("A100-80GB-SXM"));
  return d;
}

bool eval(std::string_view text, const cel::Device& d = a100()) {
  const Expression::Result r = Expression::compile(text).evaluate(d);
  EXPECT_EQ(r.error, "") << text;
  return r.value;
}

std::string error_of(std::string_view text, const cel::Device& d = a100()) { return Expression::compile(text).evaluate(d).error; }

cel::SyntaxError syntax_error(std::string_view text) {
  try {
    Expression::compile(text);
  } catch (const cel::SyntaxError& e) {
    return e;
  }
  ADD_FAILURE() << "expected a syntax error: " << text;
  return {};
}

}  // namespace

TEST(Cel, QuantitiesParseAsKubernetesDoes) {
  cel::Quantity q;
  ASSERT_TRUE(cel::parse_quantity("40Gi", q));
  EXPECT_EQ(q, cel::Quantity::of(40LL << 30));
  ASSERT_TRUE(cel::parse_quantity("1.5Ki", q));
  EXPECT_EQ(q, cel::Quantity::of(1536));
  ASSERT_TRUE(cel::parse_quantity("40G", q));
  EXPECT_EQ(q, cel::Quantity::of(40'000'000'000));
  ASSERT_TRUE(cel::parse_quantity("500m", q));
  EXPECT_EQ(q, (cel::Quantity{0, 500'000'000}));
  ASSERT_TRUE(cel::parse_quantity("2e3", q));
  EXPECT_EQ(q, cel::Quantity::of(2000));
  ASSERT_TRUE(cel::parse_quantity("-1", q));
  EXPECT_EQ(q, cel::Quantity::of(-1));
  ASSERT_TRUE(cel::parse_quantity("-0.5", q));
  EXPECT_EQ(q, (cel::Quantity{-1, 500'000'000}));  // -1 + 0.5
  EXPECT_LT(cel::Quantity::of(-1), (cel::Quantity{-1, 500'000'000}));
  for (const char* bad : {"", "Gi", "40GB", "4 0", "1.2.3", "40gi", "1e", "--1"})
    EXPECT_FALSE(cel::parse_quantity(bad, q)) << bad;
}

TEST(Cel, DevicesCarryTheDriversAttributesAndCapacities) {
  EXPECT_EQ(a100().driver, "gpu.nvidia.com");
  EXPECT_EQ(std::get<std::string>(a100().attributes.at("productName")), "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(std::get<std::string>(a100().attributes.at("architecture")), "Ampere");
  EXPECT_EQ(std::get<cel::Version>(a100().attributes.at("cudaComputeCapability")), (cel::Version{8, 0, 0}));
  EXPECT_EQ(a100().capacity.at("memory"), cel::Quantity::of(81920LL << 20));
  EXPECT_EQ(gpu_architecture(7.5), "Turing");
  EXPECT_EQ(gpu_architecture(8.9), "Ada Lovelace");
  EXPECT_EQ(gpu_architecture(9.0), "Hopper");
  // A100-80GB MIG 3g.40gb: 40192 MiB, 42 SMs, 3 copy engines; its parent's attributes.
  const MigProfile& p = *model("A100-80GB-SXM").mig->find("3g.40gb");
  const cel::Device mig = mig_device(model("A100-80GB-SXM"), p);
  EXPECT_EQ(std::get<std::string>(mig.attributes.at("type")), "mig");
  EXPECT_EQ(std::get<std::string>(mig.attributes.at("profile")), "3g.40gb");
  EXPECT_EQ(mig.capacity.at("memory"), cel::Quantity::of(40192LL << 20));
  EXPECT_EQ(mig.capacity.at("multiprocessors"), cel::Quantity::of(42));
  EXPECT_FALSE(a100().attributes.contains("profile"));
}

// AMD's DRA driver (ROCm/k8s-gpu-dra-driver, deviceinfo.go): an MI300X is type amdgpu with its product
// name in underscores, family AI and partitionProfile spx_nps1; 192 GiB, 304 CUs of 4 SIMDs each. A CPX
// partition under NPS4 is type amdgpu-partition: 24 GiB, 38 CUs, 152 SIMDs. Intel's Gaudi driver publishes
// model and healthy only.
TEST(Cel, OtherVendorsDevicesAsTheirDriversPublishThem) {
  const cel::Device mi300x = whole_gpu_device(model("MI300X"));
  EXPECT_EQ(mi300x.driver, "gpu.amd.com");
  EXPECT_TRUE(eval(R"(device.attributes["gpu.amd.com"].type == "amdgpu" && )"
                   R"(device.attributes["gpu.amd.com"].productName == "AMD_Instinct_MI300X_OAM" && )"
                   R"(device.attributes["gpu.amd.com"].family == "AI" && )"
                   R"(device.attributes["gpu.amd.com"].partitionProfile == "spx_nps1")",
                   mi300x));
  EXPECT_EQ(mi300x.capacity.at("memory"), cel::Quantity::of(192LL << 30));
  EXPECT_EQ(mi300x.capacity.at("computeUnits"), cel::Quantity::of(304));
  EXPECT_EQ(mi300x.capacity.at("simdUnits"), cel::Quantity::of(1216));
  EXPECT_FALSE(mi300x.capacity.contains("multiprocessors"));
  const cel::Device cpx = mig_device(model("MI300X"), *model("MI300X").mig->find("cpx_nps4"));
  EXPECT_EQ(std::get<std::string>(cpx.attributes.at("type")), "amdgpu-partition");
  EXPECT_EQ(std::get<std::string>(cpx.attributes.at("partitionProfile")), "cpx_nps4");
  EXPECT_EQ(cpx.capacity.at("memory"), cel::Quantity::of(24LL << 30));
  EXPECT_EQ(cpx.capacity.at("computeUnits"), cel::Quantity::of(38));
  EXPECT_EQ(cpx.capacity.at("simdUnits"), cel::Quantity::of(152));
  const cel::Device gaudi = whole_gpu_device(model("Gaudi3"));
  EXPECT_EQ(gaudi.driver, "gaudi.intel.com");
  EXPECT_TRUE(
      eval(R"(device.attributes["gaudi.intel.com"].model == "Gaudi3" && device.attributes["gaudi.intel.com"].healthy)", gaudi));
  EXPECT_EQ(gaudi.attributes.size(), 2u);
  EXPECT_TRUE(gaudi.capacity.empty());
}

TEST(Cel, EachOperator) {
  // Paths and ==, !=.
  EXPECT_TRUE(eval("device.driver == 'gpu.nvidia.com'"));
  EXPECT_TRUE(eval(R"(device.attributes["gpu.nvidia.com"].type == "gpu")"));
  EXPECT_TRUE(eval("device.attributes['gpu.nvidia.com'].productName != 'Tesla T4'"));
  // Ordering on ints and strings ("Ampere" < "Hopper").
  EXPECT_TRUE(eval("1 < 2 && 2 <= 2 && 3 > 2 && 3 >= 3"));
  EXPECT_FALSE(eval("2 < 2"));
  EXPECT_TRUE(eval("device.attributes['gpu.nvidia.com'].architecture < 'Hopper'"));
  // &&, ||, ! and parentheses: ! binds tighter than &&, && tighter than ||.
  EXPECT_TRUE(eval("false && true || true"));
  EXPECT_FALSE(eval("false && (true || true)"));
  EXPECT_TRUE(eval("!false && !(1 == 2)"));
  EXPECT_FALSE(eval("!true || false"));
  // in [list].
  EXPECT_TRUE(eval("device.attributes['gpu.nvidia.com'].architecture in ['Ampere', 'Hopper']"));
  EXPECT_FALSE(eval("device.attributes['gpu.nvidia.com'].architecture in ['Ada Lovelace']"));
  EXPECT_FALSE(eval("1 in []"));
  // Quantities: compareTo, isGreaterThan, isLessThan as Kubernetes' library writes them; 80Gi >= 40Gi.
  EXPECT_TRUE(eval("device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40Gi')) >= 0"));
  EXPECT_TRUE(eval("device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('80Gi')) == 0"));
  EXPECT_TRUE(eval("device.capacity['gpu.nvidia.com'].memory.isGreaterThan(quantity('79Gi'))"));
  EXPECT_FALSE(eval("device.capacity['gpu.nvidia.com'].memory.isLessThan(quantity('80Gi'))"));
  // The documented extension: comparison operators between quantities (and between versions).
  EXPECT_TRUE(eval("device.capacity['gpu.nvidia.com'].memory >= quantity('40Gi')"));
  EXPECT_TRUE(eval("device.capacity['gpu.nvidia.com'].multiprocessors > quantity('100')"));
  EXPECT_TRUE(eval("device.attributes['gpu.nvidia.com'].cudaComputeCapability >= semver('8.0.0')"));
  EXPECT_TRUE(eval("device.attributes['gpu.nvidia.com'].cudaComputeCapability.isLessThan(semver('9.0.0'))"));
  // has(), string methods, negative integers.
  EXPECT_FALSE(eval("has(device.attributes['gpu.nvidia.com'].profile)"));
  EXPECT_TRUE(eval("has(device.capacity['gpu.nvidia.com'].memory)"));
  EXPECT_TRUE(eval("device.attributes['gpu.nvidia.com'].productName.lowerAscii().contains('a100')"));
  EXPECT_TRUE(eval("device.attributes['gpu.nvidia.com'].productName.startsWith('NVIDIA') && 'x'.endsWith('x')"));
  EXPECT_TRUE(eval("-3 < 0"));
}

TEST(Cel, ErrorsAreNeitherTrueNorFalse) {
  // A missing attribute is an error, as in Kubernetes, unless the other side of && or || decides.
  EXPECT_NE(error_of("device.attributes['gpu.nvidia.com'].profile == '1g.10gb'"), "");
  EXPECT_FALSE(
      eval("device.attributes['gpu.nvidia.com'].type == 'mig' && device.attributes['gpu.nvidia.com'].profile == '1g.10gb'"));
  EXPECT_FALSE(eval("device.attributes['gpu.nvidia.com'].profile == '1g.10gb' && false"));
  EXPECT_TRUE(eval("device.attributes['gpu.nvidia.com'].profile == '1g.10gb' || true"));
  // Another domain, a type mismatch, a non-bool result.
  EXPECT_NE(error_of("device.attributes['dra.example.com'].model == 'x'"), "");
  EXPECT_EQ(error_of("device.capacity['gpu.nvidia.com'].memory >= 42"), "cannot compare a quantity with an int");
  EXPECT_EQ(error_of("1"), "a selector must evaluate to a bool, got an int");
  EXPECT_EQ(error_of("!1"), "! needs a bool, got an int");
  EXPECT_NE(error_of("'a'.compareTo('b') == 0"), "");
}

TEST(Cel, MalformedExpressionsNameTheColumn) {
  cel::SyntaxError e = syntax_error("device.driver ==");
  EXPECT_EQ(e.column, 17);
  EXPECT_EQ(e.message, "expected device, a literal (string, integer, true, false), quantity(\"...\"), semver(\"...\"), has(...) "
                       "or '(', got the end");
  e = syntax_error("device.drivr == 'x'");
  EXPECT_EQ(e.column, 8);
  EXPECT_EQ(e.message, "expected driver, attributes or capacity after device., got 'drivr'");
  e = syntax_error("device.capacity['gpu.nvidia.com'].memory >= quantity('40GB')");
  EXPECT_EQ(e.column, 54);
  EXPECT_EQ(e.message, "expected a Kubernetes quantity such as \"40Gi\", \"500m\" or \"98\"");
  EXPECT_EQ(syntax_error("(1 == 1").message, "expected ')', got the end");
  EXPECT_EQ(syntax_error("1 == 1 2").column, 8);
  EXPECT_EQ(syntax_error("'open").message, "expected a closing ' for this string");
  EXPECT_EQ(syntax_error("1 = 1").column, 3);
  EXPECT_EQ(syntax_error("device.driver.size() > 1").message.substr(0, 19), "expected a method (");
  EXPECT_EQ(syntax_error("x == 1").column, 1);
}

// Hostile selectors (issue 42) are refused, not recursed into: longer than Kubernetes' 10 KiB, or
// nested past 100 levels (parentheses, !, a chain of methods). A long flat chain of && or || within the
// length is a balanced tree: shallow, and worth what the chain is worth.
TEST(Cel, HostileSelectorsAreRefusedByLengthAndNesting) {
  EXPECT_EQ(syntax_error(std::string(5000, '(') + "true" + std::string(5000, ')')).message,
            "expected at most 100 levels of nesting (parentheses, !, method calls)");
  EXPECT_EQ(syntax_error(std::string(5000, '(')).message,
            "expected at most 100 levels of nesting (parentheses, !, method calls)");
  EXPECT_EQ(syntax_error(std::string(200, '!') + "true").column, 101);
  std::string methods = "'a'";
  for (int i = 0; i < 150; ++i) methods += ".lowerAscii()";
  EXPECT_NE(syntax_error(methods + " == 'a'").message.find("levels of nesting"), std::string::npos);
  std::string chain = "true";
  for (int i = 0; i < 30'000; ++i) chain += " && true";
  EXPECT_EQ(syntax_error(chain).message,
            fmt::format("expected at most 10240 characters (Kubernetes' limit on a selector), got {}", chain.size()));
  // Within the length: 1,200 terms evaluate as the chain does, the last one deciding.
  std::string ands = "true", ors = "false";
  for (int i = 0; i < 1199; ++i) {
    ands += i == 1198 ? "&&false" : "&&true";
    ors += i == 1198 ? "||true" : "||false";
  }
  ASSERT_LE(ors.size(), 10u * 1024);
  EXPECT_FALSE(eval(ands));
  EXPECT_TRUE(eval(ors));
  // 100 levels are allowed.
  EXPECT_TRUE(eval(std::string(99, '(') + "true" + std::string(99, ')')));
}

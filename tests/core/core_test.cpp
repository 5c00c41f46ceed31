#include <fmt/format.h>
#include <gtest/gtest.h>

#include <set>
#include <utility>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "gpusim/core/ascii.hpp"
#include "gpusim/core/chunked_set.hpp"
#include "gpusim/core/config.hpp"
#include "gpusim/core/enum_table.hpp"
#include "gpusim/core/fields.hpp"
#include "gpusim/core/number.hpp"
#include "gpusim/core/paged_vector.hpp"
#include "gpusim/core/random.hpp"
#include "gpusim/core/step_series.hpp"
#include "gpusim/core/time.hpp"
#include "gpusim/core/utf8.hpp"
#include "gpusim/core/yaml_documents.hpp"

using namespace gpusim;

namespace {

enum class Fruit : uint8_t { apple, blood_orange, kiwi };
constexpr auto enum_table(Fruit) {
  return std::to_array<EnumName<Fruit>>({{Fruit::apple, "apple"}, {Fruit::blood_orange, "blood-orange"}, {Fruit::kiwi, "kiwi"}});
}

}  // namespace

// Only A-Z and a-z change case: other bytes, a UTF-8 name's included, pass through.
TEST(Ascii, ChangesTheCaseOfLettersOnly) {
  EXPECT_EQ(ascii_lower("NVIDIA-H100_80GB"), "nvidia-h100_80gb");
  EXPECT_EQ(ascii_upper("cpx_nps4"), "CPX_NPS4");
  EXPECT_EQ(ascii_lower("GPU \xc3\x9c"), "gpu \xc3\x9c");  // U+00DC stays as it is
  EXPECT_TRUE(ascii_iequal("Llama-3.1-8B", "llama-3.1-8b"));
  EXPECT_FALSE(ascii_iequal("llama-3.1-8b", "llama-3.1-8"));
  EXPECT_FALSE(ascii_iequal("a@", "a`"));  // neighbours of the letters are not letters
}

TEST(Time, ParsesEveryUnitAndBareSeconds) {
  EXPECT_EQ(parse_duration("90").us(), 90'000'000);
  EXPECT_EQ(parse_duration("90s").us(), 90'000'000);
  EXPECT_EQ(parse_duration("250ms").us(), 250'000);
  EXPECT_EQ(parse_duration("30m").us(), 1'800'000'000);
  EXPECT_EQ(parse_duration("2h").us(), 7'200'000'000);
  EXPECT_EQ(parse_duration("1.5h").us(), 5'400'000'000);
  EXPECT_EQ(parse_duration("30d").us(), 30LL * 86400 * 1'000'000);
  EXPECT_EQ(parse_duration("730h").hours(), 730.0);
}

TEST(Time, RejectsWhatIsNotADurationAndSaysWhatItExpected) {
  for (const char* bad : {"", "abc", "5 parsecs", "h", "1e400"}) {
    try {
      parse_duration(bad);
      ADD_FAILURE() << bad;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("\"30m\""), std::string::npos) << e.what();
    }
  }
}

// kMaxSpan bounds every time an input gives: three of them added stay far inside int64 microseconds.
TEST(Time, DurationsStayWithinTheMaximumSpan) {
  EXPECT_EQ(parse_duration("36500d"), kMaxSpan);
  EXPECT_EQ(kMaxSpan.us(), 3'153'600'000'000'000);
  EXPECT_LT(3 * static_cast<double>(kMaxSpan.us()), static_cast<double>(Time::max().us()) / 900);
  for (const char* bad : {"36500.001d", "-10h", "-1us", "1e31", "9e18us"}) {
    try {
      parse_duration(bad);
      ADD_FAILURE() << bad;
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()), fmt::format("expected a duration from 0 to 100 years (3153600000 s), got \"{}\"", bad));
    }
  }
  // A wait drawn from a tiny rate is kept at kMaxSpan, past any horizon, instead of wrapping.
  EXPECT_EQ(sampled_wait(1e300), kMaxSpan);
  EXPECT_EQ(sampled_wait(2.0), Duration::from_seconds(7200));
}

// One reader for every number: finite, whole where it must be, inside its range, named in the message.
TEST(Number, ParsesCheckedNumbersAndSaysTheRange) {
  EXPECT_EQ(parse_integer("-12"), -12);
  EXPECT_EQ(parse_integer("4294967297"), 4294967297);
  EXPECT_EQ(parse_number("1.5e3", Range::between(0, 2000)), 1500);
  EXPECT_EQ(parse_whole("2951.0", Range::at_least(0)), 2951);
  const auto message = [](auto parse) {
    try {
      parse();
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message([] { parse_integer("12.0"); }), "expected an integer, got '12.0'");
  EXPECT_EQ(message([] { parse_integer("4294967297", Range::of<int32_t>()); }),
            "expected an integer in -2147483648..2147483647, got 4294967297");
  EXPECT_EQ(message([] { parse_integer("99999999999999999999", Range::at_least(1)); }),
            "expected a positive integer, got 99999999999999999999");
  EXPECT_EQ(message([] { parse_integer("-2", Range::at_least(0)); }), "expected an integer >= 0, got -2");
  for (const char* bad : {"nan", "inf", "-inf", "1e400", "", "1,5"})
    EXPECT_EQ(message([&] { parse_number(bad, Range::between(0, 1)); }), fmt::format("expected a number in 0..1, got '{}'", bad));
  EXPECT_EQ(message([] { parse_number("1e308", Range::between(0, 1)); }), "expected a number in 0..1, got 1e308");
  EXPECT_EQ(message([] { parse_number("0", {Bound(0, true), Bound(1)}); }), "expected a number > 0 and <= 1, got 0");
  EXPECT_EQ(message([] { parse_whole("2.5"); }), "expected a whole number, got '2.5'");
  EXPECT_EQ(message([] { parse_whole("1e19"); }), "expected an integer, got 1e19");
  EXPECT_FALSE(Range::between(0, 1).contains(std::nan("")));
  EXPECT_TRUE(Range::between(0, 100).fits<int32_t>());
  EXPECT_FALSE(Range::at_least(0).fits<int32_t>());
  EXPECT_TRUE(Range::at_least(0).fits<int64_t>());
}

// Kubernetes' resource.Quantity grammar (apimachinery quantity.go): a sign, digits with a fraction,
// then a binary suffix, a decimal one (n, u, m, "", k, M, G, T, P, E) or a decimal exponent.
TEST(Number, ReadsKubernetesQuantities) {
  const std::vector<std::pair<const char*, double>> valid{
      {"8", 8},        {"500m", 0.5}, {"100u", 1e-4},   {"1n", 1e-9},  {"+1", 1},       {"-2", -2},
      {"1.5", 1.5},    {".5", 0.5},   {"2k", 2000},     {"1E", 1e18},  {"1e3", 1000},   {"1E3", 1000},
      {"2e-3", 0.002}, {"1e+2", 100}, {"64Gi", 0x1p36}, {"1Ki", 1024}, {"1Ei", 0x1p60}, {"3P", 3e15}};
  for (const auto& [text, value] : valid) EXPECT_DOUBLE_EQ(parse_quantity(text), value) << text;
  const auto message = [](const char* text, const Range& range) {
    try {
      parse_quantity(text, range);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("100x", {}), "'100x' has the suffix 'x', which is not a Kubernetes quantity's: expected an exponent "
                                 "(1e3) or one of n, u, m, k, M, G, T, P, E, Ki, Mi, Gi, Ti, Pi, Ei");
  EXPECT_NE(message("1e", {}).find("'1e' has the suffix 'e'"), std::string::npos);
  for (const char* bad : {"", "m", "abc", "1.2.3", "--1", "1e999"})
    EXPECT_NE(message(bad, {}).find("expected a Kubernetes quantity"), std::string::npos) << bad;
  EXPECT_EQ(message("1e18", Range::between(0, 1e6)), "expected a number in 0..1000000, got 1e18");
  EXPECT_EQ(message("-1", Range::between(0, 1e6)), "expected a number in 0..1000000, got -1");
}

// Every YAML reader goes through yaml_documents: yaml-cpp 0.7's LoadAll would loop until memory ran
// out on "{}, x", and its Load would keep the first document and drop what follows.
TEST(Config, YamlTextIsReadWholeOrRefused) {
  EXPECT_EQ(yaml_documents("a: 1\n---\nb: 2\n---\n", "f.yaml").size(), 3u);
  EXPECT_EQ(yaml_document("a: 1\n---\n", "f.yaml")["a"].as<int>(), 1);  // an empty document after it holds nothing
  EXPECT_TRUE(yaml_document("", "f.yaml").IsNull());
  const auto refused = [](const std::string& text) {
    try {
      yaml_document(text, "f.yaml");
    } catch (const InputError& e) {
      return fmt::format("line {}: {}", e.where().line.value_or(0), e.reason());
    }
    return std::string("accepted");
  };
  for (const char* stray : {"{}, x", "[], \"x\"", ",", "{a: 1}, {b: 2}"})
    EXPECT_EQ(refused(stray), "line 1: not valid YAML or JSON: a ',', ']' or '}' outside any list or map") << stray;
  EXPECT_EQ(refused("a: 1\n---\nb: 2\n"),
            "line 3: expected one YAML document; another begins here (a second '---', or text after the first document's "
            "closing bracket)");
  EXPECT_EQ(refused("a: " + std::string(5000, '[') + std::string(5000, ']')),
            "line 1: not valid YAML or JSON: lists and maps nested more than 2000 levels deep (the YAML reader's limit)");
}

// A config value read into a narrower type needs a range inside it; the declaration gives it, so
// the schema states what the reader checks.
TEST(Config, NumbersAreReadInTheirDeclaredRange) {
  const auto doc = ConfigNode::parse("sms: 4294967296\nrate: 1e-3\nbig: 9000000000\n", "x.yaml");
  EXPECT_THROW(doc.at("sms").as_int<int32_t>(), std::logic_error);
  EXPECT_EQ(doc.at("big").as_int(), 9'000'000'000);
  const Section s{"t",
                  "test",
                  {{"sms", Type::int32().at_least(1), required, "", "SMs"},
                   {"rate", Type::number().above(0), required, "", "A rate"},
                   {"big", Type::integer().at_least(0), required, "", "A count"}}};
  const Fields f = s.read(doc);
  EXPECT_EQ(f.number("rate"), 1e-3);
  EXPECT_EQ(f.integer("big"), 9'000'000'000);
  try {
    f.integer<int32_t>("sms");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "x.yaml:line 1: sms: expected an integer in 1..2147483647, got 4294967296");
  }
  const Json schema = json_schema(s, "t");
  EXPECT_EQ(schema["properties"]["sms"]["maximum"], 2147483647);
  EXPECT_EQ(schema["properties"]["rate"]["exclusiveMinimum"], 0);
}

TEST(Time, FormatsSecondsExactly) {
  EXPECT_EQ(format_seconds(Time::from_us(12'500'000)), "12.5");
  EXPECT_EQ(format_seconds(Time::from_seconds(3600)), "3600");
  EXPECT_EQ(format_seconds(Time::from_us(1)), "0.000001");
  EXPECT_EQ(format_seconds(Time::from_us(-500'000)), "-0.5");
  EXPECT_EQ(format_seconds(Duration::from_us(90'250'000)), "90.25");
}

// Instants and lengths: an instant minus an instant is a length; an instant plus a length is an instant.
TEST(Time, InstantsAndDurationsCombineByType) {
  const Time t = Time::from_seconds(100);
  const Duration d = Duration::from_seconds(30);
  EXPECT_EQ(t + d, Time::from_seconds(130));
  EXPECT_EQ(t - d, Time::from_seconds(70));
  EXPECT_EQ((t + d) - t, d);
  EXPECT_EQ(d + d - Duration::from_us(1), Duration::from_us(59'999'999));
  EXPECT_EQ(d * 3, Duration::from_seconds(90));
  EXPECT_EQ(Duration::from_seconds(5400).hours(), 1.5);
  EXPECT_EQ(Duration::from_us(250'000).seconds(), 0.25);
}

// Each rounding is what the sites that use it always did: std::llround, a static_cast, std::ceil.
TEST(Time, FractionalSecondsAndHoursRoundAsAsked) {
  EXPECT_EQ(Duration::from_seconds(1.0000005, Round::nearest).us(), std::llround(1.0000005 * 1e6));
  EXPECT_EQ(Duration::from_seconds(2.5e-6, Round::nearest).us(), 3);  // half away from zero
  EXPECT_EQ(Duration::from_seconds(2.9e-6, Round::toward_zero).us(), 2);
  EXPECT_EQ(Duration::from_seconds(-2.9e-6, Round::toward_zero).us(), -2);
  EXPECT_EQ(Duration::from_seconds(2.1e-6, Round::up).us(), 3);
  EXPECT_EQ(Duration::from_hours(1.0 / 3.6e9 + 1e-12, Round::up).us(), 2);
  EXPECT_EQ(Duration::from_hours(0.5, Round::nearest), Duration::from_seconds(1800));
}

// round_nearest is std::llround: halves away from zero, on either side of every boundary it has.
TEST(Time, RoundNearestIsLlround) {
  std::vector<double> xs;
  for (double x : {0.0, 0.5, 1.5, 2.5, 0.49999999999999994, 1e15 + 0.5, 0x1p52 - 0.5, 0x1p52, 0x1p52 + 1, 0x1p53 + 2, 0x1p60})
    xs.insert(xs.end(), {x, -x});
  Rng rng(7);
  for (int i = 0; i < 100000; ++i) {
    const double x = std::ldexp(uniform01(rng), static_cast<int>(rng() % 60)) - (i % 2 ? 0.0 : 1e6);
    xs.push_back(x);
    xs.push_back(std::floor(x) + 0.5);  // a half
    xs.push_back(std::nextafter(std::floor(x) + 0.5, 0.0));
  }
  for (double x : xs) EXPECT_EQ(round_nearest(x), std::llround(x)) << fmt::format("{:a}", x);
}

// GPU time is fractional: GPUs (or a busy fraction) times a length, summed exactly in doubles.
TEST(Time, GpuTimeIntegratesCountsOverLengths) {
  GpuTime t = GpuTime::of(Duration::from_seconds(1800), 4);  // 4 GPUs for half an hour
  t += GpuTime::of(Duration::from_seconds(3600), 0.5);       // half a GPU busy for an hour
  EXPECT_EQ(t.hours(), 2.5);
  EXPECT_EQ(t.seconds(), 9000.0);
  EXPECT_EQ((t - GpuTime::from_us(1.8e9)).hours(), 2.0);
  EXPECT_EQ((t * 2).us(), 1.8e10);
  EXPECT_LT(GpuTime(), t);
}

TEST(Random, StreamsAreIndependentAndReproducible) {
  Rng a1 = make_stream(42, "arrivals"), a2 = make_stream(42, "arrivals"), b = make_stream(42, "spot");
  EXPECT_EQ(a1(), a2());
  EXPECT_NE(stream_seed(42, "arrivals"), stream_seed(42, "spot"));
  EXPECT_NE(stream_seed(42, "arrivals"), stream_seed(43, "arrivals"));
  const double u = uniform01(b);
  EXPECT_GE(u, 0.0);
  EXPECT_LT(u, 1.0);
}

TEST(Config, ErrorsNameFileLineAndField) {
  const auto doc = ConfigNode::parse("a:\n  b: 3\n  c: nope\n", "x.yaml");
  EXPECT_EQ(doc.at("a").at("b").as_positive_int(), 3);
  try {
    doc.at("a").at("c").as_int();
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "x.yaml:line 3: a.c: expected an integer, got 'nope'");
  }
  try {
    doc.at("a").allow_only({"b"});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown field 'c'; expected one of: b"), std::string::npos) << e.what();
  }
}

TEST(EnumTable, OneTableNamesParsesCountsAndListsTheChoices) {
  static_assert(enum_count<Fruit> == 3);
  static_assert(to_string(Fruit::blood_orange) == "blood-orange");
  static_assert(parse_enum<Fruit>("kiwi") == Fruit::kiwi);
  EXPECT_EQ(parse_enum<Fruit>("blood_orange"), std::nullopt);
  EXPECT_EQ(parse_enum<Fruit>(""), std::nullopt);
  EXPECT_EQ(enum_choices<Fruit>(), "apple, blood-orange, kiwi");
  EXPECT_EQ(enum_choices<Fruit>(" or "), "apple, blood-orange or kiwi");
  EXPECT_EQ(enum_choices({Fruit::kiwi, Fruit::apple}, " or "), "kiwi or apple");
  EXPECT_EQ(enum_choices({Fruit::kiwi}), "kiwi");
}

TEST(EnumTable, ConfigFieldsNameAValueOrListTheChoices) {
  const auto doc = ConfigNode::parse("a: blood-orange\nb: pear\nc: {apple: 1, pear: 2}\n", "x.yaml");
  EXPECT_EQ(doc.at("a").as_enum<Fruit>(), Fruit::blood_orange);
  const auto error = [&](auto read) {
    try {
      read();
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error([&] { doc.at("b").as_enum<Fruit>(); }),
            "x.yaml:line 2: b: expected one of apple, blood-orange, kiwi, got 'pear'");
  EXPECT_EQ(error([&] { doc.at("b").as_enum<Fruit>(" or "); }),
            "x.yaml:line 2: b: expected apple, blood-orange or kiwi, got 'pear'");
  EXPECT_EQ(error([&] { doc.at("c").allow_only(enum_names<Fruit>); }),
            "x.yaml:line 3: c.pear: unknown field 'pear'; expected one of: apple, blood-orange, kiwi");
}

namespace {

const Section& basket_section() {
  static const Section s{"basket",
                         "A fruit basket",
                         {
                             {"fruit", Type::enumeration<Fruit>(), "kiwi", "", "What it holds"},
                             {"count", Type::integer().at_least(1), required, "", "How many"},
                             {"weight", Type::number().above(0).at_most(20), "", "kg", "Its weight"},
                             {"ripening", Type::duration(), "3d", "", "Time to ripe"},
                         }};
  return s;
}

}  // namespace

TEST(Fields, TheDeclarationListsTheFieldsChecksReadsAndGivesDefaults) {
  const auto doc = ConfigNode::parse("a: {count: 2}\nb: {count: 1, colour: red}\n", "x.yaml");
  const Fields a = basket_section().read(doc.at("a"));
  EXPECT_EQ(a.at("count").as_positive_int(), 2);
  EXPECT_EQ(a.value("fruit").as_enum<Fruit>(), Fruit::kiwi);
  EXPECT_EQ(a.value("ripening").as_duration().seconds(), 3 * 86400.0);
  // A default has no line: it is not in the file.
  EXPECT_EQ(a.value("fruit").where().line, std::nullopt);
  EXPECT_EQ(a.value("fruit").path(), "a.fruit");
  EXPECT_THROW(a.get("colour"), std::logic_error);  // not declared: a reader's bug
  // No default: the reader asks for it because other fields make it needed, so it is missing input.
  EXPECT_THROW(a.value("weight"), InputError);
  try {
    basket_section().read(doc.at("b"));
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "x.yaml:line 2: b.colour: unknown field 'colour'; expected one of: fruit, count, weight, ripening");
  }
}

TEST(Fields, TheSchemaComesFromTheDeclaration) {
  const Section top{"top", "Baskets", {{"baskets", Type::list(Type::section(basket_section())), required, "", "The baskets"}}};
  const Json schema = json_schema(top, "baskets");
  EXPECT_EQ(schema["$schema"], "https://json-schema.org/draft/2020-12/schema");
  EXPECT_EQ(schema["required"], Json::array({"baskets"}));
  EXPECT_EQ(schema["properties"]["baskets"]["items"]["$ref"], "#/$defs/basket");
  const Json& basket = schema["$defs"]["basket"];
  EXPECT_EQ(basket["additionalProperties"], false);
  EXPECT_EQ(basket["required"], Json::array({"count"}));
  EXPECT_EQ(basket["properties"]["fruit"], Json::parse(R"({"description": "What it holds",
                                                            "enum": ["apple", "blood-orange", "kiwi"], "default": "kiwi"})"));
  EXPECT_EQ(basket["properties"]["count"]["minimum"], 1);
  EXPECT_EQ(basket["properties"]["weight"], Json::parse(R"j({"description": "Its weight (kg)", "type": "number",
                                                               "exclusiveMinimum": 0, "maximum": 20})j"));
  EXPECT_EQ(basket["properties"]["ripening"]["$ref"], "#/$defs/duration");
  EXPECT_EQ(basket["properties"]["ripening"]["default"], "3d");
  EXPECT_TRUE(schema["$defs"].contains("duration"));
}

// Well-formed UTF-8 as the Unicode standard defines it (table 3-7): each case names the first bad byte.
TEST(Utf8, FindsTheFirstByteThatIsNotWellFormed) {
  using gpusim::first_invalid_utf8;
  EXPECT_EQ(first_invalid_utf8("plain ascii"), std::nullopt);
  EXPECT_EQ(first_invalid_utf8("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x9A\x80"), std::nullopt);  // é, €, a rocket
  EXPECT_EQ(first_invalid_utf8("caf\xE9"), 3u);                                              // Latin-1 é
  EXPECT_EQ(first_invalid_utf8("ab\xC0\xAF"), 2u);                                           // overlong '/'
  EXPECT_EQ(first_invalid_utf8("\xED\xA0\x80"), 0u);                                         // a UTF-16 surrogate
  EXPECT_EQ(first_invalid_utf8("x\xF4\x90\x80\x80"), 1u);                                    // past U+10FFFF
  EXPECT_EQ(first_invalid_utf8("\xE2\x82"), 0u);                                             // cut short
  EXPECT_EQ(first_invalid_utf8(std::string_view("a\0b", 3)), std::nullopt);
}

// Long ASCII runs are read eight bytes at a time: a sequence anywhere in or after such a run, or cut
// short by the end of the text, is judged as byte by byte.
TEST(Utf8, JudgesSequencesWithinAndAfterLongAsciiRuns) {
  using gpusim::first_invalid_utf8;
  for (std::size_t at = 0; at < 20; ++at) {
    const std::string ascii(at, 'x');
    EXPECT_EQ(first_invalid_utf8(ascii + "\xE9" + std::string(17, 'y')), at) << at;
    EXPECT_EQ(first_invalid_utf8(ascii + "\xC3\xA9" + std::string(17, 'y')), std::nullopt) << at;
    EXPECT_EQ(first_invalid_utf8(ascii + "\xC3\xA9" + std::string(9, 'y') + "\xFF"), at + 11) << at;
    EXPECT_EQ(first_invalid_utf8(ascii + "\xE2\x82"), at) << at;  // cut short at the end
  }
}

// A YAML alias names a node again: nested aliases ("billion laughs") would make readers walk billions of
// values, so parse counts the values through aliases (once per distinct node) and refuses a document
// whose aliases add more than a million; a few repeated blocks are fine.
TEST(Config, NestedAliasesAreRefusedWhenTheDocumentIsRead) {
  std::string text = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i <= 12; ++i)
    text += fmt::format("a{0}: &a{0} [*a{1}, *a{1}, *a{1}, *a{1}, *a{1}, *a{1}, *a{1}, *a{1}, *a{1}, *a{1}]\n", i, i - 1);
  try {
    ConfigNode::parse(text, "laughs.yaml");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().file, "laughs.yaml");
    EXPECT_EQ(e.where().field, "a5");  // 1,111,111 values: the first level over the limit
    EXPECT_NE(std::string(e.what()).find("aliases (*name) repeat this block"), std::string::npos) << e.what();
  }
  const auto doc = ConfigNode::parse("base: &b {gpus: 1, duration: 1h}\njobs: [*b, *b, *b]\n", "ok.yaml");
  EXPECT_EQ(doc.at("jobs").items().size(), 3u);
}

// YAML merge keys: a map takes the entries of the maps it merges (<<: *anchor, or a list of them, the
// earlier first) where it does not give the key itself; the merged values are copies, so that a change
// to one map's value leaves the others'. A merge of anything but maps is refused where it is written.
TEST(Config, MergeKeysFillInAMapsMissingKeys) {
  const auto doc = ConfigNode::parse("jobs:\n"
                                     "  - &base {name: a, gpus: 1, duration: 1h, kind: training}\n"
                                     "  - <<: *base\n"
                                     "    name: b\n"
                                     "  - {<<: [{gpus: 4, tenant: x}, *base], name: c}\n",
                                     "merge.yaml");
  const auto jobs = doc.at("jobs").items();
  ASSERT_EQ(jobs.size(), 3u);
  EXPECT_EQ(jobs[1].at("name").as_string(), "b");
  EXPECT_EQ(jobs[1].at("duration").as_string(), "1h");
  EXPECT_FALSE(jobs[1].has("<<"));
  EXPECT_EQ(jobs[2].at("gpus").as_string(), "4");  // the earlier merged map wins
  EXPECT_EQ(jobs[2].at("tenant").as_string(), "x");
  EXPECT_EQ(jobs[2].at("kind").as_string(), "training");
  YAML::Node b = jobs[1].yaml();
  b["kind"] = "batch";
  EXPECT_EQ(jobs[0].at("kind").as_string(), "training");
  std::string msg;
  try {
    ConfigNode::parse("a: {<<: 3, b: 1}\n", "bad.yaml");
  } catch (const InputError& e) {
    msg = e.what();
  }
  EXPECT_NE(msg.find("bad.yaml:line 1: <<: a merge key takes a map or a list of maps"), std::string::npos) << msg;
}

// Reads of elements never written are the fill value and allocate nothing; a write allocates the
// one page that holds it, and written elements stay where they are as it grows.
TEST(PagedVector, AllocatesOnlyThePagesWrittenTo) {
  PagedVector<int64_t> v(1'000'000, -1);
  const auto& read = v;
  EXPECT_EQ(v.size(), 1'000'000u);
  EXPECT_EQ(read[999'999], -1);
  EXPECT_EQ(v.pages_allocated(), 0u);
  v[5] = 7;
  int64_t& kept = v[999'999];
  kept = 9;
  EXPECT_EQ(v.pages_allocated(), 2u);
  EXPECT_EQ(read[6], -1);  // the rest of a written page is filled
  v.resize(2'000'000);
  EXPECT_EQ(&v[999'999], &kept);
  EXPECT_EQ(read[1'500'000], -1);
  const PagedVector<int64_t> copy = v;
  v[5] = 8;
  EXPECT_EQ(copy[5], 7);
  EXPECT_EQ(copy[999'999], 9);
  EXPECT_EQ(copy.pages_allocated(), 2u);
}

// The same contents, order, smallest and k-th elements as a sorted set, through splits and merges
// of its chunks (random inserts and erases, the set growing past many chunks and shrinking to none).
TEST(ChunkedSet, BehavesAsASortedSet) {
  ChunkedSet<uint32_t, 8> s;
  std::set<uint32_t> ref;
  Rng rng = make_stream(1, "chunked-set");
  for (int step = 0; step < 20'000; ++step) {
    const auto v = static_cast<uint32_t>(uniform01(rng) * 300);
    const bool grow = step < 10'000 ? uniform01(rng) < 0.7 : uniform01(rng) < 0.3;
    if (grow) ASSERT_EQ(s.insert(v), ref.insert(v).second);
    else ASSERT_EQ(s.erase(v), ref.erase(v) == 1);
    ASSERT_EQ(s.size(), ref.size());
    if (step % 97 != 0) continue;
    ASSERT_TRUE(std::equal(s.begin(), s.end(), ref.begin(), ref.end()));
    if (ref.empty()) continue;
    EXPECT_EQ(s.front(), *ref.begin());
    const auto k = static_cast<std::size_t>(uniform01(rng) * static_cast<double>(ref.size()));
    EXPECT_EQ(s.nth(k), *std::next(ref.begin(), static_cast<std::ptrdiff_t>(k)));
  }
  for (uint32_t v = 0; v < 300; ++v) s.erase(v);
  EXPECT_TRUE(s.empty());
  EXPECT_EQ(s.begin(), s.end());
}

TEST(StepSeries, IntegratesStepsAndRepeats) {
  const auto h = [](int64_t n) { return Duration::from_seconds(n * 3600); };
  // A day of three 8-hour steps: 100, 300, 200 (its mean 200); each day repeats it.
  const StepSeries day({h(0), h(8), h(16)}, {100, 300, 200}, h(24));
  EXPECT_DOUBLE_EQ(day.integral(Time() + h(24)), 600.0 * 8 * 3600);
  EXPECT_DOUBLE_EQ(day.integral(Time() + h(30)), 600.0 * 8 * 3600 + 100.0 * 6 * 3600);
  EXPECT_DOUBLE_EQ(day.at(Time() + h(33)), 300);
  EXPECT_DOUBLE_EQ(day.mean(), 200);
  // The run's time 0 at 10:00: 4 h at 300, then 6 h at 300 and 4 h at 200.
  const StepSeries late({h(0), h(8), h(16)}, {100, 300, 200}, h(24), h(10));
  EXPECT_DOUBLE_EQ(late.at(Time()), 300);
  EXPECT_DOUBLE_EQ(late.integral(Time() + h(4)), 300.0 * 4 * 3600);
  EXPECT_DOUBLE_EQ(late.integral(Time() + h(10)), 300.0 * 6 * 3600 + 200.0 * 4 * 3600);
  EXPECT_DOUBLE_EQ(StepSeries::constant(400).integral(Time() + h(2)), 400.0 * 7200);
  EXPECT_EQ(day.next_change(Time() + h(3)), Time() + h(8));
  EXPECT_EQ(day.next_change(Time() + h(20)), Time() + h(24));  // the day's end: it repeats
  EXPECT_EQ(late.next_change(Time()), Time() + h(6));          // 10:00 -> 16:00
  EXPECT_EQ(StepSeries::constant(400).next_change(Time()), Time::max());
  EXPECT_THROW(StepSeries({h(1)}, {1}, h(2)), std::invalid_argument);           // the first step must start at 0
  EXPECT_THROW(StepSeries({h(0), h(3)}, {1, 2}, h(2)), std::invalid_argument);  // the period ends before a start
}

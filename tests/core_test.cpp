#include <fmt/format.h>
#include <gtest/gtest.h>

#include "gpusim/core/config.hpp"
#include "gpusim/core/enum_table.hpp"
#include "gpusim/core/fields.hpp"
#include "gpusim/core/random.hpp"
#include "gpusim/core/time.hpp"
#include "gpusim/core/utf8.hpp"

using namespace gpusim;

namespace {

enum class Fruit : uint8_t { apple, blood_orange, kiwi };
constexpr auto enum_table(Fruit) {
  return std::to_array<EnumName<Fruit>>({{Fruit::apple, "apple"}, {Fruit::blood_orange, "blood-orange"}, {Fruit::kiwi, "kiwi"}});
}

}  // namespace

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
  EXPECT_THROW(a.get("colour"), std::logic_error);    // not declared: a reader's bug
  EXPECT_THROW(a.value("weight"), std::logic_error);  // declares no default
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

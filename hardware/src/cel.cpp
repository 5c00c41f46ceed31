#include "gpusim/hardware/cel.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <span>

#include "gpusim/core/ascii.hpp"

namespace gpusim::cel {

__extension__ using Int128 = __int128;  // exact nano-units of a quantity up to ~1.7e29 units

namespace {

constexpr Int128 kNanosPerUnit = 1'000'000'000;
constexpr Int128 kLimit = Int128{1} << 120;  // stop before Int128 can overflow

bool digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

}  // namespace

// apimachinery resource.ParseQuantity: <sign><digits>[.<digits>]<suffix>, the suffix a binary SI
// (Ki .. Ei), decimal SI (n u m "" k M G T P E) or decimal exponent (e3, E-2) one.
bool parse_quantity(std::string_view text, Quantity& out) {
  std::size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
  std::size_t start = i;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  std::string_view whole = text.substr(start, i - start), fraction;
  if (i < text.size() && text[i] == '.') {
    start = ++i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
    fraction = text.substr(start, i - start);
  }
  if (whole.empty() && fraction.empty()) return false;
  const std::string_view suffix = text.substr(i);
  int exponent10 = -static_cast<int>(fraction.size()), exponent2 = 0;
  static constexpr std::pair<std::string_view, int> kBinary[] = {{"Ki", 10}, {"Mi", 20}, {"Gi", 30},
                                                                 {"Ti", 40}, {"Pi", 50}, {"Ei", 60}};
  static constexpr std::pair<std::string_view, int> kDecimal[] = {{"n", -9}, {"u", -6}, {"m", -3}, {"", 0},   {"k", 3},
                                                                  {"M", 6},  {"G", 9},  {"T", 12}, {"P", 15}, {"E", 18}};
  bool known = false;
  for (const auto& [s, e] : kBinary)
    if (suffix == s) exponent2 = e, known = true;
  for (const auto& [s, e] : kDecimal)
    if (suffix == s) exponent10 += e, known = true;
  if (!known) {
    if (suffix.size() < 2 || (suffix[0] != 'e' && suffix[0] != 'E')) return false;
    std::string_view e = suffix.substr(1);
    const bool minus = e.front() == '-';
    if (e.front() == '+' || e.front() == '-') e.remove_prefix(1);
    if (!digits(e) || e.size() > 3) return false;
    exponent10 += (minus ? -1 : 1) * std::stoi(std::string(e));
  }
  Int128 n = 0;
  for (char c : std::string(whole) + std::string(fraction)) {
    n = n * 10 + (c - '0');
    if (n > kLimit) return false;
  }
  // n x 10^exponent10 x 2^exponent2, in nano-units; digits beyond the nano are rounded up, as
  // Kubernetes rounds a quantity it cannot hold exactly.
  for (int k = 0; k < exponent2; ++k)
    if ((n *= 2) > kLimit) return false;
  for (int k = exponent10 + 9; k > 0; --k)
    if ((n *= 10) > kLimit) return false;
  for (int k = exponent10 + 9; k < 0; ++k) n = n / 10 + (n % 10 != 0 ? 1 : 0);
  if (negative) n = -n;
  Int128 units = n / kNanosPerUnit, nanos = n % kNanosPerUnit;
  if (nanos < 0) nanos += kNanosPerUnit, --units;
  if (units > INT64_MAX || units < INT64_MIN) return false;
  out = {static_cast<int64_t>(units), static_cast<int32_t>(nanos)};
  return true;
}

bool parse_version(std::string_view text, Version& out) {
  int64_t parts[3];
  for (int k = 0; k < 3; ++k) {
    const std::size_t dot = k < 2 ? text.find('.') : text.size();
    if (dot == std::string_view::npos) return false;
    const std::string_view p = text.substr(0, dot);
    if (!digits(p) || p.size() > 9) return false;
    parts[k] = std::stoll(std::string(p));
    text.remove_prefix(k < 2 ? dot + 1 : dot);
  }
  out = {parts[0], parts[1], parts[2]};
  return true;
}

// ---- syntax tree -------------------------------------------------------------------------------

enum class Op : uint8_t { eq, ne, lt, le, gt, ge };

struct Node {
  enum class Kind : uint8_t { literal, driver, attribute, capacity, has, negate, all, any, compare, in, method };
  Kind kind = Kind::literal;
  Op op = Op::eq;
  int height = 1;                                 // of its subtree, itself counted
  Value value;                                    // literal
  std::string name;                               // attribute or capacity name; method name
  std::string domain;                             // attribute or capacity domain
  bool capacity = false;                          // has(): of device.capacity
  std::vector<std::shared_ptr<const Node>> kids;  // operands; `in`: the value, then the list items
};

namespace {

using NodePtr = std::shared_ptr<const Node>;

struct Token {
  enum class Kind : uint8_t { end, ident, integer, string, punct };
  Kind kind = Kind::end;
  std::string text;  // identifier, punctuation, or the string's value
  int64_t integer = 0;
  int column = 1;
};

// Limits that keep a hostile selector from exhausting the stack or the clock. Kubernetes refuses a
// selector longer than CELSelectorExpressionMaxLength (10 KiB, resource.k8s.io types.go); CEL requires
// implementations to take at least 12 levels of nesting (the language definition): 100 are allowed.
constexpr std::size_t kMaxLength = 10 * 1024;
constexpr int kMaxDepth = 100;

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {
    if (text.size() > kMaxLength)
      throw SyntaxError{
          1, fmt::format("expected at most {} characters (Kubernetes' limit on a selector), got {}", kMaxLength, text.size())};
    next();
  }

  NodePtr parse() {
    NodePtr e = parse_or();
    if (tok_.kind != Token::Kind::end) fail("&&, || or the end of the expression");
    return e;
  }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
  Token tok_;
  int depth_ = 0;  // operands being parsed inside one another

  [[noreturn]] void too_deep() const {
    throw SyntaxError{tok_.column,
                      fmt::format("expected at most {} levels of nesting (parentheses, !, method calls)", kMaxDepth)};
  }

  [[noreturn]] void fail(const std::string& expected) const { fail_at(tok_.column, expected); }
  [[noreturn]] void fail_at(int column, const std::string& expected) const {
    std::string got = tok_.kind == Token::Kind::end
                          ? "the end"
                          : fmt::format("'{}'", tok_.kind == Token::Kind::string ? "\"" + tok_.text + "\"" : tok_.text);
    throw SyntaxError{column, fmt::format("expected {}, got {}", expected, got)};
  }

  void next() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    tok_ = Token{};
    tok_.column = static_cast<int>(pos_) + 1;
    if (pos_ >= text_.size()) return;
    const char c = text_[pos_];
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      const std::size_t start = pos_;
      while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) ++pos_;
      tok_.kind = Token::Kind::ident;
      tok_.text = text_.substr(start, pos_ - start);
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      const std::size_t start = pos_;
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
      tok_.kind = Token::Kind::integer;
      tok_.text = text_.substr(start, pos_ - start);
      if (tok_.text.size() > 18) throw SyntaxError{tok_.column, "expected an integer that fits in 64 bits"};
      tok_.integer = std::stoll(tok_.text);
    } else if (c == '"' || c == '\'') {
      const std::size_t close = text_.find(c, pos_ + 1);
      if (close == std::string_view::npos)
        throw SyntaxError{tok_.column, fmt::format("expected a closing {} for this string", c)};
      tok_.kind = Token::Kind::string;
      tok_.text = text_.substr(pos_ + 1, close - pos_ - 1);
      pos_ = close + 1;
    } else {
      static constexpr std::string_view kTwo[] = {"&&", "||", "==", "!=", "<=", ">="};
      tok_.kind = Token::Kind::punct;
      for (std::string_view two : kTwo)
        if (text_.substr(pos_, 2) == two) {
          tok_.text = two;
          pos_ += 2;
          return;
        }
      if (std::string_view("()[],.!<>-").find(c) == std::string_view::npos)
        throw SyntaxError{tok_.column, fmt::format("expected an operator, a name or a literal, got '{}'", c)};
      tok_.text = std::string(1, c);
      ++pos_;
    }
  }

  bool is(std::string_view punct) const { return tok_.kind == Token::Kind::punct && tok_.text == punct; }
  bool is_ident(std::string_view name) const { return tok_.kind == Token::Kind::ident && tok_.text == name; }
  void expect(std::string_view punct) {
    if (!is(punct)) fail(fmt::format("'{}'", punct));
    next();
  }
  std::string expect_ident(const std::string& what) {
    if (tok_.kind != Token::Kind::ident) fail(what);
    std::string s = tok_.text;
    next();
    return s;
  }

  NodePtr make(Node n) const {
    for (const NodePtr& k : n.kids) n.height = std::max(n.height, k->height + 1);
    if (n.height > kMaxDepth) too_deep();
    return std::make_shared<const Node>(std::move(n));
  }
  static Node node(Node::Kind kind, std::vector<NodePtr> kids = {}, Op op = Op::eq) {
    Node n;
    n.kind = kind;
    n.op = op;
    n.kids = std::move(kids);
    return n;
  }
  NodePtr literal(Value v) const {
    Node n;
    n.value = std::move(v);
    return make(std::move(n));
  }
  // A chain of one of && and || as a balanced tree (as cel-go builds it): a long flat chain stays
  // shallow, and its value (each operator commutative, absorbing errors) is the same.
  NodePtr balanced(Node::Kind kind, std::span<const NodePtr> terms) const {
    if (terms.size() == 1) return terms.front();
    const std::size_t half = terms.size() / 2;
    return make(node(kind, {balanced(kind, terms.first(half)), balanced(kind, terms.subspan(half))}));
  }

  NodePtr parse_or() {
    std::vector<NodePtr> terms{parse_and()};
    while (is("||")) {
      next();
      terms.push_back(parse_and());
    }
    return balanced(Node::Kind::any, terms);
  }
  NodePtr parse_and() {
    std::vector<NodePtr> terms{parse_relation()};
    while (is("&&")) {
      next();
      terms.push_back(parse_relation());
    }
    return balanced(Node::Kind::all, terms);
  }
  NodePtr parse_relation() {
    NodePtr l = parse_unary();
    static constexpr std::pair<std::string_view, Op> kOps[] = {{"==", Op::eq}, {"!=", Op::ne}, {"<", Op::lt},
                                                               {"<=", Op::le}, {">", Op::gt},  {">=", Op::ge}};
    for (const auto& [text, op] : kOps)
      if (is(text)) {
        next();
        return make(node(Node::Kind::compare, {l, parse_unary()}, op));
      }
    if (is_ident("in")) {
      next();
      Node n = node(Node::Kind::in, {l});
      expect("[");
      while (!is("]")) {
        n.kids.push_back(parse_unary());
        if (!is("]")) expect(",");
      }
      next();
      return make(std::move(n));
    }
    return l;
  }
  NodePtr parse_unary() {
    struct Nested {
      int& depth;
      explicit Nested(int& d) : depth(++d) {}
      ~Nested() { --depth; }
    } nested(depth_);
    if (depth_ > kMaxDepth) too_deep();
    if (is("!")) {
      next();
      return make(node(Node::Kind::negate, {parse_unary()}));
    }
    if (is("-")) {
      next();
      if (tok_.kind != Token::Kind::integer) fail("an integer after '-'");
      const int64_t v = -tok_.integer;
      next();
      return with_methods(literal(v));
    }
    return with_methods(parse_primary());
  }
  NodePtr with_methods(NodePtr e) {
    static constexpr std::pair<std::string_view, int> kMethods[] = {{"compareTo", 1},  {"isGreaterThan", 1}, {"isLessThan", 1},
                                                                    {"startsWith", 1}, {"endsWith", 1},      {"contains", 1},
                                                                    {"lowerAscii", 0}};
    while (is(".")) {
      next();
      const int column = tok_.column;
      const std::string name = expect_ident("a method name");
      const auto m = std::find_if(std::begin(kMethods), std::end(kMethods), [&](const auto& k) { return k.first == name; });
      if (m == std::end(kMethods))
        throw SyntaxError{column, fmt::format("expected a method (compareTo, isGreaterThan, isLessThan, startsWith, endsWith, "
                                              "contains, lowerAscii), got '{}'",
                                              name)};
      Node n = node(Node::Kind::method, {e});
      n.name = name;
      expect("(");
      if (m->second == 1) n.kids.push_back(parse_or());
      expect(")");
      e = make(std::move(n));
    }
    return e;
  }
  // device.driver, device.attributes["D"].NAME or device.capacity["D"].NAME (after `device`).
  NodePtr parse_device_path() {
    expect(".");
    const int column = tok_.column;
    const std::string field = expect_ident("driver, attributes or capacity");
    if (field == "driver") return make(node(Node::Kind::driver));
    if (field != "attributes" && field != "capacity")
      throw SyntaxError{column, fmt::format("expected driver, attributes or capacity after device., got '{}'", field)};
    expect("[");
    if (tok_.kind != Token::Kind::string) fail("a quoted domain such as \"gpu.nvidia.com\"");
    Node n = node(field == "attributes" ? Node::Kind::attribute : Node::Kind::capacity);
    n.domain = tok_.text;
    next();
    expect("]");
    expect(".");
    n.name = expect_ident(fmt::format("the name of an {}", field == "attributes" ? "attribute" : "capacity"));
    return make(std::move(n));
  }
  std::string string_argument(std::string_view function) {
    expect("(");
    if (tok_.kind != Token::Kind::string) fail(fmt::format("a quoted string in {}(...)", function));
    std::string s = tok_.text;
    next();
    expect(")");
    return s;
  }
  NodePtr parse_primary() {
    const int column = tok_.column;
    if (is("(")) {
      next();
      NodePtr e = parse_or();
      expect(")");
      return e;
    }
    if (tok_.kind == Token::Kind::integer) {
      const int64_t v = tok_.integer;
      next();
      return literal(v);
    }
    if (tok_.kind == Token::Kind::string) {
      std::string s = tok_.text;
      next();
      return literal(std::move(s));
    }
    if (tok_.kind != Token::Kind::ident)
      fail("device, a literal (string, integer, true, false), quantity(\"...\"), semver(\"...\"), has(...) or '('");
    const std::string name = tok_.text;
    next();
    if (name == "true" || name == "false") return literal(name == "true");
    if (name == "device") return parse_device_path();
    if (name == "quantity") {
      const int at = tok_.column + 1;
      Quantity q;
      if (!parse_quantity(string_argument(name), q))
        throw SyntaxError{at, "expected a Kubernetes quantity such as \"40Gi\", \"500m\" or \"98\""};
      return literal(q);
    }
    if (name == "semver") {
      const int at = tok_.column + 1;
      Version v;
      if (!parse_version(string_argument(name), v))
        throw SyntaxError{at, "expected a version MAJOR.MINOR.PATCH such as \"8.0.0\""};
      return literal(v);
    }
    if (name == "has") {
      expect("(");
      const int at = tok_.column;
      if (!is_ident("device")) fail("device.attributes[...].NAME or device.capacity[...].NAME in has(...)");
      next();
      NodePtr path = parse_device_path();
      if (path->kind == Node::Kind::driver)
        throw SyntaxError{at, "expected device.attributes[...].NAME or device.capacity[...].NAME in has(...)"};
      expect(")");
      Node n = node(Node::Kind::has);
      n.name = path->name;
      n.domain = path->domain;
      n.capacity = path->kind == Node::Kind::capacity;
      return make(std::move(n));
    }
    throw SyntaxError{column, fmt::format("expected device, a literal (string, integer, true, false), quantity(\"...\"), "
                                          "semver(\"...\") or has(...), got '{}'",
                                          name)};
  }
};

const char* type_name(const Value& v) {
  static constexpr const char* kNames[] = {"a bool", "an int", "a string", "a quantity", "a version"};
  return kNames[v.index()];
}

// A value, or why there is none.
struct Eval {
  std::optional<Value> value;
  std::string error;
};
Eval error(std::string why) { return {std::nullopt, std::move(why)}; }

bool compare(Op op, int c) {
  switch (op) {
    case Op::eq: return c == 0;
    case Op::ne: return c != 0;
    case Op::lt: return c < 0;
    case Op::le: return c <= 0;
    case Op::gt: return c > 0;
    case Op::ge: return c >= 0;
  }
  return false;
}

// -1, 0 or 1 for two values of one ordered type; nullopt if they are not comparable.
std::optional<int> order(const Value& a, const Value& b) {
  if (a.index() != b.index() || std::holds_alternative<bool>(a)) return std::nullopt;
  return std::visit(
      [&](const auto& x) -> int {
        const auto& y = std::get<std::decay_t<decltype(x)>>(b);
        return x < y ? -1 : (y < x ? 1 : 0);
      },
      a);
}

Eval evaluate(const Node& n, const Device& d);

Eval evaluate_bool(const Node& n, const Device& d, std::string_view what) {
  Eval e = evaluate(n, d);
  if (e.value && !std::holds_alternative<bool>(*e.value))
    return error(fmt::format("{} needs a bool, got {}", what, type_name(*e.value)));
  return e;
}

Eval evaluate(const Node& n, const Device& d) {
  using K = Node::Kind;
  switch (n.kind) {
    case K::literal: return {n.value, {}};
    case K::driver: return {Value{d.driver}, {}};
    case K::attribute:
    case K::capacity:
    case K::has: {
      const bool capacity = n.kind == K::capacity || (n.kind == K::has && n.capacity);
      const char* map = capacity ? "capacity" : "attributes";
      if (n.domain != d.driver) {
        if (n.kind == K::has) return {Value{false}, {}};
        return error(fmt::format("device.{}[\"{}\"]: the device's driver is {}, which publishes no {} in that domain", map,
                                 n.domain, d.driver, map));
      }
      if (capacity) {
        const auto it = d.capacity.find(n.name);
        if (n.kind == K::has) return {Value{it != d.capacity.end()}, {}};
        if (it == d.capacity.end()) return error(fmt::format("the device publishes no capacity '{}'", n.name));
        return {Value{it->second}, {}};
      }
      const auto it = d.attributes.find(n.name);
      if (n.kind == K::has) return {Value{it != d.attributes.end()}, {}};
      if (it == d.attributes.end()) return error(fmt::format("the device publishes no attribute '{}'", n.name));
      return {it->second, {}};
    }
    case K::negate: {
      Eval e = evaluate_bool(*n.kids[0], d, "!");
      if (e.value) e.value = !std::get<bool>(*e.value);
      return e;
    }
    case K::all:
    case K::any: {
      // CEL's commutative && and ||: a side that decides the result wins over an error on the other.
      const bool decisive = n.kind == K::any;
      const char* what = n.kind == K::any ? "||" : "&&";
      const Eval l = evaluate_bool(*n.kids[0], d, what);
      if (l.value && std::get<bool>(*l.value) == decisive) return l;
      const Eval r = evaluate_bool(*n.kids[1], d, what);
      if (r.value && std::get<bool>(*r.value) == decisive) return r;
      if (!l.value) return l;
      return r;
    }
    case K::compare: {
      const Eval l = evaluate(*n.kids[0], d);
      if (!l.value) return l;
      const Eval r = evaluate(*n.kids[1], d);
      if (!r.value) return r;
      if (std::holds_alternative<bool>(*l.value) && std::holds_alternative<bool>(*r.value) && (n.op == Op::eq || n.op == Op::ne))
        return {Value{(*l.value == *r.value) == (n.op == Op::eq)}, {}};
      const std::optional<int> c = order(*l.value, *r.value);
      if (!c) return error(fmt::format("cannot compare {} with {}", type_name(*l.value), type_name(*r.value)));
      return {Value{compare(n.op, *c)}, {}};
    }
    case K::in: {
      const Eval v = evaluate(*n.kids[0], d);
      if (!v.value) return v;
      for (std::size_t i = 1; i < n.kids.size(); ++i) {
        const Eval item = evaluate(*n.kids[i], d);
        if (!item.value) return item;
        if (*item.value == *v.value) return {Value{true}, {}};
      }
      return {Value{false}, {}};
    }
    case K::method: {
      const Eval self = evaluate(*n.kids[0], d);
      if (!self.value) return self;
      if (n.name == "lowerAscii") {
        const auto* s = std::get_if<std::string>(&*self.value);
        if (!s) return error(fmt::format("lowerAscii() needs a string, got {}", type_name(*self.value)));
        return {Value{ascii_lower(*s)}, {}};
      }
      const Eval arg = evaluate(*n.kids[1], d);
      if (!arg.value) return arg;
      if (n.name == "startsWith" || n.name == "endsWith" || n.name == "contains") {
        const auto* s = std::get_if<std::string>(&*self.value);
        const auto* a = std::get_if<std::string>(&*arg.value);
        if (!s || !a)
          return error(fmt::format("{}() needs a string and a string argument, got {} and {}", n.name, type_name(*self.value),
                                   type_name(*arg.value)));
        const bool r = n.name == "startsWith" ? s->starts_with(*a)
                       : n.name == "endsWith" ? s->ends_with(*a)
                                              : s->find(*a) != std::string::npos;
        return {Value{r}, {}};
      }
      // compareTo, isGreaterThan, isLessThan: Kubernetes' quantity and semver CEL libraries.
      const bool ordered = std::holds_alternative<Quantity>(*self.value) || std::holds_alternative<Version>(*self.value);
      const std::optional<int> c = ordered ? order(*self.value, *arg.value) : std::nullopt;
      if (!c)
        return error(fmt::format("{}() compares two quantities or two versions, got {} and {}", n.name, type_name(*self.value),
                                 type_name(*arg.value)));
      if (n.name == "compareTo") return {Value{int64_t{*c}}, {}};
      return {Value{n.name == "isGreaterThan" ? *c > 0 : *c < 0}, {}};
    }
  }
  return error("unknown expression");
}

}  // namespace

Expression Expression::compile(std::string_view text) {
  Expression e;
  e.text_ = std::string(text);
  e.root_ = Parser(text).parse();
  return e;
}

Expression::Result Expression::evaluate(const Device& d) const {
  const Eval e = cel::evaluate(*root_, d);
  if (!e.value) return {false, e.error};
  if (!std::holds_alternative<bool>(*e.value))
    return {false, fmt::format("a selector must evaluate to a bool, got {}", type_name(*e.value))};
  return {std::get<bool>(*e.value), {}};
}

}  // namespace gpusim::cel

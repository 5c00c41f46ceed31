#include "gpusim/core/yaml_documents.hpp"

#include <fmt/format.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/mark.h>

#include <optional>
#include <sstream>

#include "gpusim/core/config.hpp"
#include "gpusim/core/error.hpp"

namespace gpusim {

namespace {

// yaml-cpp 0.7's LoadAll never returns on a stray ',', ']' or '}' between documents ("{}, x"): its
// parser reports an empty document there again and again without moving on, and LoadAll keeps each
// until memory runs out (jbeder/yaml-cpp#1319, fixed after 0.8.0). A first pass through this handler,
// which builds nothing, finds the spot: two empty documents at one position of the text.
class StuckDocuments : public YAML::EventHandler {
 public:
  std::optional<YAML::Mark> stuck;

  void OnDocumentStart(const YAML::Mark&) override {
    events_ = 0;
    null_at_.reset();
  }
  void OnDocumentEnd() override {
    const bool empty = events_ == 1 && null_at_;
    if (empty && last_empty_ && last_empty_->pos == null_at_->pos) stuck = null_at_;
    last_empty_ = empty ? null_at_ : std::nullopt;
  }
  void OnNull(const YAML::Mark& mark, YAML::anchor_t) override {
    ++events_;
    null_at_ = mark;
  }
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override { ++events_; }
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override { ++events_; }
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override { ++events_; }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override { ++events_; }
  void OnMapEnd() override {}

 private:
  int events_ = 0;
  std::optional<YAML::Mark> null_at_, last_empty_;
};

std::optional<int> line_of(const YAML::Mark& mark) { return mark.is_null() ? std::nullopt : std::optional<int>(mark.line + 1); }

}  // namespace

std::vector<YAML::Node> yaml_documents(const std::string& text, const std::string& file, YamlText from) {
  try {
    if (from == YamlText::user) {
      std::istringstream in(text);
      YAML::Parser parser(in);
      StuckDocuments check;
      while (parser.HandleNextDocument(check))
        if (check.stuck)
          throw InputError({file, line_of(*check.stuck), ""},
                           "not valid YAML or JSON: a ',', ']' or '}' outside any list or map");
    }
    return YAML::LoadAll(text);
  } catch (const YAML::Exception& e) {
    throw InputError({file, line_of(e.mark), ""}, fmt::format("not valid YAML or JSON: {}", ConfigNode::parse_error(e)));
  }
}

YAML::Node yaml_document(const std::string& text, const std::string& file, YamlText from) {
  const std::vector<YAML::Node> docs = yaml_documents(text, file, from);
  for (std::size_t i = 1; i < docs.size(); ++i)
    if (!docs[i].IsNull())
      throw InputError({file, line_of(docs[i].Mark()), ""},
                       "expected one YAML document; another begins here (a second '---', or text after the first "
                       "document's closing bracket)");
  return docs.empty() ? YAML::Node() : docs.front();
}

}  // namespace gpusim

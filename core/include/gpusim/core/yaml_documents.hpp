#pragma once
// YAML text into documents, for every reader of YAML (the scenario reader, --set values, import k8s
// and the files inside its ConfigMaps): yaml-cpp's LoadAll without its endless loop, and a check that
// text meant as one document is one.
#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "gpusim/core/config.hpp"

namespace gpusim {

// The documents of `text`, read from `file`. Malformed text is an InputError naming the file and the
// line ("not valid YAML or JSON: ...").
std::vector<YAML::Node> yaml_documents(const std::string& text, const std::string& file, YamlText from = YamlText::user);

// The one document of `text` (null when empty). A second one that holds anything, or text after a
// flow list or map ("{a: 1}, x"), is an InputError naming its line: yaml-cpp's Load would drop it.
YAML::Node yaml_document(const std::string& text, const std::string& file, YamlText from = YamlText::user);

}  // namespace gpusim

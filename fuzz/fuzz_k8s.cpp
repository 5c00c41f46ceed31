// `gpusim import k8s` over arbitrary text: the bytes are one manifest file (YAML or JSON, several
// documents, `kind: List`), imported with the built-in catalog; the importer loads the scenario it
// writes before returning it. Expected: InputError; anything else (another exception, a crash, a
// sanitizer report, a slow input) is a finding.
#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "gpusim/core/error.hpp"
#include "gpusim/core/yaml_documents.hpp"
#include "k8s/k8s_import.hpp"
#include "limits.hpp"
#include "scratch.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  // Replica counts past a few dozen are the memory estimate's business (the scenario loader's), and slow.
  try {
    for (const YAML::Node& doc : gpusim::yaml_documents(std::string(text), "objects.yaml"))
      if (gpusim::fuzz::asks_too_much(
              doc, {"replicas", "completions", "parallelism", "count", "nvidia.com/gpu", "nvidia.com/gpu.shared"}))
        return 0;
  } catch (const gpusim::InputError&) {  // the importer says why
  }
  gpusim::cli::K8sImportOptions options;
  options.paths = {gpusim::fuzz::write_scratch("objects.yaml", text)};
  try {
    (void)gpusim::cli::import_k8s(options, gpusim::Catalog::builtin());
  } catch (const gpusim::InputError&) {
  }
  return 0;
}

// The DRA selector language (hardware/cel.hpp) over arbitrary text: compiled, and when it compiles,
// evaluated on every device an A100 and an H100 publish (whole GPUs and each MIG profile). Expected:
// SyntaxError or a result (true, false or an error saying why); anything else (another exception, a
// crash, a sanitizer report, a slow input) is a finding.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "gpusim/hardware/catalog.hpp"
#include "gpusim/hardware/cel.hpp"
#include "gpusim/hardware/dra_devices.hpp"

namespace {

const std::vector<gpusim::cel::Device>& devices() {
  static const std::vector<gpusim::cel::Device> all = [] {
    std::vector<gpusim::cel::Device> out;
    for (const char* name : {"A100-80GB-SXM", "H100-80GB-SXM"}) {
      const gpusim::GpuModel& gpu = *gpusim::Catalog::builtin().find_gpu(name);
      out.push_back(gpusim::whole_gpu_device(gpu));
      if (gpu.mig)
        for (const gpusim::MigProfile& p : gpu.mig->profiles) out.push_back(gpusim::mig_device(gpu, p));
    }
    return out;
  }();
  return all;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const auto e = gpusim::cel::Expression::compile(std::string_view(reinterpret_cast<const char*>(data), size));
    for (const gpusim::cel::Device& d : devices()) (void)e.evaluate(d);
  } catch (const gpusim::cel::SyntaxError&) {
  }
  return 0;
}

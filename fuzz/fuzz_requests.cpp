// The services' request readers over arbitrary bytes. The first byte picks the reader (its value mod
// 4): the Azure LLM inference CSV (or, when the byte's bit 2 is set, gpusim's request CSV with hash ids
// of 16 tokens), the Mooncake JSON lines, the Alibaba GenTD26 QPS samples (plain or gzip-compressed: the
// reader tells them by their first bytes), or a service's `requests:` block (the generators and trace
// references of read_request_source, with the scratch directory as the data directory); the rest is the
// file. Expected: InputError; anything else is a finding.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "gpusim/core/config.hpp"
#include "gpusim/core/error.hpp"
#include "gpusim/workloads/request_stream.hpp"
#include "scratch.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view bytes(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    switch (data[0] % 4) {
      case 0:
        if (data[0] & 4)
          (void)gpusim::read_request_trace(gpusim::RequestTraceFormat::csv, gpusim::fuzz::write_scratch("requests.csv", bytes),
                                           16);
        else
          (void)gpusim::read_request_trace(gpusim::RequestTraceFormat::azure_llm_2023,
                                           gpusim::fuzz::write_scratch("azure.csv", bytes));
        break;
      case 1:
        (void)gpusim::read_request_trace(gpusim::RequestTraceFormat::mooncake,
                                         gpusim::fuzz::write_scratch("mooncake.jsonl", bytes));
        break;
      case 2: (void)gpusim::read_qps_trace(gpusim::fuzz::write_scratch("qps.csv", bytes), "Generative Requests"); break;
      case 3: {
        const std::string path = gpusim::fuzz::write_scratch("requests.yaml", bytes);
        const gpusim::ConfigNode spec = gpusim::ConfigNode::parse(std::string(bytes), path);
        (void)gpusim::read_request_source(spec, gpusim::fuzz::scratch_dir().string(), 42, "svc");
        break;
      }
    }
  } catch (const gpusim::InputError&) {
  }
  return 0;
}

#pragma once
// STUB (lead's tree; replaced by the hpa branch at merge)
#include <array>
#include <cstdint>
namespace gpusim {
enum class ServiceMetric : uint8_t { gpu_util, requests_running, requests_waiting, queue_length, request_rate };
constexpr std::size_t kServiceMetrics = 5;
struct AutoscalerSpec {};
}  // namespace gpusim

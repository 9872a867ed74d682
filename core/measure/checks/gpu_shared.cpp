#include "check.hpp"

namespace gpubench {

extern const Check gpu_shared_check{
    "gpu_shared", CheckVerdict::flag,
    "another process had a CUDA context on the entry's GPU: its device times may include the other's work",
    "NVML counted another process with a CUDA context on the entry's GPU at its start or end (two "
    "shards or sweeps on one GPU, another user). The device-memory leak check and the stream audit "
    "give no verdict then: the device's used memory and its busy time are everyone's "
    "(`resources.gpu_before/after.compute_processes`)",
    "", [](const Measurement &e) -> std::string { return e.resources.gpu_shared() ? "gpu_shared" : ""; }};

}  // namespace gpubench

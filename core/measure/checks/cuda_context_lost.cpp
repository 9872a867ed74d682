#include "check.hpp"

#include "gpu.hpp"

namespace gpubench {

extern const Check cuda_context_lost_check{
    "cuda_context_lost", CheckVerdict::error,
    "a sticky CUDA error that the plugin's own calls did not report: its GPU's context is lost",
    "after each CUDA entry the worker asks CUDA for a sticky error (an illegal address...); an ok "
    "entry becomes an error, and the worker measures no more CUDA entries (each is refused with the same reason)",
    "`the CUDA context was lost (an illegal memory access was encountered)`",
    nullptr};  // judged after the entry (note_lost_cuda_context)

std::string note_lost_cuda_context(Measurement &entry) {
    const std::string lost = cuda_sticky_error();
    if (lost.empty()) return "";
    const std::string why = "the CUDA context was lost (" + lost + ")";
    if (entry.status == EntryStatus::ok) {
        entry.status = cuda_context_lost_check.status();
        entry.refused_by = cuda_context_lost_check.name;
        entry.message = why;
    }
    return why;
}

}  // namespace gpubench

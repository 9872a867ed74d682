#include "entry_measurer.hpp"

#include "gpu.hpp"

namespace gpubench {

EntryMeasurer::EntryMeasurer(Roofline host_roofline) {
    host_timer_.set_roofline(std::move(host_roofline));
}

EntryMeasurer::~EntryMeasurer() = default;

std::string EntryMeasurer::prepare(const Plugin &plugin, int cuda_device) {
    if (!plugin.is_cuda()) return "";
    if (!lost_.empty()) return lost_;
    if (!cuda_timer_ && cuda_unavailable_.empty()) {
        try {
            cuda_timer_ = make_cuda_event_timer(cuda_device);
        } catch (const std::exception &e) {
            cuda_unavailable_ = e.what();
        }
    }
    return cuda_unavailable_;
}

EntryResult EntryMeasurer::measure(const Plugin &plugin, uint64_t size,
                                   const MeasureOptions &options, const StageObserver &observe) {
    if (std::string why = prepare(plugin, options.cuda_device); !why.empty())
        return skipped_entry(plugin, size, "unavailable: " + why);
    PhaseTimer &timer = plugin.is_cuda() ? *cuda_timer_ : static_cast<PhaseTimer &>(host_timer_);
    EntryResult entry = measure_entry(plugin, size, options, timer, observe);
    if (plugin.is_cuda())
        if (std::string why = note_lost_cuda_context(entry); !why.empty()) {
            lost_ = why;
            cuda_timer_.reset();
        }
    return entry;
}

}  // namespace gpubench

#include "energy_windows.hpp"

#include "elapsed.hpp"
#include "resource_watch.hpp"

namespace gpubench {

void EnergyWindows::begin(bool aligned) {
    CounterChange start(gpu_counter());
    if (start.readable()) {
        if (aligned) {
            extends_ = true;
            if (!start.await()) gpu_note_ = not_aligned_note("start");
        } else {
            gpu_note_ = "not aligned to NVML's energy counter: a profile run, or ranks in lock-step, take a "
                        "fixed count of runs";
        }
        gpu_begin_mj_ = start.value();
        gpu_begin_at_ = start.at();
    }
    if (cpu_) {
        cpu_begin_ = cpu_->read();
        if (!cpu_begin_) cpu_note_ = "the CPU packages' energy counters could not be read as sampling began";
    }
    cpu_begin_at_ = Clock::now();
}

double EnergyWindows::gpu_window_s() const {
    return gpu_begin_mj_ ? seconds_between(gpu_begin_at_, Clock::now()) : 0;
}

bool EnergyWindows::close_at_change() {
    if (gpu_closed_) return true;
    if (!gpu_end_) {
        gpu_end_.emplace(gpu_counter());  // the value the closing change is a change from
        return false;
    }
    if (gpu_end_->changed() || !gpu_end_->readable()) {
        close_gpu(*gpu_end_);
    } else if (gpu_end_->waited_s() >= counter_change_limit_s) {
        gpu_note_ += (gpu_note_.empty() ? "" : "; ") + not_aligned_note("end");
        close_gpu(*gpu_end_);
    }
    return gpu_closed_;
}

void EnergyWindows::close_gpu(const CounterChange &at) {
    gpu_closed_ = true;
    extends_ = false;
    if (!at.readable() || at.value() < *gpu_begin_mj_) {
        gpu_note_ = "NVML's energy counter could not be read, or went back, as the window ended";
    } else {
        gpu_window_ =
            EnergyWindow{double(at.value() - *gpu_begin_mj_) / 1000.0, seconds_between(gpu_begin_at_, at.at())};
    }
    close_cpu();  // the node's two parts over the same span
}

void EnergyWindows::close_cpu() {
    if (cpu_closed_) return;
    cpu_closed_ = true;
    if (!cpu_begin_) return;
    const std::optional<std::vector<uint64_t>> after = cpu_->read();
    if (!after) {
        cpu_note_ = "the CPU packages' energy counters could not be read as the window ended";
        return;
    }
    cpu_window_ = EnergyWindow{cpu_->joules_between(*cpu_begin_, *after), seconds_between(cpu_begin_at_, Clock::now())};
}

void EnergyWindows::end(EntryResources &resources) {
    if (gpu_begin_mj_ && !gpu_closed_) {
        if (extends_) gpu_note_ += (gpu_note_.empty() ? "" : "; ") + std::string("not aligned at its end: "
                                   "sampling reached --max-time before the counter's next change");
        close_gpu(CounterChange(gpu_counter()));
    }
    close_cpu();
    resources.gpu_energy = gpu_window_;
    resources.cpu_energy = cpu_window_;
    resources.gpu_energy_note = gpu_note_;
    resources.cpu_energy_note = cpu_note_;
}

}  // namespace gpubench

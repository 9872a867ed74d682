#include "entry_recorder.hpp"

#include "thread_name.hpp"

namespace gpubench {

void EntryRecorder::begin(const PluginInfo &plugin, uint64_t size) {
    std::lock_guard<std::mutex> lock(mutex_);
    observer_.begin(plugin, size);
}

void EntryRecorder::finished(EntryResult entry, const MeasureOptions &options) {
    entry.sweep.finished_after_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    for (int index : entry.cuda_devices)
        for (const GpuInfo &gpu : gpus_)
            if (gpu.available && gpu.device == index) entry.sweep.devices.push_back(identity_of(gpu));
    entry.settings = entry_settings(options);  // skipped entries have none of their own
    std::lock_guard<std::mutex> lock(mutex_);
    tally_.count(entry.status);
    results_.add_entry(entry);
    observer_.finished(entry, options.params);
}

void EntryRecorder::skipped(const SweepEntry &entry, const std::string &why, MeasureOptions options,
                            const std::optional<HostShare> &share) {
    begin(*entry.plugin, entry.size);
    EntryResult skipped(skipped_entry(*entry.plugin, entry.size, why));
    skipped.sweep.host_share = share;
    options.params = entry.params;
    finished(std::move(skipped), options);
}

void EntryRecorder::interrupted() {
    std::lock_guard<std::mutex> lock(mutex_);
    tally_.interrupted = true;
}

void EntryRecorder::tick() {
    std::lock_guard<std::mutex> lock(mutex_);
    observer_.tick();
}

ProgressTicker::ProgressTicker(EntryRecorder &recorder)
    : thread_([this, &recorder] {
          name_this_thread("ticker");
          std::unique_lock<std::mutex> lock(mutex_);
          while (!cv_.wait_for(lock, std::chrono::milliseconds(100), [this] { return stop_; })) {
              lock.unlock();
              recorder.tick();
              lock.lock();
          }
      }) {}

ProgressTicker::~ProgressTicker() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
}

}  // namespace gpubench

#include "lane_queue.hpp"

#include "entry_cost.hpp"

#include <algorithm>

namespace gpubench {

LaneQueue::LaneQueue(const SweepEntries &entries, const MeasureOptions &options, size_t lanes, bool longest_first)
    : current_(lanes), late_(lanes), entry_s_(nominal_unknown_entry_s(options)) {
    for (const SweepEntry &entry : entries) {
        if (plugins_.empty() || plugins_.back().entries.front().plugin != entry.plugin)
            plugins_.push_back({{}, 0, 0, nominal_start_cost(*entry.plugin).seconds});
        plugins_.back().entries.push_back(entry);
    }
    if (!longest_first) return;
    const auto predicted_s = [&](const Plugin &p) { return p.start_s + double(p.entries.size()) * entry_s_; };
    std::stable_sort(plugins_.begin(), plugins_.end(),
                     [&](const Plugin &a, const Plugin &b) { return predicted_s(a) > predicted_s(b); });
}

// The plugin a free lane should join: the one with the most entries left, if the time k lanes
// on it would save with one more (left / k - left / (k + 1) entries) is more than its start.
std::optional<size_t> LaneQueue::worth_joining() const {
    std::optional<size_t> best;
    size_t most_left = 0;
    for (size_t i = 0; i < plugins_.size(); ++i) {
        const Plugin &p = plugins_[i];
        const size_t left = p.entries.size() - p.taken;
        if (p.lanes_on == 0 || left <= most_left) continue;
        const double k = double(p.lanes_on), saved_s = double(left) * entry_s_ * (1 / k - 1 / (k + 1));
        if (saved_s > p.start_s) best = i, most_left = left;
    }
    return best;
}

std::optional<SweepEntry> LaneQueue::next(size_t lane) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::optional<size_t> &on = current_.at(lane);
    if (on && plugins_[*on].taken < plugins_[*on].entries.size()) {
        Plugin &p = plugins_[*on];
        return p.entries[p.taken++];
    }
    if (on) --plugins_[*on].lanes_on, on.reset();
    const auto whole = std::find_if(plugins_.begin(), plugins_.end(), [](const Plugin &p) { return p.taken == 0; });
    on = whole != plugins_.end() ? std::optional<size_t>(size_t(whole - plugins_.begin())) : worth_joining();
    if (!on) return next_late(lane);
    Plugin &p = plugins_[*on];
    ++p.lanes_on;
    return p.entries[p.taken++];
}

// A lane out of work takes every entry put back of the first one's plugin: it pays their start
// once.
std::optional<SweepEntry> LaneQueue::next_late(size_t lane) {
    SweepEntries &mine = late_.at(lane);
    if (mine.empty() && !put_back_.empty()) {
        const PluginInfo *plugin = put_back_.front().plugin;
        std::erase_if(put_back_, [&](const SweepEntry &e) { return e.plugin == plugin && (mine.push_back(e), true); });
    }
    if (mine.empty()) return std::nullopt;
    SweepEntry late = mine.front();
    mine.erase(mine.begin());
    return late;
}

void LaneQueue::put_back(SweepEntry entry) {
    std::lock_guard<std::mutex> lock(mutex_);
    entry.late = true;
    put_back_.push_back(std::move(entry));
}

}  // namespace gpubench

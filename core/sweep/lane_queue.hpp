// The order in which --devices' lanes take entries. A lane takes a plugin whole (its sizes in
// order, in one worker, so that it pays the plugin's start once), the plugins predicted to
// cost most first, so that the last to finish is a short one; or, under a budget, in sweep
// order, so that the lanes meet each entry where a one-GPU sweep would (sweep_budget.hpp).
// Once no plugin is left whole, a free lane joins the plugin with the most entries left, when
// what it saves there outweighs the start it pays: the sweep does not wait on one lane's long
// tail. Entries put back are taken last, a plugin's together. Thread-safe.
#pragma once

#include "measure.hpp"
#include "sweep.hpp"

#include <cstddef>
#include <mutex>
#include <optional>
#include <vector>

namespace gpubench {

class LaneQueue {
public:
    // `entries` in sweep order (each plugin's entries together, sizes ascending); `options`
    // give the sampling rule's bound of an entry's time (nominal_unknown_entry_s).
    LaneQueue(const SweepEntries &entries, const MeasureOptions &options, size_t lanes, bool longest_first = true);
    // The next entry for `lane`, nullopt when there is none worth its taking.
    std::optional<SweepEntry> next(size_t lane);
    // `entry` to be taken again, late (SweepEntry::late), once no other is left.
    void put_back(SweepEntry entry);

private:
    struct Plugin {
        SweepEntries entries;
        size_t taken = 0;    // entries handed out, from the front
        size_t lanes_on = 0;  // lanes measuring it now
        double start_s = 0;   // nominal_start_cost: what a lane pays to join it
    };
    std::optional<size_t> worth_joining() const;
    std::optional<SweepEntry> next_late(size_t lane);
    std::mutex mutex_;
    std::vector<Plugin> plugins_;                  // longest predicted first
    std::vector<std::optional<size_t>> current_;  // per lane: the plugin it is on
    std::vector<SweepEntries> late_;               // per lane: put back, of one plugin, taken up
    double entry_s_;
    SweepEntries put_back_;
};

}  // namespace gpubench

// The checks on every entry, one file each in this folder, registered in one table
// (check_table.cpp). A check says what it finds and what that makes of the entry: a flag on
// a valid entry (what a reader must know before trusting its numbers), or the entry invalid,
// an error, or skipped. Every output that names a flag or a refusal (console, results file,
// reports, `runner checks`, the docs' tables) takes its words from the table.
#pragma once

#include "measurement.hpp"
#include "phase_timer.hpp"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpubench {

// A check's finding made while measuring, thrown to end the entry with its status and message.
struct EntryProblem {
    EntryStatus status;
    std::string message;
    std::string check = "";  // the check's name; "" for a problem no check names
};

enum class CheckVerdict {
    flag,     // the entry stays valid, marked with the check's name
    invalid,  // verification_failed: its numbers are not a result
    error,    // error: the plugin misbehaved
    skipped,  // skipped: refused before anything ran
};
const char *to_string(CheckVerdict verdict);

struct Check {
    const char *name;     // the flag's word, or the rule's name: snake_case, unique
    CheckVerdict verdict;
    const char *meaning;  // one line: what a finding means (reports' glossary, `runner checks`)
    const char *rule;     // how it is decided, for the docs ("" where the meaning says it all)
    const char *example;  // a finding as recorded, for the docs ("" for a flag)
    // The finding in an entry's record: "" where it passes, else what was found. nullptr for a
    // check judged while the entry is measured (its file says where), not from the record.
    std::string (*finding)(const Measurement &entry);

    EntryStatus status() const;  // what a finding makes of the entry (ok for a flag)
};

// Every check, in the order the docs and outputs list them: the flags, then the refusals.
const std::vector<const Check *> &check_table();
// The check named `name`; throws std::out_of_range for a name the table lacks.
const Check &check_named(std::string_view name);

// Each flag (results "flags") with its meaning, in table order: the reports' glossary.
const std::vector<std::pair<std::string, std::string>> &flag_glossary();

// The flags an entry carries: the names of the flag checks whose finding is not empty.
std::vector<std::string> entry_flags(const Measurement &entry);

// The refusals found in a finished entry's record (invalid checks with a finding), in table
// order, joined by "; "; "" when none. `first`, where given, is set to the first one's name.
std::string record_refusals(const Measurement &entry, std::string *first = nullptr);

// A finding made while measuring, thrown as the entry's status and message (EntryProblem).
[[noreturn]] void refuse(const Check &check, std::string finding);
// Throws `check`'s finding in `entry`'s record, if it has one: a check that ends sampling early.
void refuse_if_found(const Check &check, const Measurement &entry);

// The calls that make the findings of checks judged while an entry is measured (each defined
// in its check's file), and of faster_than_hardware, which a reader of a file may ask again.
class LeakWatch;
std::string footprint_problem(const Work &work, const PhaseTimer &timer);  // footprint.cpp
// An out-of-memory failure after `runs_done` successful run() calls is the plugin's fault (an
// error naming the leak where `leaks` finds one), not a size that does not fit (skipped).
void judge_out_of_memory(Measurement &result, size_t runs_done, LeakWatch *leaks);
// After a CUDA entry: a sticky error (an illegal address...) that the plugin's own calls did
// not report makes an ok entry an error. Returns "the CUDA context was lost (<error>)", or ""
// while the context is usable.
std::string note_lost_cuda_context(Measurement &entry);
// "" when the entry's rates are within its ceilings; else why it is faster than the hardware.
std::string faster_than_hardware(const Measurement &entry);

}  // namespace gpubench

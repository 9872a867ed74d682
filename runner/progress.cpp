#include "progress.hpp"

#include "elapsed.hpp"
#include "text_format.hpp"

#include <unistd.h>

#include <cstdio>

namespace gpubench {
namespace {

std::string duration_text(double s) {
    if (s < 60) return format_text("%.0fs", s);
    if (s < 3600) return format_text("%dm%02ds", int(s) / 60, int(s) % 60);
    return format_text("%dh%02dm", int(s) / 3600, int(s) % 3600 / 60);
}

}  // namespace

Progress::Style Progress::style_for_stderr(bool quiet) {
    if (quiet) return Style::quiet;
    return isatty(STDERR_FILENO) ? Style::terminal : Style::lines;
}

Progress::Progress(Style style, size_t total_entries, std::FILE *out, double still_every_s)
    : style_(style), out_(out), still_every_s_(still_every_s), total_(total_entries) {}

void Progress::begin(const std::string &plugin, uint64_t size) {
    ++started_;
    current_ = plugin + " " + std::to_string(size);
    entry_began_ = last_still_ = clock::now();
    if (style_ == Style::lines) {
        std::fprintf(out_, "[%zu/%zu] %s (%s elapsed)\n", started_, total_, current_.c_str(),
                     duration_text(seconds_since(sweep_began_)).c_str());
        std::fflush(out_);
    }
    if (style_ == Style::terminal) draw();
}

void Progress::tick() {
    if (started_ == finished_) return;  // between entries: nothing runs
    if (style_ == Style::terminal && seconds_since(last_draw_) >= 1.0) draw();
    if (style_ == Style::lines && seconds_since(last_still_) >= still_every_s_) {
        last_still_ = clock::now();
        std::fprintf(out_, "[%zu/%zu] %s, still running: %s in (%s elapsed)\n", started_, total_, current_.c_str(),
                     duration_text(seconds_since(entry_began_)).c_str(),
                     duration_text(seconds_since(sweep_began_)).c_str());
        std::fflush(out_);
    }
}

void Progress::draw() {
    last_draw_ = clock::now();
    std::string line = "[" + std::to_string(started_) + "/" + std::to_string(total_) + "] " +
                       current_ + ", " + duration_text(seconds_since(entry_began_)) + " in; " +
                       duration_text(seconds_since(sweep_began_)) + " elapsed";
    if (finished_ > 0 && total_ > finished_)  // the mean finished entry, times what is left
        line += ", ~" + duration_text(finished_s_ / finished_ * (total_ - finished_)) + " left";
    std::fprintf(out_, "\r%s\033[K", line.c_str());
    std::fflush(out_);
    shown_ = true;
}

void Progress::clear() {
    if (style_ == Style::terminal && shown_) {
        std::fprintf(out_, "\r\033[K");
        std::fflush(out_);
        shown_ = false;
    }
}

void Progress::end() {
    ++finished_;
    finished_s_ += seconds_since(entry_began_);
}

}  // namespace gpubench

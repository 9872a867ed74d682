#include "console.hpp"

#include "elapsed.hpp"
#include "entry_figures.hpp"
#include "metric_format.hpp"
#include "text_format.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>

namespace gpubench {

namespace {

// The plugin's headline throughput: "51.2 TFLOP/s", "812 GB/s", "1.52 Gkeys/s".
std::string format_throughput(const EntryFigures &f, const std::string &item_name) {
    if (f.headline == "gflops")
        return f.gflops >= 1000 ? format_text("%.2f TFLOP/s", f.gflops / 1000) : format_text("%.2f GFLOP/s", f.gflops);
    if (f.headline == "gbytes_per_s") return format_text("%.2f GB/s", f.gbytes_per_s);
    if (f.headline != "items_per_s") return "-";
    const double v = f.items_per_s;
    const char *prefix = v >= 1e9 ? "G" : v >= 1e6 ? "M" : v >= 1e3 ? "k" : "";
    const double scale = v >= 1e9 ? 1e9 : v >= 1e6 ? 1e6 : v >= 1e3 ? 1e3 : 1;
    return format_text("%.2f %s%s/s", v / scale, prefix, item_name.empty() ? "items" : item_name.c_str());
}

// Fixed-width sweep columns, so rows printed one at a time line up.
constexpr int w_plugin = 18, w_size = 10, w_n = 6, w_time = 11, w_how = 7, w_spread = 7,
              w_thr = 20, w_peak = 9, w_mem = 9, w_flags = 10;

std::string format_bytes(uint64_t bytes) {
    if (bytes >= (1ull << 30)) return format_text("%.1f GiB", bytes / double(1ull << 30));
    return format_text("%.0f MiB", bytes / double(1ull << 20));
}

// What a reader must know before trusting the row (EntryFigures::flags: the flag checks that
// found something, checks/check.hpp).
std::string flags_of(const EntryFigures &f) { return f.flags.empty() ? "-" : join(f.flags, ","); }

// The PLUGIN cell, and the PARAMS one after it when the table has it, padded to their widths.
std::string first_cells(const std::string &plugin, const std::string &params, size_t params_width) {
    return format_text("%-*s", w_plugin, plugin.c_str()) +
           (params_width ? format_text(" %-*s", int(params_width), params.empty() ? "-" : params.c_str()) : "");
}

// How the COMPUTE time was taken: single launches, or per launch (see per_launch.hpp).
std::string how_of(const EntryResult &e) {
    const std::string method = headline_method(e);
    if (method == "graph, reset subtracted") return "graph-r";
    if (method == "batch, reset subtracted") return "batch-r";
    return method;
}

std::string duration_text(double s) {
    if (s < 60) return format_text("%.0fs", s);
    if (s < 3600) return format_text("%dm%02ds", int(s) / 60, int(s) % 60);
    return format_text("%dh%02dm", int(s) / 3600, int(s) % 3600 / 60);
}

size_t terminal_columns(std::FILE *out) {  // 160 where `out` is no terminal
    winsize size{};
    return ioctl(fileno(out), TIOCGWINSZ, &size) == 0 && size.ws_col > 0 ? size.ws_col : 160;
}

// `parts` joined by ", " within `room` characters, the first always, those left out counted
// (", +3 more": its room kept free).
std::string fitted(const std::vector<std::string> &parts, size_t room) {
    std::string text = parts.front();
    for (size_t i = 1; i < parts.size(); text += ", " + parts[i++])
        if (text.size() + 2 + parts[i].size() + 10 > room) return text + format_text(", +%zu more", parts.size() - i);
    return text;
}

}  // namespace

void print_sweep_header(std::ostream &out, size_t params_width) {
    out << format_text("%s %*s %*s %*s %-*s %*s %*s %*s %*s %*s %-*s  %s\n",
                       first_cells("PLUGIN", "PARAMS", params_width).c_str(), w_size, "SIZE", w_n, "N", w_time,
                       "COMPUTE", w_how, "TIMED", w_spread, "SPREAD", w_time, "END-TO-END", w_thr, "THROUGHPUT",
                       w_peak, "%PEAK", w_mem, "GPU MEM", w_flags, "FLAGS", "VERIFICATION")
        << std::flush;
}

void print_sweep_row(std::ostream &out, const EntryResult &e, const std::string &params, size_t params_width) {
    const std::string first = first_cells(e.plugin, params, params_width);
    if (e.timing.samples.run.empty()) {  // skipped or failed before any sample
        out << format_text("%s %*llu  %s: %s\n", first.c_str(), w_size, static_cast<unsigned long long>(e.size),
                           e.status == EntryStatus::skipped ? "skipped" : "ERROR", e.message.c_str())
            << std::flush;
        return;
    }
    const EntryFigures f = entry_figures(e, this_host_run());
    // A wrong or failed result is never shown as a fast one. %PEAK: "62% L2", memory-bound,
    // against the level it fits in; "80% NVLink", across the interconnect.
    const bool ok = e.status == EntryStatus::ok;
    const std::string peak = ok && !f.roofline_bound.empty()
                                 ? format_text("%.0f%%%s%.6s", f.percent_of_peak, f.peak_level.empty() ? "" : " ",
                                               f.peak_level.c_str())
                                 : "-";
    const std::string verdict =
        ok ? format_text("ok (err %.1e <= %.1e)", e.verification.max_error, e.verification.tolerance)
           : (e.status == EntryStatus::verification_failed ? "*** FAILED *** " : "*** ERROR *** ") + e.message;
    out << format_text("%s %*llu %*zu %*s %-*s %*.1f%% %*s %*s %*s %*s %-*s  %s\n", first.c_str(), w_size,
                       static_cast<unsigned long long>(e.size), w_n, f.compute.count, w_time,
                       format_seconds(f.compute.median).c_str(), w_how, how_of(e).c_str(), w_spread - 1,
                       f.compute.rel_stddev * 100, w_time, format_seconds(f.end_to_end.median).c_str(), w_thr,
                       ok ? format_throughput(f, e.item_name).c_str() : "INVALID", w_peak, peak.c_str(), w_mem,
                       e.resources.on_device ? format_bytes(e.resources.device_allocated_bytes).c_str() : "-",
                       w_flags, flags_of(f).c_str(), verdict.c_str());
    // Below the row, indented: the metrics, the plugin's (accuracy, loss...) and the runner's;
    // --counters where none could be read, why; where they disagree with work(), how.
    const std::string below(first.size() + 1, ' ');
    for (size_t i = 0; i < e.metrics.size(); ++i)
        out << (i ? "; " : below) << metric_text(e.metrics[i]) << (i + 1 == e.metrics.size() ? "\n" : "");
    if (e.counters.rfind("not read: ", 0) == 0) out << below << "counters " << e.counters << '\n';
    if (!f.work_mismatch.empty()) out << below << "work_mismatch: " << f.work_mismatch << '\n';
    out << std::flush;
}

Progress::Style Progress::style_for_stderr(bool quiet) {
    return quiet ? Style::quiet : isatty(STDERR_FILENO) ? Style::terminal : Style::lines;
}

Progress::Progress(Style style, size_t total_entries, std::FILE *out, double still_every_s, size_t columns)
    : style_(style), out_(out), still_every_s_(still_every_s), total_(total_entries),
      columns_(columns ? columns : terminal_columns(out)) {}

void Progress::begin(const std::string &plugin, uint64_t size, int gpu, const std::string &params) {
    const clock::time_point now = clock::now();
    const Running &entry = *running_.insert(std::ranges::upper_bound(running_, gpu, {}, &Running::gpu),
                                            {gpu, plugin + " " + std::to_string(size), params, ++started_, now, now});
    if (style_ == Style::lines) tell_log(entry, "");
    if (style_ == Style::terminal) draw();
}

void Progress::tick() {
    if (style_ == Style::terminal && !running_.empty() && seconds_since(last_draw_) >= 1.0) draw();
    for (Running &entry : running_)
        if (style_ == Style::lines && seconds_since(entry.last_still) >= still_every_s_) {
            entry.last_still = clock::now();
            tell_log(entry, ", still running: " + duration_text(seconds_since(entry.began)) + " in");
        }
}

// "[3/40] sort_cuda 1000000 on GPU 1, still running: 30s in (1m35s elapsed)"
void Progress::tell_log(const Running &entry, const std::string &what) {
    const std::string gpu = entry.gpu < 0 ? "" : " on GPU " + std::to_string(entry.gpu);
    std::fprintf(out_, "[%zu/%zu] %s%s%s (%s elapsed)\n", entry.index, total_, entry.name.c_str(), gpu.c_str(),
                 what.c_str(), duration_text(seconds_since(sweep_began_)).c_str());
    std::fflush(out_);
}

void Progress::draw() {
    last_draw_ = clock::now();
    const std::string head = "[" + std::to_string(started_) + "/" + std::to_string(total_) + "] ";
    std::string tail = "; " + duration_text(seconds_since(sweep_began_)) + " elapsed";
    if (finished_ > 0 && total_ > finished_)  // the mean finished entry x what is left / the entries at once
        tail += ", ~" + duration_text(finished_s_ / finished_ * (total_ - finished_) / running_.size()) + " left";
    std::vector<std::string> entries;  // alone "sort_cuda 1000, 3s in", in a lane "sort_cuda 1000 (GPU 1, 3s)"
    for (const Running &entry : running_) {
        const std::string in = duration_text(seconds_since(entry.began));
        entries.push_back(entry.name + (entry.gpu < 0 ? ", " + in + " in"
                                                      : format_text(" (GPU %d, %s)", entry.gpu, in.c_str())));
    }
    const size_t room = columns_ - std::min(columns_, head.size() + tail.size() + 1);
    const std::string line = head + fitted(entries, room) + tail;
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

std::vector<Progress::Running>::iterator Progress::running(const std::string &plugin, uint64_t size,
                                                             const std::string &params) {
    const std::string name = plugin + " " + std::to_string(size);
    return std::ranges::find_if(running_, [&](const Running &r) { return r.name == name && r.params == params; });
}

void Progress::end(const std::string &plugin, uint64_t size, const std::string &params) {
    ++finished_;
    const auto entry = running(plugin, size, params);
    if (entry == running_.end()) return;
    finished_s_ += seconds_since(entry->began);
    running_.erase(entry);
}

void Progress::put_back(const std::string &plugin, uint64_t size, const std::string &params) {
    if (const auto entry = running(plugin, size, params); entry != running_.end()) running_.erase(entry);
    if (started_ > 0) --started_;
}

}  // namespace gpubench

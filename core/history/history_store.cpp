#include "history_store.hpp"

#include "entry_json.hpp"
#include "fnv_hash.hpp"
#include "history_database.hpp"
#include "results_model.hpp"
#include "statistics.hpp"
#include "text_format.hpp"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace gpubench {

namespace {

// What tells two results files apart: a 64-bit FNV-1a hash of the bytes, and their count.
std::string content_hash(const std::filesystem::path &file) {
    std::ifstream in(file, std::ios::binary);
    const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    if (!in.eof() && in.fail()) throw std::runtime_error("cannot read " + file.string());
    const uint64_t hash = fnv1a_64(bytes);
    return format_text("fnv1a64:%016llx:%zu", static_cast<unsigned long long>(hash), bytes.size());
}

// The verified entries of a checked results document, as points of run `run_id`, each with
// its wall time and, where its worker was started for it, that start (recorded_costs, results_model.hpp).
size_t insert_points(const HistoryDatabase &db, int64_t run_id, const ResultsDocument &results, bool several_gpus) {
    HistoryStatement insert(db, "INSERT INTO points (run_id, plugin, size, params, device, median, q1, q3, "
                                "min, max, samples, flags, wall_s, start_s, metrics) "
                                "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)");
    const std::vector<RecordedCost> costs = recorded_costs(results);
    size_t stored = 0;
    for (size_t i = 0; i < results.entries.size(); ++i) {
        const EntryResult &entry = results.entries[i];
        if (entry.status != EntryStatus::ok || entry.timing.samples.run.empty()) continue;
        const EntryFigures figures = entry_figures(entry, results.header.basis());
        std::vector<double> samples = headline_run_samples(entry);
        std::sort(samples.begin(), samples.end());
        const int64_t device = several_gpus && !entry.cuda_devices.empty() ? entry.cuda_devices.front() : -1;
        insert.bind(1, run_id).bind(2, entry.plugin).bind(3, static_cast<int64_t>(entry.size));
        insert.bind(4, entry.settings.params).bind(5, device).bind(6, figures.compute.median);
        insert.bind(7, quantile(samples, 0.25)).bind(8, quantile(samples, 0.75));
        insert.bind(9, samples.empty() ? 0.0 : samples.front()).bind(10, samples.empty() ? 0.0 : samples.back());
        insert.bind(11, static_cast<int64_t>(samples.size())).bind(12, join(figures.flags, ","));
        insert.bind(13, costs[i].entry_s).bind(14, costs[i].start_s);
        if (entry.metrics.empty())
            insert.bind_null(15);
        else
            insert.bind(15, nlohmann::json(entry.metrics).dump());
        insert.step();
        insert.reset();
        ++stored;
    }
    return stored;
}

}  // namespace

std::string HistorySeries::label() const {
    std::string text = plugin + " " + format_size(size);
    if (!params.empty()) text += " [" + params + "]";
    if (device >= 0) text += " on device " + std::to_string(device);
    if (!metric.empty()) text += ": " + metric;
    return text;
}

HistoryAdded history_add_file(const std::filesystem::path &database, const std::filesystem::path &results_file,
                              const std::string &commit) {
    // The file is checked whole before the database is touched: a bad one leaves no trace.
    const ResultsDocument results = read_results_file(results_file);
    refuse_profile_runs(results, results_file.string(), "the history");
    const RunHeader &header = results.header;
    const std::string hash = content_hash(results_file);
    HistoryAdded added;
    added.commit = commit.empty() ? header.commit : commit;
    added.date = header.created;

    if (database.has_parent_path()) std::filesystem::create_directories(database.parent_path());
    HistoryDatabase db(database, HistoryDatabase::Access::write);
    HistoryTransaction transaction(db);
    HistoryStatement existing(db, "SELECT id FROM runs WHERE content_hash = ?1");
    if (existing.bind(1, hash).step()) {
        added.run_id = existing.integer(0);
        added.already_stored = true;
        return added;
    }
    HistoryStatement run(db, "INSERT INTO runs (machine, gpus, build, commit_id, created, source, content_hash) "
                             "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
    run.bind(1, header.machine()).bind(2, header.gpu_list()).bind(3, header.build()).bind(4, added.commit);
    run.bind(5, header.created).bind(6, std::filesystem::absolute(results_file).string()).bind(7, hash);
    run.step();
    added.run_id = db.last_insert_id();
    added.points = insert_points(db, added.run_id, results, header.gpus.size() > 1);
    transaction.commit();
    return added;
}

}  // namespace gpubench

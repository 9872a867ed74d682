// Ranks launched together that measure one sweep (ABI 1.7), as far as a machine without a GPU
// or a launcher can show: which launcher variables make a world, the folders its ranks meet
// in, a plugin that declares its run() a collective across them (fixture_ranks) measured in
// lock-step (a fixed number of run() calls whatever the times), a timed span that waits past
// the rank time-out failing with the cause named, and the C++ helper reading the new fields
// only where the runner's structs have them.
#include "measure.hpp"
#include "rank_world.hpp"
#include "results_model.hpp"
#include "test_support.hpp"
#include "worker_main.hpp"

#include <gpubench/plugin.hpp>

#include <catch2/catch.hpp>

#include <cstddef>
#include <map>
#include <stdexcept>

using namespace gpubench;
using test_support::environment;
using test_support::metrics_of;
namespace fs = std::filesystem;

namespace {

// Rank `rank` of 2, its entry's folder in `folder`; sampling that, alone, would stop after
// one sample (--max-time 0).
MeasureOptions rank_of_two_options(uint32_t rank, const fs::path &folder) {
    MeasureOptions options = test_support::sampled(5, 1000);
    options.max_time_s = 0;
    options.world = {rank, 2, "OMPI_COMM_WORLD_RANK=" + std::to_string(rank) + ", OMPI_COMM_WORLD_SIZE=2",
                     folder.string(), 30};
    options.rendezvous = (folder / "entry-1").string();
    return options;
}

// A host clock whose spans, when told to hang, never end: stop() then waits only as long as
// the wait limit allows, as a device timer's does for a collective whose peer stopped.
class HangingTimer final : public PhaseTimer {
public:
    bool hang = false;
    const char *clock_name() const override { return "hanging"; }
    void start() override {}
    double stop() override {
        if (!hang) return 1e-3;
        if (!wait_deadline()) throw std::logic_error("a span that never ends, waited for with no limit");
        throw std::runtime_error(wait_why());
    }
};

// A plugin class for the C++ helper that takes the ranks in work() and keeps its Setup.
struct AcrossRanks {
    static inline gpubench::Setup last;
    explicit AcrossRanks(const gpubench::Setup &setup) { last = setup; }
    static gpubench::Work work(uint64_t size, const gpubench::Params &, int devices, int ranks) {
        gpubench::Work w;
        w.items = static_cast<double>(size) * devices * ranks;
        return w;
    }
    void run() {}
    gpubench::Verification verify() { return {}; }
};

}  // namespace

TEST_CASE("a world is the innermost launcher's ranks, more than one, and no shards", "[ranks]") {
    const auto world = [](std::map<std::string, std::string> variables, bool sharded = false) {
        return launched_world(environment(std::move(variables)), sharded);
    };
    const std::optional<RankWorld> mpirun = world({{"OMPI_COMM_WORLD_RANK", "1"}, {"OMPI_COMM_WORLD_SIZE", "4"}});
    REQUIRE(mpirun);
    CHECK(mpirun->rank == 1);
    CHECK(mpirun->ranks == 4);
    CHECK(mpirun->source == "OMPI_COMM_WORLD_RANK=1, OMPI_COMM_WORLD_SIZE=4");
    CHECK(mpirun->together());
    // The same ranks splitting a sweep into shards measure entries of their own: no world.
    CHECK_FALSE(world({{"OMPI_COMM_WORLD_RANK", "1"}, {"OMPI_COMM_WORLD_SIZE", "4"}}, true));
    CHECK_FALSE(world({{"OMPI_COMM_WORLD_RANK", "0"}, {"OMPI_COMM_WORLD_SIZE", "1"}}));
    CHECK_FALSE(world({}));
    // mpirun inside a Slurm job: Open MPI's rank, not the job's SLURM_PROCID.
    const std::optional<RankWorld> inside = world({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "4"},
                                                   {"OMPI_COMM_WORLD_RANK", "2"}, {"OMPI_COMM_WORLD_SIZE", "4"}});
    REQUIRE(inside);
    CHECK(inside->rank == 2);
    // srun's tasks: a job step's.
    const std::optional<RankWorld> srun =
        world({{"SLURM_PROCID", "3"}, {"SLURM_NTASKS", "4"}, {"SLURM_STEP_NUM_TASKS", "4"}});
    REQUIRE(srun);
    CHECK(srun->rank == 3);
    CHECK(srun->source == "SLURM_PROCID=3, SLURM_STEP_NUM_TASKS=4");
    // A batch script has SLURM_PROCID=0 and the job's SLURM_NTASKS, but is one process.
    CHECK_FALSE(world({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "4"}}));
    const std::optional<RankWorld> hydra = world({{"PMI_RANK", "1"}, {"PMI_SIZE", "2"}});
    REQUIRE(hydra);
    CHECK(hydra->rank == 1);
    // Variables that are not numbers, or a rank beyond the size: alone, as without them.
    CHECK_FALSE(world({{"OMPI_COMM_WORLD_RANK", "one"}, {"OMPI_COMM_WORLD_SIZE", "4"}}));
    CHECK_FALSE(world({{"OMPI_COMM_WORLD_RANK", "4"}, {"OMPI_COMM_WORLD_SIZE", "4"}}));
}

TEST_CASE("ranks meet in a folder of their job, and each entry's measurement in one of its own", "[ranks]") {
    const fs::path a = rank_meeting_folder("results", "OMPI_MCA_ess_base_jobid=77\n", 4);
    CHECK(a.parent_path() == fs::path("results") / ".gpubench-ranks");
    CHECK(a.filename().string().size() == 16);
    CHECK(a == rank_meeting_folder("results", "OMPI_MCA_ess_base_jobid=77\n", 4));  // every rank alike
    CHECK(a != rank_meeting_folder("results", "OMPI_MCA_ess_base_jobid=78\n", 4));  // another job
    CHECK(a != rank_meeting_folder("results", "OMPI_MCA_ess_base_jobid=77\n", 2));  // another world
    CHECK(rank_meeting_folder("", "", 2).parent_path() == fs::path(".") / ".gpubench-ranks");
    const EntryIdentity entry{"allreduce_nccl", 4096, "", 42};
    const fs::path first = entry_rendezvous(a, entry, 1);
    CHECK(first.parent_path() == a);
    CHECK_THAT(first.filename().string(), Catch::EndsWith("-1"));
    CHECK(first.filename().string() == entry.hash_hex() + "-1");  // the entry's one identity hash
    CHECK(entry.hash_hex().size() == 16);
    CHECK(entry.hash_hex() != entry.any_seed().hash_hex());
    CHECK(first == entry_rendezvous(a, entry, 1));
    CHECK(first != entry_rendezvous(a, entry, 2));  // measured again: a fresh folder
    CHECK(first != entry_rendezvous(a, {"allreduce_nccl", 8192, "", 42}, 1));
    CHECK(first != entry_rendezvous(a, {"allreduce_nccl", 4096, "", 43}, 1));
}

TEST_CASE("a collective across ranks calls run() a fixed number of times, whatever the times", "[ranks]") {
    const Plugin plugin = test_support::load_fixture("fixture_ranks.so");
    const test_support::TempFolder folder;
    SteadyClockTimer timer;
    MeasureOptions options = rank_of_two_options(1, folder.path());
    Measurement e = measure_entry(plugin, 20, options, timer);
    INFO(e.message);
    REQUIRE(e.status == EntryStatus::ok);
    CHECK(e.timing.samples.run.size() == 5);  // --min-samples, though --max-time 0 would stop at one
    std::map<std::string, double> m = metrics_of(e);
    CHECK(m["runs"] == 1 + 5);  // the warm-up and the samples, nothing else
    CHECK(m["rank"] == 1);
    CHECK(m["ranks"] == 2);
    CHECK(m["rendezvous"] == 1);
    CHECK(m["rank_timeout_s"] == 30);
    CHECK(fs::is_directory(options.rendezvous));  // made for it
    CHECK(e.rank == 1);
    CHECK(e.ranks == 2);
    CHECK(e.timing.stop_reason == "a fixed count across 2 ranks: 5 samples (--min-samples) on each, as every rank "
                           "must call run() alike");
    // Nor do a minimum time or the noise criterion change it.
    options.min_time_s = 30;
    options.max_noise = 1e-6;
    options.max_time_s = 60;
    options.warmup_runs = 2;
    e = measure_entry(plugin, 20, options, timer);
    CHECK(e.status == EntryStatus::ok);
    CHECK(metrics_of(e)["runs"] == 2 + 5);
    // Its record says it ran across ranks, and the file reads it back.
    const nlohmann::json json = e;
    CHECK(json["ranks"] == nlohmann::json({{"rank", 1}, {"ranks", 2}}));
    const EntryResult back = json.get<EntryResult>();
    CHECK(back.rank == 1);
    CHECK(back.ranks == 2);

    // Alone, the same plugin and options stop by the rules that depend on time.
    MeasureOptions alone = rank_of_two_options(0, folder.path());
    alone.world = RankWorld{};
    alone.rendezvous.clear();
    e = measure_entry(plugin, 20, alone, timer);
    CHECK(e.status == EntryStatus::ok);
    CHECK(e.timing.samples.run.size() == 1);
    m = metrics_of(e);
    CHECK(m["runs"] == 1 + 1);
    CHECK(m["rank"] == 0);
    CHECK(m["ranks"] == 1);
    CHECK(m["rendezvous"] == 0);
    CHECK_FALSE(e.across_ranks());
    CHECK_FALSE(nlohmann::json(e).contains("ranks"));
}

TEST_CASE("a plugin that does not work across ranks is measured by each rank alone", "[ranks]") {
    const Plugin plugin = test_support::load_fixture("fixture_good.so");
    const test_support::TempFolder folder;
    SteadyClockTimer timer;
    const MeasureOptions options = rank_of_two_options(0, folder.path());
    const Measurement e = measure_entry(plugin, 20, options, timer);
    CHECK(e.status == EntryStatus::ok);
    CHECK(e.timing.samples.run.size() == 1);  // --max-time 0: its own rules
    CHECK_FALSE(e.across_ranks());
    CHECK_FALSE(fs::exists(options.rendezvous));  // no folder made for it
}

TEST_CASE("a collective's span that waits past the rank time-out fails, naming the cause", "[ranks]") {
    const Plugin plugin = test_support::load_fixture("fixture_ranks.so");
    const test_support::TempFolder folder;
    HangingTimer timer;
    timer.hang = true;
    MeasureOptions options = rank_of_two_options(1, folder.path());
    options.world.timeout_s = 0.25;
    Measurement e = measure_entry(plugin, 20, options, timer);
    CHECK(e.status == EntryStatus::error);
    CHECK(e.message == "in warm-up: waited 0.25 s (--rank-timeout) for a collective across 2 ranks to end (this "
                       "is rank 1): another rank stopped taking part (it failed, skipped or crashed in this entry, "
                       "or measures another sweep)");
    // The limit is the entry's alone: alone, a span is waited for as long as it takes.
    timer.hang = false;
    options.world = RankWorld{};
    e = measure_entry(plugin, 20, options, timer);
    CHECK(e.status == EntryStatus::ok);
    timer.hang = true;
    CHECK_THROWS_WITH(timer.stop(), "a span that never ends, waited for with no limit");
}

TEST_CASE("a rank's folder that cannot be made fails the entry, saying which", "[ranks]") {
    const Plugin plugin = test_support::load_fixture("fixture_ranks.so");
    SteadyClockTimer timer;
    MeasureOptions options = rank_of_two_options(0, "/proc/gpubench-ranks");
    const Measurement e = measure_entry(plugin, 20, options, timer);
    CHECK(e.status == EntryStatus::error);
    CHECK_THAT(e.message, Catch::StartsWith("cannot make the ranks' folder '/proc/gpubench-ranks/entry-1': "));
}

TEST_CASE("the world travels to the worker with each entry's folder", "[ranks]") {
    const MeasureOptions options = rank_of_two_options(1, "/shared/ranks");
    const WorkerRequest back = request_from_wire(request_to_wire({64, options, {}}));
    CHECK(back.options.world.rank == 1);
    CHECK(back.options.world.ranks == 2);
    CHECK(back.options.world.source == options.world.source);
    CHECK(back.options.world.folder == "/shared/ranks");
    CHECK(back.options.world.timeout_s == 30);
    CHECK(back.options.rendezvous == "/shared/ranks/entry-1");
}

TEST_CASE("ABI 1.7: the C++ helper reads the ranks only where the runner's structs have them", "[ranks]") {
    gpubench::Info info{"helper_test", "helper", "test", GPUBENCH_DEVICE_CUDA, "d", "n", "1", "", 1, 100, {10}};
    info.max_devices = 8;
    const gpubench_plugin plugin = gpubench::detail::make_descriptor<AcrossRanks>(info, "test");
    const auto items = [&](uint32_t size, int32_t ranks) {
        gpubench_work raw{};
        raw.struct_size = size;
        raw.devices = 2;
        raw.ranks = ranks;
        char message[128] = "";
        REQUIRE(plugin.work(10, "", &raw, message, sizeof message) == GPUBENCH_OK);
        return raw.items;
    };
    CHECK(items(sizeof(gpubench_work), 4) == 10 * 2 * 4);
    CHECK(items(offsetof(gpubench_work, ranks), 4) == 10 * 2);  // a 1.6 runner: alone

    const int32_t device = 0;
    void *const stream = reinterpret_cast<void *>(0x1000);
    gpubench_setup_args args{};
    args.struct_size = sizeof args;
    args.size = 10;
    args.params = "";
    args.cuda_stream = stream;
    args.device_count = 1;
    args.cuda_devices = &device;
    args.cuda_streams = &stream;
    args.rank = 3;
    args.ranks = 4;
    args.rendezvous = "/shared/ranks/entry-1";
    args.rank_timeout_s = 9;
    const auto create = [&] { return test_support::setup_given<AcrossRanks>(plugin, args); };
    gpubench::Setup setup = create();
    CHECK(setup.rank == 3);
    CHECK(setup.ranks == 4);
    CHECK(setup.rendezvous == "/shared/ranks/entry-1");
    CHECK(setup.rank_timeout_s == 9);
    args.rendezvous = nullptr;
    CHECK(create().rendezvous.empty());
    args.struct_size = offsetof(gpubench_setup_args, rank);  // a 1.6 runner's
    setup = create();
    CHECK(setup.rank == 0);
    CHECK(setup.ranks == 1);
    CHECK(setup.rendezvous.empty());
}

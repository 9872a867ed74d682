#include "sweep_plan.hpp"

#include "cache_files.hpp"
#include "child_process.hpp"
#include "gpu_description_cache.hpp"
#include "host_resources.hpp"
#include "plugin_list.hpp"
#include "rank_world.hpp"
#include "shard_barrier.hpp"
#include "sweep_results.hpp"
#include "visible_devices.hpp"

#include <boost/dll/runtime_symbol_info.hpp>

#include <cstdlib>
#include <iostream>
#include <string>

namespace gpubench {

namespace {

// The default sweep's wall-time target (--budget): one H100 with the Python backends should
// finish in about three minutes.
constexpr double default_sweep_budget_s = 150;

// --devices: the listed devices, or every one here (all), become cuda_device and the rest.
// A listed device this machine lacks is an error; on a machine with no CUDA device at all,
// the GPU entries are recorded as skipped with the reason, as without --devices. The default
// sweep takes every GPU of a host with several, unless --device names one. The GPUs are
// counted from the driver's listing where it tells, so that CUDA is not started yet
// (narrow_own_devices), nor at all where the GPUs' descriptions are cached.
void choose_devices(const CommandLine &cli, SweepPlan &plan) {
    const auto count_devices = [] {
        const std::optional<int> listed = visible_gpu_count(driver_gpu_listing(), inherited_visible_devices());
        return listed ? *listed : cuda_device_count();  // not value_or: it would start CUDA every time
    };
    plan.all_devices = cli.all_devices ||
                       (plan.default_sweep && cli.devices.empty() && !cli.device_given && count_devices() > 1);
    if (cli.devices.empty() && !plan.all_devices) return;
    const int count = count_devices();
    std::vector<int> devices = cli.devices;
    if (plan.all_devices)
        for (int device = 0; device < count; ++device) devices.push_back(device);
    for (int device : devices)
        if (count > 0 && device >= count)
            throw CommandFailure{"--devices: CUDA device " + std::to_string(device) + " does not exist (" +
                                 std::to_string(count) + " found)"};
    if (devices.empty()) devices.push_back(plan.measure.cuda_device);
    plan.measure.cuda_device = devices.front();
    plan.measure.cuda_devices = devices;
}

// Ranks of one launch on one host (mpirun -np 2 on a host of two GPUs) share it as --devices'
// lanes do: when the launcher left each rank the whole host (mpirun --bind-to none), local
// rank R of L takes the R-th of L equal parts of its CPUs, by whole cores. The local rank and
// count come from OMPI_COMM_WORLD_LOCAL_RANK/_LOCAL_SIZE (Open MPI), MPI_LOCALRANKID/
// MPI_LOCALNRANKS (MPICH's hydra) or SLURM_LOCALID/SLURM_NTASKS_PER_NODE (srun). nullopt when
// there is one rank here, or the launcher already bound it to fewer CPUs than the host has.
std::optional<HostShare> local_rank_share() {
    const EnvironmentLookup environment = process_environment();
    for (const auto &[rank_name, size_name] :
         {std::pair{"OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"},
          {"MPI_LOCALRANKID", "MPI_LOCALNRANKS"},
          {"SLURM_LOCALID", "SLURM_NTASKS_PER_NODE"}}) {
        const std::optional<std::string> rank_text = environment(rank_name), size_text = environment(size_name);
        int rank = 0, size = 0;
        if (!rank_text || !size_text || !parse_small_int(rank_text->c_str(), rank) ||
            !parse_small_int(size_text->c_str(), size))
            continue;
        const std::vector<int> allowed = allowed_cpus();
        if (size < 2 || rank < 0 || rank >= size || allowed.size() < logical_cores()) return std::nullopt;
        HostShare share = split_host_cpus(allowed, physical_cores(allowed), {}, size_t(size)).at(size_t(rank));
        share.basis = "local rank " + std::to_string(rank) + " of " + std::to_string(size) + " (" + rank_name +
                      "): " + share.basis;
        return share;
    }
    return std::nullopt;
}

// Ranks launched together on one host (shards, or a world: rank_world.hpp) share it
// (local_rank_share): this rank's share, taken (bound to, and --threads unless given), or
// nullopt with a note where its launcher bound it to fewer CPUs than the host has.
std::optional<HostShare> take_rank_share(const CommandLine &cli, const std::optional<ShardSpec> &shard,
                                         MeasureOptions &measure) {
    if (!(shard && shard->launched_ranks) && !measure.world.together()) return std::nullopt;
    std::optional<HostShare> share = local_rank_share();
    if (!share) {
        if (allowed_cpus().size() < logical_cores())
            std::cout << "note: this rank may use " << allowed_cpus().size() << " of this host's " << logical_cores()
                      << " CPUs (its launcher's binding: Open MPI's mpirun binds each rank to one core unless "
                         "--bind-to none, and then ranks on one host share it by themselves)\n";
        return std::nullopt;
    }
    if (std::string why = apply_host_share(share->cpus, share->threads); !why.empty()) {
        std::cerr << "runner: warning: " << why << "; this rank keeps every CPU\n";
        return std::nullopt;
    }
    if (!cli.threads_given) measure.cpu_threads = share->threads;
    return share;
}

// Ranks launched together meet in a folder of their job's (rank_world.hpp), beside the results
// file or in --rank-dir, absolute so that every worker finds it.
std::string rank_meeting_place(const CommandLine &cli, const SweepPlan &plan) {
    const RankWorld &world = plan.measure.world;
    if (!world.together()) return world.folder;
    const std::filesystem::path base =
        cli.rank_dir.empty() ? results_folder(plan) : std::filesystem::path(cli.rank_dir);
    return std::filesystem::absolute(
               rank_meeting_folder(base, launcher_job_identity(process_environment()), world.ranks))
        .string();
}

// The default sweep: every plugin that can run here, the others noted. A shard of it plans
// every plugin, so that shards on unlike machines plan the same sweep (what cannot run here
// is recorded as skipped).
std::vector<const PluginInfo *> runnable_plugins(const SweepPlan &plan, const PluginCatalog &catalog,
                                                 const GpuInfo &gpu) {
    std::vector<const PluginInfo *> selected;
    for (const PluginInfo &p : catalog.plugins)
        if (const std::string why = unavailable_reason(p, gpu); why.empty() || plan.shard)
            selected.push_back(&p);
        else
            std::cout << "note: " << p.name << " unavailable: " << why << '\n';
    return selected;
}

}  // namespace

SweepPlan plan_sweep(const CommandLine &cli) {
    for (const std::string &dir : cli.plugin_dirs)
        if (!std::filesystem::is_directory(dir))
            throw CommandFailure{"plugin directory '" + dir + "' does not exist"};
    SweepPlan plan;
    plan.measure = cli.measure;
    plan.plugin_patterns = cli.plugin_patterns;
    plan.shard = cli.shard;
    plan.shard_costs = cli.shard_costs;
    plan.resume = cli.resume;
    plan.output = !cli.output.empty() ? cli.output : cli.resume;
    // Resuming a shard's or a merged file: the entries it was planned to hold.
    if (!plan.resume.empty()) try {
            plan.resumed = resumed_plan(plan.resume, plan.shard, cli);
        } catch (const std::exception &e) {
            throw CommandFailure{"cannot resume: " + std::string(e.what())};
        }
    if (plan.resumed) plan.plugin_patterns = plugin_names(plan.resumed->entries);
    // The default sweep is an overview that should take minutes: a tighter time per entry,
    // and no size predicted to run for long (SweepSetup::predicted_run_limit_s).
    plan.default_sweep = plan.resumed ? plan.resumed->default_sweep : cli.plugin_patterns.empty() && !cli.sizes;
    choose_devices(cli, plan);
    plan.rank_share = take_rank_share(cli, plan.shard, plan.measure);
    if (cli.rank_options_given && !plan.measure.world.together())
        std::cout << "note: --rank-dir and --rank-timeout are for ranks launched together (mpirun, srun, "
                     "without --shard); this run is alone, so they have no effect\n";
    // The runner starts CUDA on the sweep's GPUs alone, as its workers do (visible_devices.hpp);
    // in-process, plugins get the runner's own numbering, so it stays whole.
    if (!cli.in_process && !cli.list) narrow_own_devices(selected_cuda_devices(plan.measure));
    // A profile run (--profile) takes its fixed count whatever the time: no budget, no cut.
    const bool profile = plan.measure.profile_runs > 0;
    plan.budget_s = cli.budget_s.value_or(plan.default_sweep && !profile ? default_sweep_budget_s : 0);
    if (plan.default_sweep && !cli.max_time_given && !profile) plan.measure.max_time_s = 1.0;
    if (!cli.sanitize.empty()) {
        plan.measure.audit_streams = false;  // the sanitizer's own device work outlives spans
        plan.measure.hold_stream = false;    // spans under a sanitizer are not timings anyway
    }
    plan.measure.world.folder = rank_meeting_place(cli, plan);
    std::error_code ec;
    plan.runner_file = boost::dll::program_location(ec);
    return plan;
}

PluginSearch runner_plugin_search(const std::filesystem::path &runner_file,
                                  const std::vector<std::string> &plugin_dirs, bool allow_insecure,
                                  const std::string &who) {
    PluginSearch search;
    PluginSearchPath path = plugin_search_path(runner_file.parent_path(), plugin_dirs, std::getenv(plugin_path_variable));
    for (const std::string &warning : path.warnings) std::cerr << who << ": warning: " << warning << '\n';
    search.dirs = std::move(path.dirs);
    search.allow_insecure = allow_insecure;
    search.scan.runner = runner_file;
    search.scan.cache = cache_file("plugin-scan.json");
    return search;
}

PluginCatalog find_plugins(const CommandLine &cli, const SweepPlan &plan) {
    PluginSearch search = runner_plugin_search(plan.runner_file, cli.plugin_dirs, cli.allow_insecure_plugins, "runner");
    search.scan.timeout_s = cli.scan_timeout_s;
    search.scan.rescan = cli.rescan_plugins;
    // With --plugin, only files named like a pattern are scanned (the rest when none matches).
    return discover_plugins(search, cli.list ? std::vector<std::string>{} : plan.plugin_patterns);
}

SweepSelection select_sweep_plugins(const CommandLine &cli, const SweepPlan &plan, PluginCatalog &catalog) {
    SweepSelection selection;
    // The default sweep needs the GPU's answer first: it runs what can run here.
    if (plan.plugin_patterns.empty()) {
        selection.probed = probe_runner_gpu(plan.measure.cuda_device, cli.reprobe_gpus);
        selection.plugins = runnable_plugins(plan, catalog, *selection.probed);
    } else {
        try {
            selection.plugins = select_plugins(catalog, plan.plugin_patterns);
        } catch (const std::exception &e) {
            throw CommandFailure{e.what()};
        }
    }
    if (selection.plugins.empty()) throw CommandFailure{"no plugins to run (runner --list shows what was found)"};
    // Not an error (a stray file in a plugin folder must not stop a sweep), but not silent.
    if (!catalog.refused.empty())
        std::cout << "note: " << catalog.refused.size()
                  << (catalog.refused.size() == 1 ? " file was" : " files were")
                  << " refused as plugins (runner --list says why)\n";
    // A mistyped key would otherwise be measured as the default, silently (the keys as "key=,key2=":
    // unread_param_problem reads the keys only).
    std::string keys;
    for (const ParamAxis &axis : cli.param_axes) keys += (keys.empty() ? "" : ",") + axis.key + "=";
    if (std::string problem = unread_param_problem(selection.plugins, keys); !problem.empty())
        throw CommandFailure{problem};
    // A value the plugin would refuse fails here, once, not as an error entry at every size.
    if (std::string problem = param_values_problem(selection.plugins, cli.param_axes); !problem.empty())
        throw CommandFailure{problem};
    return selection;
}

GpuInfo probe_runner_gpu(int device, bool reprobe) {
    const int own = own_cuda_index(device);
    if (own == device) return cached_or_probed_gpu(device, reprobe);
    GpuInfo gpu = own < 0 ? GpuInfo{} : cached_or_probed_gpu(own, reprobe);
    gpu.device = device;
    if (!gpu.available)
        gpu.unavailable_reason = "CUDA device " + std::to_string(device) + " cannot be used (" +
                                 (own < 0 ? "not among the sweep's devices" : gpu.unavailable_reason) + ")";
    return gpu;
}

}  // namespace gpubench

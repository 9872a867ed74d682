#include "shard_barrier.hpp"

#include "fnv_hash.hpp"
#include "rank_world.hpp"
#include "text_format.hpp"
#include "thread_name.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <mutex>
#include <ostream>
#include <stdexcept>

namespace gpubench {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

namespace {

const char *const job_identity_variables[] = {"SLURM_JOB_ID",   "SLURM_STEP_ID", "OMPI_MCA_ess_base_jobid",
                                              "PMIX_NAMESPACE", "PMI_JOBID",     "PMI_KVSNAME"};

int64_t unix_ms_now() {
    return std::chrono::duration_cast<milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string seconds_text(milliseconds time) { return format_text("%g s", double(time.count()) / 1000); }

std::optional<std::string> read_text(const fs::path &path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    return std::string{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Writes `text` whole, through a rename: a reader sees the old file or the new one, never part.
// Close-on-exec: the heartbeat writes while the sweep starts worker processes.
void write_atomically(const fs::path &path, const std::string &text) {
    const fs::path temporary = path.string() + ".tmp";
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) throw std::runtime_error("cannot write " + temporary.string() + ": " + std::strerror(errno));
    const bool written = ::write(fd, text.data(), text.size()) == ssize_t(text.size());
    const int error = errno;
    if (::close(fd) != 0 || !written)
        throw std::runtime_error("cannot write " + temporary.string() + ": " + std::strerror(written ? errno : error));
    fs::rename(temporary, path);
}

}  // namespace

BarrierTimes shard_barrier_times(const EnvironmentLookup &environment, std::string &warning) {
    BarrierTimes times;
    const std::optional<std::string> text = environment(shard_grace_variable);
    if (!text) return times;
    char *end = nullptr;
    const double seconds = std::strtod(text->c_str(), &end);
    if (text->empty() || *end != '\0' || !std::isfinite(seconds) || seconds < 0.1 || seconds > 1e6) {
        warning = std::string(shard_grace_variable) + "='" + printable_text(*text) +
                  "' is not a number of seconds from 0.1 to 1e6: the shard barrier's default times stand";
        return times;
    }
    times.absent = milliseconds(std::llround(seconds * 1000));
    times.silent = times.absent / 2;
    times.heartbeat = std::min(times.heartbeat, times.absent / 8);
    times.poll = std::min(times.poll, times.absent / 20);
    return times;
}

std::string launcher_job_identity(const EnvironmentLookup &environment) {
    std::string identity;
    for (const char *name : job_identity_variables)
        if (const std::optional<std::string> value = environment(name)) identity += std::string(name) + "=" + *value + "\n";
    return identity;
}

std::string shard_barrier_id(const std::string &job_identity, uint32_t count, const nlohmann::json &planned) {
    return fnv1a_64_hex(job_identity + "count=" + std::to_string(count) + "\n" + planned.dump());
}

fs::path shard_barrier_folder(const fs::path &results_file, const std::string &id) {
    const fs::path folder = results_file.parent_path();
    return (folder.empty() ? fs::path(".") : folder) / ".gpubench-shards" / id;
}

PeerWatch::PeerWatch(uint32_t self, uint32_t count, BarrierClock::time_point started, const BarrierTimes &times)
    : started_(started), times_(times), peers_(count) {
    peers_.at(self).state = State::done;
}

std::vector<uint32_t> PeerWatch::look(const std::vector<Sight> &sights, BarrierClock::time_point now) {
    std::vector<uint32_t> given_up;
    for (uint32_t index = 0; index < peers_.size(); ++index) {
        Peer &peer = peers_[index];
        if (peer.state != State::waiting) continue;  // this rank's own is done from the start
        const Sight &sight = sights.at(index);
        if (sight.done) {
            peer.state = State::done;
        } else if (sight.heartbeat && sight.heartbeat != peer.heartbeat) {
            peer.heartbeat = sight.heartbeat;  // alive: it beat since the last look
            peer.changed = now;
        } else if (peer.heartbeat ? now - peer.changed >= times_.silent : now - started_ >= times_.absent) {
            peer.state = peer.heartbeat ? State::silent : State::absent;
            given_up.push_back(index);
        }
    }
    return given_up;
}

bool PeerWatch::settled() const {
    return std::none_of(peers_.begin(), peers_.end(), [](const Peer &p) { return p.state == State::waiting; });
}

ShardBarrier::ShardBarrier(Place place, BarrierTimes times, std::ostream &warnings)
    : place_(std::move(place)), times_(times), warnings_(warnings),
      started_(BarrierClock::now()), started_unix_ms_(unix_ms_now()) {
    try {
        fs::create_directories(place_.folder);
        // The markers of a finished job stay (no rank knows that it is the last to read
        // them); a live job's heartbeats keep its folder fresh.
        remove_stale_siblings(place_.folder);
        fs::remove(file(place_.index, ".done"));  // an earlier job's, when the folder is not this job's alone
        write_heartbeat(0);
    } catch (const std::exception &e) {
        warnings_ << "runner: warning: the " << place_.kind << " barrier cannot use " << place_.folder.string()
                  << " (" << e.what() << "): this " << place_.kind << " will not wait for the others before exiting\n";
        return;
    }
    active_ = true;
    heartbeat_ = std::jthread([this](std::stop_token stop) { beat(stop); });
}

fs::path ShardBarrier::file(uint32_t index, const char *suffix) const {
    return place_.folder / (std::to_string(index) + suffix);
}

// "pid P beat N": a beat is a change of content, which every file system shows to a reader
// that opens the file (where a modification time may be cached, or coarse).
void ShardBarrier::write_heartbeat(uint64_t beat) const {
    write_atomically(file(place_.index, ".alive"),
                     "pid " + std::to_string(getpid()) + " beat " + std::to_string(beat) + "\n");
}

void ShardBarrier::beat(std::stop_token stop) {
    name_this_thread("heartbeat");
    std::mutex mutex;
    std::condition_variable_any wake;  // woken early by the stop only
    std::unique_lock lock(mutex);
    const auto stopped = [&] { return stop.stop_requested(); };
    for (uint64_t n = 1; !wake.wait_for(lock, stop, times_.heartbeat, stopped); ++n) try {
            write_heartbeat(n);
        } catch (const std::exception &) {
            // The next beat tries again; a waiting rank gives up only after `silent`.
        }
}

std::vector<PeerWatch::Sight> ShardBarrier::look() const {
    std::vector<PeerWatch::Sight> sights(place_.count);
    for (uint32_t index = 0; index < place_.count; ++index) {
        PeerWatch::Sight &sight = sights[index];
        sight.heartbeat = read_text(file(index, ".alive"));
        const std::optional<std::string> done = read_text(file(index, ".done"));
        long long started = 0;  // "STATUS STARTED_UNIX_MS"
        sight.done = done && (!place_.check_done_times ||
                              (std::sscanf(done->c_str(), "%*d %lld", &started) == 1 &&
                               started >= started_unix_ms_ - int64_t(times_.absent.count())));
    }
    return sights;
}

int ShardBarrier::finish(int status, const std::function<bool()> &stop, std::ostream &out) {
    if (!active_) return status;
    active_ = false;
    heartbeat_ = std::jthread();  // stops the heartbeat and joins it
    try {
        write_atomically(file(place_.index, ".done"),
                         std::to_string(status) + " " + std::to_string(started_unix_ms_) + "\n");
    } catch (const std::exception &e) {
        warnings_ << "runner: warning: the " << place_.kind << " barrier: " << e.what() << ": the other "
                  << place_.kind << "s will wait for this one until its heartbeat is "
                  << seconds_text(times_.silent) << " old\n";
    }
    if (status != 0) wait_for_others(status, stop, out);
    return status;
}

void ShardBarrier::wait_for_others(int status, const std::function<bool()> &stop, std::ostream &out) {
    const std::string &kind = place_.kind;
    const std::string me = kind + " " + shard_text(place_.index, place_.count);
    const std::string folder = place_.folder.string();
    PeerWatch watch(place_.index, place_.count, started_, times_);
    bool waited = false;
    for (;;) {
        for (uint32_t index : watch.look(look(), BarrierClock::now()))
            if (watch.state(index) == PeerWatch::State::silent)
                out << me << ": " << kind << " " << index << "'s heartbeat in " << folder << " stopped "
                    << seconds_text(times_.silent) << " ago without its end (did it die?): not waiting for it"
                    << std::endl;
            else
                out << me << ": " << kind << " " << index << " did not appear in " << folder << " within "
                    << seconds_text(times_.absent)
                    << " (on a host that does not share this folder?): not waiting for it" << std::endl;
        if (watch.settled()) break;
        if (stop()) {
            out << me << ": stopped: exiting with status " << status << " without waiting for the other " << kind << "s"
                << std::endl;
            return;
        }
        if (!waited)
            out << me << ": waiting for the other " << kind << "s to finish before exiting with status " << status
                << ", so that the launcher does not stop them" << std::endl;
        waited = true;
        std::this_thread::sleep_for(times_.poll);
    }
    if (waited) out << me << ": done waiting for the other " << kind << "s; exiting with status " << status << std::endl;
}

}  // namespace gpubench

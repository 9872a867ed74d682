#include "host_share.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <stdexcept>

namespace gpubench {

void to_json(nlohmann::json &j, const HostShare &share) {
    j = {{"cpus", cpu_list_text(share.cpus)}, {"threads", share.threads}, {"lanes", share.lanes}};
    if (share.numa_node) j["numa_node"] = *share.numa_node;
    j["basis"] = share.basis;
}

void from_json(const nlohmann::json &j, HostShare &share) {
    share.cpus = parse_cpu_list(j.at("cpus").get<std::string>());
    share.threads = j.at("threads").get<int>();
    share.lanes = j.at("lanes").get<size_t>();
    share.numa_node = j.contains("numa_node") ? std::optional<int>(j["numa_node"].get<int>()) : std::nullopt;
    share.basis = j.at("basis").get<std::string>();
}

std::string cpu_list_text(std::vector<int> cpus) {
    std::sort(cpus.begin(), cpus.end());
    cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
    std::string text;
    for (size_t i = 0; i < cpus.size();) {
        size_t last = i;
        while (last + 1 < cpus.size() && cpus[last + 1] == cpus[last] + 1) ++last;
        text += (text.empty() ? "" : ",") + std::to_string(cpus[i]);
        if (last > i) text += "-" + std::to_string(cpus[last]);
        i = last + 1;
    }
    return text;
}

namespace {

// A CPU id of `text` from `pos`, advancing it; -1 when there is no number there.
int cpu_id_at(const std::string &text, size_t &pos) {
    const size_t begin = pos;
    long value = 0;
    while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos])) && value < (1 << 20))
        value = value * 10 + (text[pos++] - '0');
    return pos == begin || value >= (1 << 20) ? -1 : static_cast<int>(value);
}

}  // namespace

std::vector<int> parse_cpu_list(const std::string &text) {
    std::string compact;
    for (char c : text)
        if (!std::isspace(static_cast<unsigned char>(c))) compact += c;
    const auto refuse = [&] {
        return std::invalid_argument("'" + text + "' is not a CPU list (like 0-7,16-23)");
    };
    std::set<int> cpus;
    for (size_t pos = 0; pos < compact.size();) {
        const int first = cpu_id_at(compact, pos);
        int last = first;
        if (pos < compact.size() && compact[pos] == '-') last = cpu_id_at(compact, ++pos);
        if (first < 0 || last < first) throw refuse();
        if (pos < compact.size() && compact[pos++] != ',') throw refuse();
        if (pos == compact.size() && compact.back() == ',') throw refuse();
        for (int cpu = first; cpu <= last; ++cpu) cpus.insert(cpu);
    }
    return {cpus.begin(), cpus.end()};
}

namespace {

using Core = std::vector<int>;

// The cores of `allowed` CPUs: each group cut to the allowed CPUs, allowed CPUs in no group as
// cores of their own, each CPU once; ordered by first CPU.
std::vector<Core> usable_cores(const std::vector<int> &allowed, const std::vector<Core> &cores) {
    std::set<int> left(allowed.begin(), allowed.end());
    std::vector<Core> usable;
    for (const Core &core : cores) {
        Core kept;
        for (int cpu : core)
            if (left.erase(cpu)) kept.push_back(cpu);
        std::sort(kept.begin(), kept.end());
        if (!kept.empty()) usable.push_back(std::move(kept));
    }
    for (int cpu : left) usable.push_back({cpu});
    std::sort(usable.begin(), usable.end());
    return usable;
}

// `cores` cut into `parts` runs in order, sizes differing by at most one core.
std::vector<std::vector<Core>> equal_parts(const std::vector<Core> &cores, size_t parts) {
    std::vector<std::vector<Core>> out(parts);
    for (size_t part = 0; part < parts; ++part)
        for (size_t i = part * cores.size() / parts; i < (part + 1) * cores.size() / parts; ++i)
            out[part].push_back(cores[i]);
    return out;
}

// The CPUs of `cores`, ascending.
std::vector<int> cpus_of(const std::vector<Core> &cores) {
    std::vector<int> cpus;
    for (const Core &core : cores) cpus.insert(cpus.end(), core.begin(), core.end());
    std::sort(cpus.begin(), cpus.end());
    return cpus;
}

std::string cores_text(size_t count) { return std::to_string(count) + (count == 1 ? " core" : " cores"); }

// Without (usable) locality: equal parts of every allowed core, or shared cores.
std::vector<HostShare> split_evenly(const std::vector<int> &allowed, const std::vector<Core> &cores,
                                    size_t lanes, const std::string &why) {
    std::vector<HostShare> shares(lanes, HostShare{.lanes = lanes});
    if (cores.size() < lanes) {
        for (size_t lane = 0; lane < lanes; ++lane) {
            shares[lane].cpus = cores[lane % cores.size()];
            shares[lane].basis = "fewer cores (" + std::to_string(cores.size()) + ") than lanes (" +
                                 std::to_string(lanes) + "): lanes share cores, 1 thread each";
        }
        return shares;
    }
    const std::vector<std::vector<Core>> parts = equal_parts(cores, lanes);
    for (size_t lane = 0; lane < lanes; ++lane) {
        shares[lane].cpus = cpus_of(parts[lane]);
        shares[lane].threads = static_cast<int>(shares[lane].cpus.size());
        shares[lane].basis = "an equal part (" + cores_text(parts[lane].size()) + ") of the " +
                             std::to_string(allowed.size()) + " CPUs this process may use" + why;
    }
    return shares;
}

// The lanes of each NUMA node (or each set of local CPUs where the node is not known), in
// order of their first lane.
std::vector<std::vector<size_t>> lanes_by_node(const std::vector<GpuLocality> &locality) {
    std::map<std::pair<int, std::vector<int>>, size_t> group_of;
    std::vector<std::vector<size_t>> groups;
    for (size_t lane = 0; lane < locality.size(); ++lane) {
        const GpuLocality &l = locality[lane];
        const auto key = l.numa_node ? std::make_pair(*l.numa_node, std::vector<int>{})
                                     : std::make_pair(-1, l.cpus);
        const auto [found, added] = group_of.emplace(key, groups.size());
        if (added) groups.emplace_back();
        groups[found->second].push_back(lane);
    }
    return groups;
}

}  // namespace

std::vector<HostShare> split_host_cpus(const std::vector<int> &allowed,
                                       const std::vector<std::vector<int>> &all_cores,
                                       const std::vector<GpuLocality> &given, size_t lanes) {
    if (lanes == 0 || allowed.empty()) return std::vector<HostShare>(lanes);
    const std::vector<Core> cores = usable_cores(allowed, all_cores);
    const bool known = given.size() == lanes &&
                       std::all_of(given.begin(), given.end(),
                                   [](const GpuLocality &l) { return !l.cpus.empty(); });
    if (!known) return split_evenly(allowed, cores, lanes, "");
    std::vector<GpuLocality> locality = given;  // local CPUs ascending, for the search below
    for (GpuLocality &l : locality) std::sort(l.cpus.begin(), l.cpus.end());
    std::vector<HostShare> shares(lanes, HostShare{.lanes = lanes});
    std::vector<bool> taken(cores.size(), false);
    for (const std::vector<size_t> &group : lanes_by_node(locality)) {
        const GpuLocality &near = locality[group.front()];
        std::vector<Core> local;  // the node's allowed cores that no earlier node took
        for (size_t i = 0; i < cores.size(); ++i)
            if (!taken[i] && std::binary_search(near.cpus.begin(), near.cpus.end(), cores[i].front())) {
                taken[i] = true;
                local.push_back(cores[i]);
            }
        if (local.size() < group.size())
            return split_evenly(allowed, cores, lanes,
                                " (the CPUs local to " + near.source + " hold " + cores_text(local.size()) + " for " +
                                    std::to_string(group.size()) + " lanes)");
        const std::vector<std::vector<Core>> parts = equal_parts(local, group.size());
        for (size_t k = 0; k < group.size(); ++k) {
            const GpuLocality &own = locality[group[k]];
            HostShare &share = shares[group[k]];
            share.cpus = cpus_of(parts[k]);
            share.threads = static_cast<int>(share.cpus.size());
            share.numa_node = own.numa_node;
            share.basis = (own.numa_node ? "NUMA node " + std::to_string(*own.numa_node) + " of "
                                         : "the CPUs local to ") +
                          own.source;
            if (group.size() > 1)
                share.basis += ": " + std::to_string(parts[k].size()) + " of its " + cores_text(local.size()) +
                               ", shared by " + std::to_string(group.size()) + " lanes";
        }
    }
    return shares;
}

}  // namespace gpubench

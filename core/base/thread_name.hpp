// The names of the harness's own threads. Every thread the runner or a worker starts names
// itself "gpubench-<role>", so that the thread audit (measure/checks/thread_audit.hpp) can tell the
// plugin's threads from ours: a plugin's thread that works after run() returned is an escape,
// a shard heartbeat is not.
#pragma once

#include <pthread.h>

#include <string>

namespace gpubench {

// With its dash: threads inherit their creator's name, and a program named gpubench_tests
// gives that name to every thread a plugin starts in it.
inline constexpr char harness_thread_prefix[] = "gpubench-";

// Names the calling thread "gpubench-<role>" (cut to the 15 characters Linux keeps).
inline void name_this_thread(const char *role) {
    const std::string name = std::string(harness_thread_prefix) + role;
    pthread_setname_np(pthread_self(), name.substr(0, 15).c_str());
}

}  // namespace gpubench

#include "thread_name.hpp"

#include <pthread.h>

#include <string>

namespace gpubench {

void name_this_thread(const char *role) {
    const std::string name = std::string(harness_thread_prefix) + role;
    pthread_setname_np(pthread_self(), name.substr(0, 15).c_str());
}

}  // namespace gpubench

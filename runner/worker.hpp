// Worker mode: `runner --worker REQUEST --worker-report-fd N` measures one entry and reports
// it as JSON lines on file descriptor N (see core/worker_protocol.hpp). The runner starts one
// per entry (core/isolated_entry.hpp); it is not meant to be run by hand.
#pragma once

#include <string>

namespace gpubench {

// Returns the worker's exit status: 0 once it has reported an entry, 2 on a bad request.
int run_worker(const std::string &request_text, int report_fd);

}  // namespace gpubench

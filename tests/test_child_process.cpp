// ChildProcess (sdk/include/gpubench/child_process.hpp), the one owner of the runner's helpers
// and of the Python bridge's questions: its status once, a wait with a time limit, its group
// killed with it, and a program that cannot start.
#include <gpubench/child_process.hpp>

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>

using gpubench::ChildProcess;

namespace {

// Whether every writer of `read_end` has gone within `seconds` (the read sees the end).
bool writers_gone(int read_end, double seconds) {
    pollfd p{read_end, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(seconds * 1000)) <= 0) return false;
    char byte = 0;
    return read(read_end, &byte, 1) == 0;
}

}  // namespace

TEST_CASE("a child's status is read once and kept, with or without a time limit", "[child-process]") {
    ChildProcess child;
    REQUIRE(child.start({{"/bin/sh", "-c", "exit 3"}}) == 0);
    const std::optional<int> status = child.wait_for(30);
    REQUIRE(status);
    CHECK(WIFEXITED(*status));
    CHECK(WEXITSTATUS(*status) == 3);
    CHECK(child.try_wait() == status);  // reaped once: the same status again
    CHECK(child.wait() == *status);
}

TEST_CASE("a child that outlives the time limit runs on until killed, and its group dies with it",
          "[child-process]") {
    int fds[2];
    REQUIRE(pipe2(fds, O_CLOEXEC) == 0);
    ChildProcess child;
    // A grandchild in the background holds the pipe's write end too.
    REQUIRE(child.start({{"/bin/sh", "-c", "sleep 600 & sleep 600"}, {{fds[1], 1}}}) == 0);
    close(fds[1]);
    CHECK_FALSE(child.wait_for(0.05));
    CHECK_FALSE(child.try_wait());  // still running
    child.kill();
    const int status = child.wait();
    CHECK(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == SIGKILL);
    CHECK(writers_gone(fds[0], 10));  // the grandchild was killed with the group
    close(fds[0]);
}

TEST_CASE("a child that ended takes what it left running in its group with it", "[child-process]") {
    int fds[2];
    REQUIRE(pipe2(fds, O_CLOEXEC) == 0);
    ChildProcess child;
    REQUIRE(child.start({{"/bin/sh", "-c", "sleep 600 & exit 0"}, {{fds[1], 1}}}) == 0);
    close(fds[1]);
    const std::optional<int> status = child.wait_for(30);
    REQUIRE(status);
    CHECK(WEXITSTATUS(*status) == 0);
    CHECK(writers_gone(fds[0], 10));
    close(fds[0]);
}

TEST_CASE("a child that cannot start says why, and one looked up on PATH starts", "[child-process]") {
    ChildProcess missing;
    CHECK(missing.start({{"/nonexistent/program"}}) == ENOENT);
    CHECK_FALSE(missing.try_wait());  // nothing started: nothing ended
    ChildProcess found;
    REQUIRE(found.start({{"sh", "-c", "test \"$GPUBENCH_CHILD_TEST\" = set"}, {}, {{"GPUBENCH_CHILD_TEST", "set"}},
                         /*own_group=*/false, /*search_path=*/true}) == 0);
    CHECK(found.wait() == 0);  // exit status 0: the variable was set
}

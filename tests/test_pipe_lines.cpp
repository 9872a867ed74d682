// PipeLines (core/base/child_process.hpp): whole lines however the bytes arrive, the last unended
// line kept for the end, and a writer that never ends its line held to the bound.
#include "child_process.hpp"

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <stdexcept>
#include <string>
#include <vector>

using gpubench::PipeLines;

namespace {

struct Pipe {
    int read_end = -1, write_end = -1;
    explicit Pipe(bool non_blocking) {
        int fds[2];
        REQUIRE(pipe(fds) == 0);
        read_end = fds[0];
        write_end = fds[1];
        if (non_blocking) fcntl(read_end, F_SETFL, O_NONBLOCK);
    }
    ~Pipe() {
        close(read_end);
        if (write_end >= 0) close(write_end);
    }
    void put(const std::string &text) const { REQUIRE(write(write_end, text.data(), text.size()) == ssize_t(text.size())); }
    void close_writer() {
        close(write_end);
        write_end = -1;
    }
};

std::vector<std::string> lines_of(PipeLines &lines) {
    std::vector<std::string> all;
    while (std::optional<std::string> line = lines.next_line()) all.push_back(*line);
    return all;
}

}  // namespace

TEST_CASE("pipe lines: whole lines however the bytes arrive, the unended rest at the close", "[pipe-lines]") {
    Pipe pipe(true);
    PipeLines lines(64);
    CHECK(lines.read_from(pipe.read_end));  // nothing yet: still open
    CHECK(lines_of(lines).empty());
    pipe.put("{\"stage\": \"se");
    CHECK(lines.read_from(pipe.read_end));
    CHECK(lines_of(lines).empty());  // half a line is not one
    pipe.put("tup\"}\nsecond\nthi");
    CHECK(lines.read_from(pipe.read_end));
    CHECK(lines_of(lines) == std::vector<std::string>{"{\"stage\": \"setup\"}", "second"});
    pipe.put("rd\n\nlast");
    pipe.close_writer();
    CHECK_FALSE(lines.read_from(pipe.read_end));  // closed: what came before it is still there
    CHECK(lines_of(lines) == std::vector<std::string>{"third", ""});
    CHECK(lines.rest() == "last");
}

TEST_CASE("pipe lines: a line beyond the bound is refused, one at the bound is taken", "[pipe-lines]") {
    Pipe pipe(true);
    PipeLines lines(16);
    pipe.put(std::string(16, 'x') + "\n" + std::string(16, 'y'));
    CHECK(lines.read_from(pipe.read_end));
    CHECK(lines_of(lines) == std::vector<std::string>{std::string(16, 'x')});
    pipe.put("y");  // the 17th byte of a line with no end yet
    CHECK_THROWS_WITH(lines.read_from(pipe.read_end), "a line longer than 16 bytes");
}

TEST_CASE("pipe lines: on a blocking pipe, one read waits for what comes", "[pipe-lines]") {
    Pipe pipe(false);
    PipeLines lines(1024);
    pipe.put("request\n");
    CHECK(lines.read_from(pipe.read_end));  // returns after one read, though the pipe stays open
    CHECK(lines.next_line() == std::optional<std::string>("request"));
    pipe.close_writer();
    CHECK_FALSE(lines.read_from(pipe.read_end));
    CHECK(lines.rest().empty());
}

// Bytes shared among ranks through files (gpubench/rendezvous.hpp), as allreduce_nccl shares
// NCCL's unique id: two threads as ranks, one late; a rank that waits past its time-out says
// what it found; a stale file of an earlier run, one for another number of ranks, and one
// that is not the format are not taken; nothing is left behind once withdrawn.
#include "test_support.hpp"

#include <gpubench/rendezvous.hpp>

#include <catch2/catch.hpp>

#include <chrono>
#include <fstream>
#include <thread>

namespace rendezvous = gpubench::rendezvous;
namespace fs = std::filesystem;

namespace {

rendezvous::Place place(const test_support::TempFolder &folder, int rank, double timeout_s = 5) {
    return {folder.path().string(), rank, 2, timeout_s};
}

const std::vector<unsigned char> id = {0, 1, 2, 254, 255, 17, 128, 64};

// How long a call took, in seconds.
template <class Call>
double timed(Call &&call) {
    const auto began = std::chrono::steady_clock::now();
    call();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
}

}  // namespace

TEST_CASE("rendezvous: rank 1 waits for what rank 0 publishes later, whole", "[ranks]") {
    const test_support::TempFolder folder;
    std::vector<unsigned char> received;
    std::thread rank1([&] { received = rendezvous::await(place(folder, 1), "nccl-unique-id", id.size()); });
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // rank 0 is late
    rendezvous::publish(place(folder, 0), "nccl-unique-id", id);
    rank1.join();
    CHECK(received == id);
    // A rank that comes after the publication finds it at once.
    std::vector<unsigned char> late;
    CHECK(timed([&] { late = rendezvous::await(place(folder, 1), "nccl-unique-id", id.size()); }) < 1);
    CHECK(late == id);
    CHECK(fs::directory_iterator(folder.path()) != fs::directory_iterator());
    rendezvous::withdraw(place(folder, 0), "nccl-unique-id");
    rendezvous::withdraw(place(folder, 0), "nccl-unique-id");  // already gone: fine
    CHECK(fs::directory_iterator(folder.path()) == fs::directory_iterator());  // no .tmp either
}

TEST_CASE("rendezvous: a rank that waits too long fails with one line saying why", "[ranks]") {
    const test_support::TempFolder folder;
    std::string why;
    const double took = timed([&] {
        try {
            rendezvous::await(place(folder, 1, 0.3), "nccl-unique-id", id.size());
        } catch (const gpubench::Error &e) {
            why = e.what();
            CHECK(e.status() == GPUBENCH_ERROR);
        }
    });
    CHECK(took >= 0.3);
    CHECK(took < 5);
    CHECK_THAT(why, Catch::StartsWith("rank 1 of 2 waited 0.3 s (--rank-timeout) for " +
                                      (folder.path() / "nccl-unique-id").string() + ": nothing there") &&
                        Catch::Contains("did rank 0 skip or fail this entry"));
    CHECK(why.find('\n') == std::string::npos);
}

TEST_CASE("rendezvous: stale files, files of another world and junk are not taken", "[ranks]") {
    const test_support::TempFolder folder;
    const fs::path file = folder.path() / "nccl-unique-id";
    const auto refused = [&](const std::string &text) {
        std::ofstream(file) << text;
        try {
            rendezvous::await(place(folder, 1, 0.2), "nccl-unique-id", id.size());
        } catch (const gpubench::Error &e) {
            return std::string(e.what());
        }
        return std::string("taken");
    };
    const auto now_ms = [] {  // each refusal waits its time-out: read the clock afresh
        return std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::system_clock::now().time_since_epoch())
            .count();
    };
    const std::string hex = "000102feff118040";
    // Written an hour ago: an earlier run's, left behind.
    CHECK_THAT(refused("gpubench-rendezvous 1 2 " + std::to_string(now_ms() - 3600 * 1000) + " 8 " + hex),
               Catch::Contains(": only a stale one, written 3600 s before this rank began waiting"));
    // Written for 4 ranks.
    CHECK_THAT(refused("gpubench-rendezvous 1 4 " + std::to_string(now_ms()) + " 8 " + hex),
               Catch::Contains(": one written for 4 ranks"));
    // Not the format, or not the size asked for.
    CHECK_THAT(refused("hello"), Catch::Contains(": a file that is not 8 bytes of gpubench-rendezvous 1"));
    CHECK_THAT(refused("gpubench-rendezvous 1 2 " + std::to_string(now_ms()) + " 4 00010203"),
               Catch::Contains("not 8 bytes"));
    CHECK_THAT(refused("gpubench-rendezvous 1 2 " + std::to_string(now_ms()) + " 8 000102feff1180zz"),
               Catch::Contains("not 8 bytes"));
    // Fresh (written just before this rank began waiting, within its time-out): taken.
    CHECK(refused("gpubench-rendezvous 1 2 " + std::to_string(now_ms() - 100) + " 8 " + hex) == "taken");
}

TEST_CASE("rendezvous: without a folder, or one that cannot be written, says so", "[ranks]") {
    const rendezvous::Place nowhere{"", 0, 2, 1};
    CHECK_THROWS_WITH(rendezvous::publish(nowhere, "x", id), Catch::Contains("no rendezvous folder for 'x'"));
    const rendezvous::Place missing{"/nonexistent/gpubench-rendezvous", 0, 2, 1};
    CHECK_THROWS_WITH(rendezvous::publish(missing, "x", id),
                      Catch::StartsWith("rank 0 of 2 cannot write /nonexistent/gpubench-rendezvous/x"));
}

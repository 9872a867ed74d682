// compute-sanitizer support: tool names, finding the tool, its command line, and reading its
// logs. The logs below are compute-sanitizer 2025.3.1 (CUDA 13.0) output, recorded on an H100
// from a program with planted bugs, and on a machine without a GPU or driver for the tool
// failures; long ones are cut to their first errors (the summaries kept as printed).
#include "sanitizer.hpp"
#include "test_support.hpp"

#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <initializer_list>

using namespace gpubench;
namespace fs = std::filesystem;

namespace {

std::string log_of(std::initializer_list<const char *> lines) {
    std::string text;
    for (const char *l : lines) text += std::string(l) + "\n";
    return text;
}

// memcheck, a kernel writing one int past a 31-int cudaMalloc; the failed launch that follows
// is the second error.
const std::string memcheck_two_errors = log_of({
    "========= COMPUTE-SANITIZER",
    "========= Invalid __global__ write of size 4 bytes",
    "=========     at write_to(int *)+0x60 in probe.cu:6",
    "=========     by thread (31,0,0) in block (0,0,0)",
    "=========     Access to 0x7f0fd880047c is out of bounds",
    "=========     and is 1 bytes after the nearest allocation at 0x7f0fd8800400 of size 124 bytes",
    "=========     Saved host backtrace up to driver entry point at kernel launch time",
    "=========         Host Frame: main [0x8e87] in probe",
    "========= ",
    "========= Program hit cudaErrorLaunchFailure (error 719) due to \"unspecified launch failure\" "
    "on CUDA API call to cudaDeviceSynchronize.",
    "=========     Saved host backtrace up to driver entry point at error",
    "=========         Host Frame: main [0x90d6] in probe",
    "========= ",
    "========= Target application returned an error",
    "========= ERROR SUMMARY: 2 errors",
});

}  // namespace

TEST_CASE("sanitizer tool names round trip and unknown ones are refused", "[sanitizer]") {
    for (SanitizerTool t : {SanitizerTool::memcheck, SanitizerTool::racecheck, SanitizerTool::initcheck,
                            SanitizerTool::synccheck})
        CHECK(sanitizer_tool_from_string(to_string(t)) == t);
    CHECK(std::string(to_string(SanitizerTool::racecheck)) == "racecheck");
    CHECK_FALSE(sanitizer_tool_from_string("").has_value());
    CHECK_FALSE(sanitizer_tool_from_string("Memcheck").has_value());
    CHECK_FALSE(sanitizer_tool_from_string("leakcheck").has_value());
    CHECK_FALSE(sanitizer_tool_from_string("memcheck ").has_value());
}

TEST_CASE("a clean sanitizer log has 0 errors", "[sanitizer]") {
    SanitizerReport r = parse_sanitizer_log(
        log_of({"========= COMPUTE-SANITIZER", "========= ERROR SUMMARY: 0 errors"}), SanitizerTool::memcheck);
    CHECK(r.summary_found);
    CHECK(r.errors == 0);
    CHECK(r.first_errors.empty());
    CHECK(r.tool_problem.empty());
    CHECK(r.one_line() == "compute-sanitizer memcheck: 0 errors");

    // racecheck prints only its own summary, even when clean.
    r = parse_sanitizer_log(log_of({"========= COMPUTE-SANITIZER",
                                    "========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)"}),
                            SanitizerTool::racecheck);
    CHECK(r.summary_found);
    CHECK(r.errors == 0);
    CHECK(r.one_line() == "compute-sanitizer racecheck: 0 errors");
}

TEST_CASE("a sanitizer memcheck log gives its error count and names the bad access", "[sanitizer]") {
    SanitizerReport r = parse_sanitizer_log(memcheck_two_errors, SanitizerTool::memcheck);
    CHECK(r.summary_found);
    CHECK(r.errors == 2);
    REQUIRE(r.first_errors.size() == 2);
    CHECK(r.first_errors[0] == "Invalid __global__ write of size 4 bytes at write_to(int *)+0x60 in probe.cu:6");
    CHECK(r.first_errors[1].rfind("Program hit cudaErrorLaunchFailure (error 719)", 0) == 0);
    CHECK(r.tool_problem.empty());
    CHECK(r.one_line() == "compute-sanitizer memcheck: 2 errors (first: Invalid __global__ write of size 4 "
                          "bytes at write_to(int *)+0x60 in probe.cu:6)");

    // Windows line ends read the same.
    std::string crlf;
    for (char c : memcheck_two_errors) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
    CHECK(parse_sanitizer_log(crlf, SanitizerTool::memcheck).first_errors == r.first_errors);
}

TEST_CASE("one sanitizer error is written in the singular", "[sanitizer]") {
    SanitizerReport r = parse_sanitizer_log(log_of({
        "========= COMPUTE-SANITIZER",
        "========= Invalid __global__ write of size 4 bytes",
        "=========     at write_to(int *)+0x60 in probe.cu:6",
        "=========     by thread (31,0,0) in block (0,0,0)",
        "=========     Saved host backtrace up to driver entry point at kernel launch time",
        "=========         Host Frame: main [0x8e87] in probe",
        "========= ",
        "========= ERROR SUMMARY: 1 error",
    }), SanitizerTool::memcheck);
    CHECK(r.summary_found);
    CHECK(r.errors == 1);
    CHECK(r.first_errors.size() == 1);
    CHECK(r.one_line().rfind("compute-sanitizer memcheck: 1 error (first: Invalid __global__ write", 0) == 0);
}

TEST_CASE("sanitizer racecheck logs count errors, not hazards or warnings", "[sanitizer]") {
    // The default report (analysis): one race standing for 256 hazards.
    SanitizerReport r = parse_sanitizer_log(log_of({
        "========= COMPUTE-SANITIZER",
        "========= Error: Race reported between Write access at race(int *)+0xa0 in probe.cu:9",
        "=========     and Read access at race(int *)+0xb0 in probe.cu:10 [256 hazards]",
        "========= ",
        "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)",
    }), SanitizerTool::racecheck);
    CHECK(r.summary_found);
    CHECK(r.errors == 1);
    CHECK(r.tool_problem.empty());  // its "Error:" lines are the program's errors
    REQUIRE(r.first_errors.size() == 1);
    CHECK(r.first_errors[0] == "Race reported between Write access at race(int *)+0xa0 in probe.cu:9 "
                               "and Read access at race(int *)+0xb0 in probe.cu:10 [256 hazards]");
    CHECK(r.one_line() == "compute-sanitizer racecheck: 1 error (first: " + r.first_errors[0] + ")");

    // --racecheck-report hazard lists hazards one by one; its summary counts them as errors.
    r = parse_sanitizer_log(log_of({
        "========= COMPUTE-SANITIZER",
        "========= Error: Potential RAW hazard detected at __shared__ 0x47c in block (0,0,0) :",
        "=========     Write Thread (31,0,0) at race(int *)+0xa0 in probe.cu:9",
        "=========     Read Thread (32,0,0) at race(int *)+0xb0 in probe.cu:10",
        "=========     Current Value : 31",
        "=========     Saved host backtrace up to driver entry point at kernel launch time",
        "=========         Host Frame: race(int*) [0x955c] in probe",
        "=========         Host Frame: main [0x8f18] in probe",
        "========= ",
        "========= RACECHECK SUMMARY: 100 hazards displayed (257 errors, 0 warnings)",
    }), SanitizerTool::racecheck);
    CHECK(r.errors == 257);
    REQUIRE(r.first_errors.size() == 1);
    CHECK(r.first_errors[0] == "Potential RAW hazard detected at __shared__ 0x47c in block (0,0,0)");

    // Written after the two logs above (no planted bug gave a warning): a warning, "Warning:"
    // where an error has "Error:", and an ERROR SUMMARY beside the racecheck one as some
    // versions print. The errors of RACECHECK SUMMARY are what counts.
    r = parse_sanitizer_log(log_of({
        "========= COMPUTE-SANITIZER",
        "========= Warning: Race reported between Read access at reduce(float *)+0x1f0 in sum.cu:21",
        "=========     and Write access at reduce(float *)+0x230 in sum.cu:23 [64 hazards]",
        "========= ",
        "========= Error: Race reported between Write access at reduce(float *)+0x230 in sum.cu:23",
        "=========     and Read access at reduce(float *)+0x1f0 in sum.cu:21 [32 hazards]",
        "========= ",
        "========= RACECHECK SUMMARY: 3 hazards displayed (1 error, 2 warnings)",
        "========= ERROR SUMMARY: 3 errors",
    }), SanitizerTool::racecheck);
    CHECK(r.errors == 1);
    REQUIRE(r.first_errors.size() == 1);
    CHECK(r.first_errors[0].rfind("Race reported between Write access at reduce", 0) == 0);
}

TEST_CASE("sanitizer initcheck and synccheck logs, errors past the print limit still counted", "[sanitizer]") {
    SanitizerReport r = parse_sanitizer_log(log_of({
        "========= COMPUTE-SANITIZER",
        "========= Uninitialized __global__ memory read of size 4 bytes",
        "=========     at read_uninit(const int *, int *)+0x60 in probe.cu:12",
        "=========     by thread (0,0,0) in block (0,0,0)",
        "=========     Address 0x7fa1ba800000",
        "=========     Saved host backtrace up to driver entry point at kernel launch time",
        "=========         Host Frame: main [0x8fb0] in probe",
        "========= ",
        "========= Uninitialized __global__ memory read of size 4 bytes",
        "=========     at read_uninit(const int *, int *)+0x60 in probe.cu:12",
        "=========     by thread (1,0,0) in block (0,0,0)",
        "=========     Address 0x7fa1ba800004",
        "=========     Saved host backtrace up to driver entry point at kernel launch time",
        "=========         Host Frame: main [0x8fb0] in probe",
        "========= ",
        "========= Uninitialized __global__ memory read of size 4 bytes",
        "=========     at read_uninit(const int *, int *)+0x60 in probe.cu:12",
        "=========     by thread (2,0,0) in block (0,0,0)",
        "=========     Address 0x7fa1ba800008",
        "=========     Saved host backtrace up to driver entry point at kernel launch time",
        "=========         Host Frame: main [0x8fb0] in probe",
        "========= ",
        "========= Uninitialized __global__ memory read of size 4 bytes",
        "=========     at read_uninit(const int *, int *)+0x60 in probe.cu:12",
        "=========     by thread (3,0,0) in block (0,0,0)",
        "=========     Address 0x7fa1ba80000c",
        "=========     Saved host backtrace up to driver entry point at kernel launch time",
        "=========         Host Frame: main [0x8fb0] in probe",
        "========= ",
        "========= ERROR SUMMARY: 32 errors",
    }), SanitizerTool::initcheck);
    CHECK(r.summary_found);
    CHECK(r.errors == 32);
    REQUIRE(r.first_errors.size() == 3);  // no more than 3 kept
    CHECK(r.first_errors[0] ==
          "Uninitialized __global__ memory read of size 4 bytes at read_uninit(const int *, int *)+0x60 in probe.cu:12");

    // --print-limit 2: a second ERROR SUMMARY line tells how many were not printed.
    r = parse_sanitizer_log(log_of({
        "========= COMPUTE-SANITIZER",
        "========= Barrier error detected. Divergent thread(s) in warp.",
        "=========     at divergent_barrier(int *)+0xc0 in probe.cu:16",
        "=========     by thread (0,0,0) in block (0,0,0)",
        "=========     Saved host backtrace up to driver entry point at kernel launch time",
        "=========         Host Frame: main [0x9041] in probe",
        "========= ",
        "========= Barrier error detected. Divergent thread(s) in warp.",
        "=========     at divergent_barrier(int *)+0xc0 in probe.cu:16",
        "=========     by thread (1,0,0) in block (0,0,0)",
        "=========     Saved host backtrace up to driver entry point at kernel launch time",
        "=========         Host Frame: main [0x9041] in probe",
        "========= ",
        "========= Target application returned an error",
        "========= ERROR SUMMARY: 16 errors",
        "========= ERROR SUMMARY: 14 errors were not printed. Use --print-limit option to adjust the number "
        "of printed errors",
    }), SanitizerTool::synccheck);
    CHECK(r.summary_found);
    CHECK(r.errors == 16);
    REQUIRE(r.first_errors.size() == 2);
    CHECK(r.first_errors[0] ==
          "Barrier error detected. Divergent thread(s) in warp. at divergent_barrier(int *)+0xc0 in probe.cu:16");
    CHECK(r.tool_problem.empty());
    CHECK(r.one_line().rfind("compute-sanitizer synccheck: 16 errors (first: Barrier error detected.", 0) == 0);
}

TEST_CASE("a sanitizer log without a summary says so", "[sanitizer]") {
    // The command's --require-cuda-init no, for a program that never called CUDA.
    SanitizerReport r = parse_sanitizer_log(log_of({
        "========= COMPUTE-SANITIZER",
        "========= Target application terminated before first instrumented API call",
        "========= Tracking kernels launched by child processes requires the --target-processes all option.",
    }), SanitizerTool::memcheck);
    CHECK_FALSE(r.summary_found);
    CHECK(r.errors == 0);
    CHECK(r.tool_problem.empty());
    CHECK(r.note == "Target application terminated before first instrumented API call");
    CHECK(r.one_line() == "compute-sanitizer memcheck: no error summary (Target application terminated "
                          "before first instrumented API call)");

    // Cut short after its first error (the process was killed while the tool wrote).
    std::string cut = memcheck_two_errors.substr(0, memcheck_two_errors.find("=========     by thread"));
    r = parse_sanitizer_log(cut, SanitizerTool::memcheck);
    CHECK_FALSE(r.summary_found);
    REQUIRE(r.first_errors.size() == 1);
    CHECK(r.one_line() == "compute-sanitizer memcheck: no error summary (the process or the tool stopped "
                          "before writing it); first error: Invalid __global__ write of size 4 bytes at "
                          "write_to(int *)+0x60 in probe.cu:6");

    r = parse_sanitizer_log("", SanitizerTool::initcheck);
    CHECK_FALSE(r.summary_found);
    CHECK(r.first_errors.empty());
    CHECK(r.one_line().rfind("compute-sanitizer initcheck: no error summary (", 0) == 0);
}

TEST_CASE("a sanitizer log of the tool failing names the problem", "[sanitizer]") {
    // Recorded on a machine with no GPU and no driver: the tool's own defaults (exit code 255)...
    SanitizerReport r = parse_sanitizer_log(log_of({
        "========= COMPUTE-SANITIZER",
        "========= Error: process didn't terminate successfully",
        "=========     The application may have hit an error when dereferencing Unified Memory from the host. "
        "Please rerun the application under cuda-gdb or a host debugger to catch host side errors.",
        "========= Error: Target application terminated before first instrumented API call",
    }), SanitizerTool::memcheck);
    CHECK_FALSE(r.summary_found);
    CHECK(r.first_errors.empty());
    CHECK(r.tool_problem == "Error: process didn't terminate successfully; Error: Target application "
                            "terminated before first instrumented API call");
    CHECK(r.one_line() == "compute-sanitizer memcheck: no error summary (" + r.tool_problem + ")");

    // ...and with sanitizer_command's options.
    r = parse_sanitizer_log(log_of({
        "========= COMPUTE-SANITIZER",
        "========= Error: process didn't terminate successfully",
        "=========     The application may have hit an error when dereferencing Unified Memory from the host. "
        "Please rerun the application under cuda-gdb or a host debugger to catch host side errors.",
        "========= Target application terminated before first instrumented API call",
        "========= Tracking kernels launched by child processes requires the --target-processes all option.",
    }), SanitizerTool::memcheck);
    CHECK(r.tool_problem == "Error: process didn't terminate successfully");
    CHECK(r.one_line() == "compute-sanitizer memcheck: no error summary (Error: process didn't terminate "
                          "successfully)");

    // The tool's files incomplete (exit code 13), and a program that is not there.
    r = parse_sanitizer_log(log_of({"========= COMPUTE-SANITIZER",
                                    "========= Unable to find injection library libsanitizer-collection.so"}),
                            SanitizerTool::racecheck);
    CHECK(r.tool_problem == "Unable to find injection library libsanitizer-collection.so");
    r = parse_sanitizer_log(log_of({"========= COMPUTE-SANITIZER",
                                    "========= Target application doesn't exist or is not a valid executable"}),
                            SanitizerTool::memcheck);
    CHECK(r.tool_problem == "Target application doesn't exist or is not a valid executable");

    // A problem beside a summary is kept in the one line (written, not recorded: the refused
    // device reported so on another machine here).
    r = parse_sanitizer_log(log_of({"========= COMPUTE-SANITIZER", "========= Error: Device not supported",
                                    "========= ERROR SUMMARY: 0 errors"}),
                            SanitizerTool::memcheck);
    CHECK(r.summary_found);
    CHECK(r.one_line() == "compute-sanitizer memcheck: 0 errors; Error: Device not supported");
}

TEST_CASE("the sanitizer command names the tool and log and ends with the program", "[sanitizer]") {
    std::vector<std::string> program{"/opt/gpubench/bin/runner", "--worker", "--fd", "5", "a b"};
    std::vector<std::string> argv =
        sanitizer_command("/usr/local/cuda/bin/compute-sanitizer", SanitizerTool::racecheck,
                          "/tmp/out/entry 3.log", program);
    REQUIRE(argv.size() > program.size() + 4);
    CHECK(argv[0] == "/usr/local/cuda/bin/compute-sanitizer");
    auto value_of = [&argv](const std::string &option) -> std::string {
        auto it = std::find(argv.begin(), argv.end(), option);
        return it == argv.end() || it + 1 == argv.end() ? "<absent>" : *(it + 1);
    };
    CHECK(value_of("--tool") == "racecheck");
    CHECK(value_of("--log-file") == "/tmp/out/entry 3.log");
    CHECK(value_of("--print-limit") == "20");
    CHECK(value_of("--target-processes") == "application-only");
    CHECK(value_of("--require-cuda-init") == "no");
    CHECK(std::equal(program.begin(), program.end(), argv.end() - program.size()));
    // Nothing that changes how the program runs or what it exits with.
    for (const char *o : {"--error-exitcode", "--force-blocking-launches", "--padding", "--leak-check"})
        CHECK(std::find(argv.begin(), argv.end(), o) == argv.end());

    // The tool expands '%' sequences in the log's name: a literal '%' is written "%%".
    argv = sanitizer_command("cs", SanitizerTool::memcheck, "/tmp/100%/log", {"prog"});
    CHECK(value_of("--log-file") == "/tmp/100%%/log");
    CHECK(argv.back() == "prog");
}

namespace {

struct PathGuard {  // puts $PATH back as it was
    std::optional<std::string> saved;
    PathGuard() {
        if (const char *p = std::getenv("PATH")) saved = p;
    }
    ~PathGuard() {
        if (saved) setenv("PATH", saved->c_str(), 1);
        else unsetenv("PATH");
    }
};

fs::path fake_tool(const fs::path &dir, fs::perms perms) {
    fs::create_directories(dir);
    fs::path p = dir / "compute-sanitizer";
    std::ofstream(p) << "#!/bin/sh\nexit 0\n";
    fs::permissions(p, perms);
    return p;
}

}  // namespace

TEST_CASE("compute-sanitizer is looked for on PATH, then in the toolkit's folder", "[sanitizer]") {
    PathGuard guard;
    test_support::TempFolder tmp;
    const fs::perms exec = fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec;
    fs::path on_path = fake_tool(tmp.path() / "first", exec);
    fs::path in_toolkit = fake_tool(tmp.path() / "toolkit", exec);
    fs::create_directories(tmp.path() / "empty");

    // PATH before the toolkit (and before /usr/local/cuda/bin); empty entries are skipped.
    std::string rest = guard.saved ? ":" + *guard.saved : "";
    setenv("PATH", ("::" + (tmp.path() / "empty").string() + ":" + on_path.parent_path().string() + rest).c_str(), 1);
    CHECK(find_compute_sanitizer(in_toolkit.parent_path().string()) == on_path);

    // Not on PATH: the toolkit's folder.
    setenv("PATH", (tmp.path() / "empty").c_str(), 1);
    CHECK(find_compute_sanitizer(in_toolkit.parent_path().string()) == in_toolkit);
    unsetenv("PATH");
    CHECK(find_compute_sanitizer(in_toolkit.parent_path().string()) == in_toolkit);
}

TEST_CASE("a compute-sanitizer that is not an executable file is passed over", "[sanitizer]") {
    PathGuard guard;
    test_support::TempFolder tmp;
    fs::path plain = fake_tool(tmp.path() / "plain", fs::perms::owner_read | fs::perms::owner_write);
    fs::create_directories(tmp.path() / "folder" / "compute-sanitizer");  // a folder of that name
    fs::path later = fake_tool(tmp.path() / "later", fs::perms::owner_all);

    setenv("PATH", (plain.parent_path().string() + ":" + (tmp.path() / "folder").string() + ":" +
                    later.parent_path().string()).c_str(), 1);
    CHECK(find_compute_sanitizer("") == later);

    // Neither on PATH nor in the toolkit folder: only /usr/local/cuda/bin is left, where a
    // machine with the whole toolkit has one and a build machine may not.
    setenv("PATH", (plain.parent_path().string() + ":" + (tmp.path() / "folder").string()).c_str(), 1);
    std::optional<fs::path> found = find_compute_sanitizer((tmp.path() / "folder").string());
    fs::path system_one = "/usr/local/cuda/bin/compute-sanitizer";
    if (access(system_one.c_str(), X_OK) == 0)
        CHECK(found == system_one);
    else
        CHECK_FALSE(found.has_value());
}

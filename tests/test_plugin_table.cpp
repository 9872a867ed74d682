// runner --list --format markdown's table (runner/plugin_table.cpp), from made-up catalogs.
#include "plugin_list.hpp"

#include <catch2/catch.hpp>

#include <sstream>
#include <string>

using namespace gpubench;

namespace {

PluginInfo plugin(const std::string &workload, const std::string &backend, const std::string &language,
                  gpubench_device_kind kind, const std::string &description) {
    PluginInfo p;
    p.name = workload + "_" + backend;
    p.workload = workload;
    p.backend = backend;
    p.device_kind = kind;
    p.description = description;
    p.min_size = 10;
    p.max_size = 1'000'000'000;
    p.file = "/somewhere/on/this/machine/" + p.name + ".so";
    p.unavailable_reason = "not on this machine";
    if (!language.empty()) p.build_record = BuildRecord{language};
    return p;
}

}  // namespace

TEST_CASE("markdown cells keep descriptions literal", "[plugin_table]") {
    CHECK(markdown_cell_text("C = A*B | D") == "C = A\\*B \\| D");
    CHECK(markdown_cell_text("sort_by_key, x_1") == "sort_by_key, x_1");  // inside words: never emphasis
    CHECK(markdown_cell_text("_emphasis_ and __init__") == "\\_emphasis\\_ and \\_\\_init\\_\\_");
    CHECK(markdown_cell_text("[H y]^T, ~20 s, c <- b") == "\\[H y\\]^T, \\~20 s, c \\<- b");
    CHECK(markdown_cell_text("a `code` \\ path") == "a \\`code\\` \\\\ path");
    CHECK(markdown_cell_text("") == "");
}

TEST_CASE("size bounds are exact and written as --sizes takes them", "[plugin_table]") {
    CHECK(size_bound_text(0) == "0");
    CHECK(size_bound_text(10) == "10");
    CHECK(size_bound_text(32768) == "32768");
    CHECK(size_bound_text(60000) == "60000");
    CHECK(size_bound_text(100000) == "1e5");
    CHECK(size_bound_text(4'000'000) == "4e6");
    CHECK(size_bound_text(2'000'000'000) == "2e9");
    CHECK(size_bound_text(123'000'000) == "123e6");
    CHECK(size_bound_text(131072) == "2^17");
    CHECK(size_bound_text(8ull << 30) == "2^33");
    CHECK(size_bound_text(123'456'789) == "123456789");
    CHECK(size_bound_text(UINT64_MAX) == "18446744073709551615");
}

TEST_CASE("the plugin table: sorted by workload, compiled before Python, CPU before GPU, backend",
          "[plugin_table]") {
    PluginCatalog catalog;
    catalog.plugins = {plugin("b", "numpy", "Python", GPUBENCH_DEVICE_CPU, "b in NumPy."),
                       plugin("a", "torch", "Python", GPUBENCH_DEVICE_CUDA, "a in PyTorch."),
                       plugin("a", "numpy", "Python", GPUBENCH_DEVICE_CPU, "a in NumPy."),
                       plugin("a", "cuda", "CUDA", GPUBENCH_DEVICE_CUDA, "a's kernel"),
                       plugin("a", "omp", "C++", GPUBENCH_DEVICE_CPU, "a with OpenMP | threads"),
                       plugin("a", "naive", "", GPUBENCH_DEVICE_CPU, "a's loop")};
    catalog.refused = {{"/somewhere/broken.so", "no entry symbol"}};
    std::ostringstream out, notes;
    print_plugin_table(out, notes, catalog);
    CHECK(out.str() == "| plugin | language | device | sizes | what it is |\n"
                       "| --- | --- | --- | --- | --- |\n"
                       "| `a_naive` | - | cpu | 10 – 1e9 | a's loop |\n"
                       "| `a_omp` | C++ | cpu | 10 – 1e9 | a with OpenMP \\| threads |\n"
                       "| `a_cuda` | CUDA | cuda | 10 – 1e9 | a's kernel |\n"
                       "| `a_numpy` | Python | cpu | 10 – 1e9 | a in NumPy. |\n"
                       "| `a_torch` | Python | cuda | 10 – 1e9 | a in PyTorch. |\n"
                       "| `b_numpy` | Python | cpu | 10 – 1e9 | b in NumPy. |\n");
    // Nothing of this machine: no status, no paths; the refused file only counted, aside.
    CHECK(out.str().find("somewhere") == std::string::npos);
    CHECK(out.str().find("not on this machine") == std::string::npos);
    CHECK(notes.str() == "runner: note: 1 file was refused as plugins and left out of the table "
                         "(runner --list says why)\n");
}

TEST_CASE("the plugin table of no plugins is its header, with a note", "[plugin_table]") {
    std::ostringstream out, notes;
    print_plugin_table(out, notes, PluginCatalog{});
    CHECK(out.str() == "| plugin | language | device | sizes | what it is |\n| --- | --- | --- | --- | --- |\n");
    CHECK(notes.str() == "runner: note: no plugins found\n");
}

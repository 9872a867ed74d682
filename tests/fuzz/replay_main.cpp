// Runs a fuzz target over every file of its corpus folder(s), so that every build (not only
// the clang fuzzing one) replays the seeds and the inputs that once found bugs. A crash or an
// escaped exception fails the ctest test; the file being replayed is named first.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv) {
    size_t replayed = 0;
    for (int i = 1; i < argc; ++i) {
        std::vector<std::filesystem::path> files;
        for (const auto &item : std::filesystem::directory_iterator(argv[i]))
            if (item.is_regular_file()) files.push_back(item.path());
        std::sort(files.begin(), files.end());  // the same order on every machine
        for (const auto &file : files) {
            std::fprintf(stderr, "replaying %s\n", file.c_str());
            std::ifstream in(file, std::ios::binary);
            const std::vector<char> bytes{std::istreambuf_iterator<char>(in), {}};
            // As libFuzzer does: a buffer of exactly the input's size (so that AddressSanitizer
            // sees a read past its end; a vector's spare capacity would hide it), never NULL.
            const auto input = std::make_unique<uint8_t[]>(bytes.size());
            std::copy(bytes.begin(), bytes.end(), input.get());
            LLVMFuzzerTestOneInput(input.get(), bytes.size());
            ++replayed;
        }
    }
    std::printf("replayed %zu inputs\n", replayed);
    return replayed > 0 ? 0 : 1;  // an empty corpus is a mistake, not a pass
}

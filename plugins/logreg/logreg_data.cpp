#include "logreg_data.hpp"

#include "idx_reader.hpp"
#include "random_inputs.hpp"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>

namespace logreg {
namespace {
namespace inputs = gpubench::inputs;

struct DataDir {
    std::string path;
    std::string origin;  // how it was chosen, for messages: "data=DIR" ...
    bool explicit_request;
};

DataDir choose_dir(const gpubench::Params &params) {
    if (params.has("data")) {
        const std::string dir = params.get("data", "");
        return {dir, "data=" + dir, true};
    }
    if (const char *env = std::getenv("GPUBENCH_MNIST_DIR"); env && *env)
        return {env, std::string("GPUBENCH_MNIST_DIR=") + env, false};
    return {kDefaultDataDir, std::string("default data dir ") + kDefaultDataDir, false};
}

// The file for `base` in `dir`: plain if present, else .gz; empty if neither exists.
std::string find_file(const std::string &dir, const std::string &base) {
    namespace fs = std::filesystem;
    std::error_code ignored;
    for (const char *suffix : {"", ".gz"}) {
        const fs::path path = fs::path(dir) / (base + suffix);
        if (fs::is_regular_file(path, ignored)) return path.string();
    }
    return "";
}

constexpr size_t kAll = SIZE_MAX;

// Reads one split and checks that it fits the model: 28 x 28 images, labels 0..9, equal
// counts. Keeps the first `keep` images (kAll: every one), which must exist.
ImageSet read_split(const std::string &images_path, const std::string &labels_path,
                    size_t keep) {
    IdxImages images = read_idx_images(images_path);
    std::vector<uint8_t> labels = read_idx_labels(labels_path);
    if (images.rows * images.cols != kPixels)
        throw IdxError(images_path + ": images are " + std::to_string(images.rows) + " x " +
                       std::to_string(images.cols) + ", expected 28 x 28");
    if (labels.size() != images.count)
        throw IdxError(labels_path + " has " + std::to_string(labels.size()) + " labels but " +
                       images_path + " has " + std::to_string(images.count) + " images");
    if (images.count == 0) throw IdxError(images_path + ": holds no images");
    if (keep == kAll) keep = images.count;
    if (images.count < keep)
        throw gpubench::NotSupported(images_path + " has " + std::to_string(images.count) +
                                     " images, fewer than the " + std::to_string(keep) +
                                     " needed");
    for (size_t i = 0; i < labels.size(); ++i)
        if (labels[i] >= kClasses)
            throw IdxError(labels_path + ": label " + std::to_string(labels[i]) + " at index " +
                           std::to_string(i) + " is not a class 0..9");
    ImageSet set;
    set.count = keep;
    images.pixels.resize(keep * kPixels);
    labels.resize(keep);
    set.pixels = std::move(images.pixels);
    set.labels = std::move(labels);
    set.pixels.shrink_to_fit();
    set.labels.shrink_to_fit();
    return set;
}

// Streams of random_inputs.hpp used by the synthetic data set.
enum Stream : uint64_t { kPrototypes = 100, kTrainLabels, kTrainNoise, kTestLabels, kTestNoise };

// Each class has a random prototype image; an image of class c is the blend
// kPrototypeWeight * prototype_c + (1 - kPrototypeWeight) * uniform noise, per pixel. The
// weight makes the classes overlap, so accuracy stays below 100% (see the floors).
constexpr double kPrototypeWeight = 0.2;

ImageSet synthetic_split(uint64_t seed, size_t count, Stream labels_stream,
                         Stream noise_stream) {
    const uint64_t prototype_key = inputs::stream_key(seed, kPrototypes);
    const uint64_t label_key = inputs::stream_key(seed, labels_stream);
    const uint64_t noise_key = inputs::stream_key(seed, noise_stream);
    ImageSet set;
    set.count = count;
    set.pixels.resize(count * kPixels);
    set.labels.resize(count);
    for (size_t i = 0; i < count; ++i) {
        const uint8_t label = static_cast<uint8_t>(inputs::bits(label_key, i) % kClasses);
        set.labels[i] = label;
        for (size_t p = 0; p < kPixels; ++p) {
            const double prototype = inputs::unit(inputs::bits(prototype_key, label * kPixels + p));
            const double noise = inputs::unit(inputs::bits(noise_key, i * kPixels + p));
            const double value = kPrototypeWeight * prototype + (1 - kPrototypeWeight) * noise;
            set.pixels[i * kPixels + p] = static_cast<uint8_t>(std::lround(255 * value));
        }
    }
    return set;
}

}  // namespace

Dataset load_dataset(const gpubench::Params &params, uint64_t seed, size_t train_count) {
    const DataDir dir = choose_dir(params);
    const char *bases[] = {"train-images-idx3-ubyte", "train-labels-idx1-ubyte",
                           "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"};
    std::string paths[4], missing;
    for (int f = 0; f < 4; ++f) {
        paths[f] = find_file(dir.path, bases[f]);
        if (paths[f].empty()) missing += std::string(missing.empty() ? "" : ", ") + bases[f];
    }

    Dataset data;
    if (paths[0].empty() && paths[1].empty() && paths[2].empty() && paths[3].empty() &&
        !dir.explicit_request) {
        // Nothing to read where nobody asked explicitly: keep the workload running.
        data.synthetic = true;
        data.source = "synthetic data: no IDX files in " + dir.path;
        data.train = synthetic_split(seed, train_count, kTrainLabels, kTrainNoise);
        data.test = synthetic_split(seed, kTestImages, kTestLabels, kTestNoise);
        return data;
    }
    if (!missing.empty())
        throw gpubench::InvalidArgument(dir.origin + ": missing " + missing + " (plain or .gz)");
    try {
        data.train = read_split(paths[0], paths[1], train_count);
        data.test = read_split(paths[2], paths[3], kAll);
    } catch (const IdxError &e) {
        throw gpubench::InvalidArgument(dir.origin + ": " + e.what());
    }
    data.source = "MNIST-format IDX files in " + dir.path;
    return data;
}

}  // namespace logreg

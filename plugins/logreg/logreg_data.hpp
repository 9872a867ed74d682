// The images logreg trains and tests on: MNIST-format IDX files from a directory, or a
// deterministic synthetic stand-in of the same shape when there are none.
#pragma once

#include <gpubench/plugin.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace logreg {

constexpr size_t kPixels = 28 * 28;   // per image
constexpr size_t kClasses = 10;
constexpr size_t kTrainImages = 60000, kTestImages = 10000;  // MNIST's split
constexpr const char *kDefaultDataDir = "/usr/share/datasets/fashion-mnist";

struct ImageSet {
    size_t count = 0;
    std::vector<uint8_t> pixels;  // count x kPixels
    std::vector<uint8_t> labels;  // count, each < kClasses
};

struct Dataset {
    ImageSet train;  // the first n training images only
    ImageSet test;   // the whole test set
    bool synthetic = false;
    std::string source;  // where the images came from, one line
};

// Directory: data=DIR if given, else $GPUBENCH_MNIST_DIR, else kDefaultDataDir. It holds
// train-images-idx3-ubyte, train-labels-idx1-ubyte, t10k-images-idx3-ubyte and
// t10k-labels-idx1-ubyte, each plain or .gz. An explicit data=DIR without them, or any
// directory with only some of them or a malformed one, is an error (InvalidArgument);
// the implicit directories without any of them give the synthetic data set.
// Keeps the first `train_count` training images (NotSupported if the files have fewer).
Dataset load_dataset(const gpubench::Params &params, uint64_t seed, size_t train_count);

}  // namespace logreg

// The C++ half of vecadd's Python backends: the same inputs and the same exact check as the
// C++ backends, over host arrays the script sees as ctx.inputs["a"] (and ["b"] for add) and
// ctx.outputs["c"], n float32 each. add: c = a + b. increment: c is the working array, which
// the script's reset() restores from a and run() increments in place (c == a + 1 is checked).
#include "vecadd_common.hpp"

#include <gpubench/python_workload.hpp>

#include <memory>

namespace {

class VecaddData : public gpubench::python::Data {
public:
    explicit VecaddData(const vecadd::Instance &instance)
        : instance_(instance),
          a_(new float[instance.n]),
          b_(add() ? new float[instance.n] : nullptr),
          c_(new float[instance.n]) {
        vecadd::fill_inputs(instance_, a_.get(), b_.get());
        vecadd::poison(instance_, c_.get());
    }
    std::vector<gpubench::python::Array> arrays() override {
        const size_t bytes = instance_.n * sizeof(float);
        std::vector<gpubench::python::Array> list{
            {"a", "float32", {instance_.n}, a_.get(), bytes, false}};
        if (add()) list.push_back({"b", "float32", {instance_.n}, b_.get(), bytes, false});
        list.push_back({"c", "float32", {instance_.n}, c_.get(), bytes, true});
        return list;
    }
    gpubench::Verification verify() override {
        return vecadd::verify_result(instance_, c_.get());
    }

private:
    bool add() const { return instance_.variant == vecadd::Variant::add; }

    vecadd::Instance instance_;
    std::unique_ptr<float[]> a_, b_, c_;  // new float[] leaves the pages to the parallel fill
};

std::unique_ptr<gpubench::python::Data> create(const gpubench::BackendSpec &backend,
                                               const gpubench::Setup &setup) {
    return std::make_unique<VecaddData>(vecadd::make_instance(backend, setup));
}

gpubench::Info info(const gpubench::BackendSpec &backend) { return vecadd::make_info(backend); }

gpubench::Work work(const gpubench::BackendSpec &backend, uint64_t n, const gpubench::Params &params) {
    return vecadd::make_work(backend, n, params);
}

}  // namespace

extern const gpubench::python::Workload gpubench_python_workload{info, work, create};

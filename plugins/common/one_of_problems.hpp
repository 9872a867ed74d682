// The plugin class of a workload whose problem type depends on a parameter (float or double
// elements, keys or pairs...), written once for every such workload.
//
// OneOfProblems holds the one problem create() chose and forwards each plugin call to it.
// upload, reset, download and metrics exist only where the first problem type has them (a
// plugin's problem types share one set), so GPUBENCH_PLUGIN leaves them NULL for problems
// without them, such as CPU ones without transfers.
//
// ProblemChosenByParams is the class a backend hands GPUBENCH_PLUGIN: its Problem template
// over the workload's Variants, the backend's own BackendSpec, and the workload's rules.
#pragma once

#include <gpubench/backend_spec.hpp>
#include <gpubench/plugin.hpp>

#include <cstddef>
#include <memory>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

namespace gpubench {

template <class First, class... Others>
class OneOfProblems {
public:
    using Held = std::variant<std::unique_ptr<First>, std::unique_ptr<Others>...>;

    explicit OneOfProblems(Held problem) : problem_(std::move(problem)) {}

    void upload()
        requires requires(First &p) { p.upload(); }
    {
        visit([](auto &p) { p.upload(); });
    }
    void reset()
        requires requires(First &p) { p.reset(); }
    {
        visit([](auto &p) { p.reset(); });
    }
    void run() {
        visit([](auto &p) { p.run(); });
    }
    void download()
        requires requires(First &p) { p.download(); }
    {
        visit([](auto &p) { p.download(); });
    }
    Verification verify() {
        return visit([](auto &p) { return p.verify(); });
    }
    std::vector<Metric> metrics()
        requires requires(First &p) { p.metrics(); }
    {
        return visit([](auto &p) { return p.metrics(); });
    }

private:
    template <class F>
    decltype(auto) visit(F &&f) {
        return std::visit([&](auto &problem) -> decltype(auto) { return f(*problem); },
                          problem_);
    }
    Held problem_;
};

// What a workload's choose() returns: which of the Variants to build, and the arguments its
// Problem<Variant> is constructed from.
template <class... Arguments>
struct ProblemChoice {
    size_t variant;
    std::tuple<Arguments...> arguments;
};

// Workload provides
//   static ProblemChoice<...> choose(const BackendSpec &, const Setup &);  // may throw
//   static Work make_work(const BackendSpec &, uint64_t size, const Params &);  // or a
//                                                  // static constexpr pointer to such a function
// so a backend's plugin class is one line, for example
//   using CudaPlugin = ProblemChosenByParams<matmul::Rules, kCuda, CudaProblem, float, double>;
template <class Workload, const BackendSpec &Spec, template <class> class Problem,
          class... Variants>
class ProblemChosenByParams : public OneOfProblems<Problem<Variants>...> {
    using Base = OneOfProblems<Problem<Variants>...>;

public:
    explicit ProblemChosenByParams(const Setup &setup)
        : Base(make(Workload::choose(Spec, setup))) {}
    static Work work(uint64_t size, const Params &params) {
        return Workload::make_work(Spec, size, params);
    }

private:
    template <size_t I = 0, class Choice>
    static typename Base::Held make(const Choice &choice) {
        using Variant = std::tuple_element_t<I, std::tuple<Variants...>>;
        if constexpr (I + 1 < sizeof...(Variants)) {
            if (choice.variant != I) return make<I + 1>(choice);
        } else if (choice.variant != I) {
            throw Error(GPUBENCH_ERROR, "choose() named a problem variant the plugin lacks");
        }
        return std::apply(
            [](const auto &...arguments) {
                return typename Base::Held(std::make_unique<Problem<Variant>>(arguments...));
            },
            choice.arguments);
    }
};

}  // namespace gpubench

// The plugin class of a workload whose problem type depends on a parameter (float or double
// elements, keys or pairs...): it holds the one problem create() chose and forwards each
// plugin call to it. upload, reset, download and metrics exist only where the first problem
// type has them (a plugin's problem types share one set), so GPUBENCH_PLUGIN leaves them
// NULL for problems without them, such as CPU ones without transfers.
#pragma once

#include <gpubench/plugin.hpp>

#include <memory>
#include <utility>
#include <variant>
#include <vector>

namespace gpubench {

template <class First, class... Others>
class OneOfProblems {
public:
    using Choice = std::variant<std::unique_ptr<First>, std::unique_ptr<Others>...>;

    explicit OneOfProblems(Choice problem) : problem_(std::move(problem)) {}

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
    Choice problem_;
};

}  // namespace gpubench

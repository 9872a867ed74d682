#include "python_plugin.hpp"

#include "python_runtime.hpp"
#include "python_session.hpp"

#include <gpubench/plugin.hpp>

#include <dlfcn.h>

#include <array>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace gpubench::python {
namespace {

const Definition *definition = nullptr;  // the library's one plugin (set by describe)
const Info *described = nullptr;          // its descriptor's Info (set by describe)

constexpr int buffer_read = 0x100, buffer_write = 0x200;  // PyBUF_READ, PyBUF_WRITE

// The few CUDA driver calls the bridge makes itself, looked up, not linked: a CPU build has
// no driver, and a CuPy or Numba process may bring its own runtime.
struct Driver {
    int (*stream_synchronize)(void *) = nullptr;
    int (*host_register)(void *, size_t, unsigned) = nullptr;
    int (*host_unregister)(void *) = nullptr;
};
const Driver &driver() {
    static const Driver d = [] {
        Driver found;
        if (void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL)) {
            found.stream_synchronize = reinterpret_cast<int (*)(void *)>(dlsym(library, "cuStreamSynchronize"));
            found.host_register = reinterpret_cast<int (*)(void *, size_t, unsigned)>(dlsym(library, "cuMemHostRegister_v2"));
            found.host_unregister = reinterpret_cast<int (*)(void *)>(dlsym(library, "cuMemHostUnregister"));
        }
        return found;
    }();
    return d;
}

// Waits for the runner's stream before the C++ check reads the outputs (the download may
// have been an asynchronous copy).
void synchronize(void *stream) {
    const Driver &d = driver();
    if (d.stream_synchronize && d.stream_synchronize(stream) != 0)
        throw Error(GPUBENCH_DEVICE_ERROR, "cuStreamSynchronize failed before verify");
}

// Page-locks a GPU plugin's host arrays, as the C++ GPU plugins allocate theirs pinned, so that
// the timed transfers of both run at the same speed (CuPy and Numba copy from registered memory
// directly). Untimed, in create(); an array that cannot be registered stays pageable.
class PinnedArrays {
public:
    void add(void *data, size_t bytes) {
        const Driver &d = driver();
        if (bytes && d.host_register && d.host_unregister && d.host_register(data, bytes, 0) == 0)
            registered_.push_back(data);
    }
    ~PinnedArrays() {
        for (void *data : registered_) driver().host_unregister(data);
    }

private:
    std::vector<void *> registered_;
};

// One instance: the workload's host data, and the script's state built over it.
class Problem {
public:
    explicit Problem(const Setup &setup)
        : data_(definition->workload ? definition->workload->create(definition->backend, setup)
                                     : nullptr),
          session_(session(definition->script, setup.cpu_threads)),
          stream_(setup.cuda_stream) {
        // A workload's own create() checks the size; a standalone script's is checked here.
        if (!definition->workload) checked_size(*described, setup.size);
        const Api &api = *session_.api;
        Gil gil(api);
        try {
            start(setup);
        } catch (...) {
            end_script();  // under the GIL, as every Python reference
            throw;
        }
    }
    ~Problem() {
        Gil gil(*session_.api);
        end_script();
    }
    static Work work(uint64_t size, const Params &params) {
        if (definition->workload) return definition->workload->work(definition->backend, size, params);
        // Started by prepare() already, where a runner calls.
        const Session &s = session(definition->script, 0);
        Gil gil(*s.api);
        Ref w = s.call("work", Session::build(s.share(s.module.get()),
                                              s.integer(static_cast<long long>(size)), s.str(params.text())));
        const auto number = [&](intptr_t i) { return s.api->PyFloat_AsDouble(s.api->PyTuple_GetItem(w.get(), i)); };
        const auto integer = [&](intptr_t i) { return s.api->PyLong_AsLongLong(s.api->PyTuple_GetItem(w.get(), i)); };
        Work out;  // bridge_helper.work()'s order
        out.flops = number(0);
        out.bytes = number(1);
        out.items = number(2);
        out.host_bytes = number(3);
        out.device_bytes = number(4);
        out.math = static_cast<gpubench_math>(integer(5));
        out.flags = static_cast<uint32_t>(integer(6)) &
                    (GPUBENCH_WORK_RUN_REPEATABLE | GPUBENCH_WORK_RUN_NO_DEVICE_WORK);
        out.launches = number(7);
        return out;
    }
    void upload() { phase(Phase::upload); }
    void reset() { phase(Phase::reset); }
    void run() { phase(Phase::run); }
    void download() { phase(Phase::download); }
    Verification verify() {
        if (definition->backend.device_kind == GPUBENCH_DEVICE_CUDA) synchronize(stream_);
        if (data_) return data_->verify();
        const Api &api = *session_.api;
        Gil gil(api);
        Ref r = session_.call("verify", Session::build(session_.share(session_.module.get()),
                                                        session_.share(state_.get())));
        Verification v;
        v.passed = api.PyLong_AsLongLong(api.PyTuple_GetItem(r.get(), 0)) != 0;
        v.max_error = api.PyFloat_AsDouble(api.PyTuple_GetItem(r.get(), 1));
        v.tolerance = api.PyFloat_AsDouble(api.PyTuple_GetItem(r.get(), 2));
        v.checked = static_cast<uint64_t>(api.PyLong_AsLongLong(api.PyTuple_GetItem(r.get(), 3)));
        Ref detail(&api, api.PyUnicode_AsUTF8String(api.PyTuple_GetItem(r.get(), 4)));
        if (detail) v.detail = api.PyBytes_AsString(detail.get());
        return v;
    }
    // The C++ half's metrics, the script's (its optional metrics(state)), then which Python ran it.
    std::vector<Metric> metrics() {
        std::vector<Metric> all = data_ ? data_->metrics() : std::vector<Metric>{};
        const Api &api = *session_.api;
        Gil gil(api);
        Ref r = session_.call("metrics", Session::build(session_.share(session_.module.get()),
                                                         session_.share(state_.get())));
        const auto text = [&](Object *item) {
            Ref utf8(&api, api.PyUnicode_AsUTF8String(item));
            return utf8 ? std::string(api.PyBytes_AsString(utf8.get())) : std::string();
        };
        for (intptr_t i = 0, n = api.PyTuple_Size(r.get()); i < n; ++i) {
            Object *m = api.PyTuple_GetItem(r.get(), i);  // bridge_helper.metrics()'s order
            all.push_back({text(api.PyTuple_GetItem(m, 0)), api.PyFloat_AsDouble(api.PyTuple_GetItem(m, 1)),
                           text(api.PyTuple_GetItem(m, 2)), text(api.PyTuple_GetItem(m, 4)),
                           static_cast<gpubench_better>(api.PyLong_AsLongLong(api.PyTuple_GetItem(m, 3)))});
        }
        all.push_back(session_.interpreter);
        return all;
    }

private:
    // Builds the script's arrays over the data and calls its setup(ctx).
    void start(const Setup &setup) {
        const Api &api = *session_.api;
        std::vector<Ref> arrays, views;
        if (definition->backend.device_kind == GPUBENCH_DEVICE_CUDA) pinned_ = std::make_unique<PinnedArrays>();
        for (const Array &a : data_ ? data_->arrays() : std::vector<Array>{}) {
            if (pinned_) pinned_->add(a.data, a.bytes);
            std::vector<Ref> shape;
            for (size_t extent : a.shape) shape.push_back(session_.integer(static_cast<long long>(extent)));
            Ref view(&api, api.PyMemoryView_FromMemory(static_cast<char *>(a.data),
                                                       static_cast<intptr_t>(a.bytes),
                                                       a.output ? buffer_write : buffer_read));
            if (!view) throw Error(GPUBENCH_ERROR, "bridge: " + take_error(api));
            views.push_back(session_.share(view.get()));
            arrays.push_back(session_.tuple(Session::build(session_.str(a.name), session_.str(a.dtype),
                                                           session_.tuple(std::move(shape)), std::move(view),
                                                           session_.integer(a.output))));
        }
        views_ = session_.tuple(std::move(views));
        std::vector<Ref> constants;
        for (const auto &[name, value] : data_ ? data_->constants() : std::vector<std::pair<std::string, double>>{})
            constants.push_back(session_.tuple(
                Session::build(session_.str(name), Ref(&api, api.PyFloat_FromDouble(value)))));
        state_ = session_.call(
            "setup", Session::build(
                         session_.share(session_.module.get()),
                         session_.integer(static_cast<long long>(setup.size)),
                         Ref(&api, api.PyLong_FromUnsignedLongLong(setup.seed)),
                         session_.integer(setup.cpu_threads), session_.integer(setup.cuda_device),
                         Ref(&api, api.PyLong_FromUnsignedLongLong(reinterpret_cast<uintptr_t>(setup.cuda_stream))),
                         session_.str(setup.params.text()), session_.tuple(std::move(arrays)),
                         session_.tuple(std::move(constants))));
        // The script's own phase functions, called through guarded() with the state: what the
        // helper's phase() would look up on every call, looked up once.
        const Script &script = definition->script;
        const bool defined[] = {script.has_upload, script.has_reset, true, script.has_download};
        for (size_t i = 0; i < phase_calls_.size(); ++i)
            if (defined[i])
                phase_calls_[i] = session_.prepare(session_.attribute(session_.module, kPhaseNames[i]),
                                                   Session::build(session_.share(state_.get())));
    }
    // Drops the script's state, then ends the memoryviews over the data.
    void end_script() {
        const Api &api = *session_.api;
        for (Ref &call : phase_calls_) call.reset();
        state_.reset();
        long long busy = views_ ? 1 : 0;
        try {
            if (views_) busy = api.PyLong_AsLongLong(session_.call("release", Session::build(std::move(views_))).get());
        } catch (...) {
        }
        views_.reset();
        // Arrays the script kept past destroy still point into the data: leak it, safely.
        if (busy != 0) {
            (void)pinned_.release();
            (void)data_.release();
        }
        pinned_.reset();
    }
    enum class Phase { upload, reset, run, download };  // kPhaseNames' order
    static constexpr const char *kPhaseNames[] = {"upload", "reset", "run", "download"};
    void phase(Phase which) {
        Gil gil(*session_.api);
        session_.invoke(phase_calls_[static_cast<size_t>(which)]);
    }

    std::unique_ptr<Data> data_;
    Session &session_;
    void *stream_;
    std::unique_ptr<PinnedArrays> pinned_;  // unregistered before data_ is freed
    Ref views_, state_;
    std::array<Ref, 4> phase_calls_;  // guarded()'s arguments for each Phase the script has
};

gpubench_status prepare(int32_t cpu_threads, char *message, size_t message_size) noexcept {
    return detail::guarded(message, message_size, [&] { session(definition->script, cpu_threads); });
}

gpubench_status available(char *message, size_t message_size) noexcept {
    return detail::guarded(message, message_size,
                           [] { find_interpreter(required_modules(definition->script)); });
}

}  // namespace

const gpubench_plugin *describe(const Definition &d, const char *build_info) {
    static std::once_flag once;
    static gpubench_plugin descriptor{};
    static Info info{};
    std::call_once(once, [&] {
        definition = &d;
        if (d.workload) {
            info = d.workload->info(d.backend);
        } else {
            const BackendSpec &b = d.backend;
            const Standalone &s = d.standalone;
            info = Info{b.name, s.workload, b.backend, b.device_kind, b.description, s.size_meaning,
                        s.version, s.params_help, s.min_size, b.max_size, b.default_sizes,
                        *s.item_name ? s.item_name : nullptr, s.headline, s.param_names};
            info.params = parse_param_specs(s.param_specs);
            if (!info.params.empty() && !*s.param_names) info.param_names = nullptr;  // their keys
        }
        described = &info;
        static const detail::DeclaredParams declared(info);
        descriptor = detail::make_descriptor<Problem>(info, build_info, &declared);
        if (!d.script.has_upload) descriptor.upload = nullptr;
        if (!d.script.has_reset) descriptor.reset = nullptr;
        if (!d.script.has_download) descriptor.download = nullptr;
        descriptor.available = &available;
        descriptor.prepare = &prepare;  // the interpreter's start: the plugin's load time
    });
    return &descriptor;
}

}  // namespace gpubench::python

#include "python_session.hpp"

#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>

// bridge_helper.py, embedded at build time (NUL-terminated).
extern const unsigned char gpubench_bridge_helper_source[];

namespace gpubench::python {

std::vector<std::string> required_modules(const Script &script) {
    std::vector<std::string> modules = {"numpy"};  // the bridge's own arrays
    const std::string list = script.modules;
    for (size_t start = 0; start < list.size();) {
        size_t end = list.find(',', start);
        if (end == std::string::npos) end = list.size();
        const std::string module = list.substr(start, end - start);
        if (!module.empty() && module != "numpy") modules.push_back(module);
        start = end + 1;
    }
    return modules;
}

void Session::load_helper() {
    Ref builtins(api, api->PyImport_ImportModule("builtins"));
    Ref types(api, api->PyImport_ImportModule("types"));
    if (!builtins || !types) throw NotSupported("bridge: " + take_error(*api));
    Ref module_type = attribute(types, "ModuleType");
    Ref made(api, api->PyObject_CallObject(module_type.get(),
                                           tuple(build(str("gpubench_bridge"))).get()));
    if (!made) throw NotSupported("bridge: " + take_error(*api));
    Ref code(api, api->PyObject_CallObject(
                      attribute(builtins, "compile").get(),
                      tuple(build(str(reinterpret_cast<const char *>(gpubench_bridge_helper_source)),
                                  str("<gpubench bridge>"), str("exec")))
                          .get()));
    Ref namespace_ = code ? attribute(made, "__dict__") : Ref();
    Ref done(api, code ? api->PyObject_CallObject(attribute(builtins, "exec").get(),
                                                  tuple(build(std::move(code), std::move(namespace_))).get())
                       : nullptr);
    if (!done) throw NotSupported("bridge helper: " + take_error(*api));
    helper = std::move(made);
    guarded = attribute(helper, "guarded");
}

Session &session(const Script &script, int cpu_threads) {
    static std::mutex mutex;
    static Session *started = nullptr;  // never destroyed: Python is never finalised, and
                                        // at exit the GIL is not ours to take
    static std::optional<Error> failed;
    std::lock_guard<std::mutex> lock(mutex);
    if (started) return *started;
    if (failed) throw *failed;
    try {
        const Interpreter interpreter = find_interpreter(required_modules(script));
        const Api &api = start_interpreter(interpreter, cpu_threads);
        Gil gil(api);  // before the session: its references go first, with the GIL held
        auto s = std::make_unique<Session>();
        s->api = &api;
        s->script = &script;
        s->interpreter = {"python", std::atof(interpreter.version.c_str()), "",
                          "python " + interpreter.version + " (" + interpreter.executable + ")"};
        s->load_helper();
        std::vector<Ref> configure = Session::build(s->str(interpreter.executable), s->str(interpreter.prefix));
        for (const std::string &entry : interpreter.path) configure.push_back(s->str(entry));
        s->call("configure", std::move(configure));
        if (script.sibling_count > 0) {  // importable by name before the script runs
            std::vector<Ref> triples;
            for (size_t i = 0; i < script.sibling_count; ++i) {
                const Sibling &sibling = script.siblings[i];
                triples.push_back(s->str(sibling.name));
                triples.push_back(s->str(sibling.file));
                triples.push_back(s->str(std::string(reinterpret_cast<const char *>(sibling.source),
                                                     sibling.source_size)));
            }
            s->call("add_siblings", std::move(triples));
        }
        s->module = s->call("load", Session::build(
            s->str(std::string(reinterpret_cast<const char *>(script.source), script.source_size)),
            s->str(script.file), s->str(script.module_name)));
        started = s.release();
        return *started;
    } catch (const Error &e) {
        failed = e;
        throw;
    }
}

}  // namespace gpubench::python

// The Python plugin's interpreter session: the process's interpreter (python_runtime.hpp) with
// the bridge helper (bridge_helper.py, embedded) and the plugin's script loaded, and the calls
// into the script through the helper's guarded(), which turn its errors into gpubench::Error.
#pragma once

#include "python_plugin.hpp"
#include "python_runtime.hpp"

#include <gpubench/descriptor.hpp>
#include <gpubench/errors.hpp>

#include <string>
#include <utility>
#include <vector>

namespace gpubench::python {

// The top-level modules the script needs, numpy (the bridge's own arrays) first.
std::vector<std::string> required_modules(const Script &script);

// The process's interpreter with the bridge helper and one plugin's script loaded: started
// by the first create() (or prepare()), once per worker process.
struct Session {
    const Api *api = nullptr;
    const Script *script = nullptr;
    Ref helper, module, guarded;
    Metric interpreter;  // which Python ran the entry, recorded with its metrics

    Ref str(const std::string &text) const {
        return Ref(api, api->PyUnicode_FromString(text.c_str()));
    }
    Ref share(Object *object) const {  // a new reference to a borrowed object
        api->Py_IncRef(object);
        return Ref(api, object);
    }
    Ref integer(long long value) const { return Ref(api, api->PyLong_FromLongLong(value)); }
    Ref tuple(std::vector<Ref> items) const {
        Ref t(api, api->PyTuple_New(static_cast<intptr_t>(items.size())));
        if (!t) throw Error(GPUBENCH_ERROR, "PyTuple_New failed: " + take_error(*api));
        for (size_t i = 0; i < items.size(); ++i) {
            if (!items[i]) throw Error(GPUBENCH_ERROR, "bridge: " + take_error(*api));
            api->PyTuple_SetItem(t.get(), static_cast<intptr_t>(i), items[i].release());
        }
        return t;
    }
    Ref attribute(const Ref &object, const char *name) const {
        Ref a(api, api->PyObject_GetAttrString(object.get(), name));
        if (!a) throw Error(GPUBENCH_ERROR, std::string("bridge: ") + name + ": " + take_error(*api));
        return a;
    }
    // helper.guarded(script, helper.<function>, args...): the value, or the script's error
    // as a gpubench::Error with its status.
    Ref call(const char *function, std::vector<Ref> args) const {
        return invoke(prepare(attribute(helper, function), std::move(args)));
    }
    // The arguments of guarded() for calling `function(args...)`, built once for a call that
    // is made again and again (the timed phases: no allocation between the runner's events).
    Ref prepare(Ref function, std::vector<Ref> args) const {
        std::vector<Ref> all;
        all.push_back(str(script->file));
        all.push_back(std::move(function));
        for (Ref &a : args) all.push_back(std::move(a));
        return tuple(std::move(all));
    }
    Ref invoke(const Ref &arguments) const {
        Ref result(api, api->PyObject_CallObject(guarded.get(), arguments.get()));
        if (!result) throw Error(GPUBENCH_ERROR, "bridge: " + take_error(*api));
        const long long status = api->PyLong_AsLongLong(api->PyTuple_GetItem(result.get(), 0));
        if (status != GPUBENCH_OK) {
            Ref utf8(api, api->PyUnicode_AsUTF8String(api->PyTuple_GetItem(result.get(), 1)));
            throw Error(static_cast<gpubench_status>(status),
                        utf8 ? api->PyBytes_AsString(utf8.get()) : "Python error");
        }
        return share(api->PyTuple_GetItem(result.get(), 2));
    }

    // compile() and exec() the helper into a module of its own: no file to find at run time.
    void load_helper();
    template <class... R>
    static std::vector<Ref> build(R &&...refs) {
        std::vector<Ref> v;
        (v.push_back(std::move(refs)), ...);
        return v;
    }
};

// The process's session for `script`, started on the first call (`cpu_threads` caps the
// interpreter's thread pools, see start_interpreter); later calls return it whatever their
// arguments. A failure to start is kept and thrown again by every later call.
Session &session(const Script &script, int cpu_threads);

}  // namespace gpubench::python

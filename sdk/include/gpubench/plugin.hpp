// Optional C++ helper over the C ABI in plugin.h: write a class, add one macro.
//
//   class MyBench {
//    public:
//     explicit MyBench(const gpubench::Setup &setup);     // create: allocate, make inputs
//     static gpubench::Work work(uint64_t size, const gpubench::Params &params);
//     // or, across several GPUs (Info::max_devices > 1), with the number it will be given:
//     // static gpubench::Work work(uint64_t size, const gpubench::Params &, int devices);
//     // or, measured together by several ranks (ABI 1.7), with how many there are:
//     // static gpubench::Work work(uint64_t size, const gpubench::Params &, int devices,
//     //                            int ranks);
//     void upload();                                      // optional (CUDA plugins)
//     void reset();                                       // optional (in-place runs)
//     void run();
//     void download();                                    // optional (CUDA plugins)
//     gpubench::Verification verify();
//     std::vector<gpubench::Metric> metrics();            // optional (accuracy, loss...)
//   };
//   GPUBENCH_PLUGIN(MyBench, gpubench::Info{ ... })
//
// Methods that are absent become NULL in the descriptor. Any exception is caught at the
// boundary: gpubench::Error carries its own status, std::bad_alloc becomes OUT_OF_MEMORY,
// everything else ERROR with what() as the message.
//
// This header includes the whole helper; its parts, by concern:
//   gpubench/errors.hpp        Error, OutOfMemory, NotSupported, InvalidArgument
//   gpubench/params.hpp        Params: --param values as text, numbers or enum names
//   gpubench/descriptor.hpp    Info, Setup, Work, Verification, Metric
//   gpubench/guard.hpp         the exception guard at the boundary
//   gpubench/adapter.hpp       the C ABI's functions over the class
//   gpubench/registration.hpp  GPUBENCH_PLUGIN and the descriptor it returns
// And, included on its own by plugins that run across ranks:
//   gpubench/rendezvous.hpp    bytes shared among ranks through files (an NCCL unique id)
// And one a plugin seldom needs, the owner of a child process that the Python bridge and the
// runner share:
//   gpubench/child_process.hpp ChildProcess: started, waited for, killed with its group, reaped
#pragma once

#include <gpubench/plugin.h>

#include <gpubench/adapter.hpp>
#include <gpubench/descriptor.hpp>
#include <gpubench/errors.hpp>
#include <gpubench/guard.hpp>
#include <gpubench/params.hpp>
#include <gpubench/registration.hpp>

// What this file included when it was the whole helper: plugins may rely on it.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "cupti_detach.hpp"

#include <cuda.h>

#include <atomic>

namespace gpubench {
namespace {

std::atomic<uint64_t> detaches{0};
std::atomic<bool> kept{false};
// The detach under way: set before the CUDA call whose exit finalizes.
const CuptiApi *detaching = nullptr;
std::atomic<bool> pending{false};
std::atomic<CUptiResult> finalized{CUPTI_ERROR_UNKNOWN};

void CUPTIAPI at_api_exit(void *, CUpti_CallbackDomain domain, CUpti_CallbackId, const void *data) {
    if (domain != CUPTI_CB_DOMAIN_RUNTIME_API && domain != CUPTI_CB_DOMAIN_DRIVER_API) return;
    if (static_cast<const CUpti_CallbackData *>(data)->callbackSite != CUPTI_API_EXIT) return;
    if (pending.exchange(false)) finalized = detaching->attach->finalize();
}

}  // namespace

std::string cupti_detach(const CuptiApi &api) {
    if (kept) return "the GPU counters keep CUPTI attached";
    if (!api.attach) return "the CUPTI found lacks cuptiFinalize or cuptiSubscribe";
    CUpti_SubscriberHandle subscriber = nullptr;
    if (const CUptiResult r = api.attach->subscribe(&subscriber, at_api_exit, nullptr); r != CUPTI_SUCCESS)
        return "cuptiSubscribe: " + cupti_error_text(api, r);
    detaching = &api;
    finalized = CUPTI_ERROR_UNKNOWN;
    pending = true;
    for (CUpti_CallbackDomain domain : {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_CB_DOMAIN_DRIVER_API})
        api.attach->enable_domain(1, subscriber, domain);
    int device = 0;
    cudaGetDevice(&device);  // a runtime call: its exit detaches
    CUcontext context = nullptr;
    decltype(&cuCtxGetCurrent) current_context = nullptr;
    if (pending && driver_entry("cuCtxGetCurrent", current_context)) current_context(&context);
    if (pending.exchange(false)) {
        api.attach->unsubscribe(subscriber);
        return "no CUDA call reached CUPTI's callback";
    }
    if (const CUptiResult r = finalized; r != CUPTI_SUCCESS) {
        api.attach->unsubscribe(subscriber);
        return "cuptiFinalize: " + cupti_error_text(api, r);
    }
    ++detaches;
    return "";
}

uint64_t cupti_detaches() { return detaches; }

void keep_cupti_attached() { kept = true; }

}  // namespace gpubench

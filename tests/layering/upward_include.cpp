// Compiled only by the test core_folders_refuse_an_upward_include, which expects it to fail:
// core/measure/ sits below core/results/, so its library does not see results.hpp.
#include "results.hpp"

// The Python plugins run in the interpreter sdk/python/find-python.sh chooses, as they do for a
// user: the tests set nothing up for them.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

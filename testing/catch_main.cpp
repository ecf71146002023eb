// One Catch2 main for every alloclab test executable.
// A test that needs hardware which is absent calls alloclab::testing::skip("reason"): the reason
// is printed and the process exits with code 4, which ctest reports as "Skipped"
// (SKIP_RETURN_CODE).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

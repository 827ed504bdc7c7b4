// Test hook shared by the OpenCV shims (docs/testing.md): SCAND_TEST_FAULT_OPENCV=N makes every Nth face
// detection fail as an allocation failure would (the caller throws std::bad_alloc inside its try block), so
// the tests follow the error out of the shim without exhausting memory. Unset or 0: never.
#pragma once
#include <atomic>
#include <cstdlib>

inline bool scv_fault_due() {
    static const long every = [] {
        const char *v = std::getenv("SCAND_TEST_FAULT_OPENCV");
        return v ? std::atol(v) : 0L;
    }();
    if (every <= 0) return false;
    static std::atomic<long> calls{0};
    return (calls.fetch_add(1) + 1) % every == 0;
}

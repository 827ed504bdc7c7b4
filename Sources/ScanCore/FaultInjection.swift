#if canImport(Glibc)
    import Glibc
#endif

/// Test hooks that make a C library call fail as it would when memory runs out (docs/testing.md), so tests
/// follow the error from the library to the event stream without exhausting memory. The C++ shims have their
/// own (`SCAND_TEST_FAULT_ZXING`, `SCAND_TEST_FAULT_OPENCV`); this is zbar's, called from Swift.
public enum FaultInjection {
    /// `SCAND_TEST_FAULT_ZBAR=N`: every Nth zbar scan fails (as `zbar_scan_image` returning -1). Unset: never.
    public static func zbarScanFails() -> Bool {
        guard let every = zbarEvery else { return false }
        return zbarCalls.next() % every == 0
    }

    private static let zbarEvery: Int? = getenv("SCAND_TEST_FAULT_ZBAR").flatMap { Int(String(cString: $0)) }.flatMap {
        $0 > 0 ? $0 : nil
    }
    private static let zbarCalls = Counter()

    /// A counter shared by every thread.
    private final class Counter: Sendable {
        private let lock = Lock()
        nonisolated(unsafe) private var value = 0  // under `lock`
        func next() -> Int {
            lock.withLock {
                value += 1
                return value
            }
        }
    }
}

/// Splits a fuzz input into typed pieces, like LLVM's FuzzedDataProvider: integers and lengths are
/// taken from the input itself, so every byte steers the target.
struct FuzzInput {
    private let bytes: [UInt8]
    private var position = 0

    init(_ data: UnsafeBufferPointer<UInt8>) { bytes = Array(data) }

    var isEmpty: Bool { position >= bytes.count }

    /// One byte, 0 when the input is used up.
    mutating func byte() -> UInt8 {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return bytes[position]
    }

    /// Up to `limit` bytes whose count comes from the next byte.
    mutating func chunk(limit: Int = 255) -> [UInt8] {
        let count = min(Int(byte()), limit, bytes.count - position)
        defer { position += count }
        return Array(bytes[position..<position + count])
    }

    /// Everything not consumed yet.
    mutating func rest() -> [UInt8] {
        defer { position = bytes.count }
        return Array(bytes[min(position, bytes.count)...])
    }
}

/// SplitMix64: a small deterministic generator seeded from the input.
struct SplitMix64 {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Stops the fuzzer with a message: libFuzzer reports the trap as a crash and saves the input.
func fuzzCheck(_ condition: Bool, _ message: @autoclosure () -> String, file: StaticString = #file, line: UInt = #line) {
    if !condition { fatalError("fuzz check failed: \(message())", file: file, line: line) }
}

import ScanCore

/// The GS1 element string parser (`GS1ElementString`) on arbitrary payload bytes, as a GS1 symbol's payload
/// may hold anything. Checks: a valid string is its elements again (each AI and value in order, GS where the
/// bytes had one), every element's AI is a digit string of 2 to 4, and an invalid one says why.
enum GS1Target {
    @Sendable static func run(_ data: UnsafeBufferPointer<UInt8>) {
        let bytes = Array(data)
        let parsed = GS1ElementString(bytes)
        for e in parsed.elements {
            fuzzCheck((2...4).contains(e.ai.utf8.count) && e.ai.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }, "AI \(e.ai)")
        }
        guard parsed.isValid else {
            let error = parsed.error ?? ""
            fuzzCheck(
                error.hasPrefix("AI (") || error.hasPrefix("no GS1 Application Identifier") || error == "no element",
                "error \(error)")
            return
        }
        fuzzCheck(!parsed.elements.isEmpty, "valid with no element")
        let joined = parsed.elements.flatMap { Array(($0.ai + $0.value).utf8) }
        fuzzCheck(bytes.filter { $0 != 0x1D } == joined, "elements do not make the bytes again: \(bytes) -> \(joined)")
    }
}

/// A GS1 element string split into its Application Identifiers (GS1 General Specifications, section 3 and
/// 7.8): the payload of a GS1-128, GS1 DataMatrix, GS1 QR Code or GS1 DataBar symbol, FNC1 first (implied, not in
/// the bytes) and every variable-length field not at the end ended by GS (0x1D).
public struct GS1ElementString: Sendable, Equatable {
    /// One Application Identifier and its data.
    public struct Element: Sendable, Equatable {
        /// The AI's digits, "01", "3103", "8200".
        public var ai: String
        /// The data field as it is in the symbol (a decimal AI's digits without the decimal point).
        public var value: String
        /// The GS1 data title ("GTIN", "BEST BEFORE or BEST BY"), nil for an AI not in scand's table.
        public var title: String?
    }

    /// The elements in the order of the symbol; when ``error`` is set, those read before it (the failing one
    /// included when its data could be cut out).
    public var elements: [Element]
    /// What makes the string not a valid element string, naming the AI: an unknown AI, a field of the wrong
    /// length or characters, a wrong check digit (GTIN, SSCC, GLN, …), an impossible date. nil when valid.
    public var error: String?

    public var isValid: Bool { error == nil }

    /// Splits `bytes` (a GS1 symbol's payload; a leading GS, as some encoders write FNC1, is skipped).
    public init(_ bytes: [UInt8]) {
        elements = []
        error = nil
        var p = bytes.first == Self.gs ? 1 : 0
        while p < bytes.count {
            guard let (spec, aiLength) = Self.spec(at: p, in: bytes) else {
                let shown = String(decoding: bytes[p..<min(bytes.count, p + 4)], as: UTF8.self)
                error = "no GS1 Application Identifier at \"\(Self.escaped(shown))\" (byte \(p))"
                return
            }
            let ai = String(decoding: bytes[p..<p + aiLength], as: UTF8.self)
            p += aiLength
            var end = p
            while end < bytes.count, bytes[end] != Self.gs { end += 1 }
            if let fixed = spec.fixedLength, end - p > fixed, Self.predefinedLength(ai) {
                end = p + fixed  // a predefined-length field needs no GS after it
            }
            let data = Array(bytes[p..<end])
            let value = String(decoding: data, as: UTF8.self)
            elements.append(Element(ai: ai, value: value, title: spec.title))
            if let problem = spec.check(data) {
                error = "AI (\(ai)): \(problem)"
                return
            }
            p = end
            if p < bytes.count, bytes[p] == Self.gs { p += 1 }
        }
        if elements.isEmpty { error = "no element" }
    }

    /// GS (group separator), FNC1 after the first position.
    static let gs: UInt8 = 0x1D

    /// The AIs whose data length the GS1 General Specifications predefine (Figure 7.8.5-2: by their first two
    /// digits), so that no separator follows them.
    static func predefinedLength(_ ai: String) -> Bool {
        let two = ai.prefix(2)
        return [
            "00", "01", "02", "03", "04", "11", "12", "13", "14", "15", "16", "17", "18", "19", "20", "31", "32",
            "33", "34", "35", "36", "41",
        ].contains(two)
    }

    /// The spec of the AI at `p`, and the AI's length (2 to 4 digits; the AI table is prefix-free).
    static func spec(at p: Int, in bytes: [UInt8]) -> (AISpec, Int)? {
        for length in 2...4 where p + length <= bytes.count {
            let digits = bytes[p..<p + length]
            guard digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
            if let spec = table[String(decoding: digits, as: UTF8.self)] { return (spec, length) }
        }
        return nil
    }

    /// `s` with control characters as `\u{..}`, for an error message.
    static func escaped(_ s: String) -> String {
        s.unicodeScalars.map {
            $0.value < 0x20 || $0.value == 0x7F ? "\\u{\(String($0.value, radix: 16))}" : String($0)
        }
        .joined()
    }
}

/// The format and meaning of one Application Identifier.
struct AISpec: Sendable {
    /// One part of a data field: N (digits), X (GS1 AI encodable character set 82) or Y (set 39).
    enum Kind: Sendable { case n, x, y }
    struct Part: Sendable {
        var kind: Kind
        var min: Int
        var max: Int
    }
    /// What is checked beyond the characters and lengths.
    enum Check: Sendable {
        case none
        /// A GS1 mod-10 check digit ending the first `digits` digits.
        case checkDigit(digits: Int)
        /// YYMMDD (day 00 allowed: the last day of the month).
        case date
        /// YYMMDD followed by more (HHMM…); the date part checked.
        case dateThenMore
    }

    var title: String
    var parts: [Part]
    var check: Check

    /// The field's length when it has only fixed-length parts.
    var fixedLength: Int? { parts.allSatisfy { $0.min == $0.max } ? parts.reduce(0) { $0 + $1.max } : nil }

    /// Why `data` is not a valid field of this AI, or nil.
    func check(_ data: [UInt8]) -> String? {
        let minimum = parts.reduce(0) { $0 + $1.min }
        let maximum = parts.reduce(0) { $0 + $1.max }
        if data.count < minimum || data.count > maximum {
            let wanted = minimum == maximum ? "\(minimum)" : "\(minimum) to \(maximum)"
            return "\(data.count) characters, needs \(wanted)"
        }
        var p = 0
        for (index, part) in parts.enumerated() {
            let rest = parts[(index + 1)...].reduce(0) { $0 + $1.min }
            let take = min(part.max, data.count - p - rest)
            guard take >= part.min else { return "\(data.count) characters, too short" }
            for (offset, byte) in data[p..<p + take].enumerated() where !Self.allowed(byte, part.kind) {
                let what: String
                switch part.kind {
                case .n: what = "a digit"
                case .x: what = "a character of GS1's set 82"
                case .y: what = "a character of GS1's set 39"
                }
                return "byte 0x\(String(byte, radix: 16)) at \(p + offset) is not \(what)"
            }
            p += take
        }
        switch check {
        case .none: return nil
        case .checkDigit(let digits):
            let d = data.prefix(digits).map { Int($0) - 0x30 }
            let expected = Self.checkDigit(Array(d.dropLast()))
            return d.last == expected ? nil : "check digit \(d.last ?? 0), should be \(expected)"
        case .date, .dateThenMore:
            return Self.validDate(Array(data.prefix(6)))
                ? nil : "no such date \(String(decoding: data.prefix(6), as: UTF8.self)) (YYMMDD)"
        }
    }

    /// The GS1 mod-10 check digit of `digits` (weights 3 and 1 from the right).
    static func checkDigit(_ digits: [Int]) -> Int {
        var sum = 0
        for (i, d) in digits.reversed().enumerated() { sum += d * (i % 2 == 0 ? 3 : 1) }
        return (10 - sum % 10) % 10
    }

    /// YYMMDD with a month 01–12 and a day 00 (any month: its last day) to the month's last (February: 29).
    static func validDate(_ d: [UInt8]) -> Bool {
        guard d.count == 6, d.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return false }
        let v = d.map { Int($0) - 0x30 }
        let month = v[2] * 10 + v[3]
        let day = v[4] * 10 + v[5]
        let days = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        return (1...12).contains(month) && day <= days[month - 1]
    }

    static func allowed(_ b: UInt8, _ kind: Kind) -> Bool {
        switch kind {
        case .n: return b >= 0x30 && b <= 0x39
        case .y: return (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || b == 0x23 || b == 0x2D || b == 0x2F
        case .x:
            // Set 82: ! " % & ' ( ) * + , - . / 0-9 : ; < = > ? A-Z _ a-z
            return (b >= 0x21 && b <= 0x22) || (b >= 0x25 && b <= 0x3F) || (b >= 0x41 && b <= 0x5A) || b == 0x5F
                || (b >= 0x61 && b <= 0x7A)
        }
    }
}

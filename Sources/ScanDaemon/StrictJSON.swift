import ScanCore

/// A strict syntax check of a JSON document before it is decoded, for configuration files:
/// Foundation's decoder accepts duplicate keys (the last one silently wins) and reports errors without a
/// line or column. This pass refuses duplicate keys, nesting deeper than ``maximumDepth``, and any syntax
/// error, naming the line and column, and records where each object key stands so that later errors
/// (wrong type, unknown key, value out of range) can name their line and column too.
struct StrictJSON {
    /// A place in the document: 1-based line and column (columns count Unicode scalars, not bytes).
    struct Position: Sendable, Equatable, CustomStringConvertible {
        var line: Int
        var column: Int
        var description: String { "\(line):\(column)" }
    }

    /// A syntax error at a position.
    struct SyntaxError: Error, Equatable {
        var position: Position
        var message: String
    }

    /// Objects and arrays nested deeper than this are refused (a config file needs 3).
    static let maximumDepth = 64

    /// Where each key stands, by its dotted path from the top (`socket.clientQueue`); "" is the document.
    private(set) var keyPositions: [String: Position] = [:]

    private let bytes: [UInt8]
    private var index = 0
    private var line = 1
    private var lineStart = 0

    /// Checks `bytes`. - Throws: ``SyntaxError``.
    init(checking bytes: [UInt8]) throws(SyntaxError) {
        self.bytes = bytes
        skipWhitespace()
        keyPositions[""] = position
        guard index < bytes.count else { throw error("empty document (expected a JSON object)") }
        try value(path: "", depth: 0)
        skipWhitespace()
        guard index == bytes.count else { throw error("unexpected text after the JSON value") }
    }

    /// The position of `path`'s key, or of its closest enclosing key that has one.
    func position(of path: [String]) -> Position {
        var path = path
        while !path.isEmpty {
            if let p = keyPositions[path.joined(separator: ".")] { return p }
            path.removeLast()
        }
        return keyPositions[""] ?? Position(line: 1, column: 1)
    }

    // MARK: scanning

    private var position: Position {
        var column = 1
        var i = lineStart
        while i < index && i < bytes.count {
            if bytes[i] & 0xC0 != 0x80 { column += 1 }
            i += 1
        }
        return Position(line: line, column: column)
    }

    private func error(_ message: String) -> SyntaxError { SyntaxError(position: position, message: message) }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0D: index += 1
            case 0x0A:
                index += 1
                line += 1
                lineStart = index
            default: return
            }
        }
    }

    private func describeNext() -> String {
        guard index < bytes.count else { return "the end of the file" }
        let b = bytes[index]
        return (0x21...0x7E).contains(b) ? "'\(Character(Unicode.Scalar(b)))'" : "byte 0x\(String(b, radix: 16))"
    }

    private mutating func value(path: String, depth: Int) throws(SyntaxError) {
        skipWhitespace()
        guard index < bytes.count else { throw error("unexpected end of file (expected a value)") }
        switch bytes[index] {
        case UInt8(ascii: "{"): try object(path: path, depth: depth + 1)
        case UInt8(ascii: "["): try array(path: path, depth: depth + 1)
        case UInt8(ascii: "\""): _ = try string()
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        default: throw error("expected a value, found \(describeNext())")
        }
    }

    private mutating func literal(_ word: String) throws(SyntaxError) {
        let w = Array(word.utf8)
        guard index + w.count <= bytes.count, Array(bytes[index..<(index + w.count)]) == w else {
            throw error("expected a value, found \(describeNext())")
        }
        index += w.count
    }

    private mutating func object(path: String, depth: Int) throws(SyntaxError) {
        guard depth <= Self.maximumDepth else { throw error("nested deeper than \(Self.maximumDepth) levels") }
        index += 1  // {
        var seen: [String: Position] = [:]
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw error("expected a key in double quotes, found \(describeNext())")
            }
            let keyPosition = position
            let key = try string()
            if let first = seen[key] {
                throw SyntaxError(
                    position: keyPosition, message: "duplicate key '\(Self.printable(key))' (first at \(first))")
            }
            seen[key] = keyPosition
            let keyPath = path.isEmpty ? key : path + "." + key
            if keyPositions[keyPath] == nil { keyPositions[keyPath] = keyPosition }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw error("expected ':' after key '\(Self.printable(key))', found \(describeNext())")
            }
            index += 1
            try value(path: keyPath, depth: depth)
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of file (expected ',' or '}')") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            if bytes[index] == UInt8(ascii: "}") {
                index += 1
                return
            }
            throw error("expected ',' or '}', found \(describeNext())")
        }
    }

    private mutating func array(path: String, depth: Int) throws(SyntaxError) {
        guard depth <= Self.maximumDepth else { throw error("nested deeper than \(Self.maximumDepth) levels") }
        index += 1  // [
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return
        }
        var element = 0
        while true {
            try value(path: "\(path).\(element)", depth: depth)
            element += 1
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of file (expected ',' or ']')") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            if bytes[index] == UInt8(ascii: "]") {
                index += 1
                return
            }
            throw error("expected ',' or ']', found \(describeNext())")
        }
    }

    private mutating func number() throws(SyntaxError) {
        func digits() -> Int {
            let start = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            return index - start
        }
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count else { throw error("malformed number") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else if digits() == 0 {
            throw error("malformed number")
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { throw error("malformed number (digits must follow '.')") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard digits() > 0 else { throw error("malformed number (digits must follow the exponent)") }
        }
    }

    /// Reads a string (the opening quote is at `index`) and returns its decoded text.
    private mutating func string() throws(SyntaxError) -> String {
        index += 1
        var scalars = String.UnicodeScalarView()
        while true {
            guard index < bytes.count else { throw error("unterminated string") }
            let b = bytes[index]
            if b == UInt8(ascii: "\"") {
                index += 1
                return String(scalars)
            }
            if b < 0x20 { throw error("control character (byte 0x\(String(b, radix: 16))) inside a string; escape it") }
            if b == UInt8(ascii: "\\") {
                index += 1
                guard index < bytes.count else { throw error("unterminated string") }
                let e = bytes[index]
                index += 1
                switch e {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    let high = try hex4()
                    if (0xD800...0xDBFF).contains(high) {
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                            bytes[index + 1] == UInt8(ascii: "u")
                        else {
                            throw error("unpaired surrogate in \\u escape")
                        }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired surrogate in \\u escape") }
                        scalars.append(Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))!)
                    } else {
                        guard let s = Unicode.Scalar(high) else { throw error("unpaired surrogate in \\u escape") }
                        scalars.append(s)
                    }
                default: throw error("invalid escape '\\\(Character(Unicode.Scalar(e)))' in a string")
                }
                continue
            }
            let length = InputPath.utf8SequenceLength(bytes, at: index)
            guard length > 0 else { throw error("invalid UTF-8 (byte 0x\(String(b, radix: 16)))") }
            scalars.append(contentsOf: String(decoding: bytes[index..<(index + length)], as: UTF8.self).unicodeScalars)
            index += length
        }
    }

    private mutating func hex4() throws(SyntaxError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("truncated \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[index]
            let d: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(c - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(c - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(c - UInt8(ascii: "A") + 10)
            default: throw error("invalid \\u escape")
            }
            v = v << 4 | d
            index += 1
        }
        return v
    }

    /// A key as shown in messages: control characters escaped, at most 64 characters.
    static func printable(_ key: String) -> String {
        InputPath.escapedText(Array(String(key.prefix(64)).utf8))
    }
}

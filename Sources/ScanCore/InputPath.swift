/// A file name as the operating system holds it: raw bytes, which on Linux need not be UTF-8.
///
/// scand opens inputs by these bytes (so a name that is not UTF-8 still opens) and shows them through
/// ``displayName``, which is always valid UTF-8: bytes that are not part of valid UTF-8, and control
/// characters, are escaped as `\xNN` (a backslash is shown as `\\` only when escaping happened, so
/// ordinary names read as typed).
public struct InputPath: Sendable, Hashable, CustomStringConvertible {
    /// The path's bytes, without a terminating NUL.
    public let bytes: [UInt8]

    /// A path from its raw bytes (e.g. from `argv` or a `--files-from` line).
    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// A path from a Swift string (its UTF-8 bytes).
    public init(_ string: String) { self.bytes = Array(string.utf8) }

    /// Standard input (`-`).
    public static let standardInput = InputPath("-")

    /// True for `-` (standard input).
    public var isStandardInput: Bool { bytes == [0x2D] }

    /// The name as valid UTF-8 for events and logs: invalid bytes and control characters become `\xNN`.
    public var displayName: String { Self.escapedText(bytes) }

    public var description: String { displayName }

    /// The lowercased extension after the last `.` of the last path component ("" when none).
    public var lowercasedExtension: String {
        let name = bytes.split(separator: 0x2F, omittingEmptySubsequences: false).last ?? []
        guard let dot = name.lastIndex(of: 0x2E), dot != name.startIndex else { return "" }
        return String(decoding: name[(dot + 1)...], as: UTF8.self).lowercased()
    }

    /// Text for display: valid UTF-8 is kept (minus control characters, which become `\xNN`); every byte
    /// that is not part of a valid UTF-8 sequence becomes `\xNN`. When anything was escaped, a literal
    /// backslash becomes `\\` so the escaped form is unambiguous.
    public static func escapedText(_ bytes: [UInt8]) -> String {
        var out = ""
        var escaped = false
        var pieces: [(String, Bool)] = []  // (text, isEscape)
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            let length = utf8SequenceLength(bytes, at: i)
            if length == 0 {
                pieces.append((hex(b), true))
                escaped = true
                i += 1
                continue
            }
            let scalarText = String(decoding: bytes[i..<(i + length)], as: UTF8.self)
            if let scalar = scalarText.unicodeScalars.first, isControl(scalar) {
                pieces.append(
                    (scalar.value < 0x100 ? hex(UInt8(scalar.value)) : "\\u{\(String(scalar.value, radix: 16))}", true))
                escaped = true
            } else {
                pieces.append((scalarText, false))
            }
            i += length
        }
        for (text, isEscape) in pieces {
            out += (escaped && !isEscape && text == "\\") ? "\\\\" : text
        }
        return out
    }

    static func hex(_ b: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return "\\x" + String(digits[Int(b >> 4)]) + String(digits[Int(b & 0xF)])
    }

    /// C0, DEL, C1 controls and the Unicode line/paragraph separators, which can break a log line.
    public static func isControl(_ s: Unicode.Scalar) -> Bool {
        s.value < 0x20 || (0x7F...0x9F).contains(s.value) || s.value == 0x2028 || s.value == 0x2029
    }

    /// Length of the valid UTF-8 sequence starting at `i`, or 0 when the byte there does not start one.
    public static func utf8SequenceLength(_ b: [UInt8], at i: Int) -> Int {
        let c = b[i]
        func cont(_ k: Int, _ lo: UInt8 = 0x80, _ hi: UInt8 = 0xBF) -> Bool {
            i + k < b.count && b[i + k] >= lo && b[i + k] <= hi
        }
        switch c {
        case 0x00...0x7F: return 1
        case 0xC2...0xDF: return cont(1) ? 2 : 0
        case 0xE0: return cont(1, 0xA0) && cont(2) ? 3 : 0
        case 0xE1...0xEC, 0xEE...0xEF: return cont(1) && cont(2) ? 3 : 0
        case 0xED: return cont(1, 0x80, 0x9F) && cont(2) ? 3 : 0
        case 0xF0: return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0
        case 0xF1...0xF3: return cont(1) && cont(2) && cont(3) ? 4 : 0
        case 0xF4: return cont(1, 0x80, 0x8F) && cont(2) && cont(3) ? 4 : 0
        default: return 0
        }
    }
}

/// Limits every decoder checks before it allocates, so a hostile input is refused at once instead of
/// exhausting memory or time. The defaults fit every real camera and phone photo.
public struct DecoderLimits: Sendable, Hashable {
    /// The most pixels (width × height) a still image, a Y4M frame or a video frame may declare.
    /// Default 40,000,000 (e.g. 7680×4320 8K UHD is 33.2 MP). `--max-pixels` sets it.
    public var maxPixels: Int
    /// The largest still-image file read into memory, in bytes; checked on the file's size before it is read
    /// (and while reading, for pipes). Default 128 MiB: far above any real photo, and low enough that an
    /// endless pipe is refused well under 300 MB of memory.
    public var maxFileBytes: Int

    public static let defaultMaxPixels = 40_000_000
    public static let defaultMaxFileBytes = 128 << 20

    public init(maxPixels: Int = DecoderLimits.defaultMaxPixels, maxFileBytes: Int = DecoderLimits.defaultMaxFileBytes)
    {
        self.maxPixels = maxPixels
        self.maxFileBytes = maxFileBytes
    }

    /// Throws when `width`×`height` is over the pixel budget (or not positive), naming `input`.
    public func check(width: Int, height: Int, input: String) throws(ScanError) {
        guard width > 0, height > 0 else {
            throw .undecodableInput(input: input, reason: "invalid size \(width)x\(height)")
        }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        if overflow || pixels > maxPixels {
            throw .undecodableInput(
                input: input,
                reason: "\(width)x\(height) is over the pixel budget of \(maxPixels) pixels (--max-pixels)")
        }
    }

    /// Checks the values themselves (for flags and the config file).
    public func validate() throws(ScanError) {
        do { try Setting.maxPixels.check(maxPixels) } catch { throw .invalidArgument(error.description) }
        guard maxFileBytes >= 1 else { throw .invalidArgument("max file bytes must be positive") }
    }
}

internal import Glibc
public import ScanCore

/// Turns a code's payload bytes into text, as the symbol encodes it.
///
/// - Runs of the payload carry the character set their ECI designator declares (ISO/IEC 18004's table:
///   ISO-8859-1…16, Shift JIS, windows-1250…1252/1256, UTF-8, UTF-16/32, US-ASCII, Big5, GB 2312, GBK,
///   GB 18030, EUC-KR, CP437), or Shift JIS for QR's Kanji mode; both come from zxing-cpp's decoder.
/// - Runs with nothing declared (matrix codes) are guessed together, as zxing-cpp does: valid UTF-8 first;
///   then Shift JIS when the bytes are valid Shift JIS and read as Japanese (3 or more double-byte or
///   half-width katakana characters in a row, or few high Latin-1 letters); else ISO-8859-1.
/// - 1-D codes use their symbology's set: ASCII, and ISO-8859-1 for Code 128's FNC4 characters.
///
/// Transcoding goes through glibc's iconv. Text that is not printable in the chosen set (control characters
/// other than tab, CR, LF, GS, RS, EOT in an ISO-8859-1 guess; bytes invalid in a declared set; ECI 899,
/// binary) gives no text: the payload is binary and only its bytes are reported.
public enum TextDecoding {
    /// A run of payload bytes in one character set.
    public struct Segment: Sendable, Hashable {
        /// First byte of the run in the payload.
        public var offset: Int
        /// The ECI number that sets the run's character set; nil: nothing declared (guessed).
        public var eci: Int?
        /// The set comes from the symbology's mode (QR Kanji mode: Shift JIS), not from an ECI.
        public var fromMode: Bool
        public init(offset: Int, eci: Int?, fromMode: Bool) {
            self.offset = offset
            self.eci = eci
            self.fromMode = fromMode
        }
    }

    /// The text of `bytes` (one undeclared run), or nil for a binary payload.
    public static func decode(_ bytes: [UInt8], type: MetadataObjectType) -> String? {
        decode(bytes, type: type, segments: [Segment(offset: 0, eci: nil, fromMode: false)]).text
    }

    /// The text of `bytes` with its runs' character sets, and how the set was chosen; (nil, nil) for a binary
    /// payload.
    public static func decode(_ bytes: [UInt8], type: MetadataObjectType, segments: [Segment]) -> (
        text: String?, encoding: TextEncoding?
    ) {
        if type.isLinear { return decodeLinear(bytes) }
        let runs = split(bytes, segments)
        // Undeclared runs are guessed together (as zxing-cpp does).
        let undeclared = runs.filter { $0.segment.eci == nil }.flatMap(\.bytes)
        let guessed = guess(undeclared)
        var text = ""
        var names: [String] = []
        var sources: Set<TextEncoding.Source> = []
        for run in runs where !run.bytes.isEmpty {
            let cs: Charset
            let source: TextEncoding.Source
            if let eci = run.segment.eci {
                guard let c = charset(eci: eci) else { return (nil, nil) }  // binary or unknown ECI
                cs = c
                source = run.segment.fromMode ? modeSource(type, eci: eci) : .eci
            } else {
                cs = guessed
                source = .guess
            }
            guard let part = transcode(run.bytes, from: cs) else { return (nil, nil) }
            if source == .guess, cs == .latin1, !part.unicodeScalars.allSatisfy(isPrintable) { return (nil, nil) }
            text += part
            let ascii = run.bytes.allSatisfy { $0 < 0x80 }
            if !ascii || runs.count == 1 {
                if !names.contains(cs.name) { names.append(cs.name) }
                sources.insert(source)
            }
        }
        if names.isEmpty, let first = runs.first {
            // Every run is ASCII: name the first run's set.
            let cs = first.segment.eci.flatMap(charset(eci:)) ?? guessed
            names = [cs.name]
            sources = [first.segment.eci.map { first.segment.fromMode ? modeSource(type, eci: $0) : .eci } ?? .guess]
        }
        let source: TextEncoding.Source =
            sources.contains(.guess)
            ? .guess
            : sources.contains(.eci)
                ? .eci
                : sources.contains(.kanji) ? .kanji : sources.first ?? .guess
        return (text, TextEncoding(charset: names.joined(separator: ","), source: source))
    }

    /// What a character set fixed by a mode (not an ECI) is reported as: QR's Kanji mode, or the symbology.
    static func modeSource(_ type: MetadataObjectType, eci: Int) -> TextEncoding.Source {
        (type == .qr || type == .microQR) && eci == 20 ? .kanji : .symbology
    }

    /// 1-D codes: ASCII; bytes ≥ 0x80 are Code 128's FNC4 characters, ISO-8859-1.
    static func decodeLinear(_ bytes: [UInt8]) -> (text: String?, encoding: TextEncoding?) {
        let ascii = bytes.allSatisfy { $0 < 0x80 }
        let text = String(decoding: bytes.map { UInt16($0) }, as: UTF16.self)
        guard text.unicodeScalars.allSatisfy(isPrintable) else { return (nil, nil) }
        return (text, TextEncoding(charset: ascii ? "US-ASCII" : "ISO-8859-1", source: .symbology))
    }

    /// Printable, or a separator that code payloads carry: tab, LF, CR, and GS1's / ISO 15434's GS, RS, EOT.
    static func isPrintable(_ u: Unicode.Scalar) -> Bool {
        switch u.value {
        case 0x09, 0x0A, 0x0D, 0x1D, 0x1E, 0x04: return true
        case 0x00..<0x20, 0x7F..<0xA0: return false
        default: return true
        }
    }

    static func split(_ bytes: [UInt8], _ segments: [Segment]) -> [(segment: Segment, bytes: ArraySlice<UInt8>)] {
        let sorted = segments.isEmpty ? [Segment(offset: 0, eci: nil, fromMode: false)] : segments
        var out: [(segment: Segment, bytes: ArraySlice<UInt8>)] = []
        for (i, s) in sorted.enumerated() {
            let start = min(max(0, s.offset), bytes.count)
            let end = i + 1 < sorted.count ? min(max(start, sorted[i + 1].offset), bytes.count) : bytes.count
            out.append((s, bytes[start..<end]))
        }
        if let first = out.first, first.segment.offset > 0 {
            out.insert(
                (Segment(offset: 0, eci: nil, fromMode: false), bytes[0..<min(first.segment.offset, bytes.count)]),
                at: 0)
        }
        return out
    }

    // MARK: character sets

    /// A character set: its IANA name (reported) and glibc iconv's name (used to decode).
    struct Charset: Equatable {
        var name: String
        var iconv: String
        static let utf8 = Charset(name: "UTF-8", iconv: "UTF-8")
        static let latin1 = Charset(name: "ISO-8859-1", iconv: "ISO-8859-1")
        /// Decoded as CP932 (Windows' Shift JIS): ASCII stays ASCII (0x5C is '\', not '¥'), as zxing-cpp and
        /// phones read it.
        static let shiftJIS = Charset(name: "Shift_JIS", iconv: "CP932")
    }

    /// The character set ECI `eci` assigns (AIM ECI / ISO/IEC 18004 Table 4); nil for binary (899) and
    /// unassigned ECIs.
    static func charset(eci: Int) -> Charset? {
        switch eci {
        case 0, 2: return Charset(name: "IBM437", iconv: "CP437")
        case 1, 3: return .latin1
        case 4...13:
            let n = eci - 2
            return Charset(name: "ISO-8859-\(n)", iconv: "ISO-8859-\(n)")
        case 15...18:
            let n = eci - 2
            return Charset(name: "ISO-8859-\(n)", iconv: "ISO-8859-\(n)")
        case 20: return .shiftJIS
        case 21: return Charset(name: "windows-1250", iconv: "CP1250")
        case 22: return Charset(name: "windows-1251", iconv: "CP1251")
        case 23: return Charset(name: "windows-1252", iconv: "CP1252")
        case 24: return Charset(name: "windows-1256", iconv: "CP1256")
        case 25: return Charset(name: "UTF-16BE", iconv: "UTF-16BE")
        case 26: return .utf8
        case 27, 170: return Charset(name: "US-ASCII", iconv: "ASCII")
        case 28: return Charset(name: "Big5", iconv: "BIG5")
        case 29: return Charset(name: "GB2312", iconv: "GB18030")  // GB 18030 decodes GB 2312 (a subset)
        case 30: return Charset(name: "EUC-KR", iconv: "EUC-KR")
        case 31: return Charset(name: "GBK", iconv: "GB18030")
        case 32: return Charset(name: "GB18030", iconv: "GB18030")
        case 33: return Charset(name: "UTF-16LE", iconv: "UTF-16LE")
        case 34: return Charset(name: "UTF-32BE", iconv: "UTF-32BE")
        case 35: return Charset(name: "UTF-32LE", iconv: "UTF-32LE")
        default: return nil
        }
    }

    /// `bytes` decoded from `charset`, or nil when they are not valid in it.
    static func transcode<C: Collection<UInt8>>(_ bytes: C, from charset: Charset) -> String? {
        let input = Array(bytes)
        if charset == .utf8 { return String(validating: input, as: UTF8.self) }
        if charset == .latin1 { return String(decoding: input.map { UInt16($0) }, as: UTF16.self) }
        if input.allSatisfy({ $0 < 0x80 }) && charset.iconv != "UTF-16BE" && charset.iconv != "UTF-16LE"
            && !charset.iconv.hasPrefix("UTF-32")
        {
            return String(decoding: input, as: UTF8.self)  // ASCII is ASCII in every other set here
        }
        return iconvToUTF8(input, from: charset.iconv)
    }

    /// glibc iconv from `from` to UTF-8; nil on invalid or incomplete input (or an unknown set).
    static func iconvToUTF8(_ input: [UInt8], from: String) -> String? {
        guard let cd = iconv_open("UTF-8", from), cd != iconv_t(bitPattern: -1) else { return nil }
        defer { iconv_close(cd) }
        var output = [UInt8](repeating: 0, count: input.count * 4 + 16)
        var src = input
        let produced: Int? = src.withUnsafeMutableBufferPointer { inBuf in
            output.withUnsafeMutableBufferPointer { outBuf in
                var inPtr: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(inBuf.baseAddress)?
                    .assumingMemoryBound(to: CChar.self)
                var inLeft = inBuf.count
                var outPtr: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(outBuf.baseAddress)?
                    .assumingMemoryBound(to: CChar.self)
                var outLeft = outBuf.count
                guard iconv(cd, &inPtr, &inLeft, &outPtr, &outLeft) != -1, inLeft == 0 else { return nil }
                return outBuf.count - outLeft
            }
        }
        guard let produced else { return nil }
        return String(validating: output[0..<produced], as: UTF8.self)
    }

    // MARK: guessing

    /// The character set of undeclared bytes, as zxing-cpp guesses it: valid UTF-8 first; then Shift JIS when
    /// the bytes are valid Shift JIS and look Japanese; else ISO-8859-1 (ZXing's `guessEncoding` heuristic).
    static func guess(_ bytes: [UInt8]) -> Charset {
        if String(validating: bytes, as: UTF8.self) != nil { return .utf8 }
        var canBeLatin1 = true
        var canBeSJIS = true
        var sjisBytesLeft = 0
        var katakana = 0
        var katakanaRun = 0
        var doubleRun = 0
        var maxKatakanaRun = 0
        var maxDoubleRun = 0
        var latin1HighOther = 0
        for b in bytes {
            if canBeLatin1 {
                if b > 0x7F && b < 0xA0 {
                    canBeLatin1 = false
                } else if b > 0x9F && (b < 0xC0 || b == 0xD7 || b == 0xF7) {
                    latin1HighOther += 1
                }
            }
            if canBeSJIS {
                if sjisBytesLeft > 0 {
                    if b < 0x40 || b == 0x7F || b > 0xFC { canBeSJIS = false } else { sjisBytesLeft -= 1 }
                } else if b == 0x80 || b == 0xA0 || b > 0xEF {
                    canBeSJIS = false
                } else if b > 0xA0 && b < 0xE0 {  // half-width katakana
                    katakana += 1
                    doubleRun = 0
                    katakanaRun += 1
                    maxKatakanaRun = max(maxKatakanaRun, katakanaRun)
                } else if b > 0x7F {  // lead byte of a double-byte character
                    sjisBytesLeft += 1
                    katakanaRun = 0
                    doubleRun += 1
                    maxDoubleRun = max(maxDoubleRun, doubleRun)
                } else {
                    katakanaRun = 0
                    doubleRun = 0
                }
            }
        }
        if sjisBytesLeft > 0 { canBeSJIS = false }
        if canBeSJIS && (maxKatakanaRun >= 3 || maxDoubleRun >= 3) && transcode(bytes, from: .shiftJIS) != nil {
            return .shiftJIS
        }
        if canBeLatin1 && canBeSJIS {
            let sjis = (maxKatakanaRun == 2 && katakana == 2) || latin1HighOther * 10 >= bytes.count
            return sjis && transcode(bytes, from: .shiftJIS) != nil ? .shiftJIS : .latin1
        }
        if canBeLatin1 { return .latin1 }
        if canBeSJIS && transcode(bytes, from: .shiftJIS) != nil { return .shiftJIS }
        return .latin1
    }

    // MARK: Code 39 Full ASCII

    /// Code 39 Full ASCII: the pairs `$A`…`$Z`, `%A`…`%Z`, `/A`…`/O`, `/Z`, `+A`…`+Z` stand for the ASCII
    /// characters plain Code 39 lacks (lower case, controls, punctuation). nil when `data` has a `$ % / +`
    /// that starts no valid pair: then it is plain Code 39.
    public static func code39FullASCII(_ data: [UInt8]) -> [UInt8]? {
        var out: [UInt8] = []
        var i = 0
        while i < data.count {
            let c = data[i]
            guard c == 0x24 || c == 0x25 || c == 0x2F || c == 0x2B else {
                out.append(c)
                i += 1
                continue
            }
            guard i + 1 < data.count else { return nil }
            let n = data[i + 1]
            guard n >= 0x41 && n <= 0x5A else { return nil }
            let k = n - 0x41  // 0 for A
            switch c {
            case 0x24: out.append(k + 1)  // $A..$Z: SOH..SUB
            case 0x2B: out.append(k + 0x61)  // +A..+Z: a..z
            case 0x2F:  // /A../O: ! .. /, /Z: ':'
                if n <= 0x4F { out.append(k + 0x21) } else if n == 0x5A { out.append(0x3A) } else { return nil }
            default:  // %
                switch n {
                case 0x41...0x45: out.append(k + 0x1B)  // %A..%E: ESC FS GS RS US
                case 0x46...0x4A: out.append(k - 5 + 0x3B)  // %F..%J: ; < = > ?
                case 0x4B...0x4F: out.append(k - 10 + 0x5B)  // %K..%O: [ \ ] ^ _
                case 0x50...0x54: out.append(k - 15 + 0x7B)  // %P..%T: { | } ~ DEL
                case 0x55: out.append(0x00)  // %U: NUL
                case 0x56: out.append(0x40)  // %V: @
                case 0x57: out.append(0x60)  // %W: `
                default: out.append(0x7F)  // %X..%Z: DEL
                }
            }
            i += 2
        }
        return out
    }

    /// Whether a Code 39 symbol's characters `data` are evidently Full ASCII, not plain Code 39 that happens to
    /// hold `$ % / +`: every such character starts a valid pair (``code39FullASCII(_:)``), at least one pair spells
    /// a lower-case letter (`+A`…`+Z`: the reason Full ASCII is used on labels, and a pair plain Code 39 text
    /// almost never holds: part numbers use `/` and `-`, prices `%`), and it is no HIBC code (a "+" first and a
    /// valid mod-43 check character last: a HIBC primary code's labeler ID starts with a letter, "+A123BJC5D6E71G",
    /// which Full ASCII would turn into "a123…"). "12+A+B" → "12ab" and "E+X+T+E+N+D+E+D /A%J/J/C" →
    /// "Extended !?*#" are; "10%OFF" ("10_FF") and "A/B" are not.
    public static func isEvidentlyFullASCII(_ data: [UInt8]) -> Bool {
        guard code39FullASCII(data) != nil else { return false }
        let lowerCase = zip(data, data.dropFirst()).contains { $0 == 0x2B && $1 >= 0x41 && $1 <= 0x5A }
        guard lowerCase else { return false }
        return !isHIBC(data)
    }

    /// A HIBC code in Code 39: "+" first, and the last character the mod-43 check of the others (HIBC's check
    /// character, which is Code 39's).
    static func isHIBC(_ data: [UInt8]) -> Bool {
        let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ-. $/+%".utf8)
        guard data.count >= 3, data.first == 0x2B else { return false }
        var sum = 0
        for c in data.dropLast() {
            guard let v = alphabet.firstIndex(of: c) else { return false }
            sum += v
        }
        return alphabet[sum % 43] == data.last
    }

    // MARK: Code 32 (Italian Pharmacode)

    /// Code 32 (Italian Pharmacode, AIFA's "codice farmaco"): a Code 39 symbol of 6 characters from the
    /// base-32 alphabet `0-9 B-D F-H J-N P-Z` (no vowels) that spells a 9-digit number, the last digit being a
    /// check digit (odd positions weight 1, even positions weight 2 with their digits summed, mod 10).
    /// Returns "A" + the 9 digits, as printed under the symbol (and as zxing-cpp 2+ reports it); nil when
    /// `data` is not such a symbol.
    public static func code32(_ data: [UInt8]) -> [UInt8]? {
        let alphabet = Array("0123456789BCDFGHJKLMNPQRSTUVWXYZ".utf8)
        guard data.count == 6 else { return nil }
        var value = 0
        for c in data {
            guard let d = alphabet.firstIndex(of: c) else { return nil }
            value = value * 32 + d
        }
        guard value < 1_000_000_000 else { return nil }
        var digits = [Int](repeating: 0, count: 9)
        var rest = value
        for i in stride(from: 8, through: 0, by: -1) {
            digits[i] = rest % 10
            rest /= 10
        }
        var sum = 0
        for (i, d) in digits.dropLast().enumerated() {
            if i % 2 == 0 { sum += d } else { sum += (2 * d) / 10 + (2 * d) % 10 }
        }
        guard sum % 10 == digits[8] else { return nil }
        return [0x41] + digits.map { UInt8($0) + 0x30 }
    }
}

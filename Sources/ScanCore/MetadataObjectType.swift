/// The kinds of metadata scand reports. Raw values are AVFoundation's case names
/// (`AVMetadataObject.ObjectType`), which are also the JSON `type` strings.
public enum MetadataObjectType: String, CaseIterable, Sendable, Codable, Comparable {
    case qr, microQR, ean13, ean8, upce, code39, code93, code128, interleaved2of5, itf14, codabar
    case gs1DataBar, gs1DataBarExpanded, pdf417, aztec, dataMatrix
    case face

    /// Whether this is a machine-readable code (everything but `face`).
    public var isMachineReadableCode: Bool { self != .face }

    /// Whether this is a one-dimensional (linear) barcode.
    public var isLinear: Bool {
        switch self {
        case .qr, .microQR, .pdf417, .aztec, .dataMatrix, .face: return false
        default: return true
        }
    }

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }

    /// Parses a comma-separated list such as `qr,ean13` (case-insensitive; `all` and `codes` allowed).
    /// - Throws: ``ScanError/invalidArgument(_:)`` naming the unknown type and listing the valid ones.
    public static func parseList(_ text: String, available: Set<MetadataObjectType>) throws -> Set<MetadataObjectType> {
        var out = Set<MetadataObjectType>()
        for raw in text.split(separator: ",") {
            let name = raw.trimmingCharacters(in: " ").lowercased()
            if name.isEmpty { continue }
            if name == "all" {
                out.formUnion(available)
                continue
            }
            if name == "codes" {
                out.formUnion(available.filter(\.isMachineReadableCode))
                continue
            }
            guard let t = allCases.first(where: { $0.rawValue.lowercased() == name }) ?? zbarNames[name] else {
                let hint = suggestion(for: name).map { " (did you mean '\($0.rawValue)'?)" } ?? ""
                throw ScanError.invalidArgument(
                    "unknown metadata object type '\(raw)'\(hint); available: \(available.sorted().map(\.rawValue).joined(separator: ","))"
                )
            }
            guard available.contains(t) else {
                throw ScanError.invalidArgument("metadata object type '\(t.rawValue)' is not available in this build")
            }
            out.insert(t)
        }
        if out.isEmpty { throw ScanError.invalidArgument("no metadata object types given") }
        return out
    }
}

extension MetadataObjectType {
    /// zbar's (zbarimg -S, zbarcam) and zxing-cpp's names for the same symbologies, lower case, accepted as
    /// aliases so a zbar user's `--types qrcode,i25` works.
    public static let zbarNames: [String: MetadataObjectType] = [
        "qrcode": .qr, "qr-code": .qr, "sqcode": .qr, "microqr": .microQR, "micro-qr": .microQR, "mqr": .microQR,
        "ean-13": .ean13, "isbn13": .ean13, "isbn-13": .ean13, "upca": .ean13, "upc-a": .ean13,
        "ean-8": .ean8, "upc-e": .upce, "code-39": .code39, "code-93": .code93, "code-128": .code128,
        "i25": .interleaved2of5, "itf": .interleaved2of5, "interleaved-2-of-5": .interleaved2of5, "itf-14": .itf14,
        "databar": .gs1DataBar, "rss14": .gs1DataBar, "rss-14": .gs1DataBar, "gs1-databar": .gs1DataBar,
        "databar-exp": .gs1DataBarExpanded, "databar-expanded": .gs1DataBarExpanded, "rss-exp": .gs1DataBarExpanded,
        "rss-expanded": .gs1DataBarExpanded, "pdf-417": .pdf417, "datamatrix": .dataMatrix, "data-matrix": .dataMatrix,
    ]

    /// The type whose name (or zbar alias) is closest to `name` (edit distance ≤ 2, or a prefix of 3+ letters).
    public static func suggestion(for name: String) -> MetadataObjectType? {
        let name = name.lowercased()
        var best: (MetadataObjectType, Int)?
        let candidates = allCases.map { ($0.rawValue.lowercased(), $0) } + zbarNames.map { ($0.key, $0.value) }
        for (text, type) in candidates {
            let d = text.hasPrefix(name) && name.count >= 3 ? 1 : editDistance(name, text)
            if d <= 2, best == nil || d < best!.1 { best = (type, d) }
        }
        return best?.0
    }

}

/// The name in `names` closest to `text` (case-insensitive edit distance at most `maximumDistance`), for
/// "did you mean" hints.
public func closestName(to text: String, among names: some Sequence<String>, maximumDistance: Int = 2) -> String? {
    var best: (String, Int)?
    for name in names {
        let d = editDistance(text.lowercased(), name.lowercased())
        if d <= maximumDistance, best == nil || d < best!.1 { best = (name, d) }
    }
    return best?.0
}

/// Levenshtein distance between two strings, in characters.
func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a)
    let b = Array(b)
    if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
    var row = Array(0...b.count)
    for i in 1...a.count {
        var previous = row[0]
        row[0] = i
        for j in 1...b.count {
            let current = row[j]
            row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
            previous = current
        }
    }
    return row[b.count]
}

extension Substring {
    func trimmingCharacters(in set: Character) -> Substring {
        var s = self
        while s.first == set { s = s.dropFirst() }
        while s.last == set { s = s.dropLast() }
        return s
    }
}

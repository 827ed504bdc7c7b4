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
            if name == "all" { out.formUnion(available); continue }
            if name == "codes" { out.formUnion(available.filter(\.isMachineReadableCode)); continue }
            guard let t = allCases.first(where: { $0.rawValue.lowercased() == name }) else {
                throw ScanError.invalidArgument(
                    "unknown metadata object type '\(raw)'; available: \(available.sorted().map(\.rawValue).joined(separator: ","))")
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

extension Substring {
    func trimmingCharacters(in set: Character) -> Substring {
        var s = self
        while s.first == set { s = s.dropFirst() }
        while s.last == set { s = s.dropLast() }
        return s
    }
}

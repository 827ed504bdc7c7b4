public import ScanCore
internal import CScanZBar

/// Reads machine-readable codes with zbar (`AVCaptureMetadataOutput` for codes).
///
/// Owns one zbar image scanner and one zbar image header; frame bytes are lent to zbar only for the
/// duration of a scan. Not thread-safe: use one detector per thread.
public final class BarcodeDetector: MetadataDetector {
    /// Code types zbar can read (`availableMetadataObjectTypes` for this engine).
    public static let zbarTypes: Set<MetadataObjectType> = [
        .qr, .ean13, .ean8, .upce, .code39, .code93, .code128, .interleaved2of5, .itf14, .codabar,
        .gs1DataBar, .gs1DataBarExpanded,
    ]

    public var availableTypes: Set<MetadataObjectType> { Self.zbarTypes }
    public let configuration: BarcodeConfiguration
    /// The enabled types this detector will report.
    public let enabledTypes: Set<MetadataObjectType>

    private let scanner: OpaquePointer
    private let image: OpaquePointer

    /// Creates a detector for `configuration.types ∩ zbarTypes`.
    public init(configuration: BarcodeConfiguration = BarcodeConfiguration()) {
        self.configuration = configuration
        enabledTypes = configuration.types.intersection(Self.zbarTypes)
        scanner = zbar_image_scanner_create()
        image = zbar_image_create()
        zbar_image_set_format(image, Self.fourcc("Y800"))
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_ENABLE, 0)
        for symbology in Self.zbarSymbologies(for: enabledTypes) {
            zbar_image_scanner_set_config(scanner, symbology, ZBAR_CFG_ENABLE, 1)
        }
        // Raw QR bytes: zbar otherwise guesses Shift-JIS/Latin-1 and mangles UTF-8. We decode ourselves.
        zbar_image_scanner_set_config(scanner, ZBAR_QRCODE, ZBAR_CFG_BINARY, 1)
        zbar_image_scanner_set_config(scanner, ZBAR_I25, ZBAR_CFG_MIN_LEN, Int32(configuration.minimumI25Length))
        zbar_image_scanner_set_config(scanner, ZBAR_CODABAR, ZBAR_CFG_MIN_LEN, 4)
        let density = Int32(max(1, configuration.scanDensity))
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_X_DENSITY, density)
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_Y_DENSITY, density)
    }

    deinit {
        zbar_image_destroy(image)
        zbar_image_scanner_destroy(scanner)
    }

    /// Finds codes in `frame` within `rectOfInterest` (normalized device coordinates). Geometry in the
    /// results is relative to the whole frame. Tries the inverted picture when nothing decodes and
    /// `tryInverted` is set.
    public func detect(in frame: Frame, rectOfInterest: NormalizedRect = .unit) throws -> [MetadataObject] {
        guard !enabledTypes.isEmpty else { return [] }
        let roi = rectOfInterest.intersection(.unit)
        let pixelRect = PixelRect(covering: roi, in: frame.size)
        guard pixelRect.width > 0, pixelRect.height > 0 else { return [] }
        let plane = frame.luma.cropped(to: pixelRect)
        var found = scan(plane, origin: pixelRect, frameSize: frame.size)
        if found.isEmpty && configuration.tryInverted {
            found = scan(plane.inverted(), origin: pixelRect, frameSize: frame.size)
        }
        return found
    }

    /// One zbar pass over a packed plane whose top-left sits at `origin` in a frame of `frameSize`.
    func scan(_ plane: LumaPlane, origin: PixelRect, frameSize: PixelSize) -> [MetadataObject] {
        precondition(plane.stride == plane.width)
        var results: [MetadataObject] = []
        plane.bytes.withUnsafeBufferPointer { buffer in
            zbar_image_set_size(image, UInt32(plane.width), UInt32(plane.height))
            zbar_image_set_data(image, buffer.baseAddress, UInt(buffer.count), nil)
            defer { zbar_image_set_data(image, nil, 0, nil) }
            guard zbar_scan_image(scanner, image) > 0 else { return }
            var symbol = zbar_image_first_symbol(image)
            while let s = symbol {
                if let object = makeObject(s, origin: origin, frameSize: frameSize) { results.append(object) }
                symbol = zbar_symbol_next(s)
            }
        }
        return Self.suppressFragments(results)
    }

    private func makeObject(_ s: OpaquePointer, origin: PixelRect, frameSize: PixelSize) -> MetadataObject? {
        let length = Int(zbar_symbol_get_data_length(s))
        guard let raw = zbar_symbol_get_data(s) else { return nil }
        let bytes = raw.withMemoryRebound(to: UInt8.self, capacity: length) { Array(UnsafeBufferPointer(start: $0, count: length)) }
        guard let type = Self.metadataType(zbar_symbol_get_type(s), bytes: bytes, enabled: enabledTypes) else { return nil }

        let count = Int(zbar_symbol_get_loc_size(s))
        var points: [(Double, Double)] = []
        for i in 0..<count {
            points.append((Double(zbar_symbol_get_loc_x(s, UInt32(i))) + Double(origin.x),
                           Double(zbar_symbol_get_loc_y(s, UInt32(i))) + Double(origin.y)))
        }
        let W = Double(frameSize.width), H = Double(frameSize.height)
        let orientation = zbar_symbol_get_orientation(s)
        var corners: [NormalizedPoint]
        if type.isLinear || count != 4 {
            // 1-D: the box spanned by the scan-line crossings, at least one pixel thick.
            let xs = points.map(\.0), ys = points.map(\.1)
            let x0 = xs.min() ?? 0, x1 = (xs.max() ?? 0) + 1, y0 = ys.min() ?? 0, y1 = (ys.max() ?? 0) + 1
            let box = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)] // TL TR BR BL as displayed
            let shift: Int
            switch orientation {
            case ZBAR_ORIENT_RIGHT: shift = 1
            case ZBAR_ORIENT_DOWN: shift = 2
            case ZBAR_ORIENT_LEFT: shift = 3
            default: shift = 0
            }
            corners = (0..<4).map { i in let p = box[(i + shift) % 4]; return NormalizedPoint(x: p.0 / W, y: p.1 / H) }
        } else {
            // zbar's QR polygon runs top-left, bottom-left, bottom-right, top-right of the symbol.
            // Report it as the symbol's top-left, top-right, bottom-right, bottom-left.
            let order = [0, 3, 2, 1]
            corners = order.map { NormalizedPoint(x: points[$0].0 / W, y: points[$0].1 / H) }
        }
        return MetadataObject(type: type, bounds: NormalizedRect(boundingPoints: corners), corners: corners,
                              stringValue: TextDecoding.decode(bytes, type: type), payload: bytes,
                              quality: Int(zbar_symbol_get_quality(s)))
    }

    // MARK: type mapping

    static func zbarSymbologies(for types: Set<MetadataObjectType>) -> [zbar_symbol_type_t] {
        var out: [zbar_symbol_type_t] = []
        for t in types {
            switch t {
            case .qr: out.append(ZBAR_QRCODE)
            case .ean13: out.append(ZBAR_EAN13) // UPC-A arrives as EAN-13 with a leading 0, as in AVFoundation.
            case .ean8: out.append(ZBAR_EAN8)
            case .upce: out.append(ZBAR_UPCE)
            case .code39: out.append(ZBAR_CODE39)
            case .code93: out.append(ZBAR_CODE93)
            case .code128: out.append(ZBAR_CODE128)
            case .interleaved2of5, .itf14: out.append(ZBAR_I25)
            case .codabar: out.append(ZBAR_CODABAR)
            case .gs1DataBar: out.append(ZBAR_DATABAR)
            case .gs1DataBarExpanded: out.append(ZBAR_DATABAR_EXP)
            default: break
            }
        }
        return out
    }

    static func metadataType(_ t: zbar_symbol_type_t, bytes: [UInt8], enabled: Set<MetadataObjectType>) -> MetadataObjectType? {
        let type: MetadataObjectType
        switch t {
        case ZBAR_QRCODE: type = .qr
        case ZBAR_EAN13, ZBAR_UPCA, ZBAR_ISBN13: type = .ean13
        case ZBAR_EAN8: type = .ean8
        case ZBAR_UPCE: type = .upce
        case ZBAR_CODE39: type = .code39
        case ZBAR_CODE93: type = .code93
        case ZBAR_CODE128: type = .code128
        case ZBAR_I25:
            // ITF-14 is I2/5 with 14 digits and a valid GS1 check digit.
            if bytes.count == 14, enabled.contains(.itf14), GS1.hasValidCheckDigit(bytes) { type = .itf14 }
            else { type = .interleaved2of5 }
        case ZBAR_CODABAR: type = .codabar
        case ZBAR_DATABAR: type = .gs1DataBar
        case ZBAR_DATABAR_EXP: type = .gs1DataBarExpanded
        default: return nil
        }
        return enabled.contains(type) ? type : nil
    }

    /// Interleaved 2 of 5 fragments: a short I2/5 read that overlaps a longer one, or whose digits are
    /// part of a longer read in the same frame, is a partial decode of that longer code.
    static func suppressFragments(_ objects: [MetadataObject]) -> [MetadataObject] {
        let i25 = objects.filter { $0.type == .interleaved2of5 || $0.type == .itf14 }
        guard i25.count > 1 else { return objects }
        return objects.filter { o in
            guard o.type == .interleaved2of5 || o.type == .itf14, let p = o.payload else { return true }
            return !i25.contains { other in
                guard let q = other.payload, q.count > p.count else { return false }
                let contained = String(decoding: q, as: UTF8.self).contains(String(decoding: p, as: UTF8.self))
                return contained || other.bounds.intersection(o.bounds).area > 0.5 * o.bounds.area
            }
        }
    }

    static func fourcc(_ s: String) -> UInt {
        let b = Array(s.utf8)
        return UInt(b[0]) | UInt(b[1]) << 8 | UInt(b[2]) << 16 | UInt(b[3]) << 24
    }
}

/// GS1 check digits (EAN/UPC/ITF-14 mod-10).
enum GS1 {
    static func hasValidCheckDigit(_ digits: [UInt8]) -> Bool {
        guard digits.count >= 2, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return false }
        let values = digits.map { Int($0 - 0x30) }
        var sum = 0
        for (i, v) in values.dropLast().reversed().enumerated() { sum += v * (i % 2 == 0 ? 3 : 1) }
        return (10 - sum % 10) % 10 == values.last!
    }
}

/// Turns payload bytes into text without guessing: UTF-8 when valid; otherwise, for QR (whose default
/// character set is ISO-8859-1) and other codes, Latin-1 when every byte is printable; nil for binary data.
public enum TextDecoding {
    public static func decode(_ bytes: [UInt8], type: MetadataObjectType) -> String? {
        if let s = String(validating: bytes, as: UTF8.self) { return s }
        let printableLatin1 = bytes.allSatisfy { b in (b >= 0x20 && b < 0x7F) || b >= 0xA0 || b == 0x09 || b == 0x0A || b == 0x0D }
        guard printableLatin1 else { return nil }
        return String(decoding: bytes.map { UInt16($0) }, as: UTF16.self)
    }
}

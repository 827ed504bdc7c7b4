internal import CScanZBar
import ScanCore

/// One symbol as zbar read it, in the pixels of the image it scanned (the reader maps it to the frame).
struct ZBarSymbol {
    var type: MetadataObjectType
    /// The payload as zbar gives it (QR: raw bytes, `ZBAR_CFG_BINARY`).
    var bytes: [UInt8]
    /// zbar's location points, image pixels: the scan-line crossings of a 1-D symbol, the polygon of a QR code.
    var points: [(Double, Double)]
    /// The symbol's corners, image pixels, top-left, top-right, bottom-right, bottom-left as displayed: a 1-D
    /// symbol's box spanned by its scan-line crossings (at least one pixel thick), turned by zbar's orientation;
    /// a QR code's polygon reordered from zbar's top-left, bottom-left, bottom-right, top-right.
    var corners: [(Double, Double)]
    /// zbar's `zbar_orientation_t` (`RetailQuietZone.direction(zbarOrientation:)` reads it).
    var orientation: Int
    /// zbar's quality (scan lines that read a 1-D symbol; 1 for QR).
    var quality: Int
    /// zbar saw the GS1 (FNC1) modifier.
    var isGS1: Bool
    /// zbar's own symbology (`zbar_symbol_type_t`), which with ``bytes`` is what zbar matches a symbol by.
    var zbarType: UInt32
    /// A QR structured-append sequence zbar read whole and joined (its parts are the symbol's components):
    /// the number of parts; nil otherwise.
    var sequenceSize: Int? = nil

    /// A symbol's corners (see ``corners``) from zbar's points and orientation.
    static func corners(type: MetadataObjectType, points: [(Double, Double)], orientation: zbar_orientation_t)
        -> [(Double, Double)]
    {
        guard type.isLinear || points.count != 4 else { return [0, 3, 2, 1].map { points[$0] } }
        let xs = points.map(\.0)
        let ys = points.map(\.1)
        let x0 = xs.min() ?? 0
        let x1 = (xs.max() ?? 0) + 1
        let y0 = ys.min() ?? 0
        let y1 = (ys.max() ?? 0) + 1
        let box = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]  // TL TR BR BL as displayed
        let shift: Int
        switch orientation {
        case ZBAR_ORIENT_RIGHT: shift = 1
        case ZBAR_ORIENT_DOWN: shift = 2
        case ZBAR_ORIENT_LEFT: shift = 3
        default: shift = 0
        }
        return (0..<4).map { i in box[(i + shift) % 4] }
    }
}

/// The zbar reader beside the zxing reader (``ZXingReader``): one scan of one image, with the symbologies and
/// limits of a ``BarcodeConfiguration``. The code reader (``BarcodeDetector``) decides which images to scan and
/// what a symbol becomes; this type is the only one in the reader that calls zbar.
///
/// Every scan makes a fresh zbar image scanner and image header and destroys them before it returns (one owner
/// per C handle; the image's bytes are lent to zbar only inside the scan). A scanner kept from image to image
/// joined EAN halves across images (zbar 0.23 keeps `ean->left`/`ean->right` across `zbar_scan_image`): on
/// never-seen held-out shelf 7911 as streams, the EAN-13 `9155179` + `531037`, the left half of the last code
/// read six clips earlier and the right half of the code in view, whose joint check digit happened to hold.
/// (A fresh scanner also ends zbar's growth through QR symbols it never reuses, mchehab/zbar#258.) Making,
/// configuring and destroying one costs about 6 µs on this machine.
struct ZBarReader {
    /// What one scan read, and what zbar could not do (allocate, scan), which must not pass for "no code here".
    typealias Scan = (symbols: [ZBarSymbol], failure: String?)

    /// The types zbar looks for (the enabled ones it can read).
    let types: Set<MetadataObjectType>
    private let uncertainty: Int?
    private let minimumI25Length: Int
    private let minimumCodabarLength: Int

    init(types: Set<MetadataObjectType>, configuration: BarcodeConfiguration) {
        self.types = types
        uncertainty = configuration.zbarUncertainty
        minimumI25Length = configuration.minimumI25Length
        minimumCodabarLength = configuration.minimumCodabarLength
    }

    /// The symbols zbar reads on `plane` (stride equal to width) on every `density`th line and column;
    /// `qrOnly` looks for QR codes only. `failure` says what zbar could not do (allocate, scan): the scan then
    /// found nothing, which must not pass for "no code here".
    func scan(_ plane: LumaPlane, density: Int, qrOnly: Bool) -> Scan {
        scan(plane, density: density, qrOnly: qrOnly, lines: .rowsAndColumns)
    }

    /// The lines of an image one scan reads.
    enum Lines {
        /// Every `density`th row, then every `density`th column (zbar's own order).
        case rowsAndColumns
        /// Every `density`th row only.
        case rows
        /// Every `density`th column only.
        case columns
    }

    /// The symbols of a scan of the rows and of one of the columns of the same image, as one scan of both gives
    /// them (zbar 0.23, `img_scanner.c`): a symbol the columns read again (same zbar type and bytes) is the
    /// rows' symbol with the columns' lines added to its quality and their points after its own; the symbols only
    /// the columns read come first, in their own order (zbar puts each new symbol at the head of the list).
    /// Differs from one scan only where zbar's per-scan rules see the count of one direction: a Codabar read on
    /// fewer than 4 lines in each direction but 4 or more in all is dropped by both scans (zbar's Codabar
    /// filter), and EAN halves or DataBar segments read in different directions are not joined.
    static func merged(rows: [ZBarSymbol], columns: [ZBarSymbol]) -> [ZBarSymbol] {
        var out = rows
        var fresh: [ZBarSymbol] = []
        for c in columns {
            // Several symbols with one payload (``instances(of:in:density:lines:)``): the one the columns' read
            // lies on, or none (a symbol of its own).
            let same = out.indices.filter { out[$0].zbarType == c.zbarType && out[$0].bytes == c.bytes }
            let at = same.count > 1 ? same.first { ZBarSymbol.boxesTouch(out[$0].corners, c.corners) } : same.first
            guard let i = at else {
                fresh.append(c)
                continue
            }
            out[i].quality += c.quality
            out[i].points += c.points
            out[i].corners = ZBarSymbol.corners(
                type: out[i].type, points: out[i].points,
                orientation: zbar_orientation_t(rawValue: Int32(out[i].orientation)))
        }
        return fresh + out
    }

    /// ``scan(_:density:qrOnly:)`` of `lines`. A scan of the rows or of the columns alone does not look for QR
    /// codes unless `qrOnly` (zbar's QR reader needs the finder lines of both directions in one scanner); the two
    /// can run at the same time and be merged (``merged(rows:columns:)``).
    func scan(_ plane: LumaPlane, density: Int, qrOnly: Bool, lines: Lines) -> Scan {
        let scan = zbarScan(plane, density: density, qrOnly: qrOnly, lines: lines)
        guard scan.symbols.contains(where: \.type.isLinear) else { return scan }
        guard lines == .rowsAndColumns else {
            return (scan.symbols.flatMap { instances(of: $0, in: plane, density: density, lines: lines) }, scan.failure)
        }
        // A symbol of a scan of both directions holds the reads of the rows and of the columns, which
        // ``instances(of:in:density:lines:)`` cannot tell apart (a tilted symbol is read both ways). Where it
        // finds other than that one symbol, the rows and the columns are scanned apart, their symbols with this
        // payload told apart each, and merged as one scan merges them; when neither direction's symbols were
        // parted, the sign was the mix of directions, and the symbol stays as zbar gave it.
        var apart: (rows: [ZBarSymbol], columns: [ZBarSymbol])?
        var out: [ZBarSymbol] = []
        for s in scan.symbols {
            guard s.type.isLinear else {
                out.append(s)
                continue
            }
            let parted = instances(of: s, in: plane, density: density, lines: .rowsAndColumns)
            if Self.unparted(parted, s) {
                out.append(s)
                continue
            }
            if apart == nil {
                apart = (
                    zbarScan(plane, density: density, qrOnly: false, lines: .rows).symbols,
                    zbarScan(plane, density: density, qrOnly: false, lines: .columns).symbols
                )
            }
            var changed = false
            func alike(_ list: [ZBarSymbol], _ direction: Lines) -> [ZBarSymbol] {
                list.filter { $0.zbarType == s.zbarType && $0.bytes == s.bytes }.flatMap { one -> [ZBarSymbol] in
                    let parted = instances(of: one, in: plane, density: density, lines: direction)
                    if !Self.unparted(parted, one) { changed = true }
                    return parted
                }
            }
            let merged = Self.merged(rows: alike(apart!.rows, .rows), columns: alike(apart!.columns, .columns))
            out += changed ? merged : [s]
        }
        return (out, scan.failure)
    }

    /// Whether ``instances(of:in:density:lines:)`` gave `s` back as it was (one symbol, its reads all there).
    private static func unparted(_ parted: [ZBarSymbol], _ s: ZBarSymbol) -> Bool {
        parted.count == 1 && parted[0].points.count == s.points.count && parted[0].quality == s.quality
    }

    /// One zbar scan of `lines` of `plane`, its symbols as zbar gives them: a 1-D payload read by several symbols
    /// in the image is one symbol there (``instances(of:in:density:lines:)`` tells them apart).
    func zbarScan(_ plane: LumaPlane, density: Int, qrOnly: Bool, lines: Lines) -> Scan {
        let rows = lines == .columns ? 0 : density
        let columns = lines == .rows ? 0 : density
        guard
            let scanner = qrOnly
                ? Self.makeQRScanner(rows: rows, columns: columns)
                : makeScanner(rows: rows, columns: columns, qr: lines == .rowsAndColumns)
        else {
            return ([], "cannot allocate an image scanner (out of memory)")
        }
        defer { zbar_image_scanner_destroy(scanner) }
        // Destroyed before the scanner (the defers run in reverse): it holds the scanner's symbol set.
        guard let image = Self.makeImage() else { return ([], "cannot allocate an image (out of memory)") }
        defer { zbar_image_destroy(image) }
        precondition(plane.stride == plane.width)
        var symbols: [ZBarSymbol] = []
        var failure: String?
        plane.bytes.withUnsafeBufferPointer { buffer in
            zbar_image_set_size(image, UInt32(plane.width), UInt32(plane.height))
            zbar_image_set_data(image, buffer.baseAddress, UInt(buffer.count), nil)
            defer { zbar_image_set_data(image, nil, 0, nil) }
            let found = FaultInjection.zbarScanFails() ? -1 : zbar_scan_image(scanner, image)
            if found < 0 { failure = "zbar_scan_image failed (out of memory)" }
            guard found > 0 else { return }
            var symbol = zbar_image_first_symbol(image)
            while let s = symbol {
                if let read = self.symbol(s) { symbols.append(read) }
                symbol = zbar_symbol_next(s)
            }
        }
        return (symbols, failure)
    }

    /// `s`, copied out of zbar; nil when its type is not one of ``types``.
    private func symbol(_ s: OpaquePointer) -> ZBarSymbol? {
        let length = Int(zbar_symbol_get_data_length(s))
        guard let raw = zbar_symbol_get_data(s) else { return nil }
        let bytes = raw.withMemoryRebound(to: UInt8.self, capacity: length) {
            Array(UnsafeBufferPointer(start: $0, count: length))
        }
        guard let type = Symbologies.type(zbar: zbar_symbol_get_type(s), bytes: bytes, enabled: types) else {
            return nil
        }
        let count = Int(zbar_symbol_get_loc_size(s))
        var points: [(Double, Double)] = []
        for i in 0..<count {
            points.append((Double(zbar_symbol_get_loc_x(s, UInt32(i))), Double(zbar_symbol_get_loc_y(s, UInt32(i)))))
        }
        let orientation = zbar_symbol_get_orientation(s)
        // zbar joins the parts of a QR structured-append sequence it reads whole; they are the components (counted
        // one by one: zbar 0.23 leaves the set's own count at 0 there).
        var parts = 0
        var component = zbar_symbol_get_components(s).flatMap { zbar_symbol_set_first_symbol($0) }
        while let c = component {
            parts += 1
            component = zbar_symbol_next(c)
        }
        return ZBarSymbol(
            type: type, bytes: bytes, points: points,
            corners: ZBarSymbol.corners(type: type, points: points, orientation: orientation),
            orientation: Int(orientation.rawValue), quality: Int(zbar_symbol_get_quality(s)),
            isGS1: zbar_symbol_get_modifiers(s) & (1 << ZBAR_MOD_GS1.rawValue) != 0,
            zbarType: zbar_symbol_get_type(s).rawValue, sequenceSize: parts > 1 ? parts : nil)
    }

    /// A zbar scanner reading QR only (raw bytes), on every `density`th line.
    private static func makeQRScanner(rows: Int, columns: Int) -> OpaquePointer? {
        guard let q = zbar_image_scanner_create() else { return nil }
        zbar_image_scanner_set_config(q, ZBAR_NONE, ZBAR_CFG_ENABLE, 0)
        zbar_image_scanner_set_config(q, ZBAR_QRCODE, ZBAR_CFG_ENABLE, 1)
        zbar_image_scanner_set_config(q, ZBAR_QRCODE, ZBAR_CFG_BINARY, 1)
        setDensity(q, rows: rows, columns: columns)
        return q
    }

    /// Makes `scanner` read every `rows`th pixel row and every `columns`th column (0: none).
    private static func setDensity(_ scanner: OpaquePointer, rows: Int, columns: Int) {
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_X_DENSITY, Int32(columns))
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_Y_DENSITY, Int32(rows))
    }

    /// A zbar image scanner for ``types`` with this reader's limits.
    /// `qr`: QR codes too, when ``types`` has them.
    private func makeScanner(rows: Int, columns: Int, qr: Bool) -> OpaquePointer? {
        guard let scanner = zbar_image_scanner_create() else { return nil }
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_ENABLE, 0)
        for symbology in Symbologies.zbarSymbologies(for: types) where qr || symbology != ZBAR_QRCODE {
            zbar_image_scanner_set_config(scanner, symbology, ZBAR_CFG_ENABLE, 1)
            if let u = uncertainty, symbology != ZBAR_QRCODE {
                zbar_image_scanner_set_config(scanner, symbology, ZBAR_CFG_UNCERTAINTY, Int32(max(0, u)))
            }
        }
        // Raw QR bytes: zbar otherwise guesses Shift-JIS/Latin-1 and mangles UTF-8. We decode ourselves.
        zbar_image_scanner_set_config(scanner, ZBAR_QRCODE, ZBAR_CFG_BINARY, 1)
        zbar_image_scanner_set_config(scanner, ZBAR_I25, ZBAR_CFG_MIN_LEN, Int32(minimumI25Length))
        // zbar's Codabar length excludes the start/stop characters.
        zbar_image_scanner_set_config(scanner, ZBAR_CODABAR, ZBAR_CFG_MIN_LEN, Int32(max(1, minimumCodabarLength - 2)))
        Self.setDensity(scanner, rows: rows, columns: columns)
        return scanner
    }

    private static func makeImage() -> OpaquePointer? {
        guard let image = zbar_image_create() else { return nil }
        zbar_image_set_format(image, y800)
        return image
    }

    /// zbar's name for an 8-bit grey image, the fourcc `Y800`.
    static let y800: UInt = fourcc("Y800")

    private static func fourcc(_ s: String) -> UInt {
        let b = Array(s.utf8)
        return UInt(b[0]) | UInt(b[1]) << 8 | UInt(b[2]) << 16 | UInt(b[3]) << 24
    }
}

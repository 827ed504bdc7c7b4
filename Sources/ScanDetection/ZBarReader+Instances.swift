internal import CScanZBar
import ScanCore

/// zbar reports a 1-D payload once per image however many symbols carry it: its image scanner adds each new
/// read of a type and payload it already has to that symbol (`img_scanner.c`, `symbol_handler`: quality plus
/// one, the point appended). Two identical EAN-13 labels side by side came out as one symbol whose box spans
/// both, so a parcel line could not count them and every consumer saw one object where the camera showed two.
/// This tells the symbols apart again.
extension ZBarReader {
    /// The reads of one scan line a single 1-D symbol of `type` can give: an EAN/UPC or DataBar symbol is read in
    /// halves, and zbar reports it when each half completes it (the other half kept from the line before), so two
    /// a line; any other symbology once, where the line leaves it.
    static func readsPerLine(_ type: MetadataObjectType) -> Int {
        switch type {
        case .ean13, .ean8, .gs1DataBar, .gs1DataBarExpanded: return 2
        default: return 1
        }
    }

    /// EAN-13 (UPC-A) and EAN-8: zbar reads each half on its own and joins it to the last other half it read
    /// with the same parity pattern, on this line or the one before.
    static func isReadInHalves(_ type: MetadataObjectType) -> Bool { type == .ean13 || type == .ean8 }

    /// Lines with reads of the same payload at least this many pixels apart across the lines (a multiple of
    /// the scan density as well), with no read between, may be two symbols one above the other
    /// (``instances(of:in:density:lines:)``).
    static let stackedGap = 12

    /// The symbols `s` stands for: `s` itself, or, when its reads show more than one symbol, each symbol read
    /// again on its own, with its own points, corners and quality. Two signs, each confirmed by reading again
    /// before a symbol is split:
    /// - **side by side**: a scan line read the payload more often than one symbol can be read on a line
    ///   (``readsPerLine(_:)``). The reads along the lines are grouped (a read is where a line left a symbol or
    ///   one of its halves), cuts are placed between the groups, and from the start of the lines the shortest
    ///   stretch that zbar reads the payload in on its own is one symbol; the next stretch starts at its cut.
    /// - **one above the other**: the lines that read it have a gap of at least ``stackedGap`` pixels (and 3
    ///   lines) with no read, as wide as a quarter of the symbol's length at least (the reads' stretch along the
    ///   lines on either side). Each side must read the
    ///   payload alone, and every line of the gap, read at full density, must not (a symbol that goes on through
    ///   the gap, too blurred or soiled to read there, stays one).
    /// A split that finds fewer than two symbols leaves `s` as zbar gave it. Costs nothing unless a sign shows;
    /// then a few zbar scans of the symbol's band.
    func instances(of s: ZBarSymbol, in plane: LumaPlane, density: Int, lines: Lines) -> [ZBarSymbol] {
        guard s.type.isLinear, s.points.count >= 2 else { return [s] }
        // Rows read a symbol whose bars stand up or hang down; columns one turned a quarter.
        let byRows: Bool
        switch lines {
        case .rows: byRows = true
        case .columns: byRows = false
        case .rowsAndColumns:
            byRows =
                !(s.orientation == Int(ZBAR_ORIENT_RIGHT.rawValue) || s.orientation == Int(ZBAR_ORIENT_LEFT.rawValue))
        }
        let geometry = LineGeometry(byRows: byRows, plane: plane)
        guard !isOneSymbol(s, geometry: geometry) else {
            return stacked(s, geometry: geometry, plane: plane, density: density)
        }
        let split = sideBySide(s, geometry: geometry, plane: plane, density: density)
        if !split.isEmpty { return split.flatMap { stacked($0, geometry: geometry, plane: plane, density: density) } }
        // No stretch of the lines reads as one symbol. Halves that do not meet are halves of two symbols: the
        // payload is not any one symbol's (the same digits only when the two are alike), and is dropped. Any
        // other symbology stays as zbar read it.
        return Self.isReadInHalves(s.type) ? [] : [s]
    }

    /// A plane's pixels as along a scan line and across the lines.
    struct LineGeometry {
        var byRows: Bool
        /// Pixels along a line, and lines.
        var length: Int, count: Int

        init(byRows: Bool, plane: LumaPlane) {
            self.byRows = byRows
            length = byRows ? plane.width : plane.height
            count = byRows ? plane.height : plane.width
        }

        func along(_ p: (Double, Double)) -> Int { Int(byRows ? p.0 : p.1) }
        func across(_ p: (Double, Double)) -> Int { Int(byRows ? p.1 : p.0) }

        /// The lines from the least of `values` to the greatest, `margin` more on each side, within the plane.
        func band(_ values: [Int], margin: Int) -> Range<Int> {
            max(0, values.min()! - margin)..<min(count, values.max()! + margin + 1)
        }

        /// The pixels along a line from the least of `values` to the greatest, `margin` more on each side.
        func stretch(_ values: [Int], margin: Int) -> Range<Int> {
            max(0, values.min()! - margin)..<min(length, values.max()! + margin + 1)
        }

        /// The pixel rectangle of `along` × `across` (half-open ranges).
        func rect(along: Range<Int>, across: Range<Int>) -> PixelRect {
            byRows
                ? PixelRect(x: along.lowerBound, y: across.lowerBound, width: along.count, height: across.count)
                : PixelRect(x: across.lowerBound, y: along.lowerBound, width: across.count, height: along.count)
        }
    }

    /// The symbols with `s`'s payload that zbar reads on `rect` of `plane` alone (at `density`, the lines of
    /// `geometry` only), their points in `plane`'s pixels.
    private func reads(
        of s: ZBarSymbol, in rect: PixelRect, plane: LumaPlane, density: Int, geometry: LineGeometry
    ) -> [ZBarSymbol] {
        guard rect.width > 0, rect.height > 0 else { return [] }
        let crop = plane.cropped(to: rect)
        let found = zbarScan(crop, density: density, qrOnly: false, lines: geometry.byRows ? .rows : .columns)
        let dx = Double(rect.x)
        let dy = Double(rect.y)
        return found.symbols.filter { $0.zbarType == s.zbarType && $0.bytes == s.bytes }.map { r in
            var r = r
            r.points = r.points.map { ($0.0 + dx, $0.1 + dy) }
            r.corners = r.corners.map { ($0.0 + dx, $0.1 + dy) }
            return r
        }
    }

    /// The side-by-side split of ``instances(of:in:density:lines:)``: `[s]` when it finds fewer than two.
    private func sideBySide(_ s: ZBarSymbol, geometry: LineGeometry, plane: LumaPlane, density: Int) -> [ZBarSymbol] {
        let band = geometry.band(s.points.map(geometry.across), margin: 2 * density)
        let alongs = Array(Set(s.points.map(geometry.along))).sorted()
        // Groups of reads along the lines (a tilted symbol's ends drift a pixel or so a line), cut between; the
        // stretches run from one bound to a later one.
        var bounds = [0]
        for (a, b) in zip(alongs, alongs.dropFirst()) where b - a > 3 { bounds.append((a + b + 1) / 2) }
        bounds.append(geometry.length)
        var found: [ZBarSymbol] = []
        var start = 0
        var end = 1
        while end < bounds.count {
            let rect = geometry.rect(along: bounds[start]..<bounds[end], across: band)
            guard let one = reads(of: s, in: rect, plane: plane, density: density, geometry: geometry).first else {
                end += 1
                continue
            }
            if isOneSymbol(one, geometry: geometry, strict: true) {
                found.append(one)
                start = end
                end += 1
            } else {
                // What it read holds a part of a symbol at its start (half a label at the edge of the view,
                // joined to the half of the next): the stretch starts a group later.
                start += 1
                if start == end { end += 1 }
            }
        }
        return found
    }

    /// Whether `s`, a read of a scan of rows only (`byRows`) or columns only, shows both halves of an EAN/UPC
    /// symbol read, or only one. zbar reports such a symbol each time a half completes it, joined to the other
    /// half it read last (on this line or one before), where the line leaves that half, and it scans lines
    /// going each way in turn. When both halves are read, its reports lie at both ends of the symbol and at the
    /// centre guard; when one half is read again and again and joined to another half read once (a blurred
    /// left half misread on one line: "1713031134352" for 9506000134352, 14 reports), they lie at the centre
    /// and at that half's end only, and the payload rests on that one read of the other half. True when reports
    /// lie near both extremes of the reports' stretch and near its middle (within a sixth of it), and for any
    /// other symbology.
    static func bothHalvesRead(_ s: ZBarSymbol, byRows: Bool) -> Bool {
        guard Self.isReadInHalves(s.type), !s.points.isEmpty else { return true }
        let alongs = s.points.map { byRows ? $0.0 : $0.1 }
        let lo = alongs.min()!
        let hi = alongs.max()!
        let near = (hi - lo) / 6
        return [lo, (lo + hi) / 2, hi].allSatisfy { mark in alongs.contains { abs($0 - mark) <= near } }
    }

    /// Whether two EAN-13/UPC-A (or two EAN-8) payloads share one half and differ in the other: the digits each
    /// half encodes (EAN-13: the first digit, by its left half's parity pattern, and the next six; then the last
    /// six. EAN-8: four and four).
    static func sharesOneHalf(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count, a.count == 13 || a.count == 8 else { return false }
        let split = a.count == 13 ? 7 : 4
        let left = a[..<split] == b[..<split]
        let right = a[split...] == b[split...]
        return left != right
    }

    /// Whether a read of a stretch is one symbol: no line read it more often than one symbol can be read
    /// (``readsPerLine(_:)``), and, for a symbol read in halves, the halves meet. A line that reads both halves
    /// of an EAN/UPC symbol finishes the first half where the second begins: the left half at the centre guard
    /// going right, the right half at the centre guard going left, so the centre read going right lies at or
    /// right of the one going left (a few pixels, the guard's width). zbar joins the halves of two symbols of one
    /// payload too (half a label at the edge of the view and half of the next): then the first half ends where
    /// the first symbol ends and the second begins where the next one begins, the quiet zones between, and the
    /// centre read going right lies left of the one going left by their width.
    /// `strict`: a symbol read in halves must show lines that read both halves going each way (else it is not
    /// known to be one symbol); otherwise such a read passes.
    private func isOneSymbol(_ r: ZBarSymbol, geometry: LineGeometry, strict: Bool = false) -> Bool {
        var lines: [Int: [Int]] = [:]  // the reads of each line along it, in zbar's order (the line's direction)
        for p in r.points { lines[geometry.across(p), default: []].append(geometry.along(p)) }
        if lines.values.contains(where: { $0.count > Self.readsPerLine(r.type) }) { return false }
        guard Self.isReadInHalves(r.type) else { return true }
        let forward = lines.values.filter { $0.count == 2 && $0[0] < $0[1] }.map { $0[0] }.sorted()
        let backward = lines.values.filter { $0.count == 2 && $0[0] > $0[1] }.map { $0[0] }.sorted()
        guard !forward.isEmpty, !backward.isEmpty else { return !strict }
        let alongs = r.points.map(geometry.along)
        let slack = (alongs.max()! - alongs.min()!) / 20
        return forward[forward.count / 2] >= backward[backward.count / 2] - slack
    }

    /// The split one above the other of ``instances(of:in:density:lines:)``: `[s]` when there is none.
    private func stacked(_ s: ZBarSymbol, geometry: LineGeometry, plane: LumaPlane, density: Int) -> [ZBarSymbol] {
        let lines = Array(Set(s.points.map(geometry.across))).sorted()
        /// The reads along the lines of the lines in `range`.
        func alongs(_ range: ClosedRange<Int>) -> [Int] {
            s.points.filter { range.contains(geometry.across($0)) }.map(geometry.along)
        }
        for (a, b) in zip(lines, lines.dropFirst()) where b - a >= max(Self.stackedGap, 3 * density) {
            let above = alongs(lines.first!...a)
            let below = alongs(b...lines.last!)
            let extent = max(above.max()! - above.min()!, below.max()! - below.min()!)
            guard b - a >= extent / 4 else { continue }
            // The symbols' stretch of the lines, with room for their quiet zones.
            let margin = extent / 4 + 8
            // Every line of the gap, at full density: a symbol going on through it is read there.
            let gap = geometry.rect(along: geometry.stretch(above + below, margin: margin), across: (a + 1)..<b)
            if !reads(of: s, in: gap, plane: plane, density: 1, geometry: geometry).isEmpty { continue }
            let cut = (a + b + 1) / 2
            let top = reads(
                of: s,
                in: geometry.rect(
                    along: geometry.stretch(above, margin: margin),
                    across: max(0, lines.first! - 2 * density)..<cut),
                plane: plane, density: density, geometry: geometry)
            let rest = reads(
                of: s,
                in: geometry.rect(
                    along: geometry.stretch(below, margin: margin),
                    across: cut..<min(geometry.count, lines.last! + 2 * density + 1)),
                plane: plane, density: density, geometry: geometry)
            guard let first = top.first, let second = rest.first else { continue }
            // The part past the cut may hold a further gap (three labels in a column).
            return [first] + stacked(second, geometry: geometry, plane: plane, density: density)
        }
        return [s]
    }
}

extension ZBarSymbol {
    /// The upright boxes of two corner lists (image pixels) overlap or touch.
    static func boxesTouch(_ a: [(Double, Double)], _ b: [(Double, Double)]) -> Bool {
        guard !a.isEmpty, !b.isEmpty else { return false }
        let ax = a.map(\.0)
        let ay = a.map(\.1)
        let bx = b.map(\.0)
        let by = b.map(\.1)
        return ax.min()! <= bx.max()! && bx.min()! <= ax.max()! && ay.min()! <= by.max()! && by.min()! <= ay.max()!
    }
}

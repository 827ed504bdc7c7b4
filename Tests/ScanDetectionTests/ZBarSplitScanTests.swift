import Foundation
import Testing
import ScanCapture
import ScanCore
import ScanTestSupport
@testable import ScanDetection

/// The plain pass of large stream frames scans the rows and the columns of the frame at the same time, on two
/// zbar scanners, and merges their symbols (``ZBarReader/merged(rows:columns:)``). The merge must give what one
/// zbar scan of both directions gives: the same symbols, in the same order; for a symbol one direction reads, the
/// same points, quality and orientation; for one both read, the lines of both (one scan also joins, on its
/// columns, EAN halves its rows left behind, and so counts up to a tenth more lines). Fixtures: the still images of Tests/Fixtures/make-fixtures.py and make_reader_fixtures.py (codes
/// of every zbar symbology, shelves of several labels, codes tilted 5°–40°), each as it is and transposed.
@Suite struct ZBarSplitScanTests {
    /// Every PNG of the generated fixture folders whose codes zbar reads as 1-D symbols.
    static let images: [URL] = {
        let folders = ["", "reader", "shelf", "deskew"].map { Fixtures.directory.appendingPathComponent($0) }
        return folders.flatMap { folder in
            ((try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)) ?? [])
                .filter { $0.pathExtension == "png" }.sorted { $0.path < $1.path }
        }
    }()

    /// What the merge must keep of a symbol, as text.
    static func describe(_ s: ZBarSymbol) -> String {
        "\(s.zbarType) \(s.bytes) q\(s.quality) o\(s.orientation) gs1:\(s.isGS1) "
            + "points \(s.points.map { "\($0.0),\($0.1)" }) corners \(s.corners.map { "\($0.0),\($0.1)" })"
    }

    /// A short form of a symbol for failure messages.
    static func brief(_ s: ZBarSymbol) -> String {
        "\(s.zbarType):\(String(decoding: s.bytes, as: UTF8.self)) q\(s.quality) o\(s.orientation) \(s.points.count)pt"
    }

    static func transposed(_ p: LumaPlane) -> LumaPlane {
        var out = [UInt8](repeating: 0, count: p.width * p.height)
        for y in 0..<p.height { for x in 0..<p.width { out[x * p.height + y] = p.bytes[y * p.stride + x] } }
        return LumaPlane(width: p.height, height: p.width, bytes: out)
    }

    /// `p` with its rows repeated to `factor` times its height (a 1-D code with tall bars).
    static func stretched(_ p: LumaPlane, factor: Int) -> LumaPlane {
        var out: [UInt8] = []
        for y in 0..<(p.height * factor) {
            out += p.bytes[(y / factor) * p.stride..<(y / factor) * p.stride + p.width]
        }
        return LumaPlane(width: p.width, height: p.height * factor, bytes: out)
    }

    /// `p` turned by `degrees` about its centre onto a white canvas large enough to hold it (nearest pixel).
    static func turned(_ p: LumaPlane, degrees: Double) -> LumaPlane {
        let a = degrees * .pi / 180
        let (c, s) = (cos(a), sin(a))
        let w = Int((Double(p.width) * abs(c) + Double(p.height) * abs(s)).rounded(.up))
        let h = Int((Double(p.width) * abs(s) + Double(p.height) * abs(c)).rounded(.up))
        var out = [UInt8](repeating: 255, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                let dx = Double(x) - Double(w) / 2, dy = Double(y) - Double(h) / 2
                let sx = Int((c * dx + s * dy + Double(p.width) / 2).rounded(.down))
                let sy = Int((-s * dx + c * dy + Double(p.height) / 2).rounded(.down))
                if sx >= 0, sy >= 0, sx < p.width, sy < p.height { out[y * w + x] = p.bytes[sy * p.stride + sx] }
            }
        }
        return LumaPlane(width: w, height: h, bytes: out)
    }

    /// 1-D codes with tall bars turned near 45°, which both the rows and the columns cross end to end.
    static func diagonalCodes() throws -> [(String, LumaPlane)] {
        var out: [(String, LumaPlane)] = []
        for name in ["sym-01-ean13.png", "sym-02-ean13.png", "i25-long.png", "reader/codabar_short.png"] {
            guard let frame = try? ImageSource(path: Fixtures.path(name)).nextFrame() else { continue }
            for degrees in [35.0, 45.0, 55.0, 135.0, 225.0] {
                out.append(("\(name) tall, turned \(degrees)°", Self.turned(Self.stretched(frame.luma, factor: 4), degrees: degrees)))
            }
        }
        return out
    }

    @Test("rows and columns scanned apart and merged give one scan's symbols in its order, with its points where one direction reads")
    func mergedEqualsOneScan() throws {
        #expect(Self.images.count >= 40, "fixtures missing: run Tests/Fixtures/make-fixtures.py and make_reader_fixtures.py")
        // Every zbar symbology but QR (a split scan reads no QR code).
        let types = BarcodeDetector.zbarTypes.subtracting([.qr])
        let zbar = ZBarReader(types: types, configuration: BarcodeConfiguration())
        var symbols = 0
        var merged = 0
        var planes: [(String, LumaPlane)] = try Self.diagonalCodes()
        for url in Self.images {
            // The hostile fixtures (corrupt.png, not-an-image.png) decode to nothing: not images of codes.
            guard let frame = try? ImageSource(path: url.path).nextFrame() else { continue }
            planes += [(url.lastPathComponent, frame.luma), (url.lastPathComponent + " transposed", Self.transposed(frame.luma))]
        }
        for (name, plane) in planes {
            do {
                for density in [2, 3, 5, 6] {
                    let one = zbar.scan(plane, density: density, qrOnly: false, lines: .rowsAndColumns)
                    let rows = zbar.scan(plane, density: density, qrOnly: false, lines: .rows)
                    let columns = zbar.scan(plane, density: density, qrOnly: false, lines: .columns)
                    let split = ZBarReader.merged(rows: rows.symbols, columns: columns.symbols)
                    let context = "\(name) \(plane.width)x\(plane.height) every \(density)th line: one scan \(one.symbols.map(Self.brief)), merged \(split.map(Self.brief)) (rows \(rows.symbols.map(Self.brief)), columns \(columns.symbols.map(Self.brief)))"
                    // The same symbols in the same order.
                    #expect(split.map { "\($0.zbarType) \($0.bytes)" } == one.symbols.map { "\($0.zbarType) \($0.bytes)" }, "\(context)")
                    for (m, o) in zip(split, one.symbols) {
                        let inRows = rows.symbols.first { $0.zbarType == m.zbarType && $0.bytes == m.bytes }
                        let inColumns = columns.symbols.first { $0.zbarType == m.zbarType && $0.bytes == m.bytes }
                        if let r = inRows, let c = inColumns {
                            // Read both ways: the rows' symbol with the columns' lines after its own. One scan
                            // has at least those lines (its columns also join EAN halves the rows left behind).
                            #expect(m.quality == r.quality + c.quality && m.points.count == r.points.count + c.points.count, "\(context)")
                            #expect(m.orientation == r.orientation && m.orientation == o.orientation, "\(context)")
                            #expect(o.quality >= m.quality && o.quality - m.quality <= o.quality / 10, "\(context)")
                        } else {
                            // Read one way: exactly what one scan gives.
                            #expect(Self.describe(m) == Self.describe(o), "\(context)")
                        }
                    }
                    symbols += one.symbols.count
                    merged += rows.symbols.filter { r in
                        columns.symbols.contains { $0.zbarType == r.zbarType && $0.bytes == r.bytes }
                    }.count
                }
            }
        }
        // The comparison covered many reads, and symbols that both directions read (the merge proper).
        #expect(symbols >= 200, "\(symbols) symbols")
        #expect(merged >= 20, "\(merged) symbols read by both rows and columns")
    }

    /// The scan of the rows alone reads none of the columns' symbols and the other way round: a code whose bars
    /// run one way is read by one direction only.
    @Test("a scan of the rows alone does not read a code only columns cross")
    func directionsAreApart() throws {
        let frame = try #require(try ImageSource(path: Fixtures.path("sym-01-ean13.png")).nextFrame())
        let zbar = ZBarReader(types: [.ean13], configuration: BarcodeConfiguration())
        let upright = frame.luma
        let turned = Self.transposed(upright)
        #expect(zbar.scan(upright, density: 2, qrOnly: false, lines: .rows).symbols.map(\.bytes).count == 1)
        #expect(zbar.scan(upright, density: 2, qrOnly: false, lines: .columns).symbols.isEmpty)
        #expect(zbar.scan(turned, density: 2, qrOnly: false, lines: .rows).symbols.isEmpty)
        #expect(zbar.scan(turned, density: 2, qrOnly: false, lines: .columns).symbols.count == 1)
    }
}

import Foundation
import Testing
import ScanTestSupport

/// `scand scan --view-size … --video-gravity … --orientation … --mirrored` on a real image with a QR code:
/// the `view` corners must land where the code is drawn on the preview canvas. The canvas is drawn
/// independently by Tests/Fixtures/preview_canvas.py (PIL rotate/mirror/resize/paste), which also composes the
/// device image around a QR code generated here with `qrencode`.
@Suite("scan --view-size end to end")
struct PreviewEndToEndTests {
    static let python = "/usr/bin/python3"
    static let qrencode = "/usr/bin/qrencode"
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/preview_canvas.py").path
    static let frame = (width: 640, height: 360)
    static let payload = "scand-geometry"

    struct Case: Sendable, CustomTestStringConvertible {
        var orientation: String, gravity: String, mirrored: Bool
        var view: (width: Int, height: Int)
        /// Where the code's top-left pixel sits in the 640×360 device image (it is 126×126: 21 modules × 6 px).
        var qr: (x: Int, y: Int)
        var testDescription: String { "\(orientation) \(gravity)\(mirrored ? " mirrored" : "") in \(view.width)x\(view.height)" }
    }

    static let cases: [Case] = [
        Case(orientation: "portrait", gravity: "resizeAspect", mirrored: true, view: (390, 844), qr: (260, 100)),
        Case(orientation: "portrait", gravity: "resizeAspectFill", mirrored: false, view: (1080, 1920), qr: (300, 120)),
        Case(orientation: "portraitUpsideDown", gravity: "resizeAspectFill", mirrored: false, view: (500, 500), qr: (250, 60)),
        Case(orientation: "landscapeLeft", gravity: "resize", mirrored: false, view: (800, 300), qr: (60, 200)),
        Case(orientation: "landscapeRight", gravity: "resizeAspectFill", mirrored: true, view: (300, 400), qr: (250, 150)),
        Case(orientation: "landscapeLeft", gravity: "resizeAspect", mirrored: true, view: (1000, 1000), qr: (470, 20)),
    ]

    struct Reference: Decodable {
        /// [x0, y0, x1, y1] of the code's dark pixels on the canvas, view pixels.
        var bounds: [Double]
        /// The symbol's own top-left, top-right, bottom-right, bottom-left corners on the canvas.
        var corners: [[Double]]
    }

    /// Generates the QR code and the device image, and draws the reference canvas.
    static func prepare(_ c: Case, in dir: TemporaryDirectory) throws -> (device: String, reference: Reference) {
        let qr = dir.url.appendingPathComponent("qr.png").path
        _ = try runTool(qrencode, ["-s", "6", "-m", "0", "-l", "L", "-o", qr, payload])
        let device = dir.url.appendingPathComponent("device.png").path
        let json = try runTool(python, [script, qr, device, "\(frame.width)", "\(frame.height)", "\(c.qr.x)", "\(c.qr.y)",
                                        "\(c.view.width)", "\(c.view.height)", c.orientation, c.gravity, c.mirrored ? "1" : "0"])
        return (device, try JSONDecoder().decode(Reference.self, from: json))
    }

    static func previewArguments(_ c: Case) -> [String] {
        ["--view-size", "\(c.view.width)x\(c.view.height)", "--video-gravity", c.gravity, "--orientation", c.orientation]
            + (c.mirrored ? ["--mirrored"] : [])
    }

    static func point(_ any: Any?) -> (x: Double, y: Double)? {
        guard let d = any as? [String: Any], let x = d["x"] as? Double, let y = d["y"] as? Double else { return nil }
        return (x, y)
    }

    @Test("view corners land where the code is drawn on the canvas", arguments: cases)
    func viewCornersMatchCanvas(_ c: Case) throws {
        let dir = try TemporaryDirectory()
        let (device, reference) = try Self.prepare(c, in: dir)
        let result = try ScandBinary.run(["scan"] + Self.previewArguments(c) + [device])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let lines = try result.jsonLines()
        try #require(lines.count == 1)
        #expect(lines[0]["width"] as? Int == Self.frame.width && lines[0]["height"] as? Int == Self.frame.height)
        let objects = try #require(lines[0]["objects"] as? [[String: Any]])
        try #require(objects.count == 1, "objects: \(objects)")
        let object = objects[0]
        #expect(object["value"] as? String == Self.payload)
        let view = try #require(object["view"] as? [String: Any], "no view in \(object)")
        let corners = try #require((view["corners"] as? [Any])?.compactMap(Self.point))
        let bounds = try #require(view["bounds"] as? [String: Any])
        let bx = try #require(bounds["x"] as? Double), by = try #require(bounds["y"] as? Double)
        let bw = try #require(bounds["width"] as? Double), bh = try #require(bounds["height"] as? Double)

        // View points per device pixel: zbar's corners are good to about a device pixel, PIL rounds to
        // whole view pixels when it resizes and pastes.
        let scale = (reference.bounds[2] - reference.bounds[0]) / 126
        let tolerance = 1 + scale
        try #require(corners.count == 4)
        for (i, (got, want)) in zip(corners, reference.corners).enumerated() {
            #expect(abs(got.x - want[0]) <= tolerance && abs(got.y - want[1]) <= tolerance,
                    "corner \(i): scand (\(got.x), \(got.y)), canvas (\(want[0]), \(want[1])), tolerance \(tolerance)")
        }
        let want = reference.bounds
        #expect(abs(bx - want[0]) <= tolerance && abs(by - want[1]) <= tolerance
                && abs(bx + bw - want[2]) <= tolerance && abs(by + bh - want[3]) <= tolerance,
                "bounds: scand \(bx),\(by),\(bw),\(bh); canvas \(want)")
        // The device-space geometry is still there, unchanged by the preview.
        let plain = try ScandBinary.run(["scan", device]).jsonLines()
        let plainObject = try #require((plain.first?["objects"] as? [[String: Any]])?.first)
        #expect(plainObject["view"] == nil)
        #expect(NSDictionary(dictionary: plainObject["bounds"] as? [String: Any] ?? [:])
                == NSDictionary(dictionary: object["bounds"] as? [String: Any] ?? [:]))
    }

    @Test("inputs of different sizes in one run each get their own geometry")
    func differentFrameSizes() throws {
        let wide = try TemporaryDirectory(), tall = try TemporaryDirectory()
        let c = Case(orientation: "portrait", gravity: "resizeAspectFill", mirrored: true, view: (600, 800), qr: (200, 100))
        let (wideImage, wideReference) = try Self.prepare(c, in: wide)
        // The same code and view on a 360×640 frame (the script composes the device image at FRAME_W×FRAME_H).
        let qr = tall.url.appendingPathComponent("qr.png").path
        _ = try runTool(Self.qrencode, ["-s", "6", "-m", "0", "-l", "L", "-o", qr, Self.payload])
        let tallImage = tall.url.appendingPathComponent("device.png").path
        let json = try runTool(Self.python, [Self.script, qr, tallImage, "360", "640", "100", "300",
                                             "600", "800", c.orientation, c.gravity, "1"])
        let tallReference = try JSONDecoder().decode(Reference.self, from: json)

        let result = try ScandBinary.run(["scan"] + Self.previewArguments(c) + [wideImage, tallImage])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let lines = try result.jsonLines()
        try #require(lines.count == 2)
        for (line, reference) in zip(lines, [wideReference, tallReference]) {
            let object = try #require((line["objects"] as? [[String: Any]])?.first, "\(line)")
            let corners = try #require(((object["view"] as? [String: Any])?["corners"] as? [Any])?.compactMap(Self.point))
            try #require(corners.count == 4)
            let scale = (reference.bounds[2] - reference.bounds[0]) / 126
            for (got, want) in zip(corners, reference.corners) {
                #expect(abs(got.x - want[0]) <= 1 + scale && abs(got.y - want[1]) <= 1 + scale,
                        "\(line["source"] ?? ""): scand (\(got.x), \(got.y)), canvas \(want)")
            }
        }
    }

    @Test("--rect-of-interest-view scans only what the view rectangle shows")
    func rectOfInterestView() throws {
        let c = Self.cases[0] // portrait, resizeAspect, mirrored, 390×844: the code is drawn at about 108,358 – 245,494.
        let dir = try TemporaryDirectory()
        let (device, reference) = try Self.prepare(c, in: dir)
        let b = reference.bounds
        let around = "\(Int(b[0]) - 15),\(Int(b[1]) - 15),\(Int(b[2] - b[0]) + 30),\(Int(b[3] - b[1]) + 30)"
        let hit = try ScandBinary.run(["scan"] + Self.previewArguments(c) + ["--rect-of-interest-view", around, device])
        #expect(hit.status == 0, "stderr: \(hit.stderr)")
        #expect((try hit.jsonLines().first?["objects"] as? [[String: Any]])?.count == 1)

        // Below the code, still inside the picture: nothing there.
        let below = "0,\(Int(b[3]) + 20),390,150"
        let miss = try ScandBinary.run(["scan"] + Self.previewArguments(c) + ["--rect-of-interest-view", below, device])
        #expect(miss.status == 4, "nothing found: 4, as zbarimg; stderr: \(miss.stderr)")
        let missLines = try miss.jsonLines()
        #expect(missLines.count == 1)
        #expect((missLines.first?["objects"] as? [[String: Any]])?.isEmpty == true)

        // Entirely in the top letterbox bar (the picture starts at y 75.3): the input fails, named.
        let bar = try ScandBinary.run(["scan"] + Self.previewArguments(c) + ["--rect-of-interest-view", "0,0,390,70", device])
        #expect(bar.status == 2)
        #expect(bar.stdout.isEmpty)
        #expect(bar.stderr.contains(device) && bar.stderr.contains("letterbox"), "stderr: \(bar.stderr)")
    }

    @Test("preview options are checked before scanning", arguments: [
        (["--mirrored"], "needs --view-size"),
        (["--orientation", "portrait", "--rect-of-interest-view", "0,0,10,10"], "needs --view-size"),
        (["--view-size", "0x844"], "--view-size"),
        (["--view-size", "390by844"], "--view-size"),
        (["--view-size", "390x844", "--orientation", "sideways"], "sideways"),
        (["--view-size", "390x844", "--video-gravity", "fill"], "fill"),
        (["--view-size", "390x844", "--rect-of-interest", "0,0,1,1", "--rect-of-interest-view", "0,0,10,10"], "exclude each other"),
        (["--view-size", "390x844", "--rect-of-interest-view", "0,0,10"], "--rect-of-interest-view"),
        (["--view-size", "390x844", "--rect-of-interest-view", "300,0,100,10"], "inside the 390x844 view"),
    ])
    func badOptions(_ arguments: [String], _ message: String) throws {
        let result = try ScandBinary.run(["scan"] + arguments + ["/nonexistent.png"])
        #expect(result.status == 64, "stderr: \(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains(message), "stderr: \(result.stderr)")
    }
}

import Foundation
import Testing
import ScanCore
import ScanKit
import ScanTestSupport

/// A luma frame with a real QR code (made by `qrencode -t ASCII`) drawn at `origin` with `module`-pixel modules.
func qrFrame(_ text: String, width: Int, height: Int, origin: (x: Int, y: Int), module: Int) throws -> Frame {
    let process = try TestProcess.run("/usr/bin/qrencode", ["-t", "ASCII", "-m", "0", "-s", "1", "-l", "L", "-o", "-", text])
    let ascii = String(decoding: process.stdout, as: UTF8.self)
    try #require(process.status == 0)
    // Each module is two characters: "##" dark, "  " light.
    let rows = ascii.split(separator: "\n").map { Array($0) }
    var bytes = [UInt8](repeating: 255, count: width * height)
    for (r, row) in rows.enumerated() {
        for c in 0..<(row.count / 2) where row[2 * c] == "#" {
            for dy in 0..<module {
                for dx in 0..<module {
                    bytes[(origin.y + r * module + dy) * width + origin.x + c * module + dx] = 0
                }
            }
        }
    }
    return Frame(luma: LumaPlane(width: width, height: height, bytes: bytes), index: 0, time: 0)
}

@Suite("MetadataOutput with a preview")
struct MetadataOutputPreviewTests {
    static let preview = PreviewConfiguration(viewSize: ViewSize(width: 390, height: 844), videoGravity: .resizeAspect,
                                              orientation: .portrait, isMirrored: true)
    static let source = SourceInfo(name: "test-source")

    @Test("every object gets view geometry for its own frame's size")
    func viewPerFrameSize() throws {
        let plain = try MetadataOutput(configuration: OutputConfiguration(metadataObjectTypes: [.qr]))
        let previewed = try MetadataOutput(configuration: OutputConfiguration(metadataObjectTypes: [.qr], preview: Self.preview))
        // Two sources of different sizes through the same output: the view geometry must follow each size.
        for (w, h) in [(640, 360), (360, 640), (640, 360)] {
            let frame = try qrFrame("preview", width: w, height: h, origin: (40, 60), module: 5)
            let device = try plain.process(frame, source: Self.source).objects
            let view = try previewed.process(frame, source: Self.source).objects
            try #require(device.count == 1 && view.count == 1)
            #expect(device[0].view == nil)
            let geometry = Self.preview.geometry(frameSize: PixelSize(width: w, height: h))
            #expect(view[0] == geometry.transformed(device[0]))
            // And the size matters: the other frame size would put the code elsewhere.
            let other = Self.preview.geometry(frameSize: PixelSize(width: h, height: w))
            #expect(view[0].view != other.transformed(device[0]).view)
        }
    }

    @Test("rect of interest in view points is converted per frame size")
    func rectOfInterestViewPerFrameSize() throws {
        // The code is drawn at 40...145 × 60...165 device pixels (21 modules of 5 px).
        let frame = try qrFrame("roi", width: 640, height: 360, origin: (40, 60), module: 5)
        let geometry = Self.preview.geometry(frameSize: frame.size)
        let codeInView = geometry.viewRect(fromDeviceRect: PixelRect(x: 40, y: 60, width: 105, height: 105).normalized(in: frame.size))
        let around = ViewRect(x: codeInView.x - 10, y: codeInView.y - 10, width: codeInView.width + 20, height: codeInView.height + 20)
        let hit = try MetadataOutput(configuration: OutputConfiguration(metadataObjectTypes: [.qr], preview: Self.preview,
                                                                        rectOfInterestView: around))
        #expect(try hit.rectOfInterest(forFrameSize: frame.size) == geometry.deviceRect(fromViewRect: around).intersection(.unit))
        #expect(try hit.process(frame, source: Self.source).objects.count == 1)
        // The same view rectangle on a frame of another size covers another part of the picture.
        let tall = PixelSize(width: 640, height: 480)
        #expect(try hit.rectOfInterest(forFrameSize: tall) == Self.preview.geometry(frameSize: tall).deviceRect(fromViewRect: around).intersection(.unit))
        #expect(try hit.rectOfInterest(forFrameSize: tall) != hit.rectOfInterest(forFrameSize: frame.size))

        let elsewhere = ViewRect(x: 0, y: codeInView.maxY + 20, width: 390, height: 200)
        let miss = try MetadataOutput(configuration: OutputConfiguration(metadataObjectTypes: [.qr], preview: Self.preview,
                                                                         rectOfInterestView: elsewhere))
        #expect(try miss.process(frame, source: Self.source).objects.isEmpty)

        // A view rectangle reaching into the letterbox bar is cut to the picture.
        let reaching = ViewRect(x: 0, y: 0, width: 390, height: 200)
        let cut = try MetadataOutput(configuration: OutputConfiguration(metadataObjectTypes: [.qr], preview: Self.preview,
                                                                        rectOfInterestView: reaching))
        let roi = try cut.rectOfInterest(forFrameSize: frame.size)
        #expect(roi.isValidRectOfInterest)
        #expect(geometry.deviceRect(fromViewRect: reaching).minX < 0) // not clamped by the geometry itself
    }

    @Test("a view rectangle entirely in a letterbox bar fails the frame, naming the source")
    func rectOfInterestViewInBar() throws {
        // portrait, resizeAspect, 640×360 in 390×844: the picture spans y 75.3 ... 768.7.
        let output = try MetadataOutput(configuration: OutputConfiguration(
            metadataObjectTypes: [.qr], preview: Self.preview, rectOfInterestView: ViewRect(x: 0, y: 0, width: 390, height: 70)))
        let frame = try qrFrame("bar", width: 640, height: 360, origin: (40, 60), module: 5)
        #expect {
            try output.process(frame, source: Self.source)
        } throws: { error in
            guard case .invalidArgument(let message) = error as? ScanError else { return false }
            return message.contains("test-source") && message.contains("640x360")
        }
    }

    @Test("preview settings are validated when the output is made")
    func validation() {
        let view = ViewRect(x: 10, y: 10, width: 100, height: 100)
        let bad: [OutputConfiguration] = [
            OutputConfiguration(rectOfInterestView: view),
            OutputConfiguration(rectOfInterest: NormalizedRect(x: 0, y: 0, width: 0.5, height: 0.5), preview: Self.preview, rectOfInterestView: view),
            OutputConfiguration(preview: Self.preview, rectOfInterestView: ViewRect(x: 300, y: 0, width: 100, height: 10)),
            OutputConfiguration(preview: Self.preview, rectOfInterestView: ViewRect(x: 0, y: 0, width: 0, height: 10)),
            OutputConfiguration(preview: PreviewConfiguration(viewSize: ViewSize(width: 0, height: 844))),
            OutputConfiguration(preview: PreviewConfiguration(viewSize: ViewSize(width: .nan, height: 844))),
        ]
        for configuration in bad {
            #expect(throws: ScanError.self) { try MetadataOutput(configuration: configuration) }
        }
        #expect(throws: Never.self) { try MetadataOutput(configuration: OutputConfiguration(preview: Self.preview, rectOfInterestView: view)) }
    }
}

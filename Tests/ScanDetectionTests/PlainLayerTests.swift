import Foundation
import ScanCore
import Testing

@testable import ScanDetection

/// The plain pass's smaller copies of a large still (``StillReader/plainLayerReads(base:types:frameSize:density:)``,
/// ``BarcodeConfiguration/zxingDownscaleStillSide``; issue 53): when neither engine reads the still itself,
/// zxing-cpp reads it at a third of its size, a ninth, …, as zxing-cpp's own `tryDownscale` does.
@Suite struct PlainLayerTests {
    private func detector(side: Int = BarcodeConfiguration().zxingDownscaleStillSide) -> BarcodeDetector {
        var c = BarcodeConfiguration()
        c.zxingDownscaleStillSide = side
        return BarcodeDetector(configuration: c)
    }

    @Test("the copies: a third, a ninth, … while the copy above is over 500 px on its long side; none under the side")
    func divisors() {
        let still = detector().still
        #expect(still.plainLayerDivisors(width: 4032, height: 3024) == [3, 9])  // 1344×1008, 448×336
        #expect(still.plainLayerDivisors(width: 2048, height: 1536) == [3, 9])  // 682×512, 227×170
        #expect(still.plainLayerDivisors(width: 1200, height: 900) == [3])  // 400×300
        #expect(still.plainLayerDivisors(width: 1199, height: 1199).isEmpty)
        #expect(still.plainLayerDivisors(width: 640, height: 480).isEmpty)
        #expect(detector(side: .max).still.plainLayerDivisors(width: 4032, height: 3024).isEmpty)
        // zxing-cpp's own constants.
        #expect(BarcodeDetector.plainLayerThreshold == 500 && BarcodeDetector.plainLayerFactor == 3)
    }

    @Test("a Data Matrix in a 2048×1536 photo that only a smaller size reads is read by the plain pass, corners on it")
    func dataMatrixOnPlainPass() throws {
        let photos = try #require(try ReaderFixtures.meta()["photos"] as? [[String: Any]])
        let fixture = photos[0]
        let file = try #require(fixture["file"] as? String)
        let value = try #require(fixture["value"] as? String)
        let box = try #require(fixture["corners"] as? [[Double]])
        let w = try #require(fixture["width"] as? Double)
        let h = try #require(fixture["height"] as? Double)
        let frame = try ReaderFixtures.frame(file)
        let read = try detector().read(in: frame)
        try #require(read.objects.count == 1, "\(file): \(read.objects.map(\.stringValue))")
        #expect(read.objects[0].stringValue == value)
        #expect(read.objects[0].type == .dataMatrix)
        #expect(read.pass == .plain && read.engine == .zxing)
        let xs = box.map { $0[0] }
        let ys = box.map { $0[1] }
        for c in read.objects[0].corners {
            #expect(
                c.x * w >= xs.min()! - 3 && c.x * w <= xs.max()! + 3 && c.y * h >= ys.min()! - 3
                    && c.y * h <= ys.max()! + 3, "corner \(c.x * w),\(c.y * h) outside \(box)")
        }
        // Without the copies, the same code is the downscaled pass's, as before.
        let without = try detector(side: .max).read(in: frame)
        #expect(without.objects.map(\.stringValue) == [value])
        #expect(without.pass == .downscaled)
        // The still's own size is under the side: no copies, the downscaled pass again.
        #expect(try detector(side: 2049).read(in: frame).pass == .downscaled)
    }

    @Test(
        "an EAN-13 and a PDF417 read only at a third of their photo's size: read on the plain pass once confirmed",
        arguments: [0, 1])
    func confirmedOnPlainPass(index: Int) throws {
        let fixtures = try #require(try ReaderFixtures.meta()["photo_layer"] as? [[String: Any]])
        let fixture = fixtures[index]
        let file = try #require(fixture["file"] as? String)
        let value = try #require(fixture["value"] as? String)
        let frame = try ReaderFixtures.frame(file)
        let d = detector()
        let read = try d.read(in: frame)
        #expect(read.objects.map(\.stringValue) == [value], "\(file)")
        #expect(read.objects.first?.type.rawValue == fixture["type"] as? String)
        #expect(read.pass == .plain && read.engine == .zxing, "\(file): \(String(describing: read.pass))")
        if index == 0 {
            // The EAN-13 needs confirming, as a read of any transformed image does: zbar reads it on the copy.
            #expect(d.still.confirmations["other engine"] == 1)
        }
        // Neither engine reads the photo at full size: without the copies a later pass reads it.
        let without = try detector(side: .max).read(in: frame)
        #expect(without.objects.map(\.stringValue) == [value])
        #expect(without.pass == .downscaled)
    }

    @Test("camera-sized stills are read as before: the same objects, pass and engine with the copies or without")
    func smallStillsUnchanged() throws {
        for (name, frame) in try ParallelStillPassTests.stills() where max(frame.size.width, frame.size.height) < 1200 {
            let a = try detector().read(in: frame)
            let b = try detector(side: .max).read(in: frame)
            #expect(a.objects == b.objects && a.pass == b.pass && a.engine == b.engine, "\(name)")
        }
    }
}

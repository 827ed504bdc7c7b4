import Testing
import ScanCore
import ScanCapture
#if canImport(Glibc)
import Glibc
#endif

/// Camera controls against a real driver named by `SCAND_TEST_DEVICE` (the VM suite: vivid); skipped elsewhere.
/// Luma is measured here, over every pixel of the region, independently of the session's metering code.
private let liveDevice: String? = getenv("SCAND_TEST_DEVICE").map { String(cString: $0) }

private final class Events: @unchecked Sendable {
    private let lock = Lock()
    private var events: [DeviceEvent] = []
    func append(_ e: DeviceEvent) { lock.withLock { events.append(e) } }
    var all: [DeviceEvent] { lock.withLock { events } }
}

/// Mean luma (0...1) over every pixel of `r` (normalized device coordinates).
private func regionMean(_ f: Frame, _ r: NormalizedRect) -> Double {
    let p = f.luma, x0 = Int(r.x * Double(p.width)), y0 = Int(r.y * Double(p.height))
    let x1 = Int((r.x + r.width) * Double(p.width)), y1 = Int((r.y + r.height) * Double(p.height))
    var sum = 0
    for y in y0..<y1 { for x in x0..<x1 { sum += Int(p.bytes[y * p.stride + x]) } }
    return Double(sum) / Double((x1 - x0) * (y1 - y0)) / 255
}

private func setOnDevice(_ settings: [String]) throws {
    let device = try DiscoverySession.device(named: liveDevice!)
    try device.lockForConfiguration()
    defer { device.unlockForConfiguration() }
    try device.setControls(settings: settings.map { try ControlSetting(parsing: $0) })
}

private func value(_ name: String) throws -> Int64? {
    try DiscoverySession.device(named: liveDevice!).controls.first { $0.name == name }?.value
}

@Suite(.serialized, .enabled(if: liveDevice != nil, "set SCAND_TEST_DEVICE to a capture device (the VM suite does)"))
struct LiveControlTests {
    static let vga = PixelSize(width: 640, height: 480)

    @Test func brightnessRaisesLumaAndControlCommitsDoNotRestart() throws {
        try setOnDevice(["brightness=128"])
        var config = CaptureConfiguration(device: liveDevice!, frameSize: Self.vga, frameRate: 15)
        config.controls = ControlConfiguration(settings: [ControlSetting(name: "brightness", value: "60")])
        let session = CaptureSession(configuration: config)
        let events = Events()
        session.addEventHandler { events.append($0) }
        try session.startRunning()
        defer { session.stopRunning() }
        func mean(after skip: Int) throws -> Double {
            var last = 0.0
            for _ in 0..<(skip + 3) { last = regionMean(try #require(try session.nextFrame(timeout: .seconds(3))), .unit) }
            return last
        }
        let low = try mean(after: 4)
        #expect(try value("brightness") == 60)
        session.beginConfiguration()
        session.controls = ControlConfiguration(settings: [ControlSetting(name: "brightness", value: "200"), ControlSetting(name: "contrast", value: "100")])
        try session.commitConfiguration()
        let high = try mean(after: 6)
        #expect(high > low + 0.2, "mean luma \(low) at brightness 60, \(high) at 200")
        #expect(session.statistics.streamStarts == 1, "a control-only commit must not restart streaming")
        #expect(try value("brightness") == 200)
        #expect(try value("contrast") == 100)
        // Our own writes come back as controlChanged events (V4L2_EVENT_CTRL with feedback).
        let changed = events.all.filter { $0.kind == .controlChanged }
        #expect(changed.contains { $0.control == "brightness" && $0.value == 200 }, "\(changed)")
        // A refused commit applies nothing.
        session.beginConfiguration()
        session.controls = ControlConfiguration(settings: [ControlSetting(name: "brightness", value: "999")])
        #expect(throws: ScanError.self) { try session.commitConfiguration() }
        #expect(try value("brightness") == 200)
        print("CONTROLS-FIGURES: whole-frame mean luma \(fmt(low)) at brightness 60, \(fmt(high)) at 200; stream starts \(session.statistics.streamStarts)")
    }

    @Test func lockForConfiguration() throws {
        let a = try DiscoverySession.device(named: liveDevice!)
        let b = try DiscoverySession.device(named: liveDevice!)
        #expect(throws: ControlError.self) { try a.setControls(settings: [ControlSetting(name: "hue", value: "5")]) }
        try a.lockForConfiguration()
        #expect(throws: ScanError.self) { try b.lockForConfiguration() } // flock: one configurer at a time
        try a.setControls(settings: [ControlSetting(name: "hue", value: "5")])
        #expect(a.currentControls().first { $0.name == "hue" }?.value == 5)
        a.unlockForConfiguration()
        try b.lockForConfiguration()
        try b.setControls(settings: [ControlSetting(name: "hue", value: "0")])
        b.unlockForConfiguration()
        #expect(try value("hue") == 0)
    }

    @Test(arguments: [Int64(0), 255])
    func exposureOnARegionConverges(start: Int64) throws {
        let target = 0.5
        let region = ExposureMetering.region(around: NormalizedPoint(x: 0.5, y: 0.5))
        try setOnDevice(["brightness=\(start)", "contrast=128"])
        var config = CaptureConfiguration(device: liveDevice!, frameSize: Self.vga, frameRate: 15)
        config.controls = ControlConfiguration(exposureMetering: ExposureMetering(region: region, target: target))
        let session = CaptureSession(configuration: config)
        let events = Events()
        session.addEventHandler { events.append($0) }
        try session.startRunning()
        defer { session.stopRunning() }
        var samples: [(n: Int, mean: Double)] = []
        var firstSequence: UInt32?
        while samples.last.map({ $0.n < 60 }) ?? true {
            let f = try #require(try session.nextFrame(timeout: .seconds(3)))
            let s = f.sequence ?? UInt32(f.index)
            if firstSequence == nil { firstSequence = s }
            samples.append((Int(s - firstSequence!), regionMean(f, region)))
        }
        let startMean = samples[0].mean
        #expect(start == 0 ? startMean < 0.3 : startMean > 0.7, "start mean \(startMean)")
        let within = { (m: Double) in abs(m - target) <= 0.1 * target }
        let first = samples.first { within($0.mean) }
        #expect(first != nil && first!.n <= 30, "first frame within 10%: \(String(describing: first)); \(samples.prefix(30).map { fmt($0.mean) })")
        let after = samples.filter { $0.n >= (first?.n ?? 0) }
        let worst = after.map { abs($0.mean - target) / target }.max() ?? 1
        #expect(after.allSatisfy { within($0.mean) }, "left the 10% band after converging: \(after.map { fmt($0.mean) })")
        let kinds = events.all.map(\.kind)
        #expect(kinds.contains(.adjustingExposureStarted) && kinds.contains(.adjustingExposureEnded), "\(kinds)")
        let writes = events.all.filter { $0.kind == .controlChanged && $0.control == "brightness" }.count
        print("EXPOSURE-ROI-FIGURES: start brightness \(start): region mean \(fmt(startMean)) -> within 10% of \(target) at frame \(first?.n ?? -1), stayed \(after.count) frames (worst \(fmt(worst * 100))%), final brightness \(try value("brightness") ?? -1), \(writes) writes")
    }
}

private func fmt(_ v: Double) -> String { String(Double(Int((v * 1000).rounded())) / 1000) }

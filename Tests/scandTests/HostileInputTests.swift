import Foundation
import Testing
import ScanTestSupport
import ScanCore
#if canImport(Glibc)
import Glibc
#endif

/// `scand scan` on hostile inputs, run as a user would: each is refused (or reported) with one error line
/// naming it, the other inputs are still scanned, and time and peak memory stay small.
@Suite struct HostileInputTests {
    /// One run of scand with its wall time and peak RSS (of scand itself, from /usr/bin/time).
    struct Measured {
        var result: ScandBinary.Result
        var wallSeconds: Double
        var peakRSSMegabytes: Double
        var status: Int32 { result.status }
        var stderr: String { result.stderr }
        func jsonLines() throws -> [[String: Any]] { try result.jsonLines() }
    }

    /// Runs scand under /usr/bin/time (peak RSS of scand itself) with a CPU-time cap of 60 s (prlimit), so
    /// a decoder that does not refuse fails the test instead of hanging it.
    func measure(_ arguments: [String], in directory: URL) throws -> Measured {
        let dir = try TemporaryDirectory()
        let timing = dir.url.appendingPathComponent("time")
        let result = try ScandBinary.run(arguments, directory: directory,
                                         prefix: ["/usr/bin/time", "-f", "%e %M", "-o", timing.path, "prlimit", "--cpu=60"])
        let fields = String(decoding: try Data(contentsOf: timing), as: UTF8.self)
            .split(separator: "\n").last.map { $0.split(separator: " ") } ?? []
        return Measured(result: result,
                        wallSeconds: fields.count == 2 ? Double(fields[0]) ?? .infinity : .infinity,
                        peakRSSMegabytes: fields.count == 2 ? (Double(fields[1]) ?? .infinity) / 1024 : .infinity)
    }

    /// `/dev/zero` (refused as a device when opened) and an endless FIFO (read up to the still-image file
    /// limit, then refused): each gives one error naming it, the good input after it is scanned, and time and
    /// peak memory stay small (before: 7–11 s and 1.6 GB for each).
    @Test func endlessInputsAreRefusedWithBoundedMemory() throws {
        let inputs = try HostileInputs(["cmyk.jpg"])
        let zero = try measure(["scan", "/dev/zero", "cmyk.jpg"], in: inputs.url)
        #expect(zero.status == 1, "\(zero.stderr)")
        #expect(zero.stderr.contains("/dev/zero: cannot read: is a device"))
        #expect(try zero.jsonLines().map { $0["source"] as? String } == ["cmyk.jpg"])
        #expect(zero.wallSeconds < 5 && zero.peakRSSMegabytes < 300, "\(zero.wallSeconds) s, \(zero.peakRSSMegabytes) MB")

        let fifo = inputs.url.appendingPathComponent("endless").path
        #expect(mkfifo(fifo, 0o600) == 0)
        // a real producer that never stops: cat /dev/zero > fifo
        let writer = try TestProcess.start("/bin/sh", ["-c", "exec cat /dev/zero > '\(fifo)'"], stdout: .inherited, stderr: .inherited)
        defer { writer.terminate(); writer.waitUntilExit() }
        let endless = try measure(["scan", "endless", "cmyk.jpg"], in: inputs.url)
        #expect(endless.status == 1, "\(endless.stderr)")
        #expect(endless.stderr.contains("endless: cannot decode: input goes on past \(DecoderLimits.defaultMaxFileBytes) bytes"), "\(endless.stderr)")
        #expect(try endless.jsonLines().map { $0["source"] as? String } == ["cmyk.jpg"])
        #expect(endless.wallSeconds < 10 && endless.peakRSSMegabytes < 300, "\(endless.wallSeconds) s, \(endless.peakRSSMegabytes) MB")
    }

    /// PNG bombs, a header-only PGM and BMP/TIFF headers declaring 30000×30000 (OpenCV's plugin): each is
    /// refused by the pixel budget at once, with bounded memory, and the good input after it is scanned.
    @Test(arguments: ["bomb-16k.png", "bomb-32k.png", "header-only.pgm", "bomb.bmp", "bomb.tiff"])
    func aDeclaredHugeImageIsRefusedAtOnce(name: String) throws {
        let inputs = try HostileInputs([name, "cmyk.jpg"])
        let m = try measure(["scan", name, "cmyk.jpg"], in: inputs.url)
        #expect(m.status == 1, "exit \(m.status): \(m.stderr)")
        #expect(try m.jsonLines().map { $0["source"] as? String } == ["cmyk.jpg"])
        let errors = m.stderr.split(separator: "\n").filter { $0.contains(" error ") }
        #expect(errors.count == 1 && errors[0].contains(name) && errors[0].contains("over the pixel budget of 40000000 pixels"),
                "\(m.stderr)")
        #expect(m.wallSeconds < 5, "\(name): \(m.wallSeconds) s")
        #expect(m.peakRSSMegabytes < 300, "\(name): peak RSS \(m.peakRSSMegabytes) MB")
    }

    /// An mp4 cut to half its size: the frames before the cut are printed, then one error names the file and
    /// the frame where decoding stopped; exit 1 with another good input, 2 alone.
    @Test func aTruncatedMp4IsReportedWithTheFrameWhereDecodingStopped() throws {
        let inputs = try HostileInputs(["truncated.mp4", "cmyk.jpg"])
        let m = try measure(["scan", "truncated.mp4", "cmyk.jpg"], in: inputs.url)
        #expect(m.status == 1, "exit \(m.status): \(m.stderr)")
        let lines = try m.jsonLines()
        let frames = lines.filter { $0["source"] as? String == "truncated.mp4" }.compactMap { $0["frame"] as? Int }
        #expect(!frames.isEmpty && frames == Array(0..<frames.count) && frames.count < 120)
        #expect(lines.last?["source"] as? String == "cmyk.jpg")
        let errors = m.stderr.split(separator: "\n").filter { $0.contains(" error ") }
        #expect(errors.count == 1 && errors[0].contains("truncated.mp4")
                && errors[0].contains("truncated or corrupt: decoding stopped at frame \(frames.count) of 120"), "\(m.stderr)")
        #expect(m.peakRSSMegabytes < 300)
        #expect(try measure(["scan", "truncated.mp4"], in: inputs.url).status == 2)
    }

    @Test func aCmykJpegIsRead() throws {
        let inputs = try HostileInputs(["cmyk.jpg"])
        let r = try ScandBinary.run(["scan", "cmyk.jpg"], directory: inputs.url)
        #expect(r.status == 0, "\(r.stderr)")
        let objects = try #require(try r.jsonLines().first?["objects"] as? [[String: Any]])
        #expect(objects.map { $0["value"] as? String } == ["CMYK-QR-1"])
    }
}

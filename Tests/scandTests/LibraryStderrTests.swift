import Foundation
import Testing
import ScanTestSupport

/// What C libraries print on stderr, as the built scand shows it: libzbar's DataBar decoder prints an assertion
/// warning of two lines (the second starts with a tab) on a 75×2 patch of a code-free photo
/// (Tests/Fixtures/regressions/zbar-databar-assertion.png, made by Tests/Fixtures/make_zbar_assertion_crop.py).
/// Before LibraryStderr those lines reached scand's stderr raw, outside its log format.
@Suite("C libraries' stderr becomes log lines")
struct LibraryStderrTests {
    static let patch = Fixtures.repositoryRoot.appendingPathComponent("Tests/Fixtures/regressions/zbar-databar-assertion.png").path

    /// The lines scand printed on stderr that came from a library (source `library`).
    static func libraryLines(_ stderr: String) -> [Substring] {
        stderr.split(separator: "\n").filter { $0.contains(" [library] ") }
    }

    /// Every stderr line is one of scand's: a log line (`<timestamp> <level> scand:`) or the summary, and none
    /// holds a raw control character (the split removed the newlines).
    static func expectOnlyScandLines(_ stderr: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for line in stderr.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
            let logLine = line.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4} (trace|debug|info|notice|warning|error|critical) scand: "#,
                                     options: .regularExpression) != nil
            #expect(logLine || line.hasPrefix("scanned "), "not a scand line: \(line.debugDescription)", sourceLocation: sourceLocation)
            #expect(!line.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F },
                    "raw control character in \(line.debugDescription)", sourceLocation: sourceLocation)
        }
    }

    @Test("scan: libzbar's two-line assertion is one escaped warning line; stdout is untouched")
    func scanWarning() throws {
        let r = try ScandBinary.run(["scan", Self.patch])
        #expect(r.status == 4, "\(r.stderr)")
        let events = try r.jsonLines()
        #expect(events.count == 1)
        #expect((events.first?["objects"] as? [Any])?.isEmpty == true)
        Self.expectOnlyScandLines(r.stderr)
        let library = Self.libraryLines(r.stderr)
        #expect(library.count == 1, "\(r.stderr)")
        let line = String(library.first ?? "")
        #expect(line.contains(" warning scand: [library] WARNING: decoder/databar.c:"), "\(line)")
        // The tab that started the second line, escaped; the message is one line.
        #expect(line.contains(#"failed.\n\ti="#), "\(line)")
    }

    @Test("repeats are debug: one warning for three scans of the patch, all three at --log-level debug, one at error")
    func repeatsAndLevels() throws {
        let three = ["scan", Self.patch, Self.patch, Self.patch]
        let normal = try ScandBinary.run(three)
        #expect(normal.status == 4, "\(normal.stderr)")
        #expect(try normal.jsonLines().count == 3)
        Self.expectOnlyScandLines(normal.stderr)
        #expect(Self.libraryLines(normal.stderr).count == 1, "\(normal.stderr)")

        let debug = try ScandBinary.run(three + ["--log-level", "debug"])
        Self.expectOnlyScandLines(debug.stderr)
        let lines = Self.libraryLines(debug.stderr)
        #expect(lines.filter { $0.contains(" warning scand: [library] ") }.count == 1, "\(debug.stderr)")
        #expect(lines.filter { $0.contains(" debug scand: [library] ") }.count >= 2, "\(debug.stderr)")

        // Shown once whatever the level (it went through in full before); the repeats are debug.
        let quiet = try ScandBinary.run(three + ["--log-level", "error"])
        #expect(quiet.status == 4)
        Self.expectOnlyScandLines(quiet.stderr)
        #expect(Self.libraryLines(quiet.stderr).count == 1, "\(quiet.stderr)")
    }

    @Test("run: the daemon's log gets the same one line")
    func daemonWarning() throws {
        let r = try ScandBinary.run(["run", "--input", Self.patch, "--stdout", "--no-pacing"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try r.jsonLines().allSatisfy { $0["event"] != nil })
        Self.expectOnlyScandLines(r.stderr)
        let library = Self.libraryLines(r.stderr)
        #expect(library.count == 1, "\(r.stderr)")
        #expect(library.first?.contains(#"failed.\n\ti="#) == true, "\(r.stderr)")
    }

    /// OpenCV's logger writes INFO lines to C++'s std::cout when OPENCV_LOG_LEVEL asks for them: before the C++
    /// streams were routed they landed in the JSON lines on stdout (`[ INFO:0@0.279] global … ParallelBackendRegistry
    /// …`, found 2026-11-27). A code-free scene runs every pass, so OpenCV's parallel backend starts and logs.
    @Test("OPENCV_LOG_LEVEL=INFO: OpenCV's INFO lines (C++ std::cout) are library log lines; stdout is only JSON")
    func openCVInfoStaysOffStdout() throws {
        let scene = Fixtures.directory.appendingPathComponent("empty-scene.png").path
        let code = Fixtures.directory.appendingPathComponent("ean13-inverted.png").path
        let r = try ScandBinary.run(["scan", scene, code],
                                    environment: TestProcess.environment(adding: ["OPENCV_LOG_LEVEL": "INFO"]))
        #expect(r.status == 0, "\(r.stderr)")
        for line in r.lines {
            #expect(line.hasPrefix("{\""), "not a JSON line on stdout: \(line.debugDescription)")
        }
        let events = try r.jsonLines()
        #expect(events.count == 2)
        let values = events.flatMap { ($0["objects"] as? [[String: Any]]) ?? [] }.compactMap { $0["value"] as? String }
        #expect(values.count == 1, "\(r.stdoutText)")
        Self.expectOnlyScandLines(r.stderr)
        // OpenCV did log (so the check above meant something), and each line arrived as one log line.
        let info = Self.libraryLines(r.stderr).filter { $0.contains("[library] [ INFO:") }
        #expect(!info.isEmpty, "\(r.stderr)")
        #expect(info.allSatisfy { !$0.hasSuffix("\\n") }, "\(info)")
    }

    @Test("usage errors printed through the C stderr keep their lines (nothing is routed before a command runs)")
    func usageUnchanged() throws {
        let r = try ScandBinary.run(["scan", "--no-such-option", Self.patch])
        #expect(r.status == 64)
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.first?.hasPrefix("Error: ") == true, "\(r.stderr)")
        #expect(lines.contains { $0.hasPrefix("Usage: ") }, "\(r.stderr)")
        #expect(!r.stderr.contains(" [library] "), "\(r.stderr)")
    }
}

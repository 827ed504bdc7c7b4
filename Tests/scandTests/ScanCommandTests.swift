import Foundation
import Testing
import ScanTestSupport

/// Runs the built `scand` binary as a user would.
@Suite struct ScanCommandTests {
    @Test func oneLinePerImageInOrderAndStdoutIsOnlyJSON() throws {
        let r = try ScandBinary.run(["scan", "exact.png", "multi.png", "empty-scene.png"])
        // empty-scene.png holds no code, but the others do: exit 0 (4 is for "nothing found in any input").
        #expect(r.status == 0)
        let lines = try r.jsonLines()
        #expect(lines.map { $0["source"] as? String } == ["exact.png", "multi.png", "empty-scene.png"])
        #expect(lines.map { ($0["objects"] as? [Any])?.count } == [1, 4, 0])
        // stderr holds only the summary line (as zbarimg's).
        #expect(r.stderr.hasPrefix("scanned 5 objects from 3 inputs (3 frames) in ") && r.stderr.hasSuffix(" seconds (1 with no object)\n"), "\(r.stderr)")
    }

    @Test func exactJSONBytesForAKnownImage() throws {
        let r = try ScandBinary.run(["scan", "exact.png"])
        // exact.png: qrencode -s 4 -m 4 "LOGIN:ab12" → 116×116, symbol from pixel 16 to 100.
        let expected = #"{"event":"metadata","frame":0,"height":116,"objects":[{"bounds":{"height":0.724138,"width":0.724138,"x":0.137931,"y":0.137931},"bytes":"TE9HSU46YWIxMg==","charset":"UTF-8","charsetSource":"guess","corners":[{"x":0.137931,"y":0.137931},{"x":0.862069,"y":0.137931},{"x":0.862069,"y":0.862069},{"x":0.137931,"y":0.862069}],"quality":1,"type":"qr","value":"LOGIN:ab12"}],"source":"exact.png","time":0,"width":116}"#
        #expect(r.stdoutText == expected + "\n")
    }

    @Test func badInputsAreNamedOnStderrAndTheRestIsScanned() throws {
        let r = try ScandBinary.run(["scan", "truncated.png", "exact.png", "corrupt.png", "nope.png", "empty.png", "multi.png", "truncated.jpg"])
        #expect(r.status == 1)
        let lines = try r.jsonLines()
        #expect(lines.map { $0["source"] as? String } == ["exact.png", "multi.png"])
        // One error line per bad input, then the summary line.
        var errors = r.stderr.split(separator: "\n")
        #expect(errors.last?.hasPrefix("scanned 5 objects from 7 inputs (2 frames) in ") == true && errors.last?.hasSuffix("(5 failed)") == true)
        errors.removeLast()
        #expect(errors.count == 5)
        for name in ["truncated.png", "corrupt.png", "nope.png", "empty.png", "truncated.jpg"] {
            #expect(errors.contains { $0.contains(name) }, "no error line names \(name)")
        }
    }

    /// A phone photo over the pixel budget (48 MP against 40 MP) is read at a reduced size with one warning
    /// naming it, not refused; here multi.jpg (960x540) under a budget of 400,000 pixels is read at 7/8.
    @Test func aJPEGOverTheBudgetIsScannedAtAReducedSizeWithAWarning() throws {
        let r = try ScandBinary.run(["scan", "--max-pixels", "400000", "multi.jpg"])
        #expect(r.status == 0)
        let lines = try r.jsonLines()
        #expect(lines.count == 1)
        #expect(lines.first?["width"] as? Int == 840 && lines.first?["height"] as? Int == 473)
        let values = Set(((lines.first?["objects"] as? [[String: Any]]) ?? []).compactMap { $0["value"] as? String })
        // The three QR codes are read; the Code 128's 2-pixel modules become 1.75 pixels, which neither
        // engine reads here.
        #expect(values.isSuperset(of: ["MULTI-A", "MULTI-B", "MULTI-C"]), "\(values)")
        let errors = r.stderr.split(separator: "\n")
        #expect(errors.count == 2, "\(r.stderr)")
        #expect(errors.first?.contains("warning") == true
                && errors.first?.hasSuffix("multi.jpg: 960x540 is over the pixel budget of 400000 pixels (--max-pixels); read at 840x473, 7/8 of its size") == true,
                "\(r.stderr)")
    }

    /// `--jobs 3` writes the very bytes of one job (lines in input order), with the same exit status and error
    /// lines; with --oneshot, --annotate or --device, or out of 0...64 (0: every core), it is a usage error.
    @Test func jobsWriteTheLinesOfOneJob() throws {
        let inputs = ["multi.png", "clip-mono.y4m", "truncated.png", "exact.png", "multi.gif", "clip.mp4", "empty-scene.png", "qr-utf8.png"]
        let one = try ScandBinary.run(["scan"] + inputs)
        let three = try ScandBinary.run(["scan", "--jobs", "3"] + inputs)
        #expect(one.status == 1 && three.status == 1)
        #expect(three.stdout == one.stdout && one.stdout.count > 10_000)
        #expect(three.stderr.contains("truncated.png: cannot decode") && three.stderr.contains("scanned ") && three.stderr.contains("from 8 inputs"))
        for bad in [["--jobs", "2", "--oneshot"], ["--jobs", "2", "--annotate", "/tmp"], ["--jobs", "-1"], ["--jobs", "65"]] {
            let r = try ScandBinary.run(["scan"] + bad + ["multi.png"])
            #expect(r.status == 64, "\(bad): \(r.stderr)")
        }
    }

    @Test func everyInputFailingExitsTwo() throws {
        let r = try ScandBinary.run(["scan", "nope.png", "empty.png"])
        #expect(r.status == 2)
        #expect(r.stdout.isEmpty)
    }

    @Test func y4mFromStdinStreamsEveryFrame() throws {
        let r = try ScandBinary.run(["scan", "-"], stdin: try Fixtures.bytes("clip-422.y4m"))
        #expect(r.status == 0)
        let lines = try r.jsonLines()
        #expect(lines.count == 12)
        #expect(lines.map { $0["frame"] as? Int } == Array(0..<12))
        #expect(lines.allSatisfy { $0["source"] as? String == "-" })
        let values = lines.map { (($0["objects"] as! [[String: Any]]).first?["value"] as? String) ?? "" }
        let manifest = try Fixtures.manifest()["files"] as! [String: Any]
        #expect(values == (manifest["clip.y4m"] as! [String: Any])["values"] as! [String])
        #expect(abs((lines[3]["time"] as! Double) - 0.2) < 1e-9)
    }

    @Test func typesAndRectOfInterestOptions() throws {
        let r = try ScandBinary.run(["scan", "--types", "qr", "--rect-of-interest", "0.5,0,0.5,0.5", "multi.png"])
        #expect(r.status == 0)
        let objects = try #require(try r.jsonLines().first?["objects"] as? [[String: Any]])
        #expect(objects.map { $0["value"] as? String } == ["MULTI-B"])
        let bounds = try #require(objects.first?["bounds"] as? [String: Double])
        #expect(bounds["x"]! > 0.7) // still relative to the whole frame
    }

    @Test func usageErrorsExit64WithAMessage() throws {
        let a = try ScandBinary.run(["scan", "--types", "qr,bogus", "exact.png"])
        #expect(a.status == 64)
        #expect(a.stderr.contains("bogus"))
        #expect(a.stdout.isEmpty)
        let b = try ScandBinary.run(["scan", "--rect-of-interest", "0.5,0.5,0.9,0.9", "exact.png"])
        #expect(b.status == 64)
        let c = try ScandBinary.run(["scan"])
        #expect(c.status == 64)
    }

    @Test func typesCommandListsAvailableTypes() throws {
        let r = try ScandBinary.run(["types"])
        #expect(r.status == 0)
        let names = r.lines
        #expect(names.contains("qr") && names.contains("ean13") && names.contains("gs1DataBarExpanded"))
        #expect(names == names.sorted())
    }

    @Test func helpWorks() throws {
        let r = try ScandBinary.run(["scan", "--help"])
        #expect(r.status == 0)
        #expect(r.stdoutText.contains("--rect-of-interest"))
    }

    @Test func payloadsAreDataForJq() throws {
        // The hostile QR comes out as one JSON line; jq gets the exact text back.
        let r = try ScandBinary.run(["scan", "qr-evil.png"])
        #expect(r.lines.count == 1)
        let jq = try TestProcess.run("/usr/bin/jq", ["-j", ".objects[0].value"], stdin: r.stdout)
        #expect(String(decoding: jq.stdout, as: UTF8.self) == (try Fixtures.entry("qr-evil.png"))["value"])
    }

    @Test func closedStdoutStopsCleanly() throws {
        // `scand scan … | head -1`: the reader goes away after one line. scand must stop promptly with
        // status 0: not killed by SIGPIPE, not looping, not scanning the remaining inputs.
        let tmp = try TemporaryDirectory(); let dir = tmp.url.path
        let list = dir + "/list.txt"
        try Data(Array(String(repeating: Fixtures.path("multi.png") + "\n", count: 200).utf8)).write(to: URL(fileURLWithPath: list))
        func run(readOneLineThenClose: Bool) throws -> (Process, TimeInterval, Data) {
            let out = Pipe(), err = Pipe()
            let start = Date()
            let process = try TestProcess.start(ScandBinary.url.path, ["scan", "--files-from", list], stdin: .handle(.standardInput),
                                                stdout: readOneLineThenClose ? .pipe(out) : .null, stderr: .pipe(err))
            if readOneLineThenClose {
                var first = Data()
                while !first.contains(0x0A) { first.append(out.fileHandleForReading.availableData) }
                try out.fileHandleForReading.close()
            }
            process.waitUntilExit()
            return (process, Date().timeIntervalSince(start), err.fileHandleForReading.readDataToEndOfFile())
        }
        let (full, fullTime, _) = try run(readOneLineThenClose: false)
        #expect(full.terminationStatus == 0)
        let (early, earlyTime, stderr) = try run(readOneLineThenClose: true)
        #expect(early.terminationReason == .exit)
        #expect(early.terminationStatus == 0)
        #expect(earlyTime < fullTime / 3, "early stop took \(earlyTime) s, a full run \(fullTime) s")
        #expect(stderr.isEmpty)
    }

    @Test func readsEverythingZbarimgReads() throws {
        // The command-line peer: on every fixture image, scand must find every value zbarimg finds.
        let names = try FileManager.default.contentsOfDirectory(atPath: Fixtures.directory.path)
            .filter { $0.hasSuffix(".png") && !["truncated.png", "corrupt.png", "empty.png", "not-an-image.png"].contains($0) }
            .sorted()
        #expect(names.count > 20)
        for name in names {
            let zbarOut = Data(try TestProcess.run("/usr/bin/zbarimg", ["-q", "--raw", "-Sbinary", Fixtures.path(name)]).stdout)
            let r = try ScandBinary.run(["scan", name])
            let objects = try #require(try r.jsonLines().first?["objects"] as? [[String: Any]])
            let ours = objects.compactMap { ($0["bytes"] as? String).flatMap { Data(base64Encoded: $0) } }
            // zbarimg --raw -Sbinary prints each symbol's raw bytes followed by a newline.
            // zbarimg reports UPC-E expanded to EAN-13; count our UPC-E reads in that form too.
            let expanded = objects.filter { $0["type"] as? String == "upce" }.compactMap { ($0["value"] as? String).map(upcEToEAN13) }
            var theirs = zbarOut
            for e in expanded { if let range = theirs.range(of: Data(e.utf8)) { theirs.removeSubrange(range) } }
            for payload in ours.sorted(by: { $0.count > $1.count }) {
                if let range = theirs.range(of: payload) { theirs.removeSubrange(range) }
            }
            let leftover = theirs.filter { $0 != 0x0A }
            #expect(leftover.isEmpty, "\(name): zbarimg read bytes scand did not: \(String(decoding: leftover, as: UTF8.self))")
        }
    }
}

/// UPC-E (8 digits: number system, 6 data digits, check) → EAN-13, by the GS1 expansion rules.
func upcEToEAN13(_ e: String) -> String {
    let d = Array(e)
    guard d.count == 8 else { return e }
    let n = d[0], m = Array(d[1...6]), c = d[7]
    let body: [Character]
    switch m[5] {
    case "0", "1", "2": body = [m[0], m[1], m[5], "0", "0", "0", "0", m[2], m[3], m[4]]
    case "3": body = [m[0], m[1], m[2], "0", "0", "0", "0", "0", m[3], m[4]]
    case "4": body = [m[0], m[1], m[2], m[3], "0", "0", "0", "0", "0", m[4]]
    default: body = [m[0], m[1], m[2], m[3], m[4], "0", "0", "0", "0", m[5]]
    }
    return "0" + String(n) + String(body) + String(c)
}

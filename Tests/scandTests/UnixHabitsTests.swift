import Foundation
import Testing
import ScanTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Issue 46, the command line as a script author uses it: unknown dash arguments, help only when asked for,
/// `--raw` that printed nothing, images on stdin, `--files-from -0` and comments, `--jobs 0`, the short log
/// form on a terminal, and `--annotate` run twice. Real binary, real files, a real pty.
@Suite struct UnixHabitsTests {
    /// Copies fixture `name` to `dir/as` and returns the new path.
    func copy(_ name: String, to dir: String, as newName: String) throws -> String {
        let path = dir + "/" + newName
        try FileManager.default.copyItem(atPath: Fixtures.path(name), toPath: path)
        return path
    }

    // MARK: bad arguments

    @Test func anUnknownDashArgumentIsAUsageErrorInEverySubcommand() throws {
        let dir = DaemonPaths.tempDir("dash")
        defer { DaemonPaths.remove(dir) }
        _ = try copy("exact.png", to: dir, as: "-dash.png")
        let url = URL(fileURLWithPath: dir)
        for command in ["scan", "run", "watch", "devices", "types", "bench"] {
            for argument in ["-dash.png", "--dash.png", "-x.png"] {
                let r = try ScandBinary.run([command, argument], directory: url)
                #expect(r.status == 64, "scand \(command) \(argument): \(r.status) \(r.stderr)")
                #expect(r.stdout.isEmpty, "scand \(command) \(argument) wrote to stdout: \(r.stdoutText.prefix(200))")
                #expect(r.stderr.contains(argument) && r.stderr.contains("./\(argument)") && r.stderr.contains("'--'"),
                        "scand \(command) \(argument): \(r.stderr)")
                #expect(!r.stderr.contains("OPTIONS:"), "the whole help instead of a usage error: \(r.stderr.prefix(300))")
            }
        }
        // The ways the message suggests both work.
        for args in [["scan", "--", "-dash.png"], ["scan", "./-dash.png"]] {
            let r = try ScandBinary.run(["scan", "-q"] + args.dropFirst(), directory: url)
            let objects = try r.jsonLines().first?["objects"]
            #expect(r.status == 0 && objects != nil, "\(args): \(r.stderr)")
        }
        // Help on stdout, status 0, only when asked for.
        for asked in [["scan", "--help"], ["scan", "-h"], ["help", "scan"]] {
            let r = try ScandBinary.run(asked)
            #expect(r.status == 0 && r.stdoutText.contains("USAGE: scand scan") && r.stderr.isEmpty, "\(asked)")
        }
        let bare = try ScandBinary.run([])
        #expect(bare.status == 64 && bare.stdout.isEmpty && bare.stderr.contains("Usage"), "\(bare.stdoutText.prefix(200))")
    }

    @Test func rawThatPrintsNothingExitsFour() throws {
        let dir = DaemonPaths.tempDir("rawnone")
        defer { DaemonPaths.remove(dir) }
        let binary = dir + "/bin.png"
        _ = try TestProcess.run("/usr/bin/qrencode", ["-8", "-s", "4", "-o", binary], stdin: [0xFF, 0xFE, 0x00, 0x01, 0x80])
        let r = try ScandBinary.run(["scan", "--raw", binary])
        #expect(r.status == 4 && r.stdout.isEmpty, "\(r.stderr)")
        #expect(r.stderr.contains("--raw printed no value"), "\(r.stderr)")
        // Its exact bytes are a value: 0.
        let bytes = try ScandBinary.run(["scan", "--raw-bytes", binary])
        #expect(bytes.status == 0 && bytes.stdout == [0xFF, 0xFE, 0x00, 0x01, 0x80, 0x0A])
        // A text code with it: a value was printed, 0.
        let mixed = try ScandBinary.run(["scan", "--raw", "-q", binary, "exact.png"])
        #expect(mixed.status == 0 && mixed.stdoutText == "LOGIN:ab12\n")
    }

    /// `scand run --input FILE --raw` (no --oneshot) that printed no value by the input's end exits 4 with a
    /// warning, as `scan --raw` does (before: 0); one that printed the kiosk clip's ticket exits 0.
    @Test func runRawThatPrintsNothingExitsFour() throws {
        let dir = DaemonPaths.tempDir("runrawnone")
        defer { DaemonPaths.remove(dir) }
        let empty = dir + "/empty.y4m"
        _ = try runTool("/usr/bin/ffmpeg", ["-nostdin", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=10",
                                            "-frames:v", "10", "-pix_fmt", "yuv420p", "-f", "yuv4mpegpipe", "-y", empty])
        let none = try ScandBinary.run(["run", "--input", empty, "--raw", "--no-pacing", "--types", "qr"])
        #expect(none.status == 4 && none.stdout.isEmpty, "\(none.status) \(none.stderr)")
        #expect(none.stderr.contains("no value was printed"), "\(none.stderr)")
        let some = try ScandBinary.run(["run", "--input", DaemonPaths.kiosk, "--raw", "--no-pacing", "--types", "qr"])
        #expect(some.status == 0 && some.stdoutText.contains("TICKET-42"), "\(some.status) \(some.stderr)")
    }

    // MARK: one truth for exit statuses

    /// The rows of the Markdown table that follows `heading` in `text`: (code, meaning).
    func markdownTable(after heading: String, in text: String) -> [(Int, String)] {
        guard let start = text.range(of: heading) else { return [] }
        var rows: [(Int, String)] = []
        for line in text[start.upperBound...].split(separator: "\n").drop(while: { !$0.hasPrefix("|") }).prefix(while: { $0.hasPrefix("|") }) {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            if cells.count >= 3, let code = Int(cells[1]) { rows.append((code, cells[2])) }
        }
        return rows
    }

    /// The `.It CODE` items of the first `.Bl` list after `.Nm scand scan :` in the man page source, as the
    /// rendered text (`.Fl -x` is `--x`; the lines of an item joined by spaces).
    func manTable(_ mdoc: String) -> [(Int, String)] {
        guard let start = mdoc.range(of: ".Nm scand scan :") else { return [] }
        var rows: [(Int, String)] = []
        for line in mdoc[start.upperBound...].split(separator: "\n").map(String.init) {
            if line == ".El" { break }
            if line.hasPrefix(".It ") { rows.append((Int(line.dropFirst(4)) ?? -1, "")); continue }
            guard !rows.isEmpty else { continue }
            var text = line
            if line.hasPrefix(".Fl ") {
                let words = line.dropFirst(4).split(separator: " ")
                text = "-" + words[0] + words.dropFirst().joined()
            }
            rows[rows.count - 1].1 += (rows[rows.count - 1].1.isEmpty ? "" : " ") + text
        }
        return rows
    }

    @Test func exitStatusesAreTheSameInHelpManPageAndReadme() throws {
        let help = try ScandBinary.run(["scan", "--help"], environment: TestProcess.environment(adding: ["COLUMNS": "10000"])).stdoutText
        let section = try #require(help.range(of: "EXIT STATUS").map { help[$0.upperBound...] }, "scan --help has no EXIT STATUS")
        var helpRows: [(Int, String)] = []
        for line in section.split(separator: "\n").dropFirst() {
            let t = line.trimmingCharacters(in: .whitespaces)
            guard let colon = t.firstIndex(of: ":"), let code = Int(t[..<colon]) else { break }
            helpRows.append((code, t[t.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        let readme = try String(contentsOfFile: DaemonPaths.root + "/README.md", encoding: .utf8)
        let readmeRows = markdownTable(after: "### Exit status", in: readme)
        let mdoc = try String(contentsOfFile: DaemonPaths.root + "/docs/man/scand-contract.mdoc", encoding: .utf8)
        let manRows = manTable(mdoc)
        #expect(helpRows.map(\.0) == [0, 1, 2, 4, 64], "\(helpRows)")
        #expect(readmeRows.map(\.0) == helpRows.map(\.0) && manRows.map(\.0) == helpRows.map(\.0), "\(readmeRows) \(manRows)")
        for (h, (r, m)) in zip(helpRows, zip(readmeRows, manRows)) {
            #expect(r.1 == h.1, "README's \(r.0) differs from scan --help:\n\(r.1)\n\(h.1)")
            #expect(m.1 == h.1, "the man page's \(m.0) differs from scan --help:\n\(m.1)\n\(h.1)")
        }
        // And the code does what the table says: an input without an object among inputs with one is 0; 4
        // only when none held one.
        #expect(try ScandBinary.run(["scan", "-q", "exact.png", "empty-scene.png"]).status == 0)
        #expect(try ScandBinary.run(["scan", "-q", "empty-scene.png"]).status == 4)
    }

    // MARK: Unix input habits

    @Test func anImageOnStdinIsScanned() throws {
        let dir = DaemonPaths.tempDir("stdin")
        defer { DaemonPaths.remove(dir) }
        for name in ["exact.png", "qr-utf8.png"] {
            let shell = "cat \(Fixtures.path(name)) | \(DaemonPaths.scand) scan -"
            let r = try TestProcess.run("/bin/sh", ["-c", shell])
            let firstLine = r.stdout.split(separator: 0x0A).first.map { Data($0) } ?? Data()
            let line = (try? JSONSerialization.jsonObject(with: firstLine)) as? [String: Any]
            let object = (line?["objects"] as? [[String: Any]])?.first
            #expect(r.status == 0 && line?["source"] as? String == "-" && object?["type"] as? String == "qr", "\(name): \(r.stderr)")
        }
        // Y4M on stdin is still a stream (every frame), and nothing on stdin is an error naming it.
        let y4m = try ScandBinary.run(["scan", "-"], stdin: try Fixtures.bytes("clip-422.y4m"))
        #expect(y4m.status == 0 && y4m.lines.count > 1)
        let empty = try ScandBinary.run(["scan", "-"], stdin: [])
        #expect(empty.status == 2 && empty.stderr.contains("] -: cannot decode: empty input"), "\(empty.stderr)")
    }

    @Test func filesFromTakesNULSeparatedNamesAndLineComments() throws {
        let dir = DaemonPaths.tempDir("list")
        defer { DaemonPaths.remove(dir) }
        let odd = try copy("exact.png", to: dir, as: "new\nline.png")
        let hash = try copy("qr-utf8.png", to: dir, as: "#hash.png")
        let plain = try copy("exact.png", to: dir, as: "plain.png")
        // NUL-separated (find -print0): names taken exactly, a newline and a leading '#' included.
        let list = Array("\(odd)\0\(hash)\0\(plain)\0".utf8)
        let nul = try ScandBinary.run(["scan", "--files-from", "-", "-0"], stdin: list)
        #expect(nul.status == 0, "\(nul.stderr)")
        #expect(try nul.jsonLines().map { $0["source"] as? String } == [odd, hash, plain].map { $0.replacingOccurrences(of: "\n", with: "\\x0a") })
        // One per line: '#' lines are comments (not opened), ./#NAME names such a file.
        let lines = "# photos of the shelf\n\(plain)\n#hash.png\n./#hash.png\n"
        let text = try ScandBinary.run(["scan", "--files-from", "-"], stdin: Array(lines.utf8), directory: URL(fileURLWithPath: dir))
        #expect(text.status == 0, "\(text.stderr)")
        #expect(try text.jsonLines().map { $0["source"] as? String } == [plain, "./#hash.png"])
        #expect(!text.stderr.contains("no such file"), "\(text.stderr)")
        #expect(try ScandBinary.run(["scan", "-0", "exact.png"]).status == 64, "-0 without --files-from")
    }

    @Test func jobsZeroUsesEveryCore() throws {
        let inputs = ["exact.png", "qr-utf8.png", "multi.png", "empty-scene.png"]
        let one = try ScandBinary.run(["scan"] + inputs)
        let all = try ScandBinary.run(["scan", "--jobs", "0"] + inputs)
        #expect(all.status == 0 && one.status == 0, "\(all.stderr)")
        #expect(all.stdout == one.stdout)
        #expect(try ScandBinary.run(["scan", "--jobs", "-1", "exact.png"]).status == 64)
    }

    /// Runs scand with stderr on a pty (python3's pty module); returns its status and what the terminal
    /// got (CRs removed).
    func onTerminal(_ args: [String]) throws -> (status: Int32, stderr: String) {
        let script = """
        import os, pty, subprocess, sys
        master, slave = pty.openpty()
        p = subprocess.run(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=slave)
        os.close(slave)
        out = b""
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        sys.stdout.buffer.write(out)
        sys.exit(p.returncode)
        """
        let r = try TestProcess.run(DaemonPaths.python, ["-c", script, DaemonPaths.scand] + args, directory: Fixtures.directory)
        return (r.status, String(decoding: r.stdout, as: UTF8.self).replacingOccurrences(of: "\r", with: ""))
    }

    @Test func logLinesAreShortOnATerminalAndFullElsewhere() throws {
        let evil = "nope-\u{1B}[31m.png"
        let tty = try onTerminal(["scan", "nope.png", evil, "exact.png"])
        #expect(tty.status == 1)
        let lines = tty.stderr.split(separator: "\n").map(String.init)
        #expect(lines.first == "scand: nope.png: cannot read: no such file", "\(lines)")
        #expect(lines.dropFirst().first == "scand: nope-\\x1b[31m.png: cannot read: no such file", "\(lines)")
        #expect(!tty.stderr.contains("\u{1B}"), "control characters stay escaped: \(lines)")
        // To a file: the timestamped form, level and module.
        let file = try ScandBinary.run(["scan", "nope.png", "exact.png"])
        let first = try #require(file.stderr.split(separator: "\n").first.map(String.init))
        #expect(first.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4} error scand: \[ScanKit\] nope.png: cannot read: no such file$"#,
                            options: .regularExpression) != nil, "\(first)")
    }

    // MARK: --annotate

    @Test func annotateTwiceKeepsTheResultsAndNamesTheFile() throws {
        let dir = DaemonPaths.tempDir("annot")
        defer { DaemonPaths.remove(dir) }
        let out = dir + "/out"
        let first = try ScandBinary.run(["scan", "--annotate", out, "exact.png"])
        #expect(first.status == 0, "\(first.stderr)")
        let line = try #require(try first.jsonLines().first)
        #expect(line["annotated"] as? String == out + "/exact.jpg", "\(line)")
        #expect(FileManager.default.fileExists(atPath: out + "/exact.jpg"))
        // Again: the file exists. The scan's line is still printed (without "annotated"), the error names
        // the file, and the status is 1.
        let again = try ScandBinary.run(["scan", "--annotate", out, "exact.png"])
        #expect(again.status == 1, "\(again.stderr)")
        let kept = try #require(try again.jsonLines().first, "no JSON line: \(again.stderr)")
        #expect(kept["annotated"] == nil && (kept["objects"] as? [[String: Any]])?.first?["value"] as? String == "LOGIN:ab12")
        #expect(again.stderr.contains("\(out)/exact.jpg: file exists"), "\(again.stderr)")
        // --overwrite replaces it.
        let replaced = try ScandBinary.run(["scan", "--annotate", out, "--overwrite", "exact.png"])
        let named = try replaced.jsonLines().first?["annotated"] as? String
        #expect(replaced.status == 0 && named == out + "/exact.jpg", "\(replaced.stderr)")
        #expect(try ScandBinary.run(["scan", "--overwrite", "exact.png"]).status == 64, "--overwrite without --annotate")
    }
}

/// Issue 46: the README's recipe for a payload's exact bytes, run as written (bash, Debian's jq and base64) on
/// the binary QR fixture (bytes 00 01 02 FF FE 80 10 7F). Before, `@base64d` in jq 1.6 turned the bytes that are
/// not UTF-8 into U+FFFD: 8 bytes became 14.
@Suite struct ReadmeRecipeTests {
    @Test func theExactBytesRecipeKeepsEveryByte() throws {
        let readme = try String(contentsOf: Fixtures.repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let recipe = try #require(readme.split(separator: "\n").first { $0.contains("> payload.bin") })
        let command = String(recipe.prefix { $0 != "#" })
            .replacingOccurrences(of: "scand scan in.png", with: "'\(ScandBinary.url.path)' scan '\(TextFixtures.path(TextFixtures.case("qr_binary.png").file))'")
        let dir = try TemporaryDirectory()
        let r = try TestProcess.run("/bin/bash", ["-o", "pipefail", "-c", command], directory: dir.url)
        #expect(r.status == 0, "\(command): \(r.stderr)")
        let written = try Data(contentsOf: dir.url.appendingPathComponent("payload.bin"))
        #expect([UInt8](written) == [0x00, 0x01, 0x02, 0xFF, 0xFE, 0x80, 0x10, 0x7F])
    }
}

/// `scand run` sends the Swift runtime's crash report to stderr (`SWIFT_BACKTRACE=…,output-to=stderr`, set by
/// executing itself again): by default the backtracer writes to stdout, into the JSON lines, as it did when the
/// chaos soak crashed scand at its descriptor limit (bench/soak/README.md).
@Suite struct CrashReportTests {
    /// SWIFT_BACKTRACE as the running daemon has it, started with `given` (nil: unset).
    func backtraceSetting(given: String?) throws -> String? {
        let dir = DaemonPaths.tempDir("backtrace")
        defer { DaemonPaths.remove(dir) }
        var env = ProcessInfo.processInfo.environment
        env["SWIFT_BACKTRACE"] = given
        let d = try DaemonProcess(["run", "--input", DaemonPaths.kiosk, "--loop", "--socket", dir + "/s.sock", "--log-level", "notice"],
                                  dir: dir, environment: env)
        #expect(d.waitReady())
        // Executed again by its own path, not as /proc/self/exe: still named scand (ps, pgrep -x, the journal).
        #expect((try? String(contentsOfFile: "/proc/\(d.pid)/comm", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) == "scand")
        let environ = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(d.pid)/environ"))
        let value = environ.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            .first { $0.hasPrefix("SWIFT_BACKTRACE=") }.map { String($0.dropFirst("SWIFT_BACKTRACE=".count)) }
        #expect(d.terminate() == 0)
        return value
    }

    @Test func theDaemonsCrashReportGoesToStderr() throws {
        #expect(try backtraceSetting(given: nil) == "output-to=stderr")
        #expect(try backtraceSetting(given: "enable=yes") == "enable=yes,output-to=stderr", "the user's settings are kept")
        #expect(try backtraceSetting(given: "output-to=/var/log/scand-crash.txt") == "output-to=/var/log/scand-crash.txt",
                "an output the user chose is left alone")
    }
}

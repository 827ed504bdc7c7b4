import Foundation
import Testing
import ScanTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Issue 20 (operators and script writers) and issue 16's "Config and flags": the config file and the flags,
/// help, the install layout, journald, --version, the summary and progress lines. Real binary, real files.
@Suite struct CLITests {
    /// Runs `program args` to its end; stdout and stderr go through files.
    func runProgram(_ program: String, _ args: [String], environment: [String: String]? = nil,
                    timeout: Double = 300) throws -> (status: Int32?, stdout: String, stderr: String) {
        let dir = DaemonPaths.tempDir("prog")
        defer { DaemonPaths.remove(dir) }
        let p = try DaemonRun.start(program, args, stdout: dir + "/out", stderr: dir + "/err", environment: environment)
        let status = DaemonRun.wait(p, timeout: timeout)
        return (status, daemonReadText(dir + "/out"), daemonReadText(dir + "/err"))
    }

    /// `--check-config` prints the settings that would run; parsed here.
    func effective(_ args: [String]) throws -> [String: Any] {
        let r = try ScandBinary.run(["run"] + args)
        #expect(r.status == 0, "\(r.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(r.stdout)) as? [String: Any]
        return try #require(object?["effective"] as? [String: Any])
    }

    // MARK: config and flags

    @Test func anExplicitFlagAlwaysBeatsTheFileEvenAtItsDefault() throws {
        let dir = try TemporaryDirectory()
        let config = dir.url.appendingPathComponent("scand.json").path
        try """
        {"scanDensity": 4, "logLevel": "debug", "engine": "zxing", "faceCascade": "haar", "minFaceSize": 60,
         "tryInverted": false, "parallelDetectors": false, "preset": "vga640x480", "device": "/dev/video9",
         "viewSize": "1080x1920", "orientation": "portrait", "presence": {"lostAfter": 3}, "confirmTransformed": false}
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let file = try effective(["--check-config", config])
        #expect(file["scanDensity"] as? Int == 4 && file["logLevel"] as? String == "debug" && file["engine"] as? String == "zxing")
        #expect(file["faceCascade"] as? String == "haar" && file["minFaceSize"] as? Int == 60 && file["tryInverted"] as? Bool == false)
        #expect(file["preset"] as? String == "vga640x480" && file["viewSize"] as? String == "1080x1920")
        #expect(file["orientation"] as? String == "portrait" && file["presence.lostAfter"] as? Double == 3)
        #expect(file["parallelDetectors"] as? Bool == false && file["confirmTransformed"] as? Bool == false)
        // Each flag at the very value that is the default still wins over the file.
        let flags = try effective(["--check-config", config, "--scan-density", "1", "--log-level", "warning", "--engine", "both",
                                   "--face-cascade", "lbp", "--min-face-size", "40", "--inverted", "--parallel-detectors",
                                   "--preset", "high", "--orientation", "landscapeRight", "--lost-after", "1",
                                   "--confirm-transformed"])
        #expect(flags["scanDensity"] as? Int == 1 && flags["logLevel"] as? String == "warning" && flags["engine"] as? String == "both")
        #expect(flags["faceCascade"] as? String == "lbp" && flags["minFaceSize"] as? Int == 40 && flags["tryInverted"] as? Bool == true)
        #expect(flags["preset"] as? String == "high" && flags["orientation"] as? String == "landscapeRight")
        #expect(flags["presence.lostAfter"] as? Double == 1 && flags["parallelDetectors"] as? Bool == true)
        #expect(flags["confirmTransformed"] as? Bool == true)
        // A flag not given leaves the file's value.
        #expect(flags["viewSize"] as? String == "1080x1920")
    }

    @Test func checkConfigNamesLineAndColumnAndExitsOne() throws {
        let dir = try TemporaryDirectory()
        let config = dir.url.appendingPathComponent("bad.json").path
        try "{\n  \"types\": [\"qr\"],\n  \"minFaceSize\": 4\n}\n".write(toFile: config, atomically: true, encoding: .utf8)
        let r = try ScandBinary.run(["run", "--check-config", config])
        #expect(r.status == 1)
        #expect(r.stderr.contains("\(config):3:3: 'minFaceSize' must be 8...16384 pixels, got 4"), "\(r.stderr)")
        #expect(r.stdout.isEmpty)
        try "{\n  \"engine\": \"zbr\"\n}\n".write(toFile: config, atomically: true, encoding: .utf8)
        let e = try ScandBinary.run(["run", "--check-config", config])
        #expect(e.status == 1 && e.stderr.contains("\(config):2:3: 'engine' must be one of zbar, zxing, both, got 'zbr'"), "\(e.stderr)")
        // The same file given to --config is a usage error naming 'scand run'.
        let u = try ScandBinary.run(["run", "--config", config, "--input", "kiosk.y4m"])
        #expect(u.status == 64 && u.stderr.contains("\(config):2:3:") && u.stderr.contains("Usage: scand run"), "\(u.stderr)")
    }

    @Test func sighupPicksUpThePreviewKeys() throws {
        let dir = DaemonPaths.tempDir("hupview")
        defer { DaemonPaths.remove(dir) }
        let sock = dir + "/s.sock", config = dir + "/scand.json"
        try #"{"types": ["qr"]}"#.write(toFile: config, atomically: true, encoding: .utf8)
        let d = try DaemonProcess(["run", "--config", config, "--input", DaemonPaths.kiosk, "--socket", sock, "--loop",
                                   "--log-level", "notice"], dir: dir)
        #expect(d.waitReady())
        let c = try DaemonSocketClient(path: sock)
        func objects(_ lines: [String]) -> [[String: Any]] {
            lines.compactMap(DaemonEventLine.init).filter { $0.event == "metadata" }
                .flatMap { ($0.object["objects"] as? [[String: Any]]) ?? [] }
        }
        let before = objects(c.readLines(for: 3).lines)
        #expect(!before.isEmpty && before.allSatisfy { $0["view"] == nil })
        try #"{"types": ["qr"], "viewSize": "480x640", "orientation": "portrait", "engine": "zbar"}"#
            .write(toFile: config, atomically: true, encoding: .utf8)
        d.signal(SIGHUP)
        #expect(daemonEventually(5) { d.stderr.contains("configuration reloaded") })
        _ = c.readLines(for: 0.5)
        let after = objects(c.readLines(for: 4).lines)
        #expect(!after.isEmpty && after.allSatisfy { $0["view"] != nil }, "every object has view geometry after the reload")
        #expect(d.terminate() == 0)
    }

    // MARK: help and errors

    @Test func helpIsGroupedWithExamplesAndRunHasNoScanOnlyOptions() throws {
        for command in ["scan", "run", "watch", "bench"] {
            let r = try ScandBinary.run([command, "--help"])
            #expect(r.status == 0)
            #expect(r.stdoutText.contains("EXAMPLES:\n  "), "\(command) --help has examples")
        }
        let run = try ScandBinary.run(["run", "--help"]).stdoutText
        let order = ["SOURCES:", "OUTPUTS:", "TYPES:", "READER TUNING:", "FACE TUNING"].map { run.range(of: $0)?.lowerBound }
        #expect(order.allSatisfy { $0 != nil })
        #expect(zip(order, order.dropFirst()).allSatisfy { $0! < $1! }, "sources, outputs, types, then tuning")
        for scanOnly in ["--frames", "--duration", "--files-from", "--quiet"] {
            #expect(!run.contains(scanOnly), "run --help lists \(scanOnly)")
        }
        let scan = try ScandBinary.run(["scan", "--help"]).stdoutText
        #expect(scan.contains("--files-from") && scan.contains("--frames"))
    }

    @Test func errorsNameTheSubcommandAndEchoTheValue() throws {
        let density = try ScandBinary.run(["run", "--input", "kiosk.y4m", "--scan-density", "40"])
        #expect(density.status == 64)
        #expect(density.stderr.contains("--scan-density must be 1...16, got 40") && density.stderr.contains("Usage: scand run"), "\(density.stderr)")
        #expect(!density.stderr.contains("Usage: scand <subcommand>"))
        let engine = try ScandBinary.run(["scan", "--engine", "zbr", "exact.png"])
        #expect(engine.status == 64 && engine.stderr.contains("'zbr'") && engine.stderr.contains("Usage: scand scan"), "\(engine.stderr)")
        let type = try ScandBinary.run(["scan", "--types", "qrcod", "exact.png"])
        #expect(type.status == 64 && type.stderr.contains("'qrcod' (did you mean 'qr'?)"), "\(type.stderr)")
        let noSource = try ScandBinary.run(["run", "--stdout"])
        #expect(noSource.status == 64 && noSource.stderr.contains("no source") && noSource.stderr.contains("Usage: scand run"), "\(noSource.stderr)")
        let noSink = try ScandBinary.run(["run", "--input", "kiosk.y4m"])
        #expect(noSink.status == 64 && noSink.stderr.contains("nothing to deliver to") && noSink.stderr.contains("Usage: scand run"), "\(noSink.stderr)")
        let face = try ScandBinary.run(["scan", "--types", "face", "--min-face-size", "3", "exact.png"])
        #expect(face.status == 64 && face.stderr.contains("--min-face-size must be 8...16384 pixels, got 3"), "\(face.stderr)")
    }

    @Test func zbarTypeNamesWork() throws {
        let r = try ScandBinary.run(["scan", "--raw", "--types", "qrcode,i25,databar", "exact.png"])
        #expect(r.status == 0 && r.stdoutText == "LOGIN:ab12\n", "\(r.stderr)")
    }

    // MARK: logs, version, summary, progress

    @Test func versionNamesTheLibraries() throws {
        let r = try ScandBinary.run(["--version"])
        let text = r.stdoutText
        #expect(r.status == 0)
        #expect(text.range(of: #"zbar \d+\.\d+\.\d+, OpenCV \d+\.\d+\.\d+.*, zxing-cpp \d+\.\d+\.\d+"#, options: .regularExpression) != nil, "\(text)")
    }

    @Test func journalStreamGivesPriorityPrefixesAndNoTimestamp() throws {
        let dir = try TemporaryDirectory()
        let log = dir.url.appendingPathComponent("stderr").path
        #expect(FileManager.default.createFile(atPath: log, contents: nil))
        var st = stat()
        #expect(stat(log, &st) == 0)
        let stream = "\(st.st_dev):\(st.st_ino)"
        // scand's stderr is the file JOURNAL_STREAM names: journal form.
        let sh = "exec \"$0\" scan missing.png 2>>\"$1\""
        let journal = try runProgram("/bin/sh", ["-c", sh, ScandBinary.url.path, log], environment: ["JOURNAL_STREAM": stream])
        #expect(journal.status == 2)
        let lines = daemonReadText(log).split(separator: "\n").map(String.init)
        #expect(lines.first == "<3>error scand: [ScanKit] missing.png: cannot read: no such file", "\(lines)")
        // The variable inherited but stderr elsewhere: the ordinary form with its timestamp.
        let other = try runProgram(ScandBinary.url.path, ["scan", "missing.png"], environment: ["JOURNAL_STREAM": stream])
        #expect(other.stderr.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4} error scand: "#, options: .regularExpression) != nil, "\(other.stderr)")
    }

    @Test func scanEndsWithASummaryLineAndQuietDropsIt() throws {
        let r = try ScandBinary.run(["scan", "exact.png", "multi.png", "empty-scene.png", "missing.png"])
        #expect(r.status == 1)
        let last = r.stderr.split(separator: "\n").last.map(String.init) ?? ""
        #expect(last.range(of: #"^scanned 5 objects from 4 inputs \(3 frames\) in \d+\.\d\d seconds \(1 failed, 1 with no object\)$"#,
                           options: .regularExpression) != nil, "\(r.stderr)")
        let quiet = try ScandBinary.run(["scan", "-q", "exact.png"])
        #expect(quiet.status == 0 && quiet.stderr.isEmpty)
    }

    @Test func progressLineOnATerminalForALongInput() throws {
        // A Y4M stream that takes ~4 s to arrive, through a pseudo-terminal (script(1)): the progress line
        // appears after 2 s and is erased at the end; through a pipe there is none.
        let dir = try TemporaryDirectory()
        let slow = dir.url.appendingPathComponent("slow.py").path
        try """
        import sys, time
        out = sys.stdout.buffer
        out.write(b"YUV4MPEG2 W64 H48 F10:1 Ip A1:1 Cmono\\n"); out.flush()
        for i in range(10):
            out.write(b"FRAME\\n" + bytes([128]) * (64 * 48)); out.flush(); time.sleep(0.4)
        """.write(toFile: slow, atomically: true, encoding: .utf8)
        let pipeline = "python3 '\(slow)' | '\(ScandBinary.url.path)' scan --types qr - >/dev/null"
        let tty = try runProgram("/usr/bin/script", ["-qec", pipeline, "/dev/null"], timeout: 60)
        #expect(tty.status == 4)
        #expect(tty.stdout.contains("\r\u{1B}[Kscanning -: frame "), "\(tty.stdout.debugDescription)")
        #expect(tty.stdout.contains("\r\u{1B}[Kscanned 0 objects from 1 input (10 frames)"))
        let piped = try runProgram("/bin/sh", ["-c", pipeline], timeout: 60)
        #expect(!piped.stderr.contains("scanning -:") && piped.stderr.contains("scanned 0 objects from 1 input (10 frames)"))
    }

    // MARK: install

    @Test func installIntoATemporaryPrefixThenScanAFaceAndAnMP4FromElsewhere() throws {
        let bin = URL(fileURLWithPath: ScandBinary.url.path).deletingLastPathComponent().path
        let prefix = DaemonPaths.tempDir("prefix")
        defer { DaemonPaths.remove(prefix) }
        let install = try runProgram(DaemonPaths.root + "/scripts/install", ["--prefix", prefix, "--from", bin])
        #expect(install.status == 0, "\(install.stderr)")
        let installed = install.stdout.split(separator: "\n").map(String.init)
        for file in ["bin/scand", "lib/scand/libscand-opencv-codecs.so", "share/scand/Models/lbpcascade_frontalface_improved.xml",
                     "share/man/man1/scand.1", "share/bash-completion/completions/scand", "share/zsh/site-functions/_scand",
                     "share/fish/vendor_completions.d/scand.fish", "share/doc/scand/daemon.md", "lib/systemd/system/scand.service"] {
            #expect(installed.contains(prefix + "/" + file), "\(file) installed")
            #expect(FileManager.default.fileExists(atPath: prefix + "/" + file))
        }
        // From another directory, with no build tree next to the binary and no environment hints.
        let elsewhere = DaemonPaths.tempDir("elsewhere")
        defer { DaemonPaths.remove(elsewhere) }
        let env = ["PATH": "/usr/bin:/bin", "HOME": elsewhere]
        let scand = prefix + "/bin/scand"
        let face = try runProgram("/bin/sh", ["-c", "cd '\(elsewhere)' && exec '\(scand)' scan --types face '\(Fixtures.path("faces/astronaut.pgm"))'"],
                                  environment: env)
        #expect(face.status == 0, "\(face.stderr)")
        #expect(face.stdout.contains("\"type\":\"face\""))
        let video = try runProgram("/bin/sh", ["-c", "cd '\(elsewhere)' && exec '\(scand)' scan --raw '\(Fixtures.path("clip.mp4"))'"],
                                   environment: env)
        #expect(video.status == 0, "\(video.stderr)")
        #expect(!video.stdout.isEmpty)
        // The unit names the installed binary and a documentation file that exists.
        let unit = daemonReadText(prefix + "/lib/systemd/system/scand.service")
        #expect(unit.contains("ExecStart=\(prefix)/bin/scand run"))
        let doc = try #require(unit.split(separator: "\n").first { $0.hasPrefix("Documentation=") })
        let files = doc.split(separator: " ").filter { $0.hasPrefix("file://") }.map { String($0.dropFirst("file://".count)) }
        #expect(!files.isEmpty && files.allSatisfy { FileManager.default.fileExists(atPath: $0) }, "\(doc)")
        // The man page renders, with the generated options and the hand-written contract.
        let man = try runProgram("/usr/bin/man", ["-l", "-P", "cat", prefix + "/share/man/man1/scand.1"], environment: ["MANWIDTH": "100", "PATH": "/usr/bin:/bin"])
        #expect(man.status == 0, "\(man.stderr)")
        for text in ["--check-config", "--scan-density", "JSON OUTPUT", "EXIT STATUS", "every input was scanned, but none held an object"] {
            #expect(man.stdout.contains(text), "man page has \(text)")
        }
        // Completions are the parser's own scripts for the installed binary.
        #expect(daemonReadText(prefix + "/share/bash-completion/completions/scand").contains("--check-config"))
    }

    // MARK: scripts/demo

    @Test func demoStdoutHoldsOnlyTheDemosOutput() throws {
        // The real demo pipeline (install-deps demo, the clip, the scan, jq) with the debug binary instead of a
        // release build; CI="" so install-deps only checks (everything it needs is installed by scripts/test).
        let r = try runProgram(DaemonPaths.root + "/scripts/demo", [], environment: ["SCAND": ScandBinary.url.path, "CI": ""])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == 3 + 45, "3 metadata lines, then one jq line per frame of the 45-frame clip")
        for line in lines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object?["frame"] != nil, "not demo output: \(line)")
        }
        #expect(lines.prefix(3).allSatisfy { $0.hasPrefix(#"{"event":"metadata""#) })
        #expect(r.stderr.contains("== per frame") && r.stderr.contains("scanned "), "headings and the summary go to stderr")
    }

    @Test func installDepsForTheDemoSendsAptToStderrAndSkipsTheVMPackages() throws {
        // A stub apt-get (the one fake here: the test cannot install packages) that chats on stdout as apt
        // does and records what it was asked for.
        let dir = try TemporaryDirectory()
        let log = dir.url.appendingPathComponent("apt.log").path
        let stub = dir.url.appendingPathComponent("apt-get").path
        try "#!/bin/sh\necho \"Reading package lists... $*\"\necho \"$*\" >> '\(log)'\n".write(toFile: stub, atomically: true, encoding: .utf8)
        #expect(chmod(stub, 0o755) == 0)
        let r = try runProgram(DaemonPaths.root + "/scripts/install-deps", ["demo"],
                               environment: ["CI": "true", "PATH": dir.url.path + ":/usr/bin:/bin"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.isEmpty, "apt's output must not reach stdout: \(r.stdout)")
        #expect(r.stderr.contains("Reading package lists... update"))
        let asked = daemonReadText(log)
        #expect(asked.contains("install") && asked.contains("qrencode") && asked.contains("python3-skimage") && asked.contains("jq"))
        #expect(!asked.contains("qemu") && !asked.contains("ffmpeg") && !asked.contains("socat"), "\(asked)")
    }
}

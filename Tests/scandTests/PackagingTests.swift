import Foundation
import Testing
import ScanTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Issue 46, packaging: the one build package list and its drift check (scripts/check-deps), the man page
/// under `mandoc -T lint`, the fleet unit, and an interrupted scripts/install. Real scripts, real tools.
@Suite struct PackagingTests {
    let root = DaemonPaths.root

    func run(_ program: String, _ args: [String], environment: [String: String]? = nil,
             timeout: Double = 120) throws -> (status: Int32?, stdout: String, stderr: String) {
        let dir = DaemonPaths.tempDir("pkg")
        defer { DaemonPaths.remove(dir) }
        let p = try DaemonRun.start(program, args, stdout: dir + "/out", stderr: dir + "/err", environment: environment)
        let status = DaemonRun.wait(p, timeout: timeout)
        return (status, daemonReadText(dir + "/out"), daemonReadText(dir + "/err"))
    }

    /// The directory of the test's scand build (scand, generate-manual: scripts/test builds both).
    var binDir: String { URL(fileURLWithPath: ScandBinary.url.path).deletingLastPathComponent().path }

    // MARK: one package list, checked against what the package links

    @Test func checkDepsPassesOnTheBuildListAndNamesWhatTheOldDemoListLacked() throws {
        let ok = try run(root + "/scripts/check-deps", [])
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(ok.stderr.contains("provides all"), "\(ok.stderr)")
        // The demo's list before issue 46 (scripts/install-deps' DEMO_PACKAGES): the build failed on a fresh
        // Debian 12 with 'mosquitto.h' file not found.
        let dir = try TemporaryDirectory()
        let old = dir.url.appendingPathComponent("old-demo.txt").path
        let oldDemo = ["pkg-config", "libzbar-dev", "libv4l-dev", "libpng-dev", "libjpeg62-turbo-dev", "libgif-dev",
                       "libheif-dev", "libopencv-core-dev", "libopencv-imgproc-dev", "libopencv-objdetect-dev",
                       "libopencv-imgcodecs-dev", "libopencv-videoio-dev", "cmake", "g++", "curl", "ca-certificates",
                       "qrencode", "zint", "jq", "python3", "python3-numpy", "python3-pil", "python3-skimage"]
        try oldDemo.joined(separator: "\n").write(toFile: old, atomically: true, encoding: .utf8)
        let bad = try run(root + "/scripts/check-deps", ["--list", old])
        #expect(bad.status == 1, "\(bad.stderr)")
        #expect(bad.stderr.contains("libmosquitto-dev is missing") && bad.stderr.contains("mosquitto.h"), "\(bad.stderr)")
        #expect(bad.stderr.contains("libopencv-dnn-dev is missing") && bad.stderr.contains("opencv2/dnn.hpp"), "\(bad.stderr)")
        // Dropping a tool scripts/build-zxing runs is caught too.
        let build = try run(root + "/scripts/install-deps", ["--list", "build"])
        let noCMake = dir.url.appendingPathComponent("no-cmake.txt").path
        try build.stdout.split(separator: "\n").filter { $0 != "cmake" }.joined(separator: "\n")
            .write(toFile: noCMake, atomically: true, encoding: .utf8)
        let tool = try run(root + "/scripts/check-deps", ["--list", noCMake])
        #expect(tool.status == 1 && tool.stderr.contains("cmake is missing"), "\(tool.stderr)")
    }

    @Test func theDemoAndTestSetsStartFromTheBuildList() throws {
        func set(_ name: String) throws -> [String] {
            let r = try run(root + "/scripts/install-deps", ["--list", name])
            #expect(r.status == 0, "\(r.stderr)")
            return r.stdout.split(separator: "\n").map(String.init)
        }
        let build = try set("build"), demo = try set("demo"), all = try set("all")
        #expect(build.contains("libmosquitto-dev") && build.contains("libopencv-dnn-dev"))
        #expect(Array(demo.prefix(build.count)) == build && Array(all.prefix(demo.count)) == demo)
        #expect(all.contains("mandoc") && !demo.contains("mandoc"))
    }
}

extension PackagingTests {
    // MARK: the fleet unit

    /// A unit file's settings: section → key → values in the order given (systemd's lists accumulate).
    func unitSettings(_ path: String) -> [String: [String: [String]]] {
        var settings: [String: [String: [String]]] = [:], section = ""
        for raw in daemonReadText(path).split(separator: "\n") {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") { section = String(line.dropFirst().dropLast()); continue }
            guard let eq = line.firstIndex(of: "=") else { continue }
            settings[section, default: [:]][String(line[..<eq]), default: []].append(String(line[line.index(after: eq)...]))
        }
        return settings
    }

    /// RestrictAddressFamilies= as systemd reads it: assignments add families, an empty one resets the list,
    /// a `~` makes it a deny list (returned as nil: every family not named is allowed).
    func allowedFamilies(_ values: [String]?) -> Set<String>? {
        var allowed: Set<String> = []
        for value in values ?? [] {
            if value.isEmpty { allowed = []; continue }
            if value.hasPrefix("~") { return nil }
            allowed.formUnion(value.split(separator: " ").map(String.init))
        }
        return values == nil ? nil : allowed
    }

    @Test func theFleetUnitAllowsTheNetworkAndDiffersFromTheHardenedOneOnlyThere() throws {
        let hardened = unitSettings(root + "/contrib/scand.service")
        let fleet = unitSettings(root + "/contrib/scand-fleet.service")
        #expect(hardened["Service"]?["PrivateNetwork"] == ["yes"] && allowedFamilies(hardened["Service"]?["RestrictAddressFamilies"]) == ["AF_UNIX"])
        let service = try #require(fleet["Service"])
        #expect(!["yes", "true", "1", "on"].contains(service["PrivateNetwork"]?.last ?? "no"), "the fleet unit has a network")
        let families = try #require(allowedFamilies(service["RestrictAddressFamilies"]))
        #expect(families.isSuperset(of: ["AF_UNIX", "AF_INET", "AF_INET6"]), "\(families)")
        #expect(fleet["Unit"]?["After"]?.contains("network-online.target") == true)
        // Everything else, the hardening above all, is scand.service's.
        let differing: [String: Set<String>] = ["Service": ["PrivateNetwork", "RestrictAddressFamilies", "StateDirectory"],
                                                "Unit": ["Description", "Documentation", "Wants", "After", "Conflicts"],
                                                "Install": []]
        for (section, allowed) in differing {
            let keys = Set(hardened[section, default: [:]].keys).union(fleet[section, default: [:]].keys).subtracting(allowed)
            for key in keys.sorted() {
                #expect(hardened[section]?[key] == fleet[section]?[key], "[\(section)] \(key) differs")
            }
        }
    }

    @Test func installedUnitsPassSystemdAnalyzeVerify() throws {
        let prefix = DaemonPaths.tempDir("units")
        defer { DaemonPaths.remove(prefix) }
        let install = try run(root + "/scripts/install", ["--prefix", prefix, "--from", binDir], timeout: 300)
        #expect(install.status == 0, "\(install.stderr)")
        let units = ["scand.service", "scand.socket", "scand-fleet.service"].map { prefix + "/lib/systemd/system/" + $0 }
        #expect(units.allSatisfy { install.stdout.contains($0) }, "\(install.stdout)")
        let verify = try run("/usr/bin/systemd-analyze", ["verify", "--man=no"] + units)
        #expect(verify.status == 0 && verify.stderr.isEmpty, "\(verify.stderr)")
        #expect(daemonReadText(units[2]).contains("ExecStart=\(prefix)/bin/scand run"))
    }
}

extension PackagingTests {
    // MARK: the man page

    /// Under the umask the daemon sets while it binds its socket (0177, process-wide, so inherited by anything the
    /// test process starts meanwhile), `chmod +x` left the man page's stand-in without an execute bit and
    /// generate-manual failed ("Couldn't run command process ... You don't have permission"; a CI rehearsal,
    /// 2026-11-29). The script now sets absolute modes.
    @Test func theManPageIsMadeUnderARestrictiveUmask() throws {
        let dir = try TemporaryDirectory()
        let page = dir.url.appendingPathComponent("scand.1").path
        let make = try run("/bin/sh", ["-c", "umask 0177 && exec \"$0\" \"$1\" \"$2\"", root + "/scripts/make-man-page", binDir, page])
        #expect(make.status == 0, "\(make.stderr)")
        #expect(try String(contentsOfFile: page, encoding: .utf8).contains(".Sh NAME"))
    }

    @Test func theManPageHasNoLintWarningsAndKeepsItsUnicode() throws {
        let dir = try TemporaryDirectory()
        let page = dir.url.appendingPathComponent("scand.1").path
        let make = try run(root + "/scripts/make-man-page", [binDir, page])
        #expect(make.status == 0, "\(make.stderr)")
        let lint = try run("/usr/bin/mandoc", ["-T", "lint", "-W", "warning", page])
        #expect(lint.status == 0 && lint.stdout.isEmpty && lint.stderr.isEmpty, "\(lint.stdout)\(lint.stderr)")
        // No raw UTF-8 in the source (man-db reads it as Latin-1 in a C locale), and every character outside
        // ASCII of the help texts still renders after the word before it (generate-manual dropped them all:
        // "databar, )" for "databar, …)", "90 clockwise" for "90° clockwise"); `…` renders as "...".
        let bytes = try Data(contentsOf: URL(fileURLWithPath: page))
        #expect(!bytes.contains { $0 >= 0x80 }, "characters outside ASCII are escaped")
        let rendered = try run("/usr/bin/mandoc", ["-T", "utf8", "-O", "width=1000", page]).stdout
            .replacingOccurrences(of: #".\x{08}"#, with: "", options: .regularExpression)
        let flat = rendered.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        func strings(_ value: Any) -> [String] {
            if let s = value as? String { return [s] }
            if let a = value as? [Any] { return a.flatMap(strings) }
            if let d = value as? [String: Any] { return d.values.flatMap(strings) }
            return []
        }
        let dump = try JSONSerialization.jsonObject(with: Data(try run(ScandBinary.url.path, ["--experimental-dump-help"]).stdout.utf8))
        let help = strings(dump).joined(separator: "\n")
        let special = try NSRegularExpression(pattern: #"[A-Za-z0-9(,=]+ ?[^\x{00}-\x{7F}]"#)
        let found = special.matches(in: help, range: NSRange(help.startIndex..., in: help))
            .compactMap { Range($0.range, in: help).map { String(help[$0]).replacingOccurrences(of: "\u{2026}", with: "...") } }
        #expect(!found.isEmpty, "the help texts have characters outside ASCII")
        for text in Set(found) {
            #expect(flat.contains(text), "the man page renders \(text)")
        }
    }

    // MARK: scripts/install interrupted

    /// Processes whose environment holds `marker` (the install and everything under it, wherever it moved).
    func processes(marked marker: String) -> [(pid: Int32, name: String)] {
        let needle = Data(marker.utf8)
        let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.compactMap(Int32.init) ?? []
        return pids.compactMap { pid in
            guard let environ = FileManager.default.contents(atPath: "/proc/\(pid)/environ"),
                  environ.range(of: needle) != nil else { return nil }
            return (pid, daemonReadText("/proc/\(pid)/comm").trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }

    @Test func anInterruptedInstallLeavesNoCompilerRunning() throws {
        let dir = DaemonPaths.tempDir("intr")
        defer {
            DaemonPaths.remove(dir)
            // SwiftPM's lock files for the scratch path, next to it in /tmp.
            let locks = "_" + dir.replacingOccurrences(of: "/", with: "_").dropFirst()
            for f in (try? FileManager.default.contentsOfDirectory(atPath: "/tmp")) ?? [] where f.hasPrefix(locks) {
                DaemonPaths.remove("/tmp/" + f)
            }
        }
        let marker = "SCAND_TEST_INSTALL_MARK=\(UUID().uuidString)"
        let env = ["SCAND_TEST_INSTALL_MARK": String(marker.split(separator: "=")[1]), "CI": ""]
        // A new scratch path, seeded with this build's package checkouts (resolving them again takes minutes
        // on a busy machine): the release build starts compiling at once and would go on for minutes.
        try FileManager.default.createDirectory(atPath: dir + "/build", withIntermediateDirectories: true)
        let copy = try run("/bin/cp", ["-a", root + "/.build/checkouts", root + "/.build/repositories",
                                       root + "/.build/workspace-state.json", dir + "/build/"])
        #expect(copy.status == 0, "\(copy.stderr)")
        // Started with an empty signal mask (python resets it, then execs): a child of a libdispatch worker
        // thread inherits SIGTERM blocked, and bash cannot trap a signal it gets blocked or ignored.
        let install = try DaemonRun.start("/usr/bin/python3", [
            "-c", "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); os.execv(sys.argv[1], sys.argv[1:])",
            root + "/scripts/install", "--prefix", dir + "/prefix", "--scratch-path", dir + "/build"],
            stdout: dir + "/out", stderr: dir + "/err", environment: env)
        let compiling = daemonEventually(300) {
            processes(marked: marker).contains { $0.name.hasPrefix("swift-frontend") || $0.name.hasPrefix("clang") }
        }
        #expect(compiling, "a compiler started: \(daemonReadText(dir + "/err").suffix(2000))")
        kill(install.processIdentifier, SIGTERM) // the script alone, as `kill` or `timeout` would
        let status = DaemonRun.wait(install, timeout: 60)
        #expect(status == 130, "\(daemonReadText(dir + "/err").suffix(2000))")
        let gone = daemonEventually(10) { processes(marked: marker).isEmpty }
        let left = processes(marked: marker)
        for p in left { kill(p.pid, SIGKILL) }
        #expect(gone, "left running: \(left)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/prefix/bin/scand"), "nothing installed")
    }
}

import Foundation
import Testing
import ScanCore
import ScanDaemon
import ScanTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Issue 46's consistency points, on the built binary: every `run` flag is a config key, `--check-config`
/// checks the files and devices it names, a SIGHUP reload sends a `configuration` event, `/metrics` follows
/// Prometheus conventions, and no published JSON value is `null`.
@Suite("config, reload, metrics and JSON consistency", .serialized)
struct ConfigConsistencyTests {
    // MARK: config keys

    /// The flags that are deliberately not config keys: the file itself, and what only a command line does.
    static let notConfigKeys: Set<String> = ["help", "version", "config", "check-config", "experimental-dump-help"]

    /// `scan-density` → `scanDensity`.
    static func camel(_ flag: Substring) -> String {
        let parts = flag.split(separator: "-")
        return parts.enumerated().map { $0.offset == 0 ? String($0.element) : $0.element.prefix(1).uppercased() + $0.element.dropFirst() }.joined()
    }

    /// The key a flag has by docs/daemon.md's rule: its camelCase name, the flags of the socket, presence and
    /// MQTT groups inside their objects without the group's prefix, the group's own flag as a plain value.
    static func key(for flag: String) -> [String] {
        if ["socket", "presence", "mqtt"].contains(flag) { return [flag] }
        // `--camera NAME=SOURCE` (repeatable) is one entry of the `cameras` object.
        if flag == "camera" { return ["cameras"] }
        if flag.hasPrefix("mqtt-") { return ["mqtt", camel(flag.dropFirst(5))] }
        if flag == "socket-group" { return ["socket", "group"] }
        if flag == "presence-by" { return ["presence", "by"] }
        if ["client-queue", "client-stall-timeout"].contains(flag) { return ["socket", camel(Substring(flag))] }
        if ["appear-after", "lost-after", "cooldown", "face-lost-after", "duplicate-filter"].contains(flag) { return ["presence", camel(Substring(flag))] }
        return [camel(Substring(flag))]
    }

    /// The long names of `scand run`'s arguments, from ArgumentParser's own description of the command
    /// (`--experimental-dump-help`); `--no-X` inversions count as `X`.
    static func runFlags() throws -> [String] {
        let r = try ScandBinary.run(["run", "--experimental-dump-help"])
        #expect(r.status == 0, "\(r.stderr)")
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout)) as? [String: Any])
        let command = try #require(doc["command"] as? [String: Any])
        let arguments = try #require(command["arguments"] as? [[String: Any]])
        var flags: [String] = []
        for a in arguments {
            let names = (a["names"] as? [[String: Any]] ?? []).filter { $0["kind"] as? String == "long" }.compactMap { $0["name"] as? String }
            for name in names.map({ $0.hasPrefix("no-") ? String($0.dropFirst(3)) : $0 }) where !flags.contains(name) {
                flags.append(name)
            }
        }
        return flags
    }

    /// stderr of `--check-config` on a file that gives each key path the value null: a known key passes (or
    /// gets a type error naming it); an unknown one gets "unknown config key". Twelve checks run at a time.
    static func probe(_ paths: [[String]], in dir: TemporaryDirectory) throws -> [String] {
        var results: [String] = []
        for start in stride(from: 0, to: paths.count, by: 12) {
            let batch = try paths[start..<min(start + 12, paths.count)].enumerated().map { offset, path -> (Process, String) in
                var json = "null"
                for part in path.reversed() { json = "{\"\(part)\": \(json)}" }
                let file = dir.url.appendingPathComponent("key\(start + offset).json").path
                try json.write(toFile: file, atomically: true, encoding: .utf8)
                let err = file + ".err"
                return (try TestProcess.start(DaemonPaths.scand, ["run", "--check-config", file], stderr: .file(err)), err)
            }
            for (p, err) in batch {
                p.waitUntilExit()
                results.append(daemonReadText(err))
            }
        }
        return results
    }

    @Test("settings defined once: `scand run` takes exactly the catalogue's flags, each with the catalogue's help")
    func runFlagsAreTheCatalogue() throws {
        let r = try ScandBinary.run(["run", "--experimental-dump-help"])
        #expect(r.status == 0, "\(r.stderr)")
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout)) as? [String: Any])
        let arguments = try #require((doc["command"] as? [String: Any])?["arguments"] as? [[String: Any]])
        var help: [String: String] = [:]
        for a in arguments {
            for name in (a["names"] as? [[String: Any]] ?? []).filter({ $0["kind"] as? String == "long" }) {
                guard let flag = name["name"] as? String else { continue }
                help[flag.hasPrefix("no-") ? String(flag.dropFirst(3)) : flag] = a["abstract"] as? String ?? ""
            }
        }
        let declared = Setting.all.filter { $0.flag != nil }
        let taken = Set(help.keys).subtracting(Self.notConfigKeys)
        let catalogue = Set(declared.compactMap(\.flag))
        #expect(taken == catalogue, "flags not declared: \(taken.subtracting(catalogue).sorted()); declared, not taken: \(catalogue.subtracting(taken).sorted())")
        for setting in declared {
            #expect(help[setting.flag ?? ""] == setting.help, "--\(setting.flag ?? "")")
        }
        // The settings without a flag are the few only a config file gives (none a user reaches for per run).
        #expect(Set(Setting.all.filter { $0.flag == nil }.map(\.key)) == ["socket.sendBuffer", "mqtt.queueBytes", "mqtt.inFlight", "mqtt.keepalive", "mqtt.connectTimeout", "mqtt.spoolSync"])
    }

    @Test("every flag of `scand run` is accepted as its camelCase config key (old names stay as aliases)")
    func everyRunFlagIsAConfigKey() throws {
        let flags = try Self.runFlags()
        #expect(flags.count > 80, "the dump lists run's flags: \(flags)")
        #expect(flags.contains("inverted") && flags.contains("mqtt-discovery") && flags.contains("focus-mode"))
        let dir = try TemporaryDirectory()
        let config = dir.url.appendingPathComponent("key.json").path
        // The keys the parser knows, top level and in each object: an unknown key's error lists them.
        let probes = try Self.probe([["zzzzzzzzzzzzzzzzzzzz"], ["socket", "zzzzzzzzzzzzzzzzzzzz"], ["presence", "zzzzzzzzzzzzzzzzzzzz"],
                                     ["mqtt", "zzzzzzzzzzzzzzzzzzzz"]], in: dir)
        let known = try probes.map { stderr -> Set<String> in
            let list = try #require(stderr.firstMatch(of: /known: ([^)]*)\)/)?.1, "no key list in: \(stderr)")
            return Set(list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        }
        let objects = ["socket": known[1], "presence": known[2], "mqtt": known[3]]
        let refused = flags.filter { !Self.notConfigKeys.contains($0) }.filter { flag in
            let path = Self.key(for: flag)
            return path.count == 1 ? !known[0].contains(path[0]) : !(objects[path[0]] ?? []).contains(path[1])
        }.map { "--\($0) → \(Self.key(for: $0).joined(separator: "."))" }
        #expect(refused.isEmpty, "flags whose config key the parser does not know: \(refused)")
        // A listed key is really read: null for it passes, where an unknown key is refused; the old names too.
        let old = [["inverted"], ["focusMode"], ["mqtt", "discoveryPrefix"], ["tryInverted"], ["code39FullASCII"], ["confirm1D"],
                   ["presence", "appearAfterFrames"], ["socket", "stallTimeout"]]
        for (path, stderr) in zip(old, try Self.probe(old, in: dir)) {
            #expect(!stderr.contains("unknown config key") && stderr.contains("valid configuration"), "\(path): \(stderr)")
        }
        try #"{"inverted": false, "tryInverted": true}"#.write(toFile: config, atomically: true, encoding: .utf8)
        let both = try ScandBinary.run(["run", "--check-config", config])
        #expect(both.status == 1 && both.stderr.contains("are the same setting"), "\(both.stderr)")
        // The plain-value forms reach the settings that run.
        try #"{"inverted": false, "socket": "/tmp/x.sock", "presence": {"appearAfter": 3}, "mqtt": "tcp://127.0.0.1:1883"}"#
            .write(toFile: config, atomically: true, encoding: .utf8)
        let r = try ScandBinary.run(["run", "--check-config", config])
        #expect(r.status == 0, "\(r.stderr)")
        let effective = try #require((try JSONSerialization.jsonObject(with: Data(r.stdout)) as? [String: Any])?["effective"] as? [String: Any])
        #expect(effective["tryInverted"] as? Bool == false && effective["socket.path"] as? String == "/tmp/x.sock")
        #expect(effective["presence.appearAfterFrames"] as? Int == 3 && effective["mqtt.url"] as? String == "mqtt://127.0.0.1:1883")
        try #"{"presence": false, "failFast": true, "focusMode": "locked", "device": "/dev/video-not-here-46"}"#
            .write(toFile: config, atomically: true, encoding: .utf8)
        let off = try ScandBinary.run(["run", "--check-config", config])
        let offSettings = (try JSONSerialization.jsonObject(with: Data(off.stdout)) as? [String: Any])?["effective"] as? [String: Any]
        #expect(off.status == 0 && offSettings?["presence.enabled"] as? Bool == false, "\(off.stderr)")
    }

    // MARK: --check-config and the paths it names

    @Test("--check-config: a missing input file is an error (exit 1), a missing device a warning (exit 0)")
    func checkConfigChecksNamedFilesAndDevices() throws {
        let dir = try TemporaryDirectory()
        let config = dir.url.appendingPathComponent("scand.json").path
        let missing = dir.url.appendingPathComponent("no-such-clip.y4m").path
        try #"{"input": "\#(missing)", "stdout": true}"#.write(toFile: config, atomically: true, encoding: .utf8)
        let bad = try ScandBinary.run(["run", "--check-config", config])
        #expect(bad.status == 1, "\(bad.stderr)")
        #expect(bad.stderr.contains("input '\(missing)' does not exist"), "\(bad.stderr)")
        #expect(bad.stdout.isEmpty)
        // An existing input passes.
        try #"{"input": "\#(DaemonPaths.kiosk)", "stdout": true}"#.write(toFile: config, atomically: true, encoding: .utf8)
        #expect(try ScandBinary.run(["run", "--check-config", config]).status == 0)
        // A camera that is not plugged in yet: valid, with a warning (scand waits for it).
        try #"{"device": "/dev/video-not-here-46", "stdout": true}"#.write(toFile: config, atomically: true, encoding: .utf8)
        let device = try ScandBinary.run(["run", "--check-config", config])
        #expect(device.status == 0, "\(device.stderr)")
        #expect(device.stderr.contains("warning: device '/dev/video-not-here-46' does not exist now"), "\(device.stderr)")
        #expect(device.stderr.contains("valid configuration"))
        // A token file that does not exist is an error too.
        try #"{"input": "\#(DaemonPaths.kiosk)", "http": "127.0.0.1:0", "httpToken": "\#(missing).token"}"#
            .write(toFile: config, atomically: true, encoding: .utf8)
        let token = try ScandBinary.run(["run", "--check-config", config])
        #expect(token.status == 1 && token.stderr.contains("httpToken '\(missing).token' does not exist"), "\(token.stderr)")
    }

    // MARK: SIGHUP → configuration

    @Test("a SIGHUP reload sends a configuration event naming the file and what changed, with a seq")
    func sighupSendsAConfigurationEvent() throws {
        let dir = DaemonPaths.tempDir("hupconfig")
        defer { DaemonPaths.remove(dir) }
        let sock = dir + "/s.sock", config = dir + "/scand.json"
        try #"{"types": ["qr"], "metadata": false}"#.write(toFile: config, atomically: true, encoding: .utf8)
        let d = try DaemonProcess(["run", "--config", config, "--input", DaemonPaths.kiosk, "--socket", sock, "--loop",
                                   "--log-level", "notice"], dir: dir)
        #expect(d.waitReady())
        let c = try DaemonSocketClient(path: sock)
        let hello = c.readLines(for: 1).lines.compactMap(DaemonEventLine.init).first { $0.event == "hello" }
        let events = hello?.object["events"] as? [String] ?? []
        #expect(events.contains("configuration"), "\(events)")
        try #"{"types": ["qr", "ean13"], "metadata": false, "scanDensity": 3, "presence": {"lostAfter": 2}}"#
            .write(toFile: config, atomically: true, encoding: .utf8)
        d.signal(SIGHUP)
        var lines: [DaemonEventLine] = []
        #expect(daemonEventually(10) {
            lines += c.readLines(for: 0.3).lines.compactMap(DaemonEventLine.init)
            return lines.contains { $0.event == "configuration" }
        }, "no configuration event: \(d.stderr)")
        let event = try #require(lines.first { $0.event == "configuration" })
        #expect(event.object["origin"] as? String == "reload" && event.object["config"] as? String == config)
        #expect(event.seq != nil && event.object["timestamp"] != nil)
        let changed = try #require(event.object["changed"] as? [String: Any], "\(event.object)")
        #expect(Set(changed.keys) == ["types", "scanDensity", "presence.lostAfter"], "\(changed)")
        #expect(changed["types"] as? [String] == ["ean13", "qr"] && changed["scanDensity"] as? Int == 3)
        #expect(changed["presence.lostAfter"] as? Double == 2)
        #expect(event.object["needsRestart"] == nil)
        // A second reload of the same file changes nothing, and says so.
        d.signal(SIGHUP)
        var again: [DaemonEventLine] = []
        #expect(daemonEventually(10) {
            again += c.readLines(for: 0.3).lines.compactMap(DaemonEventLine.init)
            return again.contains { $0.event == "configuration" }
        })
        #expect((again.first { $0.event == "configuration" }?.object["changed"] as? [String: Any])?.isEmpty == true)
        // A new CA file for network cameras is set once, at start: the reload says it needs a restart.
        try #"{"types": ["qr", "ean13"], "metadata": false, "scanDensity": 3, "presence": {"lostAfter": 2}, "cameraCa": "\#(config)"}"#
            .write(toFile: config, atomically: true, encoding: .utf8)
        d.signal(SIGHUP)
        var third: [DaemonEventLine] = []
        #expect(daemonEventually(10) {
            third += c.readLines(for: 0.3).lines.compactMap(DaemonEventLine.init)
            return third.contains { $0.event == "configuration" }
        })
        let restart = third.first { $0.event == "configuration" }?.object["needsRestart"] as? [String]
        #expect(restart == ["cameraCa"], "\(third.first { $0.event == "configuration" }?.object ?? [:])")
        #expect(d.terminate() == 0)
    }

    // MARK: /metrics

    @Test("/metrics: a HELP line for every family, scand_build_info with the versions, and scand_device_up")
    func metricsFollowPrometheusConventions() throws {
        let server = try HTTPTests.Server(token: false)
        #expect(daemonEventually(10) { ((try? server.client(["json", server.base + "/state"]))?["frame"] as? Int ?? -1) >= 0 })
        let families = try server.client(["families", server.base])
        #expect(families.count >= 10, "\(families.keys.sorted())")
        for (name, value) in families {
            let help = (value as? [String: Any])?["help"] as? String ?? ""
            #expect(!help.isEmpty, "no # HELP for \(name)")
        }
        let build = try #require(families["scand_build_info"] as? [String: Any], "\(families.keys.sorted())")
        let sample = try #require((build["samples"] as? [[String: Any]])?.first)
        let labels = sample["labels"] as? [String: String] ?? [:]
        #expect(sample["value"] as? Double == 1)
        let version = try ScandBinary.run(["--version"]).stdoutText
        for (label, library) in [("zbar", "zbar"), ("opencv", "OpenCV"), ("zxing", "zxing-cpp")] {
            let v = try #require(labels[label], "\(labels)")
            #expect(version.contains("\(library) \(v)"), "\(label)=\(v) not in --version: \(version)")
        }
        #expect(version.hasPrefix(labels["version"] ?? "?"), "version label \(labels) vs \(version)")
        #expect(Self.gauge(families, "scand_device_up") == 1, "a replaying file delivers frames")
    }

    @Test("/metrics: scand_device_up is 0 while the camera is absent (waiting)")
    func deviceUpIsZeroWhileWaiting() throws {
        let dir = DaemonPaths.tempDir("waitmetrics")
        defer { DaemonPaths.remove(dir) }
        let d = try DaemonProcess(["run", "--device", "/dev/video-not-here-46", "--http", "127.0.0.1:0", "--log-level", "notice"], dir: dir)
        defer { _ = d.terminate() }
        let port = { d.stderr.firstMatch(of: /port=(\d+) \[ScanHTTP\] http listening/).map { String($0.1) } }
        #expect(daemonEventually(20) { port() != nil }, "\(d.stderr)")
        let base = "http://127.0.0.1:\(port() ?? "0")"
        let out = try runTool(HTTPTests.python, [HTTPTests.fixtures + "/http_client.py", "families", base])
        let families = try #require(try JSONSerialization.jsonObject(with: out) as? [String: Any])
        #expect(Self.gauge(families, "scand_device_up") == 0)
    }

    static func gauge(_ families: [String: Any], _ name: String) -> Double? {
        ((families[name] as? [String: Any])?["samples"] as? [[String: Any]])?.first?["value"] as? Double
    }

    // MARK: never null

    /// The paths of every `null` in a parsed JSON value.
    static func nulls(_ value: Any, at path: String = "") -> [String] {
        if value is NSNull { return [path.isEmpty ? "(top)" : path] }
        if let d = value as? [String: Any] { return d.flatMap { nulls($0.value, at: path + "." + $0.key) } }
        if let a = value as? [Any] { return a.enumerated().flatMap { nulls($0.element, at: path + "[\($0.offset)]") } }
        return []
    }

    @Test("no JSON value is null: /state without MQTT, and every line of the socket and WebSocket streams")
    func noJSONValueIsNull() throws {
        let sockDir = DaemonPaths.tempDir("nullsock")
        defer { DaemonPaths.remove(sockDir) }
        let sock = sockDir + "/s.sock"
        let server = try HTTPTests.Server(token: false, extra: ["--socket", sock])
        let state = try server.client(["json", server.base + "/state"])
        #expect(Self.nulls(state).isEmpty, "/state: \(Self.nulls(state))")
        #expect(state["mqtt"] == nil, "without --mqtt, /state has no mqtt key")
        let c = try DaemonSocketClient(path: sock)
        c.send(#"{"poll":{}}"# + "\n")
        c.send(#"{"devices":{}}"# + "\n")
        c.send(#"{"subscribe":{}}"# + "\n")
        let lines = c.readLines(for: 3).lines
        #expect(lines.count > 10)
        for line in lines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
            #expect(Self.nulls(object).isEmpty, "null in \(line)")
        }
        let ws = try runTool(HTTPTests.python, [HTTPTests.fixtures + "/http_client.py", "ws", server.base, "-",
                                                #"{"poll":{}}"#, #"{"devices":{}}"#, #"{"subscribe":{}}"#])
        let wsLines = try #require(try JSONSerialization.jsonObject(with: ws) as? [String: Any])
        #expect(Self.nulls(wsLines).isEmpty, "WebSocket: \(Self.nulls(wsLines))")
        // And once the frame is there, /state again.
        let later = try server.client(["json", server.base + "/state"])
        #expect(Self.nulls(later).isEmpty && later["format"] != nil)
    }
}

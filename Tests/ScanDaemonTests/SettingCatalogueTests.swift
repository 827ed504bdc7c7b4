import Testing
import ScanCore
import ScanDaemon

/// Issue 48, settings defined once: the config reader accepts exactly the keys the `Setting` catalogue declares
/// (with their older names), in the objects it declares, and nothing else.
@Suite struct SettingCatalogueTests {
    /// The keys the reader knows in `object` (nil: the top level), from the list its unknown-key error gives.
    static func knownKeys(in object: String?) throws -> Set<String> {
        let probe = "zzzzzzzzzzzzzzzzzzzz"
        let text = object.map { #"{"\#($0)": {"\#(probe)": 1}}"# } ?? #"{"\#(probe)": 1}"#
        do {
            _ = try DaemonConfigFile.parse(Array(text.utf8), name: "probe.json")
        } catch {
            let message = "\(error)"
            let list = try #require(message.firstMatch(of: /known: ([^)]*)\)/)?.1, "\(message)")
            return Set(list.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) })
        }
        Issue.record("an unknown key in \(object ?? "the top level") was accepted")
        return []
    }

    @Test("every key and flag is declared once")
    func keysAndFlagsAreUnique() {
        let keys = Setting.all.flatMap { s in [s.key] + s.aliases.map { (s.section.map { $0 + "." } ?? "") + $0 } }
        #expect(Set(keys).count == keys.count, "a key declared twice: \(keys.sorted())")
        let flags = Setting.all.compactMap(\.flag)
        #expect(Set(flags).count == flags.count, "a flag declared twice: \(flags.sorted())")
        #expect(Setting.all.count > 100)
        #expect(Setting.all.allSatisfy { !$0.help.isEmpty })
    }

    @Test("the reader knows exactly the catalogue's keys, in each object")
    func readerKnowsExactlyTheCatalogue() throws {
        let sections = Set(Setting.all.compactMap(\.section))
        #expect(sections == ["socket", "presence", "mqtt"], "\(sections)")
        for object in [nil] + sections.sorted() {
            let declared = Set(Setting.all.filter { $0.section == object }.flatMap { [$0.name] + $0.aliases })
            let expected = object == nil ? declared.union(sections) : declared
            let known = try Self.knownKeys(in: object)
            #expect(known == expected, "\(object ?? "top level"): read but not declared \(known.subtracting(expected).sorted()); declared but not read \(expected.subtracting(known).sorted())")
        }
    }

    @Test("each declared key and older name is read (null passes, or is a type error naming it; never 'unknown')")
    func everyKeyIsRead() throws {
        for setting in Setting.all {
            for name in [setting.name] + setting.aliases {
                var json = "null"
                for part in ((setting.section.map { [$0] } ?? []) + [name]).reversed() { json = #"{"\#(part)": \#(json)}"# }
                do {
                    _ = try DaemonConfigFile.parse(Array(json.utf8), name: "t.json")
                } catch {
                    let message = "\(error)"
                    #expect(!message.contains("unknown") && message.contains("'\(setting.section.map { $0 + "." } ?? "")\(name)'"), "\(json): \(message)")
                }
            }
        }
    }

    @Test("a range error names the key in a file and the flag on the command line, from the catalogue")
    func rangeErrorsNameBoth() {
        var b = BarcodeConfiguration()
        b.scanDensity = 40
        #expect(throws: InvalidSetting(key: Setting.scanDensity.key, flag: "--scan-density", "must be 1...16, got 40")) {
            try b.validate()
        }
        #expect(throws: (any Error).self) { try DaemonConfigFile.parse(Array(#"{"presence": {"lostAfter": -1}}"#.utf8), name: "f.json") }
        do {
            _ = try DaemonConfigFile.parse(Array(#"{"presence": {"lostAfter": -1}}"#.utf8), name: "f.json")
        } catch {
            #expect("\(error)".contains("f.json:1:15: 'presence.lostAfter' must be 0...86400 seconds, got -1.0"), "\(error)")
        }
    }

    @Test("bounds: what an error says after 'must be', and the values each form takes")
    func boundsTextAndValues() {
        #expect("\(Bounds.range(1...16))" == "1...16")
        #expect("\(Bounds.range(120...8192, off: 0))" == "0 (off) or 120...8192")
        #expect("\(Bounds.range(0...1000, note: "(0: no cap)"))" == "0...1000 (0: no cap)")
        #expect("\(Bounds.range(0...86_400.0, unit: "seconds"))" == "0...86400 seconds")
        #expect("\(Bounds.above(0, atMost: 3600, unit: "seconds"))" == "more than 0 and at most 3600 seconds")
        #expect("\(Bounds.between(1, and: 2))" == "more than 1 and less than 2")
        #expect("\(Bounds.atLeast(4096))" == "at least 4096")
        #expect("\(Bounds.oneOf([0, 1, 2]))" == "0, 1 or 2")
        let off = Bounds.range(120...8192, off: 0)
        #expect(off.contains(0) && off.contains(120) && off.contains(8192) && !off.contains(1) && !off.contains(8193))
        let above = Bounds.above(0, atMost: 1000)
        #expect(!above.contains(0) && above.contains(0.001) && above.contains(1000) && !above.contains(1000.5))
        let between = Bounds.between(1, and: 2)
        #expect(!between.contains(1) && between.contains(1.5) && !between.contains(2))
        #expect(Bounds.atLeast(4096).contains(1e12) && !Bounds.atLeast(4096).contains(4095))
        #expect(Bounds.oneOf([0, 1, 2]).contains(1) && !Bounds.oneOf([0, 1, 2]).contains(1.5))
        // A value that is not finite is never inside.
        #expect(throws: InvalidSetting.self) { try Setting.lostAfter.check(Double.nan) }
        #expect(throws: InvalidSetting.self) { try Setting.faceGrace.check(Double.infinity) }
        #expect(throws: Never.self) { try Setting.streamQRLines.check(0) }
    }

    @Test("one range, three doors: the flag, the config file and the library type give the same bounds")
    func oneRangeEverywhere() throws {
        // The config file.
        do {
            _ = try DaemonConfigFile.parse(Array(#"{"mqtt": {"queue": 0}}"#.utf8), name: "m.json")
            Issue.record("mqtt.queue 0 was accepted")
        } catch {
            #expect("\(error)".hasSuffix("'mqtt.queue' must be 1...10000000, got 0"), "\(error)")
        }
        // The library type that the flags and the file both build.
        var p = PresenceConfiguration()
        p.cooldown = 90_000
        #expect(throws: InvalidSetting(Setting.cooldown, "must be 0...86400 seconds, got 90000.0")) { try p.validate() }
        #expect("\(InvalidSetting(Setting.cooldown, "x"))" == "--cooldown x")
    }
}

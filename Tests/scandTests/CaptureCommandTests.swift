import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Runs the built `scand` (next to the test bundle) with `arguments`; returns exit status, stdout, stderr.
private func runScand(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
    var buf = [CChar](repeating: 0, count: 4096)
    let n = readlink("/proc/self/exe", &buf, buf.count - 1)
    #expect(n > 0)
    let exe = String(decoding: buf.prefix(Int(n)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let dir = exe.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
    let binary = dir + "/scand"
    let tag = "\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
    let out = "/tmp/scand-capture-test-\(tag)-out", err = "/tmp/scand-capture-test-\(tag)-err"
    defer { unlink(out); unlink(err) }
    let quoted = ([binary] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
    let status = system("\(quoted) >\(out) 2>\(err)")
    func read(_ path: String) -> String {
        guard let f = fopen(path, "r") else { return "" }
        defer { fclose(f) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true { let k = fread(&chunk, 1, chunk.count, f); if k <= 0 { break }; bytes += chunk.prefix(k) }
        return String(decoding: bytes, as: UTF8.self)
    }
    return ((status >> 8) & 0xFF, read(out), read(err))
}

extension String {
    fileprivate func replacingOccurrences(of a: String, with b: String) -> String {
        split(separator: Character(a), omittingEmptySubsequences: false).joined(separator: b)
    }
}

@Suite struct CaptureCommandTests {
    @Test func missingDeviceFailsWithItsName() throws {
        let r = try runScand(["scan", "--device", "/dev/video-missing-9", "--duration", "1"])
        #expect(r.status == 2)
        #expect(r.stdout.isEmpty)
        #expect(r.stderr.contains("/dev/video-missing-9: no such device"))
    }

    @Test func captureOptionsAreValidated() throws {
        let both = try runScand(["scan", "--device", "/dev/video0", "--preset", "high", "--size", "640x480"])
        #expect(both.status == 64)
        #expect(both.stderr.contains("--preset or --size"))
        let badPreset = try runScand(["scan", "--device", "/dev/video0", "--preset", "ultra"])
        #expect(badPreset.status == 64)
        #expect(badPreset.stderr.contains("hd1280x720"))
        let badSize = try runScand(["scan", "--device", "/dev/video0", "--size", "big"])
        #expect(badSize.status == 64)
        let noDevice = try runScand(["scan", "--fps", "30", "x.png"])
        #expect(noDevice.status == 64)
        #expect(noDevice.stderr.contains("need --device"))
        let mixed = try runScand(["scan", "--device", "/dev/video0", "x.png"])
        #expect(mixed.status == 64)
    }

    @Test func devicesPrintsOnlyJSONLines() throws {
        let r = try runScand(["devices"])
        #expect(r.status == 0)
        for line in r.stdout.split(separator: "\n") {
            #expect(line.hasPrefix("{\"bus\":") && line.hasSuffix("}"))
        }
    }
}

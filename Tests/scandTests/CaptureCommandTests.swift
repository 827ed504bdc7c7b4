import Foundation
import Testing
import ScanTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Runs the built `scand` through the one test launcher; returns exit status, stdout, stderr.
private func runScand(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
    let r = try ScandBinary.run(arguments)
    return (r.status, r.stdoutText, r.stderr)
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

    @Test("run --device on an absent node reports waiting, serves its socket, and exits 0 on SIGTERM; --fail-fast exits 2")
    func runWaitsForAnAbsentDevice() throws {
        let failFast = try runScand(["run", "--device", "/dev/video-missing-9", "--stdout", "--fail-fast"])
        #expect(failFast.status == 2)
        #expect(failFast.stderr.contains("/dev/video-missing-9: no such device"))

        let dir = DaemonPaths.tempDir("wait")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let sock = dir + "/s.sock"
        let d = try DaemonProcess(["run", "--device", "/dev/video-missing-9", "--stdout", "--socket", sock, "--log-level", "notice"], dir: dir)
        #expect(d.waitReady())
        #expect(daemonEventually(10) { daemonReadText(d.stdoutPath).contains(#""kind":"waiting""#) })
        // Still running and serving: a client gets the banner and the device state.
        let fd = try connectUnixSocket(sock)
        defer { close(fd) }
        let request = Array(#"{"devices":{}}"#.utf8) + [10]
        #expect(write(fd, request, request.count) == request.count)
        var got: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 4096)
        _ = daemonEventually(10) {
            let n = read(fd, &buf, buf.count)
            if n > 0 { got += buf.prefix(n) }
            return String(decoding: got, as: UTF8.self).contains(#""state":"waiting""#) || n <= 0
        }
        #expect(String(decoding: got, as: UTF8.self).contains(#""state":"waiting""#), "\(String(decoding: got, as: UTF8.self))")
        #expect(d.process.isRunning)
        #expect(d.terminate() == 0)
        let lines = daemonReadText(d.stdoutPath).split(separator: "\n")
        #expect(lines.first?.contains(#""kind":"waiting""#) == true && lines.last?.contains(#""kind":"stopped""#) == true)
    }

    @Test func devicesPrintsOnlyJSONLines() throws {
        let r = try runScand(["devices"])
        #expect(r.status == 0)
        for line in r.stdout.split(separator: "\n") {
            #expect(line.hasPrefix("{\"bus\":") && line.hasSuffix("}"))
        }
    }
}

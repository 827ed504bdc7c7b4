import Foundation
import Testing
import ScanCore
@testable import ScanOutput
#if canImport(Glibc)
import Glibc
#endif

/// Two scands starting at once on a stale socket file (issue 52): exactly one serves the path; the other is
/// told another is serving it. Before, both could find the file stale, and the second removed the socket the
/// first had just bound (the first then listened on a name nobody could reach).
@Suite struct UnixSocketRaceTests {
    /// What the racing threads got, under a lock.
    final class Results: @unchecked Sendable {
        // Invariant for @unchecked Sendable: `items` is touched only under `lock`.
        private let lock = Lock()
        private var items: [Result<BoundSocket, any Error>] = []
        func withLock<T>(_ body: (inout [Result<BoundSocket, any Error>]) -> T) -> T { lock.withLock { body(&items) } }
    }

    /// A socket file nobody listens on (bound, then its descriptor closed without removing the file).
    static func makeStale(_ path: String) {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var addr = UnixSocketListener.address(path)
        _ = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        close(fd)
    }

    /// Whether a client connecting to `path` reaches the listening descriptor `fd` (it accepts the connection).
    static func reaches(_ path: String, listener fd: Int32) -> Bool {
        let c = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(c) }
        var addr = UnixSocketListener.address(path)
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(c, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard rc == 0 else { return false }
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        let a = accept(fd, nil, nil)
        _ = fcntl(fd, F_SETFL, flags)
        if a >= 0 { close(a) }
        return a >= 0
    }

    @Test func twoBindsRacingOnAStaleFileLeaveExactlyOneServing() throws {
        var template = Array("/tmp/scand-race-XXXXXX".utf8CString)
        let dir = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
        defer { unlink(dir + "/s.sock"); rmdir(dir) }
        let path = dir + "/s.sock"
        var orphaned = 0
        for _ in 0..<300 {
            Self.makeStale(path)
            let results = Results()
            let start = DispatchSemaphore(value: 0)
            let group = DispatchGroup()
            for _ in 0..<2 {
                group.enter()
                Thread {
                    start.wait()
                    let r = Result { try UnixSocketListener.bind(path: path) }
                    results.withLock { $0.append(r) }
                    group.leave()
                }.start()
            }
            start.signal(); start.signal()
            group.wait()
            let bound = results.withLock { $0 }.compactMap { try? $0.get() }
            let errors = results.withLock { $0 }.compactMap { r -> String? in
                if case .failure(let e) = r { return "\(e)" } else { return nil }
            }
            // Every one that says it serves the path must be reachable through it.
            orphaned += bound.filter { !Self.reaches(path, listener: $0.fd) }.count
            #expect(bound.count == 1, "\(bound.count) served, errors: \(errors)")
            #expect(errors.allSatisfy { $0.contains("already serving this socket") }, "\(errors)")
            for b in bound { close(b.fd) }
            unlink(path)
        }
        #expect(orphaned == 0, "\(orphaned) bind(s) listened on a socket file another had removed")
    }
}

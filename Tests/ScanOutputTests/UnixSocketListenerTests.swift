import Testing
@testable import ScanOutput
#if canImport(Glibc)
import Glibc
#endif

/// The socket file's ownership rules, on real files in a fresh directory.
@Suite struct UnixSocketListenerTests {
    /// A fresh short directory (socket paths are limited to 107 bytes), removed by `cleanUp`.
    func tempDir() -> String {
        var template = Array("/tmp/scand-usl-XXXXXX".utf8CString)
        return template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
    }

    func cleanUp(_ dir: String, _ names: [String]) {
        for n in names { unlink(dir + "/" + n) }
        rmdir(dir)
    }

    func writeFile(_ path: String, _ text: String, mode: mode_t = 0o600) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode)
        _ = text.withCString { write(fd, $0, strlen($0)) }
        close(fd)
    }

    func readFile(_ path: String) -> String {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return "" }
        defer { close(fd) }
        var buf = [UInt8](repeating: 0, count: 256)
        let n = read(fd, &buf, buf.count)
        return String(decoding: buf.prefix(max(0, n)), as: UTF8.self)
    }

    func mode(_ path: String) -> mode_t {
        var st = stat()
        return lstat(path, &st) == 0 ? st.st_mode & 0o7777 : 0
    }

    @Test func bindRecordsTheSocketFileAndRemovesOnlyItself() throws {
        let dir = tempDir()
        defer { cleanUp(dir, ["s.sock"]) }
        let path = dir + "/s.sock"
        let bound = try UnixSocketListener.bind(path: path)
        defer { close(bound.fd) }
        var st = stat()
        #expect(lstat(path, &st) == 0)
        #expect((st.st_mode & S_IFMT) == S_IFSOCK && st.st_mode & 0o7777 == 0o660)
        #expect(bound.device == UInt64(st.st_dev) && bound.inode == UInt64(st.st_ino))
        #expect(bound.path == path && bound.preparation == .fresh && bound.isStillOurs)
        #expect(bound.removeIfStillOurs() == .removed)
        #expect(access(path, F_OK) != 0)
        #expect(bound.removeIfStillOurs() == .alreadyGone)
    }

    @Test func aFileOrAnotherSocketPutAtThePathIsNeverRemoved() throws {
        let dir = tempDir()
        defer { cleanUp(dir, ["s.sock"]) }
        let path = dir + "/s.sock"
        let bound = try UnixSocketListener.bind(path: path)
        defer { close(bound.fd) }

        // A regular file in its place.
        #expect(unlink(path) == 0)
        writeFile(path, "someone else's")
        #expect(!bound.isStillOurs)
        #expect(bound.removeIfStillOurs() == .notOurs)
        #expect(readFile(path) == "someone else's")

        // Another listener's socket in its place (same path, new inode).
        #expect(unlink(path) == 0)
        let other = try UnixSocketListener.bind(path: path)
        defer { close(other.fd) }
        #expect(other.inode != bound.inode || other.device != bound.device)
        #expect(bound.removeIfStillOurs() == .notOurs)
        #expect(other.isStillOurs)
        #expect(other.removeIfStillOurs() == .removed)
    }

    @Test func permissionsAreNeverSetThroughASymlinkSwappedIn() throws {
        let dir = tempDir()
        defer { cleanUp(dir, ["s.sock", "target"]) }
        let path = dir + "/s.sock", target = dir + "/target"
        let bound = try UnixSocketListener.bind(path: path)
        defer { close(bound.fd) }
        // The race, made deterministic: after bind, the path becomes a symlink to a private file.
        writeFile(target, "secret", mode: 0o600)
        #expect(chmod(target, 0o600) == 0)
        #expect(unlink(path) == 0)
        #expect(symlink(target, path) == 0)
        #expect(throws: (any Error).self) {
            try UnixSocketListener.setPermissions(of: bound, group: "0", gid: 0, mode: 0o660)
        }
        #expect(mode(target) == 0o600, "chmod followed the symlink")
        #expect(bound.removeIfStillOurs() == .notOurs)
        #expect(readFile(target) == "secret")
    }

    @Test func modeIsNeverWiderThanGroupReadWrite() throws {
        let dir = tempDir()
        defer { cleanUp(dir, ["s.sock"]) }
        let path = dir + "/s.sock"
        let bound = try UnixSocketListener.bind(path: path, mode: 0o777)
        defer { close(bound.fd); bound.removeIfStillOurs() }
        #expect(mode(path) == 0o770)
    }
}

public import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The one way tests start child processes (scand, python, qrencode, jq, ffmpeg, mosquitto, shells…).
///
/// ``start(_:_:directory:environment:stdin:stdout:stderr:)`` starts one in the background;
/// ``wait(_:timeout:)`` bounds how long a test waits for it; ``run(_:_:stdin:directory:environment:)`` runs
/// one to the end and captures its output through temporary files (a chatty child never blocks on a full pipe).
public enum TestProcess {
    /// Where a child's standard input comes from.
    public enum Input {
        /// `/dev/null`.
        case null
        /// These bytes, then end of file (through an unlinked temporary file).
        case bytes([UInt8])
        /// The read end of a pipe the test writes to.
        case pipe(Pipe)
        /// An open file handle.
        case handle(FileHandle)
    }

    /// Where a child's standard output or error goes.
    public enum Output {
        /// The test process's own stream.
        case inherited
        /// `/dev/null`.
        case null
        /// A file at this path, created (or emptied) first.
        case file(String)
        /// The write end of a pipe the test reads.
        case pipe(Pipe)
        /// An open file handle (e.g. `/dev/full`, a file opened for appending, one end of a raw pipe).
        case handle(FileHandle)
    }

    /// Starts `executable` with `arguments` in `directory` (default: the test's), with `environment` (the
    /// whole environment; default: the test's) and the given standard streams.
    public static func start(_ executable: String, _ arguments: [String], directory: URL? = nil,
                             environment: [String: String]? = nil, stdin: Input = .null,
                             stdout: Output = .null, stderr: Output = .null) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        if let directory { p.currentDirectoryURL = directory }
        if let environment { p.environment = environment }
        p.standardInput = try stdin.attached()
        if let out = try stdout.attached() { p.standardOutput = out }
        if let err = try stderr.attached() { p.standardError = err }
        try p.run()
        return p
    }

    /// The test's own environment with `changes` applied.
    public static func environment(adding changes: [String: String]) -> [String: String] {
        ProcessInfo.processInfo.environment.merging(changes) { _, new in new }
    }

    /// Waits for `p` to exit, up to `timeout` seconds; kills it (SIGKILL) after that. Returns the exit
    /// status, or nil when it had to be killed.
    @discardableResult
    public static func wait(_ p: Process, timeout: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while p.isRunning && Date() < deadline { usleep(20_000) }
        if p.isRunning { kill(p.processIdentifier, SIGKILL); p.waitUntilExit(); return nil }
        return p.terminationStatus
    }

    /// What a run to the end produced.
    public struct Captured: Sendable {
        public var status: Int32
        public var stdout: [UInt8]
        public var stderr: String
    }

    /// Runs `executable` to the end, `stdin` fed to it (nil: `/dev/null`), and returns its status and output.
    public static func run(_ executable: String, _ arguments: [String], stdin: [UInt8]? = nil, directory: URL? = nil,
                           environment: [String: String]? = nil) throws -> Captured {
        let dir = try TemporaryDirectory()
        let outPath = dir.url.appendingPathComponent("stdout").path, errPath = dir.url.appendingPathComponent("stderr").path
        let p = try start(executable, arguments, directory: directory, environment: environment,
                          stdin: stdin.map { .bytes($0) } ?? .null, stdout: .file(outPath), stderr: .file(errPath))
        p.waitUntilExit()
        return Captured(status: p.terminationStatus, stdout: [UInt8](try Data(contentsOf: URL(fileURLWithPath: outPath))),
                        stderr: String(decoding: try Data(contentsOf: URL(fileURLWithPath: errPath)), as: UTF8.self))
    }
}

extension TestProcess.Input {
    func attached() throws -> Any {
        switch self {
        case .null: return FileHandle.nullDevice
        case .bytes(let bytes):
            let dir = try TemporaryDirectory()
            let url = dir.url.appendingPathComponent("stdin")
            try Data(bytes).write(to: url)
            return try FileHandle(forReadingFrom: url) // stays readable once the directory is removed
        case .pipe(let pipe): return pipe
        case .handle(let handle): return handle
        }
    }
}

extension TestProcess.Output {
    func attached() throws -> Any? {
        switch self {
        case .inherited: return nil
        case .null: return FileHandle.nullDevice
        case .file(let path):
            _ = FileManager.default.createFile(atPath: path, contents: nil)
            return try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        case .pipe(let pipe): return pipe
        case .handle(let handle): return handle
        }
    }
}

public import Foundation

/// Runs the built `scand` binary as a user would. Shared by every suite that runs it.
///
/// The binary is found, in order: `$SCAND_BINARY`; next to the test bundle (SwiftPM puts
/// `scandPackageTests.xctest` and `scand` in the same `.build/<triple>/<configuration>` directory);
/// `<package>/.build/debug/scand`.
public enum ScandBinary {
    public struct NotFound: Error, CustomStringConvertible {
        public var tried: [String]
        public var description: String { "scand binary not found (run 'swift build'); tried: \(tried.joined(separator: ", "))" }
    }

    /// The path of the built `scand` executable.
    public static func path() throws -> String {
        var candidates: [String] = []
        if let env = ProcessInfo.processInfo.environment["SCAND_BINARY"], !env.isEmpty { candidates.append(env) }
        for start in [CommandLine.arguments.first, Bundle.main.executablePath].compactMap({ $0 }) {
            var dir = URL(fileURLWithPath: start).deletingLastPathComponent()
            for _ in 0..<4 {
                candidates.append(dir.appendingPathComponent("scand").path)
                dir = dir.deletingLastPathComponent()
            }
        }
        candidates.append(Fixtures.repositoryRoot.appendingPathComponent(".build/debug/scand").path)
        var isDirectory: ObjCBool = false
        for c in candidates where FileManager.default.isExecutableFile(atPath: c)
            && FileManager.default.fileExists(atPath: c, isDirectory: &isDirectory) && !isDirectory.boolValue {
            return c
        }
        throw NotFound(tried: candidates)
    }

    /// The binary's URL; stops the test run with a clear message when it was not built.
    public static var url: URL {
        do { return URL(fileURLWithPath: try path()) } catch { preconditionFailure("\(error)") }
    }

    /// What one run produced.
    public struct Result: Sendable {
        public var status: Int32
        public var stdout: [UInt8]
        public var stderr: String
        public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
        /// stdout split into lines (without the trailing empty one).
        public var lines: [String] {
            stdoutText.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        }
        /// Every stdout line parsed as a JSON object; throws if a line is not one.
        public func jsonLines() throws -> [[String: Any]] {
            try lines.map { line in
                guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                    throw CocoaError(.coderReadCorrupt, userInfo: [NSDebugDescriptionErrorKey: "not a JSON object: \(line)"])
                }
                return object
            }
        }
    }

    /// Runs scand with `arguments` in `directory` (default: the fixtures folder), stdin from `stdin` (or empty),
    /// and waits for it to exit. stdout and stderr go through temporary files, so a chatty child can never
    /// block on a full pipe.
    ///
    /// `prefix` runs scand under another command (e.g. `["/usr/bin/time", "-o", FILE, "prlimit", "--cpu=60"]`):
    /// its first element is the program, and scand's path and `arguments` follow the rest.
    public static func run(_ arguments: [String], stdin: [UInt8]? = nil, directory: URL? = nil,
                           environment: [String: String]? = nil, prefix: [String] = []) throws -> Result {
        let command = prefix.isEmpty ? [url.path] + arguments : prefix + [url.path] + arguments
        let r = try TestProcess.run(command[0], Array(command.dropFirst()), stdin: stdin,
                                    directory: directory ?? Fixtures.directory, environment: environment)
        return Result(status: r.status, stdout: r.stdout, stderr: r.stderr)
    }
}

/// A fresh directory under the system temporary directory, removed when the value is released.
public final class TemporaryDirectory {
    public let url: URL
    public init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("scand-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: url) }

    /// Creates an empty file at `file` and opens it for writing.
    public func emptyFile(_ file: URL) throws -> FileHandle {
        try Data().write(to: file)
        return try FileHandle(forWritingTo: file)
    }
}

/// Runs an external tool (qrencode, python3, …) and returns its stdout; throws with its stderr on failure.
public func runTool(_ executable: String, _ arguments: [String]) throws -> Data {
    struct ToolFailed: Error, CustomStringConvertible { var description: String }
    let r = try TestProcess.run(executable, arguments)
    guard r.status == 0 else {
        throw ToolFailed(description: "\(executable) \(arguments.joined(separator: " ")) exited \(r.status): \(r.stderr)")
    }
    return Data(r.stdout)
}

import Foundation
import Testing

/// Runs the built `scand` binary as a user would. Reusable by every scandTests suite.
///
/// The binary is found, in order: `$SCAND_BINARY`; next to the test bundle (SwiftPM puts
/// `scandPackageTests.xctest` and `scand` in the same `.build/<triple>/<configuration>` directory);
/// `<package>/.build/debug/scand`, walking up from this source file.
enum ScandBinary {
    struct NotFound: Error, CustomStringConvertible {
        var tried: [String]
        var description: String { "scand binary not found (run 'swift build'); tried: \(tried.joined(separator: ", "))" }
    }

    /// The path of the built `scand` executable.
    static func path() throws -> String {
        var candidates: [String] = []
        if let env = ProcessInfo.processInfo.environment["SCAND_BINARY"], !env.isEmpty { candidates.append(env) }
        for start in [CommandLine.arguments.first, Bundle.main.executablePath, Bundle.main.bundlePath].compactMap({ $0 }) {
            var dir = URL(fileURLWithPath: start).deletingLastPathComponent()
            // The bundle may be a directory (`….xctest/Contents/MacOS/…` on macOS): look a few levels up.
            for _ in 0..<4 {
                candidates.append(dir.appendingPathComponent("scand").path)
                dir = dir.deletingLastPathComponent()
            }
        }
        var dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        for _ in 0..<4 {
            candidates.append(dir.appendingPathComponent(".build/debug/scand").path)
            dir = dir.deletingLastPathComponent()
        }
        var isDirectory: ObjCBool = false
        for c in candidates where FileManager.default.isExecutableFile(atPath: c)
            && FileManager.default.fileExists(atPath: c, isDirectory: &isDirectory) && !isDirectory.boolValue {
            return c
        }
        throw NotFound(tried: candidates)
    }

    /// What one run produced.
    struct Result {
        var status: Int32
        var stdout: Data
        var stderr: String

        /// stdout split into lines, each parsed as a JSON object.
        func jsonLines() throws -> [[String: Any]] {
            try String(decoding: stdout, as: UTF8.self).split(separator: "\n").map { line in
                guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                    throw CocoaError(.coderReadCorrupt, userInfo: [NSDebugDescriptionErrorKey: "not a JSON object: \(line)"])
                }
                return object
            }
        }
    }

    /// Runs `scand` with `arguments`, stdin from `stdin` (or empty), and waits for it to exit.
    /// stdout and stderr go through temporary files, so a chatty child can never block on a full pipe.
    static func run(_ arguments: [String], stdin: Data? = nil) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try path())
        process.arguments = arguments
        let dir = try TemporaryDirectory()
        let outURL = dir.url.appendingPathComponent("stdout"), errURL = dir.url.appendingPathComponent("stderr")
        let out = try dir.emptyFile(outURL), err = try dir.emptyFile(errURL)
        defer { try? out.close(); try? err.close() }
        process.standardOutput = out
        process.standardError = err
        if let stdin {
            let inURL = dir.url.appendingPathComponent("stdin")
            try stdin.write(to: inURL)
            process.standardInput = try FileHandle(forReadingFrom: inURL)
        } else {
            process.standardInput = FileHandle.nullDevice
        }
        try process.run()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: try Data(contentsOf: outURL),
                      stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
    }
}

/// A fresh directory under the system temporary directory, removed when the value is released.
final class TemporaryDirectory {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("scand-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: url) }

    /// Creates an empty file at `file` and opens it for writing.
    func emptyFile(_ file: URL) throws -> FileHandle {
        try Data().write(to: file)
        return try FileHandle(forWritingTo: file)
    }
}

/// Runs an external tool (qrencode, python3, …) and returns its stdout; fails with its stderr.
func runTool(_ executable: String, _ arguments: [String]) throws -> Data {
    struct ToolFailed: Error, CustomStringConvertible { var description: String }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let dir = try TemporaryDirectory()
    let outURL = dir.url.appendingPathComponent("out"), errURL = dir.url.appendingPathComponent("err")
    let out = try dir.emptyFile(outURL), err = try dir.emptyFile(errURL)
    defer { try? out.close(); try? err.close() }
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    let stdout = try Data(contentsOf: outURL)
    guard process.terminationStatus == 0 else {
        let stderr = String(decoding: try Data(contentsOf: errURL), as: UTF8.self)
        throw ToolFailed(description: "\(executable) \(arguments.joined(separator: " ")) exited \(process.terminationStatus): \(stderr)")
    }
    return stdout
}
